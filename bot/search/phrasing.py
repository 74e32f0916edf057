"""Chat phrasing: the words that frame a request ("can you recommend papers on …") are not topics.

A question typed to a chat bot wraps its topic in request words; left in, "recommend" ranks
a paper on recommender systems first and "papers" every abstract saying "this paper".
`topic_text` removes them (and "e.g.", "i.e.", which would become the terms "e", "g") before
the query is analysed or embedded, unless nothing would be left.
"""

from __future__ import annotations

import re

__all__ = ["FRAMING_PHRASES", "topic_text"]

FRAMING_PHRASES = (
    "can you",
    "could you",
    "would you",
    "will you",
    "please",
    "i'm looking for",
    "i am looking for",
    "im looking for",
    "looking for",
    "search for",
    "i want",
    "i'd like",
    "i would like",
    "i need",
    "show me",
    "find me",
    "give me",
    "tell me",
    "help me find",
    "recommend",
    "suggest",
    "latest",
    "recent",
    "newest",
    "any",
    "some",
    "papers",
    "paper",
    "articles",
    "article",
    "publications",
    "research on",
    "research about",
    "work on",
    "works on",
    "studies on",
    "what are",
    "are there",
    "is there",
    "find",
    "list",
)
"""Request words, matched as whole words (case-insensitive); longer phrases first."""

# "e.g." and "i.e." before the phrases: their letters must not survive as terms.
_ABBREVIATIONS = r"\b(?:e\.\s?g|i\.\s?e|etc|cf|viz)\.?(?=\W|$)"
_PHRASES = (r"\s+".join(map(re.escape, p.split())) for p in FRAMING_PHRASES)
_FRAMING = re.compile(
    _ABBREVIATIONS + "|" + "|".join(rf"\b{p}\b" for p in sorted(_PHRASES, key=len, reverse=True)),
    re.IGNORECASE,
)
_TOPIC_WORD = re.compile(r"[^\W_]{2,}")


def topic_text(query: str) -> str:
    """`query` without request words and Latin abbreviations; unchanged if no topic word is left."""
    stripped = _FRAMING.sub(" ", query)
    return stripped if _TOPIC_WORD.search(stripped) else query
