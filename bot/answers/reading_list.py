"""What a user keeps: save and remove, the reading list, export, topics, forget."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from bot import render
from bot.answers.questions import Answer, numbered, results
from bot.corpus import Paper
from bot.i18n import Translator
from bot.planner import CALENDAR_FORMAT, calendar_file, entries_of
from bot.render import (
    EXPORT_FORMATS,
    MAX_CALLBACK_ANSWER_CHARS,
    Doc,
    fitted,
    paper_ref,
    reading_list,
    text_doc,
    topic_ref,
    translated,
)
from bot.search import Index, Retriever
from bot.store import (
    SavedPaper,
    SaveOutcome,
    Store,
    export_text,
    normalize_topic,
    snapshot,
    topic_key,
)
from bot.textutil import clean, clip_words


@dataclass(frozen=True, slots=True)
class Toggled:
    """What a save or remove did: the acknowledgement, and whether the paper is now saved."""

    text: str
    saved: bool


@dataclass(frozen=True, slots=True)
class ExportFile:
    """A reading list as a file to send or write."""

    filename: str
    data: bytes
    caption: str


async def save(store: Store, user_id: int, paper: Paper, *, t: Translator) -> Toggled:
    """Save `paper` for `user_id` (a snapshot, so the list outlives corpus changes)."""
    outcome = await store.save(user_id, snapshot(paper))
    if outcome is SaveOutcome.LIMIT_REACHED:
        limit = store.limits.max_saved
        return Toggled(t.ngettext("list.full", limit, limit=limit), False)
    key = "list.saved" if outcome is SaveOutcome.SAVED else "list.already_saved"
    return Toggled(t.gettext(key), True)


async def remove(store: Store, user_id: int, paper_id: str | None, *, t: Translator) -> Toggled:
    """Remove `paper_id` (None: a ref nothing matches) from the user's list."""
    removed = paper_id is not None and await store.remove(user_id, paper_id)
    return Toggled(t.gettext("list.removed" if removed else "list.not_saved"), False)


async def saved_id(store: Store, user_id: int, ref: str, *, in_index: str | None) -> str | None:
    """The id of the user's saved paper behind a button `ref`, even one no longer served."""
    if not ref.startswith("#"):
        return ref
    if in_index is not None:
        return in_index
    rows = await store.export_rows(user_id)
    return next((row.paper_id for row in rows if paper_ref(row.paper_id) == ref), None)


async def saved_page(
    store: Store, index: Retriever, user_id: int, *, offset: int, per_page: int, t: Translator
) -> Doc:
    """A page of the reading list, newest first; a shrunk list shows its last page."""
    total = await store.count_saved(user_id)
    offset = min(offset, max(0, (total - 1) // per_page * per_page))
    papers = await store.list_saved(user_id, offset=offset, limit=per_page)
    in_corpus = frozenset(p.paper_id for p in papers if index.get(p.paper_id) is not None)
    return reading_list.saved_doc(
        papers, total=total, offset=offset, per_page=per_page, in_corpus=in_corpus, t=t
    )


SAVED_MATCHES = 10  # saved papers `/saved <words>` shows, best first


def saved_matches(
    index: Retriever, rows: Sequence[SavedPaper], words: str, *, t: Translator
) -> Answer:
    """The user's saved papers ranked against `words` on a small index of their own (CPU work)."""
    if not rows:
        return Answer(text_doc("list.empty", t=t))
    papers = [_as_paper(row, index.get(row.paper_id)) for row in rows]
    result = results(Index.build(papers), words, limit=SAVED_MATCHES)
    if not result.hits or not result.confident:
        query = clip_words(clean(words), 200)
        return Answer(text_doc("list.search_none", query=query, t=t))
    doc = render.results_doc(result, per_page=SAVED_MATCHES, t=t)
    header = translated(t, "list.search_header", len(rows))
    # Pages would search the whole corpus: the best ten, without page buttons.
    paged = result.total > SAVED_MATCHES  # the last block is then "page 1 of N"
    shown = Doc((header, *(doc.blocks[:-1] if paged else doc.blocks)), single_message=True)
    return Answer(shown, numbered(result.hits), result)


def _as_paper(row: SavedPaper, current: Paper | None) -> Paper:
    """A saved snapshot as a paper to rank: the corpus's text when the paper is still there."""
    if current is not None:
        return current
    return Paper(
        id=row.paper_id,
        title=row.title,
        abstract="",
        authors=row.authors,
        venue=row.venue,
        year=row.year,
        links=(("Page", row.url),) if row.url else (),
    )


def export_format(argument: str) -> str | None:
    """The format `/export <argument>` asks for ("bib", ".MD", "ics"…), None if it names none."""
    fmt = argument.lower().lstrip(".")
    return fmt if fmt in EXPORT_FORMATS else None


def export_file(
    rows: Sequence[SavedPaper], fmt: str, *, index: Retriever, now: datetime, t: Translator
) -> ExportFile | Doc:
    """The reading list as a `fmt` file, or what to say instead (CPU work)."""
    if not rows:
        return text_doc("export.empty", t=t)
    if fmt == CALENDAR_FORMAT:
        return _calendar([p for row in rows if (p := index.get(row.paper_id)) is not None], now, t)
    return ExportFile(
        reading_list.export_filename(fmt),
        export_text(rows, fmt).encode("utf-8"),
        t.ngettext("export.caption", len(rows)),
    )


def _calendar(papers: Sequence[Paper], now: datetime, t: Translator) -> ExportFile | Doc:
    """The `.ics` of `papers`' timed presentations (stamped `now`), in `t`'s words."""
    events = sum(1 for paper in papers for entry in entries_of(paper) if entry.start is not None)
    if not events:
        return text_doc("export.no_times", t=t)
    labels = {kind: render.kind_label(kind, t) for kind in ("poster", "oral")}
    name = t.gettext("export.calendar_name")
    return ExportFile(
        reading_list.export_filename(CALENDAR_FORMAT),
        calendar_file(papers, now=now, name=name, labels=labels),
        t.ngettext("export.calendar_caption", events),
    )


async def follow(store: Store, user_id: int, topic: str, *, t: Translator) -> Doc:
    """Keep a standing question; new matching papers are sent after a reload."""
    outcome = await store.follow(user_id, topic)
    return reading_list.follow_doc(outcome, normalize_topic(topic), store.limits, t=t)


async def following(store: Store, user_id: int, *, t: Translator) -> Doc:
    """The user's topics, one Unfollow button each."""
    return reading_list.following_doc(await store.topics(user_id), t=t)


async def unfollow(
    store: Store, user_id: int, ref: str, *, t: Translator
) -> tuple[str, Doc | None]:
    """Stop following the topic behind `ref`: the acknowledgement, and the list left (if any)."""
    topics = await store.topics(user_id)
    topic = next((one for one in topics if topic_ref(topic_key(one)) == ref), None)
    if topic is None or not await store.unfollow(user_id, topic):
        return t.gettext("follow.not_following"), None
    # A toast: a long topic is clipped so the sentence fits.
    removed = fitted(t, "follow.removed", MAX_CALLBACK_ANSWER_CHARS, topic=topic)
    return removed, await following(store, user_id, t=t)


async def forget(store: Store, user_id: int) -> None:
    """Delete everything stored about the user."""
    await store.forget_user(user_id)
