"""Search: the query pipeline, analysis, BM25 ranking, snippets and confidence, the cache.

Data flow: `Paper`s -> `analysis` (terms) -> `bm25` (postings) -> `Index.search` ranks, then
`hits` describes the hits shown (`snippets`, `confidence`). Every engine searches the
`PreparedQuery` that `query.QueryPipeline` makes of a question. `storage` keeps a built
index (and its papers) on disk; `semantic` fuses BM25 with embeddings (`HybridRetriever`).
"""

from bot.search.confidence import is_confident
from bot.search.gloss import is_chinese
from bot.search.index import Index
from bot.search.recommend import Recommendation, Recommendations, recommend
from bot.search.retriever import Hit, IndexStats, Retriever, SearchResult
from bot.search.semantic import (
    CorpusSource,
    Embedding,
    EmbeddingJob,
    EmbeddingProcess,
    HybridRetriever,
    load_default_embedder,
)
from bot.search.semantic.embedding import papers_in_flight
from bot.search.storage.cache import load_cached, load_corpus_and_index
from bot.search.storage.columns import field_values
from bot.search.storage.key import resolve_cache_dir
from bot.search.storage.rates import read_rate, write_rate
from bot.search.syntax import Clause, DayFilter, FieldFilter, ParsedQuery, Phrase, YearFilter

__all__ = [
    "Clause",
    "CorpusSource",
    "DayFilter",
    "Embedding",
    "EmbeddingJob",
    "EmbeddingProcess",
    "FieldFilter",
    "Hit",
    "HybridRetriever",
    "Index",
    "IndexStats",
    "ParsedQuery",
    "Phrase",
    "Recommendation",
    "Recommendations",
    "Retriever",
    "SearchResult",
    "YearFilter",
    "field_values",
    "is_chinese",
    "is_confident",
    "load_cached",
    "load_corpus_and_index",
    "load_default_embedder",
    "papers_in_flight",
    "read_rate",
    "recommend",
    "resolve_cache_dir",
    "write_rate",
]
