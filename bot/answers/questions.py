"""Questions and papers: ask (a name or a search, paged), open, similar, author, random."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot import render
from bot.corpus import MAX_AUTHOR_CHARS, Paper, parse_paper_command
from bot.i18n import Translator
from bot.render import Doc
from bot.search import Hit, Retriever, SearchResult

Numbered = tuple[tuple[int | None, str], ...]
"""(number shown in the text, paper id) for each paper with a Save button; None on a card."""


@dataclass(frozen=True, slots=True)
class Answer:
    """What to say, its `papers` (for Save buttons), its search `result`, the `page_key` its page
    buttons carry (keep `result.query` under it), and the console's `turn` (1: on, -1: back)."""

    doc: Doc
    papers: Numbered = ()
    result: SearchResult | None = None
    page_key: str | None = None
    turn: Callable[[int], Answer] | None = None


def numbered(hits: Sequence[Hit], first: int = 1) -> Numbered:
    """Save-button targets for hits numbered from `first`, as the text numbers them."""
    return tuple((first + i, hit.paper.id) for i, hit in enumerate(hits))


def ask(
    index: Retriever, text: str, *, per_page: int, t: Translator, page_key: str | None = None
) -> Answer:
    """A person's papers when the question is just a name, else a page of results; `page_key` is a
    fresh key page buttons may carry instead of the question (`Answer.page_key` says if they do).

    >>> answer = ask(index, "sparse attention", per_page=5, t=translator("en"))
    >>> render.to_html(answer.doc)[0].text.splitlines()[0]
    'Results for <i>sparse attention</i> — 1–5 of 12'
    """
    papers = index.named_author(text)
    if papers:
        return Answer(render.author_doc(text, papers, t=t))
    result = results(index, text, limit=per_page)
    if _names_someone_unlisted(index, text, result):
        # What /author says there (nobody's papers are listed), not five unrelated papers.
        return Answer(render.author_doc(text, (), t=t))
    return _results_answer(result, per_page=per_page, t=t, page_key=page_key)


def _names_someone_unlisted(index: Retriever, question: str, result: SearchResult) -> bool:
    """A weak answer to 2-4 capitalised words on a corpus that lists no authors: maybe a name."""
    if result.confident:
        return False
    words = question.split(maxsplit=4)  # five: more than a name, however long the rest
    if not 2 <= len(words) <= 4 or not all(_name_word(word) for word in words):
        return False
    return not any(paper.authors for paper in index.papers)  # at once on most corpora


def _name_word(word: str) -> bool:
    """ "Bengio", "J.", "O'Neil", "Jean-Luc": capitalised letters, dots, apostrophes, hyphens."""
    return word[:1].isupper() and all(ch.isalpha() or ch in ".'’-" for ch in word)


def results(
    index: Retriever, question: str, *, limit: int = 5, offset: int = 0, snippets: bool = True
) -> SearchResult:
    """A page of ranked hits for `question`: every front end's search goes through this.

    >>> result = results(index, "graph neural networks", limit=3)
    >>> [hit.paper.id for hit in result.hits], result.total
    (['hg32kddu', 'objmsxtb', '3rmh7qdh'], 16)
    """
    prepared = index.queries.prepare(question)
    return index.search(prepared, limit=limit, offset=offset, snippets=snippets)


def page(
    index: Retriever,
    question: str,
    *,
    offset: int,
    per_page: int,
    t: Translator,
    page_key: str | None = None,
) -> Answer:
    """The page of results at `offset` (a page turn: no name routing, the question as asked)."""
    result = results(index, question, limit=per_page, offset=offset)
    return _results_answer(result, per_page=per_page, t=t, page_key=page_key)


def _results_answer(
    result: SearchResult, *, per_page: int, t: Translator, page_key: str | None
) -> Answer:
    """A page of hits as an answer, its papers numbered as the text numbers them."""
    doc = render.results_doc(result, per_page=per_page, page_key=page_key, t=t)
    keeps_key = result.total > per_page and not render.query_fits_callback(result.query)
    return Answer(
        doc,
        numbered(result.hits, result.offset + 1),
        result,
        page_key if keeps_key else None,
    )


def author(index: Retriever, name: str, *, t: Translator) -> Answer:
    """A person's papers (/author); a long name is cut first, since matching costs its length."""
    name = name[:MAX_AUTHOR_CHARS]
    return Answer(render.author_doc(name, index.by_author(name), t=t))


def open_paper(
    index: Retriever,
    paper_id: str,
    *,
    t: Translator,
    bot_username: str | None = None,
    mine: str = "",
) -> Answer:
    """One paper's card (times also on the reader's zone `mine`), or the answer to an unknown id."""
    found = index.get(paper_id)
    if found is None:
        return Answer(render.not_found_doc(paper_id, t=t))
    card = render.paper_doc(found, t=t, bot_username=bot_username, mine=mine)
    return Answer(card, ((None, found.id),))


def shared_paper(index: Retriever, query: str) -> Paper | None:
    """The paper an inline query names as a Share button types it; None for a search."""
    text = query.strip()
    parsed = parse_paper_command(text)
    if parsed is not None:
        return index.get(parsed[0])
    name, _, rest = text.partition(" ")
    return index.get(rest.strip() if name == "/paper" else text)


def similar(index: Retriever, paper_id: str, *, per_page: int, t: Translator) -> Answer:
    """Papers like one paper, numbered like results."""
    found = index.get(paper_id)
    if found is None:
        return Answer(render.not_found_doc(paper_id, t=t))
    hits = index.similar(found.id, limit=per_page)
    return Answer(render.similar_doc(found, hits, t=t), numbered(hits))


def random_paper(
    index: Retriever, *, t: Translator, bot_username: str | None = None, mine: str = ""
) -> Answer:
    """A random paper's card (`mine`: the reader's zone, as `open_paper`)."""
    papers = index.papers
    if not papers:
        return Answer(render.hint_doc("no_match", t=t))
    chosen = random.choice(papers)
    card = render.paper_doc(chosen, t=t, bot_username=bot_username, mine=mine)
    return Answer(card, ((None, chosen.id),))
