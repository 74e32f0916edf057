"""Conference programme feeds written the way icml.cc's virtual site writes them, for tests and
benchmarks: one event builder, and a deterministic synthetic ICML 2026-sized programme.

    uv run python -m testkit.programme --out /tmp/icml-2026

writes `icml-2026-orals-posters.json` (6,343 posters, 159 orals repeating posters, 297 events
that are not papers, sessions over five days at +09:00) and `icml-2026-abstracts.json`
(the sidecar, keyed by the poster's event id). Abstracts recombine the seed abstracts'
sentences, each with a method name and a few words of its own (vocabulary grows with size).
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from testkit.paths import SEED_CORPUS

Event = dict[str, Any]

POSTERS = 6343
ORALS = 159
NOT_PAPERS = {"Invited Talk": 8, "Tutorial": 12, "Workshop": 33, "Social": 24,
              "Expo Talk Panel": 40, "Affinity Event": 30, "Mentorship": 150}  # fmt: skip
"""Events that are not papers, by type: 297 in all, as ICML 2026's feed has."""
DAYS = ("2026-07-14", "2026-07-15", "2026-07-16", "2026-07-17", "2026-07-18")
OFFSET = "+09:00"  # Seoul in July
POSTER_SLOTS = (("11:00", "13:30"), ("16:30", "19:00"))
POSTER_HALLS = ("East Exhibition Hall A-B", "West Exhibition Hall B2-B3")
ORAL_ROOMS = ("West Ballroom A", "West Ballroom B", "West Ballroom C", "East Ballroom A")
TOPICS = tuple(
    f"{area}->{sub}"
    for area, subs in {
        "Deep Learning": ("Theory", "Large Language Models", "Attention Mechanisms",
                          "Generative Models and Autoencoders", "Robustness", "Algorithms"),
        "Reinforcement Learning": ("Deep RL", "Online", "Batch/Offline", "Multi-agent"),
        "Theory": ("Learning Theory", "Optimization", "Online Learning and Bandits"),
        "Probabilistic Methods": ("Bayesian Models and Methods", "Variational Inference"),
        "Social Aspects": ("Fairness", "Privacy", "Safety"),
        "Applications": ("Health / Medicine", "Chemistry, Physics, and Earth Sciences"),
        "Optimization": ("Convex", "Non-Convex", "Large Scale, Parallel and Distributed"),
    }.items()
    for sub in subs
)  # fmt: skip
GIVEN = ("Ana", "Bo", "Chen", "Daniela", "Emeka", "Fatima", "Goran", "Hana", "Ivan", "Jia",
         "Kofi", "Lena", "Mateo", "Nadia", "Oren", "Priya", "Qiang", "Rosa", "Sven", "Tomoko",
         "Uma", "Viktor", "Wei", "Ximena", "Yusuf", "Zhen", "Aiko", "Björn", "Chloé",
         "Dmitri")  # fmt: skip
FAMILY = ("Wang", "Li", "Zhang", "Chen", "Kim", "Park", "Müller", "García", "Okafor", "Singh",
          "Nakamura", "Rossi", "Novak", "Haddad", "Silva", "Ivanova", "Nguyen", "Kowalski",
          "Andersson", "Yilmaz", "Dubois", "Sato", "Mensah", "Fernández", "Cohen",
          "Liu")  # fmt: skip
PLACES = ("Seoul National University", "KAIST", "Tsinghua University", "Peking University",
          "MIT", "Stanford University", "ETH Zurich", "University of Oxford", "Mila",
          "University of Toronto", "Google DeepMind", "Microsoft Research", "Meta FAIR",
          "University of Tokyo", "EPFL", "Carnegie Mellon University", "UC Berkeley",
          "Max Planck Institute for Intelligent Systems", "National University of Singapore",
          "University of Cambridge", "Inria", "University of Amsterdam", "NVIDIA")  # fmt: skip
SUBJECTS = ("sparse routers", "mixture-of-experts layers", "diffusion samplers",
            "graph neural networks", "policy gradients", "language model alignment",
            "kernel ridge regression", "federated optimisation", "conformal prediction",
            "state space models", "tabular foundation models", "causal discovery",
            "differential privacy", "in-context learning", "neural operators",
            "contrastive pretraining", "offline reinforcement learning", "Bayesian optimisation",
            "speculative decoding", "low-rank adaptation")  # fmt: skip
TITLE_FORMS = ("{name}: {adj} {subject} at scale", "On the {noun} of {subject}",
               "{adj} {subject} without {obstacle}", "{name}: {subject} via {tool}",
               "When do {subject} {verb}?", "Provably {adj} {subject}")  # fmt: skip
ADJ = ("Efficient", "Robust", "Stable", "Calibrated", "Scalable", "Private", "Adaptive")
NOUN = ("sample complexity", "implicit bias", "expressivity", "generalisation", "collapse")
OBSTACLE = ("collapse", "retraining", "labels", "forgetting", "quadratic cost", "tuning")
TOOL = ("optimal transport", "random features", "spectral filtering", "score matching")
VERB = ("generalise", "fail", "forget", "collapse", "help")


def feed_event(event_id: int, name: str, kind: str, **fields: Any) -> Event:
    """One event with every key the feed writes (null where not given), `fields` overriding."""
    path = kind.casefold().replace(" ", "-")
    event: Event = {
        "id": event_id, "uid": f"{event_id:032x}", "name": name, "authors": [],
        "keywords": [], "topic": None, "decision": None, "session": None,
        "eventtype": kind, "event_type": kind, "room_name": None,
        "virtualsite_url": f"/virtual/2026/{path}/{event_id}", "url": None,
        "sourceid": None, "sourceurl": "https://openreview.net/group?id=ICML.cc/2026/Conference",
        "starttime": None, "endtime": None, "starttime2": None, "endtime2": None,
        "diversity_event": None, "paper_url": None, "paper_pdf_url": None,
        "children_url": None, "children": [], "children_ids": [], "parent1": None,
        "parent2": None, "parent2_id": None, "eventmedia": [], "show_in_schedule_overview": False,
        "visible": True, "poster_position": None, "schedule_html": "", "latitude": None,
        "longitude": None, "related_events": [], "related_events_ids": [],
    }  # fmt: skip
    event.update(fields)
    return event


def authors_of(people: Sequence[tuple[str, str | None]], first_id: int = 900000) -> list[Event]:
    """`authors[]` as the feed writes them: id, fullname, url, institution (null if unknown)."""
    return [
        {"id": first_id + n, "fullname": name,
         "url": f"https://icml.cc/api/miniconf/users/{first_id + n}?format=json",
         "institution": place}
        for n, (name, place) in enumerate(people)
    ]  # fmt: skip


def write_feed(
    folder: Path, events: list[Event], abstracts: dict[str, str] | list[Event] | None,
    *, conference: str = "icml", year: int = 2026,
) -> Path:  # fmt: skip
    """The feed (and its sidecar, if `abstracts`) under their official names; the feed path."""
    folder.mkdir(parents=True, exist_ok=True)
    feed = {"count": len(events), "next": None, "previous": None, "results": events}
    path = folder / f"{conference}-{year}-orals-posters.json"
    path.write_text(json.dumps(feed, ensure_ascii=False, indent=1), encoding="utf-8")
    if abstracts is not None:
        sidecar = folder / f"{conference}-{year}-abstracts.json"
        sidecar.write_text(json.dumps(abstracts, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def _seed_sentences() -> list[str]:
    from bot.corpus import load_corpus
    from bot.textutil import sentence_spans

    texts = [p.abstract for p in load_corpus([SEED_CORPUS]).papers]
    return [text[s:e] for text in texts for s, e in sentence_spans(text) if e - s > 40]


def _word(rng: random.Random) -> str:
    """A plausible new word: two syllable stems and an ending."""
    stems = ("lat", "ker", "spar", "mor", "quant", "tens", "prox", "vari", "grad", "hom")
    ends = ("ation", "ive", "ised", "ity", "ing", "al", "ator")
    return rng.choice(stems) + rng.choice(stems) + rng.choice(ends)


def _title(rng: random.Random, name: str, subject: str, used: set[str]) -> str:
    """A title no other synthetic paper has (a programme lists each paper once)."""
    while True:
        title = rng.choice(TITLE_FORMS).format(
            name=name, adj=rng.choice(ADJ), subject=subject, noun=rng.choice(NOUN),
            obstacle=rng.choice(OBSTACLE), tool=rng.choice(TOOL), verb=rng.choice(VERB),
        )  # fmt: skip
        title = title[0].upper() + title[1:]
        if title not in used:
            used.add(title)
            return title
        subject = f"{subject} for {rng.choice(SUBJECTS)}"


def _paper(
    rng: random.Random, sentences: list[str], number: int, used: set[str]
) -> tuple[str, str]:
    """(title, abstract as HTML) of synthetic paper `number`."""
    name = "".join(rng.choice("ABCDEFGHKLMPRSTVXZ") for _ in range(3)) + rng.choice(
        ("Net", "Former", "Flow", "-RL", "Opt", "")
    )
    subject = rng.choice(SUBJECTS)
    own = f"We introduce {name}, a {_word(rng)} approach to {subject} with {_word(rng)} bounds."
    body = " ".join([own, *rng.sample(sentences, rng.randint(5, 8))])
    if number % 7 == 0:
        body = body.replace(" and ", " &amp; ", 1)
    return _title(rng, name, subject, used), f"<p>{body}</p>"


def _people(rng: random.Random) -> list[tuple[str, str | None]]:
    return [
        (f"{rng.choice(GIVEN)} {rng.choice(FAMILY)}",
         None if rng.random() < 0.08 else rng.choice(PLACES))
        for _ in range(rng.randint(2, 8))
    ]  # fmt: skip


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _time(day: str, clock: str) -> str:
    return f"{day}T{clock}:00{OFFSET}"


def synthetic_programme(
    folder: Path, *, posters: int = POSTERS, orals: int = ORALS, seed: int = 0
) -> Path:
    """Write a synthetic ICML 2026 feed and its sidecar into `folder`; the feed's path."""
    rng = random.Random(seed)
    sentences = _seed_sentences()
    events: list[Event] = []
    abstracts: dict[str, str] = {}
    per_session = -(-posters // (len(DAYS) * len(POSTER_SLOTS)))
    oral_of = set(rng.sample(range(posters), orals))
    used: set[str] = set()
    for n in range(posters):
        session = n // per_session
        day, (start, end) = DAYS[session // 2], POSTER_SLOTS[session % 2]
        title, abstract = _paper(rng, sentences, n, used)
        hall = POSTER_HALLS[n % 2]
        spotlight = rng.random() < 0.025
        decision = "Accept (spotlight poster)" if spotlight else "Accept (poster)"
        decision = "Accept (oral)" if n in oral_of else decision
        events.append(feed_event(
            41000 + n, title, "Poster", authors=authors_of(_people(rng), 900000 + 10 * n),
            topic=rng.choice(TOPICS), decision=decision, session=f"Poster Session {session + 1}",
            room_name=hall, poster_position=f"{hall[0]}-{1000 + n % per_session}",
            starttime=_time(day, start), endtime=_time(day, end),
            paper_url=f"https://openreview.net/forum?id=F{n:09d}",
        ))  # fmt: skip
        abstracts[str(41000 + n)] = abstract
    sessions = -(-orals // 4)  # four talks a session, four rooms in parallel
    ordered = sorted(oral_of)
    for k, n in enumerate(ordered):
        poster, block = events[n], k // 4
        theme = events[ordered[4 * block]]["topic"].split("->")[-1]  # the session's, not the talk's
        day, hour = DAYS[block * len(DAYS) // sessions], 10 + 4 * (block // 4 % 2)
        start = hour * 60 + 15 * (k % 4)
        clock = (
            f"{start // 60:02d}:{start % 60:02d}",
            f"{(start + 15) // 60:02d}:{(start + 15) % 60:02d}",
        )
        linked = rng.random() < 0.8  # some orals repeat their poster without naming it
        oral = feed_event(
            51000 + k, poster["name"], "Oral", authors=poster["authors"], topic=poster["topic"],
            decision=poster["decision"], room_name=ORAL_ROOMS[block % 4],
            session=f"Oral {block // 4 + 1}{'ABCD'[block % 4]} {theme}",
            starttime=_time(day, clock[0]), endtime=_time(day, clock[1]),
            paper_url="", related_events_ids=[poster["id"]] if linked else [],
        )  # fmt: skip
        if linked:
            poster["related_events_ids"] = [oral["id"]]
        events.append(oral)
    others = [kind for kind, count in NOT_PAPERS.items() for _ in range(count)]
    for k, kind in enumerate(others):
        day = DAYS[k % len(DAYS)]
        events.append(feed_event(
            60000 + k, f"{kind}: {rng.choice(SUBJECTS)}", kind, abstract=f"<p>{kind}.</p>",
            room_name="Hall D", starttime=_time(day, "09:00"), endtime=_time(day, "10:00"),
        ))  # fmt: skip
    return write_feed(folder, events, abstracts)


def main(argv: list[str] | None = None) -> int:
    """`python -m testkit.programme --out DIR`: write the synthetic programme into DIR."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--posters", type=int, default=POSTERS)
    parser.add_argument("--orals", type=int, default=ORALS)
    args = parser.parse_args(argv)
    path = synthetic_programme(args.out, posters=args.posters, orals=args.orals)
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
