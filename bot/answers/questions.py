"""Questions and papers: ask (a name or a search, paged), open, similar, author, random.

Synchronous index work, the same for every front end: Telegram runs each call on its search
thread (`off_loop`), the console calls it directly. Each returns an `Answer`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot import render
from bot.corpus import Paper, parse_paper_command
from bot.corpus.authors import MAX_AUTHOR_CHARS
from bot.i18n import Translator
from bot.render import Doc
from bot.search import Hit, Retriever, SearchResult

Numbered = tuple[tuple[int | None, str], ...]
"""(number shown in the text, paper id) per paper that gets a Save button; None: a card."""


@dataclass(frozen=True, slots=True)
class Answer:
    """What to say, and what a front end with buttons needs to go with it."""

    doc: Doc
    papers: Numbered = ()
    """The papers the answer shows, for Save buttons (Telegram) or `/save` (console)."""
    result: SearchResult | None = None
    """The page of hits behind a search answer (None for a name, a card, a list)."""
    page_key: str | None = None
    """Set when the page buttons carry this key instead of the question: keep the question
    under it (the question is `result.query`)."""
    turn: Callable[[int], Answer] | None = None
    """For a front end that pages by typing (the console): the answer one page on (1) or
    back (-1); None when there is nothing to turn this way."""


def numbered(hits: Sequence[Hit], first: int = 1) -> Numbered:
    """Save-button targets for hits numbered from `first`, as the text numbers them."""
    return tuple((first + i, hit.paper.id) for i, hit in enumerate(hits))


def ask(
    index: Retriever, text: str, *, per_page: int, t: Translator, page_key: str | None = None
) -> Answer:
    """The first answer to a question: a person's papers when it is just a name, else hits.

    page_key: a fresh key the page buttons may carry when the question is too long for them;
    `Answer.page_key` says whether it was used.
    """
    # The question is passed whole: the query pipeline makes the one cut (bot.search.query).
    papers = index.named_author(text)
    if papers:
        return Answer(render.author_doc(text, papers, t=t))
    result = results(index, text, limit=per_page)
    if _names_someone_unlisted(index, text, result):
        # What /author says there (nobody's papers are listed), not five unrelated papers.
        return Answer(render.author_doc(text, (), t=t))
    return _results_answer(result, per_page=per_page, t=t, page_key=page_key)


def _names_someone_unlisted(index: Retriever, question: str, result: SearchResult) -> bool:
    """A weak answer to what reads as a person's name, on a corpus that lists no authors.

    There the bot cannot tell a name from a topic by the authors (`named_author`), so a
    question of 2-4 capitalised words that matched nothing well is taken as a name.
    """
    if result.confident:
        return False
    words = question.split(maxsplit=4)  # five: more than a name, however long the rest
    if not 2 <= len(words) <= 4 or not all(_name_word(word) for word in words):
        return False
    return not _lists_authors(index)


def _lists_authors(index: Retriever) -> bool:
    """Whether any paper of `index` names an author.

    Stops at the first that does (at once on most corpora); on one without authors it reads
    every paper, only for the rare weak, name-shaped question, off the event loop.
    """
    return any(paper.authors for paper in index.papers)


def _name_word(word: str) -> bool:
    """ "Bengio", "J.", "O'Neil", "Jean-Luc": capitalised letters, dots, apostrophes, hyphens."""
    return word[:1].isupper() and all(ch.isalpha() or ch in ".'’-" for ch in word)


def results(
    index: Retriever, question: str, *, limit: int = 5, offset: int = 0, snippets: bool = True
) -> SearchResult:
    """A page of ranked hits for `question`, prepared here, once (`QueryPipeline.prepare`):
    every front end's search enters through this (pages, inline mode, alerts, the CLI)."""
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
    """A page of hits as an answer, its Save-button targets numbered as the text numbers them."""
    doc = render.results_doc(result, per_page=per_page, page_key=page_key, t=t)
    keeps_key = result.total > per_page and not render.query_fits_callback(result.query)
    return Answer(
        doc,
        numbered(result.hits, result.offset + 1),
        result,
        page_key if keeps_key else None,
    )


def author(index: Retriever, name: str, *, t: Translator) -> Answer:
    """A person's papers (`/author`).

    The name is cut to `MAX_AUTHOR_CHARS` first: matching costs its length times the authors
    of that surname, so an unbounded name was seconds of a search thread per message.
    """
    name = name[:MAX_AUTHOR_CHARS]
    return Answer(render.author_doc(name, index.by_author(name), t=t))


def open_paper(
    index: Retriever, paper_id: str, *, t: Translator, bot_username: str | None = None
) -> Answer:
    """One paper's card (with its `t.me` link given the bot's username), or what to do about
    an unknown id."""
    found = index.get(paper_id)
    if found is None:
        return Answer(render.not_found_doc(paper_id, t=t))
    return Answer(render.paper_doc(found, t=t, bot_username=bot_username), ((None, found.id),))


def shared_paper(index: Retriever, query: str) -> Paper | None:
    """The paper an inline query names whole, as a Share button types it: `/paper_<id>`,
    `/paper <id>`, or the bare id; None for any other query (a search)."""
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


def random_paper(index: Retriever, *, t: Translator, bot_username: str | None = None) -> Answer:
    """A random paper's card."""
    papers = index.papers
    if not papers:
        return Answer(render.hint_doc("no_match", t=t))
    chosen = random.choice(papers)
    return Answer(render.paper_doc(chosen, t=t, bot_username=bot_username), ((None, chosen.id),))
