"""A small conference week written the way icml.cc's feed writes it, for the planner's tests
(and handler tests built on it): every case a user's schedule meets, at the venue's +09:00.

    Tue 14 Jul  Oral 1A Theory 10:00-10:30 (D's and E's talks, West Ballroom A)
                Poster Session 1 11:00-13:30: A E-101, B E-205 (East), C W-12 (West)
                Poster Session 2 16:30-19:00: E E-400
    Wed 15 Jul  Oral 2A Optimization 08:30-08:45 (L; still Tue in UTC)
                Poster Session 3 11:00-13:30: D E-300, F E-301
                Oral 2B Large Language Models 11:30-11:45 (G), during Poster Session 3
                Poster Session 4 East / West 16:30-19:00: L E-500 / P W-77
    Thu 16 Jul  Poster Session 5 11:00-13:30: G W-40, M W-41
                a poster in no session 16:30-19:00: H, Hall C, C-7
    no time     I (a room and a board only), J (nothing at all)

E's oral names no poster (merged by title); D's, G's and L's do. Plus one invited talk.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from bot.corpus import Paper, load_corpus
from testkit.programme import Event, authors_of, feed_event, write_feed

OFFSET = "+09:00"
EAST, WEST = "East Exhibition Hall A-B", "West Exhibition Hall B2-B3"
TITLES = {
    "A": "Müller flows, revisited; a note on sparse routers",
    "B": "Calibrated conformal prediction at scale",
    "C": "State space models without quadratic cost",
    "D": "On the implicit bias of diffusion samplers",
    "E": "Provably stable policy gradients",
    "F": "Private federated optimisation via random features",
    "G": "Speculative decoding for long contexts",
    "H": "Neural operators without retraining",
    "I": "Kernel ridge regression, when labels are scarce",
    "J": "Causal discovery in tabular foundation models",
    "L": "Adaptive low-rank adaptation",
    "M": "When do graph neural networks generalise?",
    "P": "Bayesian optimisation with language model priors",
}
"""Short name -> title of each paper of the week."""
TOPICS = {"D": "Theory->Learning Theory", "G": "Deep Learning->Large Language Models"}
ORALS = frozenset("DEGL")
"""The papers that also have an oral."""


def at(day: int, clock: str) -> str:
    """`2026-07-<day>T<clock>:00+09:00`, as the feed writes times."""
    return f"2026-07-{day:02d}T{clock}:00{OFFSET}"


def _poster(
    n: int, name: str, session: str | None, when: tuple[str, str] | None, **fields: Any
) -> Event:
    start, end = when or (None, None)
    return feed_event(
        41000 + n, TITLES[name], "Poster", session=session, starttime=start, endtime=end,
        authors=authors_of([(f"{name}. Author", "KAIST"), ("Jia Chen", "Mila")], 900000 + 10 * n),
        topic=TOPICS.get(name, "Deep Learning->Algorithms"),
        decision=f"Accept ({'oral' if name in ORALS else 'poster'})",
        paper_url=f"https://openreview.net/forum?id=wk{name}{n:04d}", **fields,
    )  # fmt: skip


def _oral(n: int, name: str, session: str, room: str, when: tuple[str, str], poster: int) -> Event:
    return feed_event(
        51000 + n, TITLES[name], "Oral", session=session, room_name=room,
        starttime=when[0], endtime=when[1], decision="Accept (oral)",
        related_events_ids=[41000 + poster] if poster >= 0 else [],
    )  # fmt: skip


def week_events() -> list[Event]:
    """The week's events: posters, orals (each oral after the posters, as the feed lists
    them), one invited talk."""
    morning, evening = (at(14, "11:00"), at(14, "13:30")), (at(14, "16:30"), at(14, "19:00"))
    wed = (at(15, "11:00"), at(15, "13:30")), (at(15, "16:30"), at(15, "19:00"))
    thu = (at(16, "11:00"), at(16, "13:30")), (at(16, "16:30"), at(16, "19:00"))
    posters = [
        _poster(1, "A", "Poster Session 1", morning, room_name=EAST, poster_position="E-101"),
        _poster(2, "B", "Poster Session 1", morning, room_name=EAST, poster_position="E-205"),
        _poster(3, "C", "Poster Session 1", morning, room_name=WEST, poster_position="W-12"),
        _poster(4, "E", "Poster Session 2", evening, room_name=EAST, poster_position="E-400"),
        _poster(5, "D", "Poster Session 3", wed[0], room_name=EAST, poster_position="E-300"),
        _poster(6, "F", "Poster Session 3", wed[0], room_name=EAST, poster_position="E-301"),
        _poster(7, "L", "Poster Session 4 East", wed[1], room_name=EAST, poster_position="E-500"),
        _poster(8, "P", "Poster Session 4 West", wed[1], room_name=WEST, poster_position="W-77"),
        _poster(9, "G", "Poster Session 5", thu[0], room_name=WEST, poster_position="W-40"),
        _poster(10, "M", "Poster Session 5", thu[0], room_name=WEST, poster_position="W-41"),
        _poster(11, "H", None, thu[1], room_name="Hall C", poster_position="C-7"),
        _poster(12, "I", None, None, room_name=EAST, poster_position="E-999"),
        _poster(13, "J", None, None),
    ]
    for poster, oral in ((5, 1), (7, 3), (9, 4)):  # D, L, G name their orals
        posters[poster - 1]["related_events_ids"] = [51000 + oral]
    orals = [
        _oral(1, "D", "Oral 1A Theory", "West Ballroom A", (at(14, "10:00"), at(14, "10:15")), 5),
        _oral(2, "E", "Oral 1A Theory", "West Ballroom A", (at(14, "10:15"), at(14, "10:30")), -1),
        _oral(3, "L", "Oral 2A Optimization", "West Ballroom B",
              (at(15, "08:30"), at(15, "08:45")), 7),
        _oral(4, "G", "Oral 2B Large Language Models", "West Ballroom C",
              (at(15, "11:30"), at(15, "11:45")), 9),
    ]  # fmt: skip
    talk = feed_event(60000, "Invited Talk: scaling", "Invited Talk", room_name="Hall D",
                      starttime=at(14, "09:00"), endtime=at(14, "10:00"))  # fmt: skip
    return [*posters, *orals, talk]


def load_week(folder: Path) -> dict[str, Paper]:
    """Write the week's feed (and sidecar) into `folder`, load it as the bot does; short name
    -> paper."""
    events = week_events()
    abstracts = {str(e["id"]): f"<p>{e['name']}: what it shows.</p>" for e in events}
    papers = load_corpus([write_feed(folder, events, abstracts)]).papers
    by_title = {paper.title: paper for paper in papers}
    return {name: by_title[title] for name, title in TITLES.items()}


LIVE_OFFSET = timezone(timedelta(hours=9))


def live_week(folder: Path, now: datetime, *, ahead: timedelta) -> dict[str, Paper]:
    """A feed written around `now` (aware), for tests of what happens in real time: "Poster
    Session 1" running now until `ahead` from now (to the minute: A, B, C at E-101..E-103),
    "Poster Session 2" starting then (D, E at E-204, E-205), F's poster the next day.
    Short name -> paper."""
    turn = now.astimezone(LIVE_OFFSET).replace(second=0, microsecond=0) + ahead

    def iso(moment: datetime) -> str:
        return moment.isoformat(timespec="seconds")

    plan = [("A", 1, turn - timedelta(hours=1), turn), ("B", 1, turn - timedelta(hours=1), turn),
            ("C", 1, turn - timedelta(hours=1), turn), ("D", 2, turn, turn + timedelta(hours=2)),
            ("E", 2, turn, turn + timedelta(hours=2)),
            ("F", 3, turn + timedelta(days=1), turn + timedelta(days=1, hours=2))]  # fmt: skip
    events = [
        feed_event(
            42000 + n, TITLES[name], "Poster", session=f"Poster Session {session}",
            starttime=iso(begin), endtime=iso(end), room_name=EAST,
            poster_position=f"E-{session}0{n}", decision="Accept (poster)",
            authors=authors_of([(f"{name}. Author", "KAIST")], 910000 + 10 * n),
            paper_url=f"https://openreview.net/forum?id=live{name}{n:02d}",
        )
        for n, (name, session, begin, end) in enumerate(plan, start=1)
    ]  # fmt: skip
    abstracts = {str(e["id"]): f"{e['name']}: what it shows." for e in events}
    papers = load_corpus([write_feed(folder, events, abstracts)]).papers
    by_title = {paper.title: paper for paper in papers}
    return {name: by_title[TITLES[name]] for name, *_ in plan}
