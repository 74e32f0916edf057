"""The conference week: a user's schedule, what is on now, /remind and /timezone."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from bot import planner, render
from bot.answers.questions import results
from bot.corpus import Paper, ZoneError, parse_zone
from bot.i18n import Translator, zone_of_city
from bot.render import SCHEDULE_PER_PAGE, Doc
from bot.search import Retriever, is_confident
from bot.store import MAX_REMINDER_MINUTES, MIN_REMINDER_MINUTES, Store

TOPIC_DEPTH = 500  # a followed topic's best papers looked for in a session
REMIND_OFF = ("off", "0", "no", "stop", "关", "关闭", "關", "關閉")  # `/remind off` and the like
ZONE_OFF = ("off", "venue", "none", "reset", "clear", "关", "关闭", "關", "關閉", "会场", "會場")
MAX_ZONE_TEXT = 64  # longer than any city or zone name a user types


@dataclass(frozen=True, slots=True)
class Week:
    """A user's saved papers still served (newest first) and the topics they follow."""

    saved: tuple[Paper, ...]
    topics: tuple[str, ...] = ()


async def saved_papers(store: Store, index: Retriever, user_id: int) -> tuple[Paper, ...]:
    """The user's saved papers still in the corpus, newest first."""
    rows = await store.export_rows(user_id)
    found = (index.get(row.paper_id) for row in rows)
    return tuple(paper for paper in found if paper is not None)


async def week_of(store: Store, index: Retriever, user_id: int) -> Week:
    """The user's saved papers and topics (two store reads)."""
    return Week(await saved_papers(store, index, user_id), await store.topics(user_id))


def schedule_page(
    papers: Sequence[Paper],
    *,
    offset: int = 0,
    per_page: int | None = SCHEDULE_PER_PAGE,
    t: Translator,
    mine: str = "",
) -> Doc:
    """A page of the user's schedule (`per_page` None: all of it), also on their zone `mine`."""
    plan = planner.schedule(papers)
    size = per_page or max(len(plan.entries), 1)
    return render.schedule_doc(plan, offset=offset, per_page=size, t=t, mine=mine)


def topic_score(index: Retriever, topics: Sequence[str]) -> Callable[[Paper], float] | None:
    """For /now: how well a paper matches the user's topics, searched once when first asked."""
    if not topics:
        return None
    best: dict[str, float] = {}

    def score(paper: Paper) -> float:
        if not best:
            best[""] = 0.0  # searched, even when nothing matched
            for topic in topics:
                result = results(index, topic, limit=TOPIC_DEPTH, snippets=False)
                for hit in result.hits if result.confident else ():
                    if is_confident(hit.coverage):
                        best[hit.paper.id] = max(best.get(hit.paper.id, 0.0), hit.score)
        return best.get(paper.id, 0.0)

    return score


def now_page(
    programme: planner.Programme,
    index: Retriever,
    week: Week,
    *,
    now: datetime | None = None,
    t: Translator,
    mine: str = "",
) -> Doc:
    """The sessions on at `now` and next, with the user's saved or followed papers (CPU work)."""
    moment = planner.now_and_next(
        programme,
        now or datetime.now(UTC),
        saved=frozenset(paper.id for paper in week.saved),
        score=topic_score(index, week.topics),
    )
    return render.now_doc(moment, t=t, mine=mine)


def remind_minutes(argument: str) -> int | None:
    """The minutes `/remind <argument>` asks for, or None for off; ValueError for neither."""
    text = argument.strip().lower().removesuffix("min").removesuffix("m").strip()
    if text in REMIND_OFF:
        return None
    if (
        text.isascii()
        and text.isdigit()
        and MIN_REMINDER_MINUTES <= int(text) <= MAX_REMINDER_MINUTES
    ):
        return int(text)
    raise ValueError(f"not a number of minutes: {argument!r}")


async def remind(store: Store, user_id: int, argument: str, *, language: str, t: Translator) -> Doc:
    """/remind shows the setting; `/remind <minutes>` or `/remind off` changes it."""
    if not argument:
        return render.remind_doc(await store.get_reminder(user_id), t=t, usage=True)
    try:
        minutes = remind_minutes(argument)
    except ValueError:
        return render.text_doc("remind.usage", t=t)
    await store.set_reminder(user_id, minutes, language=language)
    return render.remind_doc(minutes, t=t)


def zone_named(text: str) -> str | None:
    """The zone a user names ("berlin", "柏林", "Europe/Berlin", "UTC+2"), or None."""
    text = text.strip()
    if not text or len(text) > MAX_ZONE_TEXT:
        return None
    city = zone_of_city(text) or zone_of_city(text.replace("_", " "))
    if city is not None:
        return city
    try:
        return parse_zone(text)
    except ZoneError:
        return None


def timezone_answer(
    current: str, argument: str, *, now: datetime, t: Translator
) -> tuple[Doc, str]:
    """/timezone for a user on zone `current`: the answer, and their zone after it."""
    if not argument.strip():
        return render.timezone_doc(current, now=now, t=t), current
    if argument.strip().casefold() in ZONE_OFF:
        return render.timezone_doc("", now=now, changed=True, t=t), ""
    zone = zone_named(argument)
    if zone is None:
        return render.unknown_timezone_doc(argument, t=t), current
    return render.timezone_doc(zone, now=now, changed=True, t=t), zone


async def timezone(
    store: Store, user_id: int, argument: str, *, now: datetime, t: Translator
) -> tuple[Doc, str]:
    """/timezone over the store: the answer and the user's zone after it ("": none)."""
    current = await store.get_timezone(user_id) or ""
    doc, zone = timezone_answer(current, argument, now=now, t=t)
    if zone != current:
        await store.set_timezone(user_id, zone or None)
    return doc, zone
