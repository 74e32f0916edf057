"""Versions of one paper merged: records sharing an arXiv id, a DOI, the abstract, or the title
with an author surname. The first version's id stays (others become aliases), with every link
and the richest fields (the peer-reviewed venue, the longest abstract and author list)."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import replace

from bot.corpus.authors import author_key
from bot.corpus.ids import fold_id, tappable_id
from bot.corpus.links import ARXIV_ID, find_arxiv_id
from bot.corpus.model import MERGED, Paper

PREPRINT_VENUES = re.compile(r"^(?:arxiv|corr|preprint|biorxiv|medrxiv|ssrn|openreview)\b",
                             re.IGNORECASE)  # fmt: skip
_NOT_WORD = re.compile(r"[\W_]+")
_MIN_TITLE_CHARS = 12  # "Introduction" or "Preface" alone says nothing about which paper


def venue_rank(venue: str) -> int:
    """2 for a peer-reviewed venue, 1 for a preprint server, 0 for none."""
    if not venue.strip():
        return 0
    return 1 if PREPRINT_VENUES.match(venue.strip()) else 2


def fold_title(text: str) -> str:
    """A title as two versions of one paper share it: case, accents and punctuation folded."""
    text = unicodedata.normalize("NFKD", text.casefold())
    return _NOT_WORD.sub(" ", "".join(c for c in text if not unicodedata.combining(c))).strip()


def _text_key(paper: Paper) -> str:
    text = paper.abstract
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    folded = " ".join(text.casefold().split())
    return "text:" + hashlib.blake2b(folded.encode(), digest_size=16).hexdigest()


def _keys(paper: Paper) -> Iterator[tuple[str, str]]:
    """(key, why) pairs: papers sharing a key are versions of one paper."""
    if paper.abstract:
        yield _text_key(paper), "duplicate"
    for given in (paper.source_id, *paper.aliases):
        arxiv = given if ARXIV_ID.fullmatch(given) else find_arxiv_id(given)
        if arxiv:
            yield "arxiv:" + re.sub(r"v\d+$", "", arxiv).casefold(), f"same arXiv id {arxiv}"
        elif given.startswith("10."):
            yield "doi:" + given.casefold(), f"same DOI {given}"
    title = fold_title(paper.title) if not paper.title_derived else ""
    if len(title) >= _MIN_TITLE_CHARS:
        for name in paper.authors:
            key = author_key(name)
            if key is not None:
                yield f"title:{title}\x1f{key.surname}", "same title and author"


def _groups(papers: Sequence[Paper]) -> tuple[list[int], dict[int, str]]:
    """Union-find over shared keys: each paper's group root and why it joined its group."""
    parent = list(range(len(papers)))
    why: dict[int, str] = {}
    owner: dict[str, int] = {}

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for number, paper in enumerate(papers):
        for key, reason in _keys(paper):
            first = owner.setdefault(key, number)
            a, b = root(first), root(number)
            if a != b:
                parent[max(a, b)] = min(a, b)  # the earliest version leads its group
                why.setdefault(max(a, b), reason)
    return [root(i) for i in range(len(papers))], why


def _combined(versions: Sequence[Paper]) -> Paper:
    """One paper from its versions (the first leads: its id, source and line stay)."""
    first = versions[0]
    titled = next((v for v in versions if not v.title_derived), first)
    reviewed = max(versions, key=lambda v: venue_rank(v.venue))  # first of the best rank
    # A later version's id is kept unless it is only the longer form a repeated source id
    # took (`2401_01234_ivmrruvptb`): no user saw that one.
    ids = [i for v in versions for i in (v.source_id, (v.id if _natural(v) else ""), *v.aliases)]
    own = {fold_id(first.id), fold_id(first.source_id)}
    aliases: dict[str, str] = {}
    for alias in ids:  # one of each typed form: `2503.04321` and `2503_04321` are one
        if alias and fold_id(alias) not in own:
            aliases.setdefault(fold_id(alias), alias)
    return replace(
        first,
        title=titled.title,
        abstract=max((v.abstract for v in versions), key=len),
        authors=max((v.authors for v in versions), key=len),
        venue=reviewed.venue,
        year=reviewed.year or next((v.year for v in versions if v.year), None),
        track=next((v.track for v in versions if v.track), ""),
        status=next((v.status for v in versions if v.status), ""),
        keywords=tuple(dict.fromkeys(k for v in versions for k in v.keywords)),
        links=_links(versions),
        aliases=tuple(aliases.values()),
        marks=titled.marks,  # TITLE_DERIVED only if no version has the authors' title
        **_programme(versions),
    )


def _programme(versions: Sequence[Paper]) -> dict[str, object]:
    """What a programme adds, from the version that has it (institutions only from one with
    the kept, longest, author list)."""
    authors = max((v.authors for v in versions), key=len)
    return {
        "presentations": next((v.presentations for v in versions if v.presentations), ()),
        "topic": next((v.topic for v in versions if v.topic), ""),
        "affiliations": next(
            (v.affiliations for v in versions if v.affiliations and v.authors == authors), ()
        ),
    }


def _natural(paper: Paper) -> bool:
    """Whether the paper's id is its own first choice, not a collision's longer form."""
    return not paper.source_id or paper.id == tappable_id(paper.source_id)


def _links(versions: Sequence[Paper]) -> tuple[tuple[str, str], ...]:
    """Every version's links, each URL once."""
    seen: dict[str, tuple[str, str]] = {}
    for version in versions:
        for label, url in version.links:
            seen.setdefault(url, (label, url))
    return tuple(seen.values())


def merge_versions(papers: Sequence[Paper], labels: Sequence[str]) -> tuple[list[Paper], list[str]]:
    """The papers with every group of versions merged (in first-version order), and one report
    line per merged version; `labels`: where each paper was read."""
    roots, why = _groups(papers)
    members: dict[int, list[int]] = {}
    for number, root in enumerate(roots):
        members.setdefault(root, []).append(number)
    merged: list[Paper] = []
    lines: list[str] = []
    for root, numbers in members.items():
        if len(numbers) == 1:
            merged.append(papers[root])
            continue
        for number in numbers[1:]:
            reason = why.get(number, "same paper")
            what = (
                f"duplicate of {labels[root]}"
                if reason == "duplicate"
                else f"same paper as {labels[root]} ({reason})"
            )
            lines.append(f"{labels[number]}: {what}{MERGED}")
        merged.append(_combined([papers[n] for n in numbers]))
    return merged, lines
