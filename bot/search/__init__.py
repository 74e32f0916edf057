"""Search: the query pipeline, analysis, BM25 ranking, snippets and confidence, the cache.

Data flow: `Paper`s -> `analysis` (terms) -> `bm25` (postings) -> `Index.search` ranks, then
`hits` describes the hits shown (`snippets`, `confidence`). Every engine searches the
`PreparedQuery` that `query.QueryPipeline` makes of a question. `storage` keeps a built
index (and its papers) on disk; `semantic` fuses BM25 with embeddings (`HybridRetriever`).
"""

from bot.search.index import Index
from bot.search.retriever import Hit, IndexStats, Retriever, SearchResult
from bot.search.semantic import Embedding, EmbeddingJob, HybridRetriever
from bot.search.storage.cache import load_cached, load_corpus_and_index
from bot.search.storage.key import resolve_cache_dir

__all__ = [
    "Embedding",
    "EmbeddingJob",
    "Hit",
    "HybridRetriever",
    "Index",
    "IndexStats",
    "Retriever",
    "SearchResult",
    "load_cached",
    "load_corpus_and_index",
    "resolve_cache_dir",
]
