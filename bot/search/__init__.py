"""Search: analysis, BM25 ranking, snippets and confidence, the `Retriever` protocol, the cache.

Data flow: `Paper`s -> `analysis` (terms) -> `bm25` (postings, rank-bm25's scores) ->
`Index.search` ranks, then `snippets` and `confidence` describe the hits shown. `cache`
stores a built index (and its papers) on disk for fast restarts. `HybridRetriever` fuses
BM25 with `embedding` vectors (`fusion`), after `phrasing` and `spelling` clean the question.
"""

from bot.search.analysis import (
    ANALYZER_VERSION,
    ANALYZERS,
    MAX_QUERY_CHARS,
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
from bot.search.cache import (
    CACHE_MIN_PAPERS,
    DEFAULT_CACHE_DIR,
    STAMPS_FILE,
    Progress,
    corpus_key,
    load_cached,
    load_corpus_and_index,
    load_or_build,
    progress_reporter,
    resolve_cache_dir,
)
from bot.search.cache_file import FORMAT_VERSION, MAGIC, CacheMiss, cache_path
from bot.search.columns import PaperColumns
from bot.search.confidence import CONFIDENT_COVERAGE
from bot.search.hybrid import EmbeddingJob, HybridRetriever, Speller
from bot.search.index import SIMILAR_TERMS, TITLE_WEIGHT, Index, document_terms
from bot.search.retriever import Hit, IndexStats, Retriever, SearchResult
from bot.search.snippets import MAX_SNIPPET_CHARS, Snippet
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
    "EmbeddingJob",
    "EnglishAnalyzer",
    "Hit",
    "HybridRetriever",
    "Index",
    "IndexStats",
    "PaperColumns",
    "Progress",
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
    "load_or_build",
    "progress_reporter",
    "resolve_cache_dir",
]
