"""Search: the query pipeline, analysis, BM25 ranking, snippets and confidence, the cache.

Data flow: `Paper`s -> `analysis` (terms) -> `bm25` (postings, rank-bm25's scores from
`scoring`) -> `Index.search` ranks, then `snippets` and `confidence` describe the hits shown.
Every engine searches the `PreparedQuery` that `query.QueryPipeline` makes of a question
(cut, `phrasing`, `spelling`). `storage` keeps a built index (and its papers) on disk for fast
restarts. `semantic` is the optional engine: `HybridRetriever` fuses BM25 with embeddings.
"""

from bot.progress import Progress, progress_reporter
from bot.search.analysis import (
    ANALYZER_VERSION,
    ANALYZERS,
    MAX_QUERY_TERMS,
    MAX_TERM_CHARS,
    STOPWORDS,
    Analyzer,
    EnglishAnalyzer,
    analyze,
    analyze_query,
    analyze_spans,
    analyzer_for,
)
from bot.search.bm25 import BM25, DEFAULT_PARAMS, BM25Params, bm25_params
from bot.search.confidence import CONFIDENT_COVERAGE
from bot.search.index import SIMILAR_TERMS, TITLE_WEIGHT, Index, document_terms
from bot.search.query import MAX_QUERY_CHARS, PreparedQuery, QueryPipeline
from bot.search.retriever import Hit, IndexStats, Retriever, SearchResult
from bot.search.semantic import Embedding, EmbeddingJob, HybridRetriever
from bot.search.snippets import MAX_SNIPPET_CHARS, Snippet
from bot.search.spelling import Speller
from bot.search.storage.cache import CACHE_MIN_PAPERS, load_cached, load_corpus_and_index
from bot.search.storage.cache_file import FORMAT_VERSION, MAGIC, CacheMiss, cache_path
from bot.search.storage.columns import PaperColumns
from bot.search.storage.key import DEFAULT_CACHE_DIR, corpus_key, resolve_cache_dir
from bot.search.storage.stamps import STAMPS_FILE
from bot.search.vocabulary import Vocabulary

__all__ = [
    "ANALYZERS",
    "ANALYZER_VERSION",
    "BM25",
    "CACHE_MIN_PAPERS",
    "CONFIDENT_COVERAGE",
    "DEFAULT_CACHE_DIR",
    "DEFAULT_PARAMS",
    "FORMAT_VERSION",
    "MAGIC",
    "MAX_QUERY_CHARS",
    "MAX_QUERY_TERMS",
    "MAX_SNIPPET_CHARS",
    "MAX_TERM_CHARS",
    "SIMILAR_TERMS",
    "STAMPS_FILE",
    "STOPWORDS",
    "TITLE_WEIGHT",
    "Analyzer",
    "BM25Params",
    "CacheMiss",
    "Embedding",
    "EmbeddingJob",
    "EnglishAnalyzer",
    "Hit",
    "HybridRetriever",
    "Index",
    "IndexStats",
    "PaperColumns",
    "PreparedQuery",
    "Progress",
    "QueryPipeline",
    "Retriever",
    "SearchResult",
    "Snippet",
    "Speller",
    "Vocabulary",
    "analyze",
    "analyze_query",
    "analyze_spans",
    "analyzer_for",
    "bm25_params",
    "cache_path",
    "corpus_key",
    "document_terms",
    "load_cached",
    "load_corpus_and_index",
    "progress_reporter",
    "resolve_cache_dir",
]
