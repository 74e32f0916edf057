"""Papers tests write into corpora: one unlike every seed paper, and large random corpora."""

from __future__ import annotations

import json
import random
from pathlib import Path

from bot.corpus import AuthorIndex

NEW_PAPER = {
    "id": "quokka1",
    "title": "Quokkaformer: marsupial attention for tabular data",
    "abstract": "We introduce Quokkaformer, a quokkaformer attention layer for tabular data "
    "that hops between rows and columns, and show it beats gradient boosting on forty tables.",
}
"""One JSON record, as a `.jsonl` line or array item."""

SURNAMES = ("Wang", "Li", "Zhang", "Chen", *(f"Sur{k}" for k in range(100)))
"""Surnames of `write_corpus`'s authors: a few shared by hundreds of people."""


def write_corpus(path: Path, n: int) -> None:
    """`n` papers of random words, four authors each: ~770 distinct "Wang"s."""
    rng = random.Random(0)
    words = [f"w{i}" for i in range(3000)]
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            authors = [
                f"{rng.choice('ABCDEFGHJKLMNPRST')}{rng.randrange(300)} {rng.choice(SURNAMES)}"
                for _ in range(4)
            ]
            record = {
                "id": f"p{i}",
                "title": " ".join(rng.choices(words, k=8)),
                "abstract": " ".join(rng.choices(words, k=60)),
                "authors": authors,
            }
            out.write(json.dumps(record) + "\n")


def author_matches(query: str, author: str) -> bool:
    """Whether `query` finds a paper by `author` (the public path to the matching rule)."""
    return AuthorIndex.build([[author]]).papers(query) == (0,)
