"""Views of the conference week: a schedule with its clashes, what is on now, a reminder,
/remind and /timezone, on the venue's clock or the reader's zone `mine` beside it."""

from __future__ import annotations

from datetime import datetime

from bot.corpus import zone_info
from bot.i18n import Translator
from bot.planner import Clash, Entry, Happening, NowAndNext, Schedule, Session, Slot
from bot.render.blocks import EN, checked_keyboard, paging, text_doc, translated
from bot.render.callbacks import OpenPaper, SchedulePage, encode, paper_ref
from bot.render.doc import Block, Doc, Segment
from bot.render.paper import paper_command, paper_title
from bot.render.presentations import (
    clock,
    kind_label,
    presentation_line,
    short_date,
    when_text,
    zone_name,
    zone_words,
    zoned_when,
)
from bot.textutil import clean, clip_words

ZONE_TYPED_CHARS = 60  # how much of an unknown /timezone answer is named back

SCHEDULE_PER_PAGE = 8  # presentations on one page of /schedule
CLASH_TITLE_CHARS = 60  # a title as a clash names it
NAME_CHARS = 120  # a session's or a room's name as the feed gives it


def place_text(entry: Entry, t: Translator) -> str:
    """ "Poster · East Exhibition Hall A-B · #E-300": kind, room, board."""
    shown = entry.presentation
    room = clip_words(clean(shown.room), NAME_CHARS)
    return " · ".join(filter(None, (kind_label(entry.kind, t), room, shown.board)))


def _title(entry: Entry, t: Translator, limit: int | None = None) -> str:
    title = paper_title(entry.paper.title, entry.paper.id, t)
    return clip_words(title, limit) if limit else title


# ---------------------------------------------------------------- /schedule


def _entry_spans(
    entry: Entry, slot: Slot, clashing: frozenset[str], t: Translator, mine: str
) -> Block:
    """ "• Title · /paper_x", then its place (and its own time when not the slot's)."""
    spans = [Segment("\n• "), Segment(_title(entry, t), "b")]
    spans += [Segment(f" · {paper_command(entry.paper.id)}"), Segment("\n   ")]
    line = place_text(entry, t)
    if entry.start is not None and (entry.start, entry.end) != (slot.start, slot.end):
        line = f"{_clock(entry.start, entry.end, t, mine)} · {line}"
    spans.append(Segment(line))
    if _key(entry) in clashing:
        spans.append(Segment(" ⚠"))
    return tuple(spans)


def _clock(start: datetime, end: datetime | None, t: Translator, mine: str) -> str:
    """ "10:30–12:15" on the venue's clock, or on the reader's with the venue's beside it."""
    return zoned_when(start, end, t, mine, dated=False) if mine else clock(start, end)


def _zone(start: datetime, t: Translator, mine: str) -> str:
    """ "Seoul time" (or the reader's zone): what a page's times are on."""
    return zone_name(mine, t) if mine else zone_words(start, t)


def _slot_heading(slot: Slot, t: Translator, mine: str) -> str:
    name = clip_words(clean(slot.session), NAME_CHARS) or kind_label(slot.kind, t)
    return f"{_clock(slot.start, slot.end, t, mine)} · {name}"


def _clash_block(clash: Clash, shown: set[str], t: Translator, zone: str) -> Block:
    """What clashes (this page's papers by title, others counted), and the ways out."""
    mine = [e for e in clash.entries if _key(e) in shown]
    titles = " / ".join(_title(e, t, CLASH_TITLE_CHARS) for e in mine)
    if len(mine) < len(clash.entries):
        titles += " " + t.ngettext("week.clash_more", len(clash.entries) - len(mine))
    first = clash.entries[0]
    assert first.start is not None  # clashes are of timed entries
    if clash.session:
        session = clip_words(clean(clash.session), NAME_CHARS)
        spans = list(translated(t, "week.clash_session", papers=titles, session=session))
    else:
        when = zoned_when(first.start, first.end, t, zone)
        spans = list(translated(t, "week.clash_time", papers=titles, when=when))
    on_page = {e.paper.id for e in mine}
    for way in clash.ways_out:
        if way.start is None or way.paper.id not in on_page:
            continue
        session = clip_words(clean(way.presentation.session), NAME_CHARS)
        where = ", ".join(filter(None, (session, place_text(way, t))))
        title = _title(way, t, CLASH_TITLE_CHARS)
        when = zoned_when(way.start, way.end, t, zone)
        way_out = translated(t, "week.way_out", title=title, when=when, where=where)
        spans += [Segment("\n"), *way_out]
    return tuple(spans)


def _key(entry: Entry) -> str:
    return f"{entry.paper.id}\0{entry.key}"


def schedule_doc(
    plan: Schedule,
    *,
    offset: int = 0,
    per_page: int = SCHEDULE_PER_PAGE,
    t: Translator = EN,
    mine: str = "",
) -> Doc:
    """A page of the user's schedule by day and session, with clashes and ways out."""
    if not plan and plan.unscheduled:
        return text_doc("week.untimed", len(plan.unscheduled), t=t)
    if not plan:
        return text_doc("week.empty", t=t)
    entries = plan.entries
    offset = min(max(offset, 0), (len(entries) - 1) // per_page * per_page)
    shown = {_key(e) for e in entries[offset : offset + per_page]}
    clashing = frozenset(_key(e) for clash in plan.clashes for e in clash.entries)
    zone = _zone(entries[0].start, t, mine) if entries[0].start else ""
    blocks: list[Block] = [translated(t, "week.title", len(entries), zone=zone)]
    for day in plan.days:
        heading: list[Segment] = [Segment(short_date(day.date, t), "b"), Segment("\n")]
        for slot in day.slots:
            picked = [e for e in slot.entries if _key(e) in shown]
            if not picked:
                continue
            spans = [*heading, Segment(_slot_heading(slot, t, mine), "i")]
            for entry in picked:
                spans += _entry_spans(entry, slot, clashing, t, mine)
            blocks.append(tuple(spans))
            heading = []
    for clash in plan.clashes:
        if any(_key(e) in shown for e in clash.entries):
            blocks.append(_clash_block(clash, shown, t, mine))
    last = offset + per_page >= len(entries)
    if last and plan.unscheduled:
        blocks.append(translated(t, "week.unscheduled", len(plan.unscheduled)))
    line, nav = paging(
        t,
        offset=offset,
        last=min(offset + per_page, len(entries)),
        total=len(entries),
        per_page=per_page,
        data=lambda at: encode(SchedulePage(at)),
    )
    return Doc((*blocks, *line), checked_keyboard([nav]), single_message=True)


# ---------------------------------------------------------------- /now

_PICKED = {"saved": "now.saved", "followed": "now.followed", "first": "now.first"}


def _session_heading(session: Session, t: Translator, mine: str) -> list[Segment]:
    """ "<b>Poster Session 3</b> · Wed 15 Jul 11:00–13:30 · East Exhibition Hall A-B"."""
    name = clip_words(clean(session.name), NAME_CHARS) or kind_label(session.kind, t)
    spans = [Segment(name, "b")]
    if session.start is not None:
        spans.append(Segment(f" · {zoned_when(session.start, session.end, t, mine)}"))
    rooms = ", ".join(clip_words(clean(room), NAME_CHARS) for room in session.rooms[:3])
    return [*spans, Segment(f" · {clip_words(rooms, 200)}")] if rooms else spans


def _happening_block(happening: Happening, t: Translator, mine: str) -> Block:
    """A session, why these papers, and the papers: title, command, board (or a talk's time)."""
    spans = _session_heading(happening.session, t, mine)
    why = translated(t, _PICKED[happening.why], happening.matched)
    spans += [Segment("\n"), *why]
    for entry in happening.picks:
        shown = entry.presentation
        where = shown.board
        if entry.kind == "oral" and entry.start is not None:
            where = _clock(entry.start, entry.end, t, mine)
        spans += [Segment("\n• "), Segment(_title(entry, t), "b")]
        spans.append(
            Segment(" · " + " · ".join(filter(None, (paper_command(entry.paper.id), where))))
        )
    return tuple(spans)


def now_doc(moment: NowAndNext, *, t: Translator = EN, mine: str = "") -> Doc:
    """The sessions on now and next with the reader's picks, or when the conference is."""
    if moment.first_day is None or moment.last_day is None:
        return text_doc("now.no_programme", t=t)
    dates = {"first": short_date(moment.first_day, t), "last": short_date(moment.last_day, t)}
    dates["zone"] = zone_words(moment.at, t)
    if moment.phase == "after":
        return text_doc("now.after", t=t, **dates)
    if moment.phase == "before":
        blocks = [translated(t, "now.before", **dates)]
    else:
        blocks = [translated(t, "now.title", when=zoned_when(moment.at, None, t, mine))]
        if not moment.current:
            blocks.append(translated(t, "now.nothing"))
    blocks += [_happening_block(happening, t, mine) for happening in moment.current]
    if moment.upcoming:
        blocks.append(translated(t, "now.next"))
        blocks += [_happening_block(happening, t, mine) for happening in moment.upcoming]
    return Doc(tuple(blocks))


# ---------------------------------------------------------------- reminders


def reminder_doc(entry: Entry, *, minutes: int, t: Translator = EN, mine: str = "") -> Doc:
    """A reminder `minutes` before `entry`: title, session, presentation, and an Open button."""
    spans = list(translated(t, "remind.message", minutes, title=_title(entry, t)))
    session = clip_words(clean(entry.presentation.session), NAME_CHARS)
    spans += [Segment("\n" + session)] if session else []
    spans += [Segment("\n" + presentation_line(entry.presentation, t, mine))]
    spans += [Segment("\n"), Segment(paper_command(entry.paper.id))]
    button = (t.gettext("button.open_paper"), encode(OpenPaper(paper_ref(entry.paper.id))))
    return Doc((tuple(spans),), checked_keyboard([(button,)]))


def remind_doc(minutes: int | None, *, usage: bool = False, t: Translator = EN) -> Doc:
    """What /remind is set to (`minutes` before, or off), with how to change it (`usage`)."""
    said = translated(t, "remind.off") if minutes is None else translated(t, "remind.on", minutes)
    return Doc((said, translated(t, "remind.usage")) if usage else (said,))


def timezone_doc(zone: str, *, now: datetime, changed: bool = False, t: Translator = EN) -> Doc:
    """What /timezone is set to (`zone`, "" for the venue's clock) and how to change it."""
    if not zone:
        said = translated(t, "timezone.cleared" if changed else "timezone.none")
        return Doc((said,) if changed else (said, translated(t, "timezone.usage")))
    local = now.astimezone(zone_info(zone))
    named = zone_name(zone, t)
    named += f" ({zone})" if "/" in zone else ""
    key = "timezone.set" if changed else "timezone.current"
    said = translated(t, key, zone=named, now=when_text(local, None, t))
    return Doc((said, translated(t, "timezone.usage")))


def unknown_timezone_doc(typed: str, *, t: Translator = EN) -> Doc:
    """An answer to /timezone that names no zone: what was typed, and examples."""
    return text_doc("timezone.unknown", t=t, name=clip_words(clean(typed), ZONE_TYPED_CHARS))
