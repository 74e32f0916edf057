"""Input caps: the worst question costs about what an ordinary one does.

Times the work the bot does per question — search (the query pipeline cuts it),
render to HTML — for an ordinary question and two hostile ones: 10,000 characters of one
repeated rare corpus word, and 10,000 distinct words (real vocabulary, then made-up words).
Also times the engine alone (`Index.search`) on the uncut text: the analyzer's own caps,
`MAX_QUERY_CHARS` and `MAX_QUERY_TERMS` (bot/search/analysis.py), must bound it by themselves.
Reports medians over `--repeats` runs and whether each stays within 2x the ordinary one;
exits 1 if either path does not.

    uv run python -m benchmarks.input_cap [--corpus PATH] [--repeats 50]
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from bot import render
from bot.config import DEFAULT_CORPUS
from bot.corpus import Paper, load_corpus
from bot.search import MAX_QUERY_CHARS, MAX_QUERY_TERMS, Index

ORDINARY = "neural network that compiles into a decision tree with if-else rules"
WORST_CHARS = 10_000
DISTINCT_TOKENS = 10_000
ALLOWED_RATIO = 2.0  # issue 5: the worst input within 2x an ordinary question


def rare_word(papers: tuple[Paper, ...]) -> str:
    """A word found in exactly one abstract (the most expensive kind to score and snippet)."""
    df = Counter(
        word for paper in papers for word in set(re.findall(r"[a-z]{6,}", paper.abstract.lower()))
    )
    return min(word for word, count in df.items() if count == 1)


def distinct_words(papers: tuple[Paper, ...], count: int) -> str:
    vocabulary = sorted({w for p in papers for w in re.findall(r"[a-z]{3,}", p.abstract.lower())})
    made_up = (f"zq{n:05d}x" for n in range(count))
    words = (vocabulary + [next(made_up) for _ in range(max(0, count - len(vocabulary)))])[:count]
    return " ".join(words)


def median_ms(work: Callable[[], object], repeats: int) -> float:
    work()  # warm-up: caches, lazy imports
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()

    papers = load_corpus([args.corpus]).papers
    index = Index.build(papers)
    rare = rare_word(papers)
    inputs = {
        "ordinary question": ORDINARY,
        f"'{rare} ' x {WORST_CHARS} chars": ((rare + " ") * WORST_CHARS)[:WORST_CHARS],
        f"{DISTINCT_TOKENS} distinct tokens": distinct_words(papers, DISTINCT_TOKENS),
    }

    def answer(text: str) -> Callable[[], object]:
        def work() -> object:
            question = text  # front ends pass it whole: the query pipeline cuts it
            result = index.search(question, limit=5)
            return render.to_html(render.results_doc(result, per_page=5))

        return work

    def engine(text: str) -> Callable[[], object]:
        return lambda: index.search(text, limit=5)

    print(
        f"corpus: {args.corpus} ({len(papers)} papers); repeats: {args.repeats}; "
        f"question cut and analyzer MAX_QUERY_CHARS={MAX_QUERY_CHARS}, "
        f"MAX_QUERY_TERMS={MAX_QUERY_TERMS}"
    )
    ok = True
    for label, make in (
        ("bot path (cut + search + render)", answer),
        ("engine alone on uncut text", engine),
    ):
        print(f"\n{label}:")
        base = None
        for name, text in inputs.items():
            ms = median_ms(make(text), args.repeats)
            base = base or ms
            ratio = ms / base
            verdict = "ok" if ratio <= ALLOWED_RATIO else f"OVER {ALLOWED_RATIO:.0f}x"
            if ratio > ALLOWED_RATIO:
                ok = False
            print(
                f"  {name:<40} {len(text):>6} chars  median {ms:8.3f} ms  {ratio:5.2f}x  {verdict}"
            )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
