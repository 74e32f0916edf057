"""/session: a session's pages, or the answer to a query naming several sessions or none."""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import Translator
from bot.planner import Entry, Programme, Session
from bot.render import limits
from bot.render.blocks import EN, checked_keyboard, paging, translated
from bot.render.callbacks import SessionPage, encode, session_ref
from bot.render.doc import Block, Button, Doc, Segment
from bot.render.paper import paper_command, paper_title
from bot.render.presentations import clock, kind_label, weekday_name, zoned_when
from bot.textutil import clean, clip_words

SESSION_PAGE = 10  # papers on one page of /session (compact lines, one message)
MAX_CHOICES = 8  # sessions offered as buttons when a query names several
EXAMPLE_SESSIONS = 4  # session names a query that names none is shown


def _when_and_where(session: Session, t: Translator) -> str:
    """ "Tue 7 Jul 10:30–12:15 Seoul time · HALL A" (what the programme knows)."""
    start = session.start
    when = zoned_when(start, session.end, t) if start else ""
    rooms = clip_words(clean(", ".join(session.rooms)), limits.VENUE_CHARS)
    return " · ".join(part for part in (when, rooms) if part)


def _session_name(session: Session, t: Translator) -> str:
    return clip_words(clean(session.name), limits.TITLE_CHARS) or kind_label(session.kind, t)


def _entry_line(entry: Entry, t: Translator) -> list[Segment]:
    """ "#E-300 · <b>Title</b> · /paper_x" (a talk: its start instead of a board)."""
    place = entry.presentation.board or (clock(entry.start) if entry.start else "")
    title = paper_title(entry.paper.title, entry.paper.id, t)
    spans = [Segment(f"{place} · ")] if place else []
    return [*spans, Segment(title, "b"), Segment(f" · {paper_command(entry.paper.id)}")]


def session_doc(
    session: Session, position: int, *, offset: int, typed: bool = False, t: Translator = EN
) -> Doc:
    """A page of a session's papers with Previous/Next (`typed`: the console's /next and /prev)."""
    entries = session.entries
    shown = entries[offset : offset + SESSION_PAGE]
    header: list[Segment] = [Segment(_session_name(session, t), "b")]
    where = _when_and_where(session, t)
    if where:
        header.append(Segment("\n" + where))
    header += [Segment("\n"), *translated(t, "session.papers", len(entries))]
    lines: list[Segment] = []
    for entry in shown:
        lines += [Segment("\n"), *_entry_line(entry, t)] if lines else _entry_line(entry, t)
    last, total = offset + len(shown), len(entries)
    check = session_ref(session)
    line, nav = paging(
        t,
        offset=offset,
        last=last,
        total=total,
        per_page=SESSION_PAGE,
        data=lambda at: encode(SessionPage(at, position, check)),
    )
    blocks: list[Block] = [tuple(header), tuple(lines), *line]
    if not typed:
        return Doc(tuple(blocks), checked_keyboard([nav]), single_message=True)
    # A terminal has no buttons: the commands that turn the page instead.
    turns = [name for name, can in (("/prev", offset > 0), ("/next", last < total)) if can]
    if turns:
        blocks.append(translated(t, "console.more", commands=" ".join(turns)))
    return Doc(tuple(blocks), single_message=True)


def _session_item(session: Session, t: Translator) -> list[Segment]:
    """ "<code>/session Oral 2B Large Language Models</code> · Wed 15 Jul 11:30–11:45 · …"."""
    spans = [Segment(f"/session {_session_name(session, t)}", "code")]
    where = _when_and_where(session, t)
    return [*spans, Segment(f" · {where}")] if where else spans


def session_choice_doc(
    query: str, sessions: Sequence[tuple[int, Session]], *, t: Translator = EN
) -> Doc:
    """A query that names several sessions: each with its time and place and a button."""
    query = clip_words(clean(query), 80)
    spans: list[Segment] = list(translated(t, "session.several", len(sessions), query=query))
    buttons: list[tuple[Button, ...]] = []
    for position, session in sessions[:MAX_CHOICES]:
        spans += [Segment("\n• "), *_session_item(session, t)]
        label = _session_name(session, t)
        if session.start is not None:
            label = f"{label} · {weekday_name(session.start.weekday(), t)}"
        data = encode(SessionPage(0, position, session_ref(session)))
        buttons.append(((clip_words(label, limits.BUTTON_LABEL_CHARS), data),))
    return Doc((tuple(spans),), checked_keyboard(buttons))


def unknown_session_doc(query: str, programme: Programme, *, t: Translator = EN) -> Doc:
    """A query that names no session: which sessions there are, by example."""
    query = clip_words(clean(query), 80)
    spans: list[Segment] = list(translated(t, "session.unknown", query=query))
    named = [session for session in programme.sessions if session.name]
    for session in _examples(named):
        spans += [Segment("\n• "), *_session_item(session, t)]
    return Doc((tuple(spans),))


def _examples(sessions: Sequence[Session]) -> list[Session]:
    """A few sessions to name as examples: the first of each kind, then the next, in time order."""
    kinds: dict[str, int] = {}
    for at, session in enumerate(sessions):
        kinds.setdefault(session.kind, at)
    chosen = list(kinds.values())
    chosen += [at for at in range(len(sessions)) if at not in kinds.values()]
    return [sessions[at] for at in sorted(chosen[:EXAMPLE_SESSIONS])]


def no_programme_doc(*, t: Translator = EN) -> Doc:
    """/session on a corpus without a programme."""
    return Doc((translated(t, "session.no_programme"),))
