"""Semantic retrieval: e5 embeddings of papers, fused with BM25 behind the `Retriever` protocol.

The model loads only with `SEMANTIC` on: BM25 alone needs none of it.
"""

from bot.search.semantic.e5_onnx import load_default_embedder
from bot.search.semantic.embedding import Embedder, embed_papers, paper_text
from bot.search.semantic.hybrid import HybridRetriever
from bot.search.semantic.job import Embedding, EmbeddingJob
from bot.search.semantic.process import CorpusSource, EmbeddingProcess

__all__ = [
    "CorpusSource",
    "Embedder",
    "Embedding",
    "EmbeddingJob",
    "EmbeddingProcess",
    "HybridRetriever",
    "embed_papers",
    "load_default_embedder",
    "paper_text",
]
