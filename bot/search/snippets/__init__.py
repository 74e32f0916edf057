"""Snippets: the sentences of an abstract that best match a query, matches marked."""

from bot.search.snippets.sentences import MAX_SNIPPET_CHARS, Snippet, best_snippet

__all__ = ["MAX_SNIPPET_CHARS", "Snippet", "best_snippet"]
