"""Search over papers: understand the question, rank with BM25, show snippets.

>>> from bot.corpus import Paper
>>> from bot.search import Index
>>> index = Index.build([Paper("1", "Graph neural networks", "Graphs help. We study them.")])
>>> result = index.search(index.queries.prepare("graph networks"), limit=5)
>>> result.hits[0].paper.title, result.hits[0].snippet.text
('Graph neural networks', 'Graphs help. We study them.')
"""

from bot.search.cache import load_cached, load_corpus_and_index, resolve_cache_dir
from bot.search.query.gloss import is_chinese
from bot.search.query.syntax import Clause, DayFilter, FieldFilter, ParsedQuery, Phrase, YearFilter
from bot.search.rank.hits import is_confident
from bot.search.rank.index import Index
from bot.search.rank.retriever import Hit, IndexStats, Retriever, SearchResult
from bot.search.recommend import Recommendation, Recommendations, recommend
from bot.search.semantic import (
    CorpusSource,
    Embedding,
    EmbeddingJob,
    EmbeddingProcess,
    HybridRetriever,
    load_default_embedder,
)
from bot.search.semantic.embedding import papers_in_flight, read_rate, write_rate
from bot.search.storage.columns import field_values

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
