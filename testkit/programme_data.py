"""Conference programmes written the way their sources write them (invented papers): the
virtual site's feed (`{"count", "next", "previous", "results"}` of events), its abstracts
sidecar (keyed by the poster's event id, HTML and LaTeX inside), and OpenReview API v2 notes
(values wrapped; not-accepted submissions under another venueid).

The edge cases the readers meet are in every feed: orals repeating their poster, some without
`related_events_ids`; posters without a session; `null` rather than absent fields; times with
the venue's UTC offset; events that are not papers (talks, tutorials, workshops, socials).
"""

from __future__ import annotations

import random
from typing import Any

VENUE = "ICML.cc/2026/Conference"
OFFSET = "+09:00"
"""The venue's UTC offset, as the feed writes its times."""

_WORD_TEXT = (
    "sparse routers attention diffusion graphs kernels bandits transformers tabular priors "
    "contrastive federated causal spectral robust private adaptive equivariant neural operators "
    "tokens scaling reward curriculum quantized retrieval memory optimal transport flows"
)
_WORDS = _WORD_TEXT.split()
_TOPICS = (
    "Deep Learning->Theory",
    "Deep Learning->Large Language Models",
    "Reinforcement Learning->Online",
    "Probabilistic Methods->Bayesian Models and Methods",
    "Optimization->Convex",
)
_NOT_PAPERS = ("Invited Talk", "Tutorial", "Workshop", "Social", "Expo Talk Panel")
_DECISIONS = {"oral": "Accept (oral)", "spotlight": "Accept (spotlight poster)"}


def tier(index: int) -> str:
    """Paper `index`'s tier: every 10th an oral, every 4th (else) a spotlight."""
    if index % 10 == 3:
        return "oral"
    return "spotlight" if index % 4 == 1 else "poster"


def title(index: int) -> str:
    rng = random.Random(index)
    words = rng.sample(_WORDS, 5)
    return f"{words[0].title()} {words[1]} for {' '.join(words[2:])} ({index})"


def _authors(rng: random.Random, index: int) -> list[dict[str, Any]]:
    authors = []
    for k in range(rng.randint(1, 4)):
        person = 900_000 + index * 10 + k
        institution = rng.choice(["Example University", "Sample Institute", "", None])
        authors.append(
            {
                "id": person,
                "fullname": f"Author{person} Example",
                "url": f"https://icml.cc/api/miniconf/users/{person}?format=json",
                "institution": institution,
            }
        )
    return authors


def _event(event_id: int, name: str, kind: str, **fields: Any) -> dict[str, Any]:
    """An event with every field the feed writes, null where unknown."""
    event: dict[str, Any] = {
        "id": event_id,
        "uid": f"{event_id:032x}",
        "name": name,
        "authors": [],
        "keywords": [],
        "topic": None,
        "decision": None,
        "session": None,
        "eventtype": kind,
        "event_type": kind,
        "room_name": None,
        "virtualsite_url": f"/virtual/2026/{kind.lower().replace(' ', '-')}/{event_id}",
        "url": None,
        "starttime": None,
        "endtime": None,
        "starttime2": None,
        "endtime2": None,
        "paper_url": None,
        "paper_pdf_url": None,
        "eventmedia": [],
        "visible": True,
        "poster_position": None,
        "related_events": [],
        "related_events_ids": [],
    }
    event.update(fields)
    return event


def _speaker(person: int) -> dict[str, Any]:
    return {"id": person, "fullname": "Cy Speaker", "url": "", "institution": "Example Lab"}


def _time(day: int, hour: int, minute: int = 0) -> str:
    return f"2026-07-{day:02d}T{hour:02d}:{minute:02d}:00{OFFSET}"


def poster_id(index: int) -> int:
    return 40_000 + index


def feed_events(papers: int = 60, *, seed: int = 0, abstracts: bool = False) -> list[dict]:
    """A feed's events: `papers` posters, an oral repeating each oral-tier poster (every
    other one without `related_events_ids`), and five events that are not papers. With
    `abstracts` (older years) the papers carry their abstracts in the feed."""
    rng = random.Random(seed)
    events: list[dict[str, Any]] = []
    for index in range(papers):
        events.extend(_paper_events(rng, index, abstracts=abstracts))
    for k, kind in enumerate(_NOT_PAPERS):
        events.append(
            _event(
                60_000 + k,
                f"{kind}: An Example {kind}",
                kind,
                abstract="<p>Not a paper: a <b>session</b> of the conference.</p>",
                authors=[_speaker(990_000 + k)],
                room_name="Hall D",
                starttime=_time(14 + k % 5, 9),
                endtime=_time(14 + k % 5, 10),
            )
        )
    return events


def _paper_events(rng: random.Random, index: int, *, abstracts: bool) -> list[dict[str, Any]]:
    day, session = 14 + index % 4, 1 + index % 6
    level = tier(index)
    common: dict[str, Any] = {
        "authors": _authors(rng, index),
        "topic": _TOPICS[index % len(_TOPICS)],
        "decision": _DECISIONS.get(level, rng.choice(["Accept (poster)", "Accept (regular)"])),
        "paper_url": f"https://openreview.net/forum?id=Note{index:05d}",
    }
    if abstracts:
        common["abstract"] = abstract(index)
    poster = _event(
        poster_id(index),
        title(index),
        "Poster",
        **common,
        # every 7th poster has no session (nor time), only a board
        session=None if index % 7 == 5 else f"Poster Session {session}",
        room_name="East Exhibition Hall A-B",
        starttime=None if index % 7 == 5 else _time(day, 11),
        endtime=None if index % 7 == 5 else _time(day, 13, 30),
        poster_position=f"E-{2000 + index}",
    )
    if level != "oral":
        return [poster]
    oral_id = 50_000 + index
    linked = index % 20 == 3  # the other orals name no poster: merged by title
    poster["related_events_ids"] = [oral_id] if linked else []
    oral = _event(
        oral_id,
        title(index),
        "Oral",
        **{**common, "paper_url": ""},
        session=f"Oral {session}{'ABCD'[index % 4]} {common['topic'].split('->')[-1]}",
        room_name="West Ballroom A",
        starttime=_time(day, 10),
        endtime=_time(day, 10, 15),
        related_events_ids=[poster_id(index)] if linked else [],
    )
    return [poster, oral]


def abstract(index: int) -> str:
    """Paper `index`'s abstract, with HTML and LaTeX as the sites write them."""
    words = " ".join(random.Random(index + 7).sample(_WORDS, 12))
    return (
        f"<p>We study {words}. Our bound is $O(\\sqrt{{n}} \\log n)$ &amp; tight.</p>"
        f'<p>Code: <a href="https://example.org/{index}">here</a>.</p>'
    )


def feed_page(events: list[dict], **fields: Any) -> dict[str, Any]:
    """The feed's envelope around `events` (one page holding them all by default)."""
    return {"count": len(events), "next": None, "previous": None, "results": events, **fields}


def sidecar(events: list[dict], *, as_list: bool = False) -> dict[str, str] | list[dict]:
    """The abstracts sidecar for `events`' posters: keyed by event id (or `{id, abstract}`)."""
    ids = [e["id"] for e in events if e["eventtype"] == "Poster"]
    if as_list:
        return [{"id": event_id, "abstract": abstract(event_id - 40_000)} for event_id in ids]
    return {str(event_id): abstract(event_id - 40_000) for event_id in ids}


def openreview_notes(
    accepted: int = 25, *, rejected: int = 5, withdrawn: int = 2, desk_rejected: int = 1
) -> list[dict[str, Any]]:
    """API v2 notes of one venue: `accepted` with its venueid (the tier in `venue`), the
    others under `…/Rejected_Submission`, `…/Withdrawn_Submission`, `…/Desk_Rejected_…`."""
    kinds = (
        [("accepted", VENUE)] * accepted
        + [("rejected", f"{VENUE}/Rejected_Submission")] * rejected
        + [("withdrawn", f"{VENUE}/Withdrawn_Submission")] * withdrawn
        + [("desk", f"{VENUE}/Desk_Rejected_Submission")] * desk_rejected
    )
    random.Random(1).shuffle(kinds)
    return [_note(number, kind, venueid) for number, (kind, venueid) in enumerate(kinds, 1)]


def _note(number: int, kind: str, venueid: str) -> dict[str, Any]:
    note_id = f"Note{number:05d}"
    venue = f"ICML 2026 {tier(number)}" if kind == "accepted" else "Submitted to ICML 2026"
    if kind == "withdrawn":
        venue = "ICML 2026 Conference Withdrawn Submission"
    wrapped = {
        "title": title(number),
        "abstract": abstract(number),
        "authors": [f"Author{number} Example", "Bo Sample"],
        "authorids": [f"~Author{number}_Example1", "~Bo_Sample1"],
        "keywords": ["example"],
        "venue": venue,
        "venueid": venueid,
        "pdf": f"/pdf/{note_id}.pdf",
    }
    return {
        "id": note_id,
        "forum": note_id,
        "number": number,
        "invitations": [f"{VENUE}/-/Submission"],
        "domain": VENUE,
        "cdate": 1769900000000 + number,
        "mdate": 1782000000000 + number,
        "readers": ["everyone"],
        "writers": [VENUE],
        "signatures": [f"{VENUE}/Submission{number}/Authors"],
        "content": {key: {"value": value} for key, value in wrapped.items()},
    }
