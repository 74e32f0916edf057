"""The console's conversation: the bot's commands and answers as text, over `bot.answers` as
the Telegram handlers are; its buttons are typed (/next, /prev, /save, /remove, /dismiss,
/unfollow)."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Protocol, TypeVar

from bot import answers, render
from bot.commands import COMMAND_NAMES, CONSOLE_COMMANDS, command
from bot.config import DEFAULT_RESULTS_PER_PAGE
from bot.corpus import parse_paper_command
from bot.i18n import Translator, language_named, translator
from bot.logs import redact
from bot.planner import Programme
from bot.render import Doc, Segment, reading_list
from bot.search import Retriever
from bot.store import Store, StoreOpenError, StoreUnavailable, topic_key

CONSOLE_USER_ID = 0  # Telegram user ids are positive: the console's user is nobody's
T = TypeVar("T")


class StoreAccess(Protocol):
    """Runs `work` on the console user's store (`bot.cli.console.LazyStore`)."""

    def __call__(self, work: Callable[[Store], Awaitable[T]]) -> T: ...


@dataclass
class ConsoleSession:
    """One terminal conversation over `index`, in the language `t`. `store` keeps the user's
    data (None: saving is refused); `zone` is the /timezone chosen this session ("" for the
    venue's clock). For the typed buttons: `turn` pages the last answer (1 for /next, -1 for
    /prev), `shown` holds the papers it numbered, `recommended_at` its /recommend offset."""

    index: Retriever
    per_page: int = DEFAULT_RESULTS_PER_PAGE
    t: Translator = field(default_factory=lambda: translator("en"))
    store: StoreAccess | None = None
    loaded_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    skipped: int = 0
    sources: int | None = None
    export_dir: Path = Path()
    turn: Callable[[int], Doc] | None = None
    shown: answers.Numbered = ()
    recommended_at: int | None = None
    facts: answers.FactsMemo = field(default_factory=answers.FactsMemo)
    zone: str = ""

    def answer(self, line: str) -> Doc | None:
        """The answer to one input line, as a Doc; None for a blank line."""
        text = line.strip()
        if not text:
            return None
        if not text.startswith("/"):
            return ANSWERS["search"](self, text)
        shortcut = parse_paper_command(text)
        if shortcut is not None:
            return ANSWERS["paper"](self, shortcut[0])
        name, _, argument = text[1:].partition(" ")
        name, argument = name.split("@", 1)[0].lower(), argument.strip()
        if name not in ANSWERS:
            return render.unknown_command_doc(t=self.t)
        if name in COMMAND_NAMES and command(name).takes_argument and not argument:
            return render.usage_doc(name, t=self.t)
        try:
            return ANSWERS[name](self, argument)
        except StoreOpenError as exc:
            print(self.t.gettext("console.cannot_start", error=redact(str(exc))), file=sys.stderr)
        except StoreUnavailable:
            pass
        return render.text_doc("list.save_failed", t=self.t)  # the same "try again" as the bot's

    def programme(self) -> Programme:
        """The corpus's conference programme (falsy without one)."""
        return self.facts.of(self.index).programme

    def _shown(self, answer: answers.Answer) -> Doc:
        """`answer`'s doc; its papers become what /save numbers, its pages what /next turns."""
        self.recommended_at = None
        if answer.papers:
            self.shown = answer.papers
        if (turn := answer.turn) is not None:  # a page the answer knows how to turn
            self.turn = lambda way: self._shown(turn(way))
        if answer.result is None:
            return answer.doc
        if answer.result.hits:
            query, at = answer.result.query, answer.result.offset
            self.turn = lambda way: self._page(query, max(0, at + way * self.per_page))
        turns = render.typed_turns(answer.result, t=self.t)
        return Doc((*answer.doc.blocks, turns), answer.doc.keyboard) if turns else answer.doc

    def _lang(self, argument: str) -> Doc:
        """/lang lists the codes (no buttons here); `/lang <code>` switches."""
        chosen = language_named(argument) if argument else None
        if chosen is None:
            return render.lang_codes_doc(t=self.t)
        self.t = translator(chosen)
        return render.lang_changed_doc(t=self.t)

    def _timezone(self, argument: str) -> Doc:
        """/timezone: this session's clock."""
        now = datetime.now(UTC)
        doc, self.zone = answers.timezone_answer(self.zone, argument, now=now, t=self.t)
        return doc

    def _saved(self, words: str) -> Doc:
        if words:  # `/saved <words>`: the saved papers ranked against them
            rows = self._stored(lambda store: store.export_rows(CONSOLE_USER_ID))
            return self._shown(answers.saved_matches(self.index, rows, words, t=self.t))
        first = partial(answers.saved_page, offset=0, per_page=self.per_page, t=self.t)
        return self._stored(lambda store: first(store, self.index, CONSOLE_USER_ID))

    def _recommend(self, offset: int) -> Doc:
        """Recommendations from `offset`; /next, /prev and /dismiss N then act on them."""
        taste = self._stored(lambda store: answers.taste(store, CONSOLE_USER_ID))
        size = self.per_page
        found = answers.recommended(self.index, taste, offset=offset, per_page=size, t=self.t)
        if not found.papers:
            return found.doc
        self.shown, self.recommended_at = found.papers, offset
        self.turn = lambda way: self._recommend(max(0, offset + way * self.per_page))
        line = render.translated(self.t, "console.recommend_more")
        return Doc((*found.doc.blocks, line), found.doc.keyboard)

    def _export(self, argument: str) -> Doc:
        fmt = answers.export_format(argument)
        if fmt is None:
            return render.text_doc("export.usage", t=self.t)
        rows = self._stored(lambda store: store.export_rows(CONSOLE_USER_ID))
        exported = answers.export_file(rows, fmt, index=self.index, now=datetime.now(UTC), t=self.t)
        if isinstance(exported, Doc):  # nothing to write
            return exported
        (path := self.export_dir / exported.filename).write_bytes(exported.data)
        return render.said_doc(str(path.resolve()))

    def _forget(self, argument: str) -> Doc:
        if argument.lower() != "yes":  # no buttons here: confirm by typing
            prompt = reading_list.forget_prompt_doc(t=self.t).blocks
            return Doc((*prompt, (Segment("/forget yes"),)))
        self._stored(lambda store: answers.forget(store, CONSOLE_USER_ID))
        self.zone = ""
        return render.text_doc("forget.done", t=self.t)

    # ------------------------------------------------------------ typed buttons

    def _turn(self, way: int) -> Doc:
        """/next (`way` 1) or /prev (-1): the next or previous page of the last paged answer."""
        return self.turn(way) if self.turn else render.text_doc("console.nothing_to_page", t=self.t)

    def _page(self, query: str, offset: int) -> Doc:
        page = answers.page(self.index, query, offset=offset, per_page=self.per_page, t=self.t)
        return self._shown(page)

    def _save(self, argument: str) -> Doc:
        paper = self.index.get(self._paper_id(argument) or "")
        if paper is None:
            return self._which("save", argument)
        return render.said_doc(self._mine(answers.save, paper).text)

    def _remove(self, argument: str) -> Doc:
        paper_id = self._paper_id(argument)
        if paper_id is None:
            return self._which("remove", argument)
        return render.said_doc(self._mine(answers.remove, paper_id).text)

    def _dismiss(self, argument: str) -> Doc:
        at = self.recommended_at
        paper_id = self._paper_id(argument) if at is not None and argument.isdigit() else None
        if at is None or paper_id is None:
            return render.text_doc("console.which_paper", t=self.t, command="dismiss")
        return render.said_doc(self._mine(answers.dismiss, paper_id), self._recommend(at))

    def _unfollow(self, argument: str) -> Doc:
        topics = self._stored(lambda store: store.topics(CONSOLE_USER_ID))
        if not argument.isdigit() or not 1 <= int(argument) <= len(topics):
            return render.text_doc("console.which_topic", t=self.t)
        ref = render.topic_ref(topic_key(topics[int(argument) - 1]))
        return render.said_doc(*self._mine(answers.unfollow, ref))

    def _paper_id(self, argument: str) -> str | None:
        """The paper `/save 2` or `/save <id>` means: a number shown last, else an id."""
        if argument.isdigit():
            for number, paper_id in self.shown:
                if number == int(argument):
                    return paper_id
        if len(self.shown) == 1 and self.shown[0][0] is None and not argument:
            return self.shown[0][1]  # a card: `/save` alone keeps the paper shown
        return argument or None

    def _which(self, name: str, argument: str) -> Doc:
        if argument and not argument.isdigit():
            return render.not_found_doc(argument, t=self.t)
        return render.text_doc("console.which_paper", t=self.t, command=name)

    def _week(self) -> answers.Week:
        return self._stored(lambda store: answers.week_of(store, self.index, CONSOLE_USER_ID))

    def _mine(self, work: Callable[..., Awaitable[T]], *args: object) -> T:
        """`work(store, CONSOLE_USER_ID, *args, t=...)`: an answer over the user's data."""
        return self._stored(lambda store: work(store, CONSOLE_USER_ID, *args, t=self.t))

    def _stored(self, work: Callable[[Store], Awaitable[T]]) -> T:
        """`work` on the store; StoreUnavailable without one, StoreOpenError if it won't open."""
        if self.store is None:
            raise StoreUnavailable("no store")
        return self.store(work)


ANSWERS: dict[str, Callable[[ConsoleSession, str], Doc]] = {
    "start": lambda s, _: answers.start(s.index, s.facts.of(s.index), t=s.t),
    "help": lambda s, _: answers.help_text(s.index, s.facts.of(s.index), t=s.t, console=True),
    "search": lambda s, q: s._shown(answers.ask(s.index, q, per_page=s.per_page, t=s.t)),
    "paper": lambda s, ref: s._shown(answers.open_paper(s.index, ref, t=s.t, mine=s.zone)),
    "similar": lambda s, ref: s._shown(answers.similar(s.index, ref, per_page=s.per_page, t=s.t)),
    "author": lambda s, name: answers.author(s.index, name, t=s.t).doc,
    "random": lambda s, _: s._shown(answers.random_paper(s.index, t=s.t, mine=s.zone)),
    "session": lambda s, q: s._shown(answers.session(s.programme(), q, t=s.t, typed=True)),
    "stats": lambda s, _: answers.stats(
        s.index,
        sources=s.sources,
        skipped=s.skipped,
        loaded_at=s.loaded_at,
        t=s.t,
        facts=s.facts.of(s.index),
    ),
    "lang": ConsoleSession._lang,
    "saved": ConsoleSession._saved,
    "recommend": lambda s, _: s._recommend(0),
    "export": ConsoleSession._export,
    "schedule": lambda s, _: answers.schedule_page(
        s._week().saved, per_page=None, t=s.t, mine=s.zone
    ),
    "now": lambda s, _: answers.now_page(s.programme(), s.index, s._week(), t=s.t, mine=s.zone),
    "remind": lambda s, _: render.text_doc("remind.console", t=s.t),  # Telegram messages
    "timezone": ConsoleSession._timezone,
    "follow": lambda s, topic: s._mine(answers.follow, topic),
    "following": lambda s, _: s._mine(answers.following),
    "forget": ConsoleSession._forget,
    # Typed stand-ins for Telegram's buttons (console-only commands)
    "next": lambda s, _: s._turn(+1),
    "prev": lambda s, _: s._turn(-1),
    "save": ConsoleSession._save,
    "remove": ConsoleSession._remove,
    "dismiss": ConsoleSession._dismiss,
    "unfollow": ConsoleSession._unfollow,
}

_CONSOLE_NAMES = frozenset(c.name for c in CONSOLE_COMMANDS) - {"quit"}  # quit ends the loop
if set(ANSWERS) != COMMAND_NAMES | _CONSOLE_NAMES:  # a real check at import, not an assert
    raise RuntimeError(f"console answers {sorted(ANSWERS)} != the registry's commands")
