"""The seed papers and the dev set of questions, shared by tests and benchmarks.

Each line of devset.jsonl is {"question", "style", "expect", "split"}: `expect` is a
distinctive substring of the expected paper's abstract (null: off-topic, expect nothing), so
it does not depend on how paper ids are assigned. Styles: question (textbook paraphrase),
ownwords (the problem in a user's words, avoiding the abstract's), chinese (简体/繁體, some
English terms), otherlang (Spanish, French, German, Portuguese, Italian, Russian, Japanese,
Korean: 4 each), typo, offtopic, nearmiss (ML topics no seed paper covers). `split` is "tune"
or "heldout", fixed once before any tuning: within each style, records ordered by sha256 of
the question alternate tune, heldout, tune... Tune on "tune"; report "heldout".

Records added later never move an existing record's split: the same rule is applied among
the new records of each style only (66 nearmiss, offtopic, ownwords and chinese questions
were added so, then the 32 otherlang questions and 6 off-topic ones in those languages, each
batch written before any measurement on it).

devset_paperlists.jsonl holds questions over a real list, the ICML 2013-2019
paperlists (`corpus` names it; PAPERLISTS finds the files): `expect` is the expected paper's
exact title and `id` its id. Styles: summary (a researcher's one-sentence summary of the
abstract, own words), title (a paraphrase of the title), keyword, typo, chinese, offtopic and
nearmiss (checked against the abstracts: no paper covers them). Papers were drawn across the
years with random.Random(20); the split is the rule above, applied within each style, and was
fixed (and committed) before any measurement on these questions. `build_paperlists_devset`
writes the file.

devset_icml2026.jsonl holds questions over the real ICML 2026 programme (6,628 papers, a
conference's worth of near neighbours): `id` is the expected paper's OpenReview id, `expect`
its title. Styles: keyword, question (own words), name (a title's leading name typed split,
joined, hyphenated or camelCase), paraphrase (vague, with typos), chinese, summary (one line),
offtopic and nearmiss. Written and split (the rule above, within each style) and committed
before any measurement on them; `build_icml2026_devset` writes the file.
"""

from __future__ import annotations

import collections
import hashlib
import json
import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.corpus import Paper
from testkit.paths import SEED_CORPUS

__all__ = [
    "DEVSET",
    "ICML2026",
    "ICML2026_DEVSET",
    "ICML2026_STYLES",
    "PAPERLISTS",
    "PAPERLISTS_DEVSET",
    "PAPERLISTS_STYLES",
    "SPLITS",
    "STYLES",
    "Question",
    "load_devset",
    "load_icml2026_devset",
    "load_paperlists",
    "load_paperlists_devset",
    "load_seed_papers",
]

DEVSET = Path(__file__).with_name("devset.jsonl")
"""The dev set: paraphrased questions about the seed papers, and off-topic ones."""
SPLITS = ("tune", "heldout")
STYLES = ("question", "ownwords", "chinese", "otherlang", "typo", "offtopic", "nearmiss")
PAPERLISTS_DEVSET = Path(__file__).with_name("devset_paperlists.jsonl")
"""Questions over the ICML 2013-2019 paperlists (exact titles expected)."""
PAPERLISTS_STYLES = ("summary", "title", "keyword", "typo", "chinese", "offtopic", "nearmiss")
_ROOT = Path(__file__).resolve().parents[1]
# The repo's sibling `shared/` (from /work/main) or its worktree's (from /work/wt/<name>).
PAPERLISTS = next(
    (p for p in (_ROOT.parent / "shared/benchmarks/paperlists",
                 _ROOT.parents[1] / "shared/benchmarks/paperlists") if p.exists()),
    _ROOT.parent / "shared/benchmarks/paperlists",
)  # fmt: skip
ICML2026 = PAPERLISTS.parents[1] / "icml2026"
"""The real ICML 2026 programme feed and its abstracts sidecar (read its README)."""


ICML2026 = next(
    (p for p in (_ROOT / "corpus/icml-2026", _ROOT.parent / "shared/icml2026",
                 _ROOT.parents[1] / "shared/icml2026") if p.exists()),
    _ROOT / "corpus/icml-2026",
)  # fmt: skip
"""The real ICML 2026 programme: the bundled copy, else `shared/`."""
ICML2026_DEVSET = Path(__file__).with_name("devset_icml2026.jsonl")
"""Questions over the real ICML 2026 programme (expected paper by OpenReview id)."""
ICML2026_STYLES = ("keyword", "question", "name", "paraphrase", "chinese", "summary",
                   "offtopic", "nearmiss")  # fmt: skip


def load_seed_papers(path: str | Path = SEED_CORPUS) -> list[Paper]:
    """The seed papers via bot.corpus, or split on blank lines if the loader is not there."""
    try:
        from bot.corpus import load_corpus

        return list(load_corpus([path]).papers)
    except NotImplementedError:
        papers: list[Paper] = []
        for file in sorted(Path(path).glob("*.txt")):
            text = file.read_text(encoding="utf-8-sig").replace("\r\n", "\n")
            blocks = [b.strip() for b in re.split(r"\n\s*\n", text) if b.strip()]
            for block in blocks[1:]:
                papers.append(Paper(str(len(papers) + 1), block[:80], block, source=str(file)))
        return papers


@dataclass(frozen=True)
class Question:
    """One dev-set question and the row of the paper it expects (None: off-topic)."""

    text: str
    expect: int | None
    style: str = "question"
    split: str = "tune"


def load_devset(
    papers: Sequence[Paper], path: Path = DEVSET, *, split: str | None = None
) -> list[Question]:
    """Questions with their expected paper resolved by abstract substring (exactly one).

    split: only that split's questions ("tune" or "heldout"); None: all.
    """
    questions = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if split is not None and record["split"] != split:
            continue
        key = record["expect"]
        row = None
        if key is not None:
            rows = [i for i, p in enumerate(papers) if key in p.abstract]
            if len(rows) != 1:
                raise ValueError(f"key {key!r} matches {len(rows)} papers")
            row = rows[0]
        questions.append(Question(record["question"], row, record["style"], record["split"]))
    return questions


def load_paperlists(path: str | Path = PAPERLISTS, *, until: int | None = None) -> list[Paper]:
    """The ICML 2013-2019 papers, through bot.corpus as a user's corpus is read.

    until: only the years up to this one, plus the papers the dev set expects from later
    years (a smaller corpus when embedding all 3,017 papers takes too long).
    """
    from bot.corpus import load_corpus

    files = sorted(Path(path).glob("icml*.json"))
    papers = list(load_corpus(files).papers)
    if until is None:
        return papers
    expected = {
        json.loads(line)["id"]
        for line in PAPERLISTS_DEVSET.read_text(encoding="utf-8").splitlines()
    }
    return [p for p in papers if _year(p) <= until or p.id in expected]


def _year(paper: Paper) -> int:
    """The list year of a paperlists paper, from its file name (icmlYYYY.json)."""
    return int(Path(paper.source).stem[-4:])


def _records(path: Path, split: str | None) -> Iterator[dict[str, Any]]:
    """A dev-set file's records, those of `split` only when given."""
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if split is None or record["split"] == split:
            yield record


def _rows_by_title(papers: Sequence[Paper]) -> dict[str, list[int]]:
    rows: dict[str, list[int]] = {}
    for i, p in enumerate(papers):
        rows.setdefault(p.title, []).append(i)
    return rows


def load_paperlists_devset(
    papers: Sequence[Paper], path: Path = PAPERLISTS_DEVSET, *, split: str | None = None
) -> list[Question]:
    """The paperlists questions, each expected paper found by its exact title (exactly one)."""
    rows = _rows_by_title(papers)
    questions = []
    for record in _records(path, split):
        row = None
        if record["expect"] is not None:
            found = rows.get(record["expect"], [])
            if len(found) != 1:
                raise ValueError(f"title {record['expect']!r} matches {len(found)} papers")
            row = found[0]
        questions.append(Question(record["question"], row, record["style"], record["split"]))
    return questions


def load_icml2026_devset(
    papers: Sequence[Paper], path: Path = ICML2026_DEVSET, *, split: str | None = None
) -> list[Question]:
    """The ICML 2026 questions, each expected paper found by its id (else its exact title)."""
    by_id = {p.id: i for i, p in enumerate(papers)}
    by_title = _rows_by_title(papers)
    questions = []
    for record in _records(path, split):
        row = None
        if record["expect"] is not None:
            row = by_id.get(record["id"])
            found = by_title.get(record["expect"], [])
            if row is None and len(found) != 1:
                raise ValueError(f"paper {record['id']} ({record['expect']!r}) not found")
            row = found[0] if row is None else row
        questions.append(Question(record["question"], row, record["style"], record["split"]))
    return questions


# Writing a dev set (the `build_*_devset` scripts) --------------------------------------------


def drawn_records(
    papers: Sequence[Paper], on_topic: str, *, seed: int, drawn: int
) -> list[dict[str, str | None]]:
    """Questions written about `drawn` papers with abstracts picked by `seed`: each line of
    `on_topic` is "<number of the drawn paper> <style> <question>"."""
    with_abstract = [p for p in papers if p.abstract]
    pick = random.Random(seed).sample(range(len(with_abstract)), drawn)
    out = []
    for line in on_topic.strip().splitlines():
        number, style, question = line.split(" ", 2)
        paper = with_abstract[pick[int(number)]]
        out.append({"question": question, "style": style, "expect": paper.title, "id": paper.id})
    return out


def off_topic_records(off_topic: str) -> list[dict[str, str | None]]:
    """Questions no paper answers: each line of `off_topic` is "<style> <question>"."""
    out = []
    for line in off_topic.strip().splitlines():
        style, question = line.split(" ", 1)
        out.append({"question": question, "style": style, "expect": None, "id": None})
    return out


def with_splits(rows: list[dict[str, str | None]], corpus: str) -> list[dict[str, str | None]]:
    """`rows` with their split (within each style, by sha256 of the question: tune, heldout,
    tune, ...) and their corpus."""
    for style in {r["style"] for r in rows}:
        mine = sorted(
            (r for r in rows if r["style"] == style),
            key=lambda r: hashlib.sha256(str(r["question"]).encode()).hexdigest(),
        )
        for i, record in enumerate(mine):
            record["split"] = "tune" if i % 2 == 0 else "heldout"
    return [{**r, "corpus": corpus} for r in rows]


def write_devset(path: Path, rows: Sequence[dict[str, str | None]]) -> None:
    """Write `rows` as JSON Lines and print how many of each style and split."""
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(collections.Counter((r["style"], r["split"]) for r in rows))
