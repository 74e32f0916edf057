"""Views: hits and papers as `Doc`s (what to say), before any HTML or console formatting."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Literal
from urllib.parse import urlsplit

from bot.commands import COMMANDS, command
from bot.corpus import Paper
from bot.i18n import Translator, translator
from bot.render import limits
from bot.render.callbacks import (
    checked,
    open_paper_data,
    page_data,
    paper_ref,
    query_fits_callback,
    similar_data,
)
from bot.render.doc import Block, Button, Doc, InlineArticle, Keyboard, Span
from bot.render.html import is_web_url, to_html
from bot.render.ids import paper_command
from bot.render.text import clean, clean_keep_edges, clip_words, merge_marks
from bot.search import Hit, IndexStats, SearchResult

EXPIRED_BUTTON = "This button has expired — please ask again."
SOMETHING_WENT_WRONG = "Sorry, something went wrong on my side. Please try again in a moment."

EXAMPLE_QUESTIONS = (
    "large language model reasoning",
    "diffusion models",
    "reinforcement learning",
)
"""Shown by /start and in hints; a test checks each finds papers in the seed corpus."""

_CODE_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "huggingface.co", "codeberg.org")
_SPACE = re.compile(r"\s+")


def code_link(paper: Paper) -> str | None:
    """The paper's first link on a code host, if any."""
    for link in (*paper.links, paper.url):
        host = (urlsplit(link).hostname or "").lower() if is_web_url(link) else ""
        if any(host == h or host.endswith("." + h) for h in _CODE_HOSTS):
            return link
    return None


def _link_span(url: str) -> Span:
    label = clip_words(re.sub(r"^https?://(www\.)?", "", url).rstrip("/"), limits.LINK_LABEL_CHARS)
    if is_web_url(url):
        return Span(label, "a", href=url)
    return Span(clean(url)[: limits.LINK_LABEL_CHARS])


def _title(paper: Paper) -> str:
    return clip_words(clean(paper.title) or f"Paper {paper.id}", limits.TITLE_CHARS)


def snippet_block(hit: Hit) -> Block:
    """The snippet as it is, its highlights (merged by `merge_marks`) as `mark` spans."""
    text = hit.snippet.text
    spans: list[Span] = []
    pos = 0
    for start, end in merge_marks(hit.snippet.marks, text, join_blanks=True):
        if start > pos:
            spans.append(Span(text[pos:start]))
        spans.append(Span(text[start:end], "mark"))
        pos = end
    if pos < len(text):
        spans.append(Span(text[pos:]))
    return tuple(spans)


def _snippet_spans(hit: Hit, limit: int = limits.SNIPPET_CHARS) -> list[Span]:
    """The snippet with its marks, cut to `limit` characters on a word boundary."""
    spans = snippet_block(hit)
    # Clean each span but keep single spaces between them, then cut to the limit.
    cleaned: list[Span] = []
    used = 0
    for span in spans:
        piece = _SPACE.sub(" ", clean_keep_edges(span.text))
        if not piece:
            continue
        if used + len(piece) > limit:
            piece = clip_words(piece, max(limit - used, 0))
            if piece.strip("…"):
                cleaned.append(Span(piece, span.style))
            elif cleaned:
                cleaned.append(Span("…"))
            break
        cleaned.append(Span(piece, span.style))
        used += len(piece)
    if cleaned and cleaned[0].text.startswith(" "):
        cleaned[0] = Span(cleaned[0].text.lstrip(), cleaned[0].style)
    return cleaned


def _result_block(number: int, hit: Hit) -> Block:
    paper = hit.paper
    spans: list[Span] = [Span(f"{number}. "), Span(_title(paper), "b"), Span("\n")]
    snippet = _snippet_spans(hit)
    if snippet:
        spans += [*snippet, Span("\n")]
    spans.append(Span(paper_command(paper.id)))
    link = code_link(paper)
    if link:
        spans += [Span(" · code: "), _link_span(link)]
    return tuple(spans)


def _open_buttons(numbered: Sequence[tuple[int, Paper]]) -> list[tuple[Button, ...]]:
    rows = []
    for number, paper in numbered:
        label = clip_words(f"{number}. {_title(paper)}", limits.BUTTON_LABEL_CHARS)
        rows.append(((label, open_paper_data(paper.id)),))
    return rows


QuestionKind = Literal["empty", "symbols", "non_english", "common_words", "no_match", "not_text"]


def classify_question(query: str, terms: Sequence[str] = ()) -> QuestionKind:
    """Why a question found nothing: empty, emoji/symbols only, not English, only stopwords."""
    text = clean(query)
    if not text:
        return "empty"
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return "symbols"
    latin = sum(1 for ch in letters if "LATIN" in unicodedata.name(ch, ""))
    if latin * 2 < len(letters):
        return "non_english"
    if not terms:
        return "common_words"
    return "no_match"


_HINTS: dict[str, str] = {
    "empty": "Ask me about a topic and I'll find ICML 2026 papers on it.",
    "symbols": "I can only search words — emoji and symbols alone don't match any paper.",
    "non_english": "The papers are in English, so please ask in English.",
    "common_words": "Those words are too common to search on — add a topic word or two.",
    "no_match": "No paper matched those words.",
    "not_text": "I can only read text — send me your question in words.",
}


def hint_doc(kind: QuestionKind, query: str = "") -> Doc:
    """A friendly nudge with example questions, for questions that found nothing."""
    blocks: list[Block] = [(Span(_HINTS[kind]),)]
    if kind == "no_match" and query:
        blocks[0] = (Span("No paper matched "), Span(clip_words(clean(query), 200), "i"))
    blocks.append(_examples_block())
    return Doc(tuple(blocks))


def _examples_block() -> Block:
    spans: list[Span] = [Span("Try for example:")]
    for example in EXAMPLE_QUESTIONS:
        spans += [Span("\n• "), Span(f"/search {example}", "code")]
    return tuple(spans)


def results_doc(
    result: SearchResult,
    *,
    per_page: int,
    page_key: str | None = None,
    t: Translator = translator("en"),  # noqa: B008 (a cached, immutable translator)
) -> Doc:
    """A page of results: numbered hits, open buttons, Previous/Next when there are more.

    Args:
        result: the page to show (its `offset` says which page).
        per_page: page size, for the page count and the Next button.
        page_key: state key for page turns when the query is too long for callback data.
        t: the user's language, for the texts translated so far.
    """
    if not result.hits:
        return hint_doc(classify_question(result.query, result.terms), result.query)
    query = clip_words(clean(result.query), 200)
    first = result.offset + 1
    last = result.offset + len(result.hits)
    if result.confident:
        header: Block = (
            Span("Results for "),
            Span(query, "i"),
            Span(f" — {first}–{last} of {result.total}"),
        )
    else:
        # No "ask in English" here: the hybrid answers other languages through the model.
        header = (Span("Nothing matched well; closest:", "b"),)
    if result.corrected:
        corrected = clip_words(clean(result.corrected), 200)
        parts = t.parts("results.corrected", corrected=corrected)
        header += (Span("\n"), *(Span(part.text, part.style) for part in parts))
    blocks: list[Block] = [header]
    blocks += [_result_block(first + i, hit) for i, hit in enumerate(result.hits)]

    rows = _open_buttons([(first + i, hit.paper) for i, hit in enumerate(result.hits)])
    nav: list[Button] = []
    can_page = result.confident and (page_key is not None or query_fits_callback(result.query))
    if can_page and result.offset > 0:
        prev_offset = max(0, result.offset - per_page)
        nav.append(("◀ Previous", page_data(prev_offset, query=result.query, key=page_key)))
    if can_page and last < result.total:
        nav.append(("Next ▶", page_data(last, query=result.query, key=page_key)))
    if nav:
        rows.append(tuple(nav))
    if result.confident and result.total > per_page:
        pages = -(-result.total // per_page)
        page = result.offset // per_page + 1
        blocks.append((Span(f"Page {page} of {pages}", "i"),))
    return Doc(tuple(blocks), _keyboard(rows), single_message=True)


def paper_doc(paper: Paper) -> Doc:
    """A paper card: title, authors, the full clean abstract, links, id; Similar button."""
    blocks: list[Block] = [(Span(_title(paper), "b"),)]
    authors = clip_words(clean(paper.authors), 300)
    if authors:
        blocks[0] += (Span("\n"), Span(authors, "i"))
    abstract = clip_words(clean(paper.abstract), limits.ABSTRACT_CHARS)
    if abstract:
        blocks.append((Span(abstract),))
    links = list(dict.fromkeys(link for link in (*paper.links, paper.url) if link))
    if links:
        spans: list[Span] = [Span("Links:")]
        for link in links[:10]:
            spans += [Span("\n• "), _link_span(link)]
        blocks.append(tuple(spans))
    blocks.append((Span(f"id {paper.id} · similar: "), Span(_similar_command(paper.id))))
    keyboard = _keyboard([(("Similar papers", similar_data(paper.id)),)])
    return Doc(tuple(blocks), keyboard)


def _similar_command(paper_id: str) -> str:
    return f"/similar {paper_id}"


def similar_doc(paper: Paper, hits: Sequence[Hit]) -> Doc:
    """Papers like `paper`, numbered like results, with open buttons."""
    header: Block = (Span("Papers similar to "), Span(_title(paper), "b"))
    if not hits:
        return Doc((header, (Span("I found no similar papers."),)))
    blocks = [header] + [_result_block(i + 1, hit) for i, hit in enumerate(hits)]
    rows = _open_buttons([(i + 1, hit.paper) for i, hit in enumerate(hits)])
    return Doc(tuple(blocks), _keyboard(rows))


def not_found_doc(paper_id: str) -> Doc:
    """Unknown paper id."""
    return Doc(
        (
            (Span("I don't know a paper with id "), Span(clip_words(paper_id, 80), "code")),
            (Span("Ids appear next to each result, e.g. "), Span("/paper_1")),
        )
    )


def usage_doc(name: str) -> Doc:
    """How to use a command that needs an argument."""
    wanted = command(name)
    if not wanted.usage:
        raise ValueError(f"/{name} takes no argument")
    return Doc(
        ((Span("Usage: "), Span(wanted.usage, "code"), Span(", e.g. "), Span(wanted.example)),)
    )


def start_doc(paper_count: int) -> Doc:
    """Welcome: what the bot knows, how to ask, examples."""
    return Doc(
        (
            (
                Span("Hi! I search "),
                Span(f"{paper_count} ICML 2026 papers", "b"),
                Span(" by their titles and abstracts."),
            ),
            (
                Span("Just send me a question in plain words (in groups: "),
                Span("/search <question>", "code"),
                Span(" or mention me). Tap a result to read its abstract, or "),
                Span("/help"),
                Span(" for every command."),
            ),
            _examples_block(),
        )
    )


def help_doc() -> Doc:
    """Every command with a one-line description."""
    spans: list[Span] = [Span("Commands", "b")]
    for listed in COMMANDS:
        spans += [Span(f"\n/{listed.name}"), Span(f" — {listed.description}")]
    return Doc(
        (
            tuple(spans),
            (
                Span("In a private chat any message is a question. Inline: type "),
                Span("@<bot> question", "code"),
                Span(" in any chat."),
            ),
        )
    )


def stats_doc(stats: IndexStats) -> Doc:
    """Index sizes."""
    megabytes = stats.memory_bytes / 1_000_000
    return Doc(
        (
            (
                Span("Index", "b"),
                Span(f"\npapers: {stats.papers}"),
                Span(f"\nsources: {stats.sources}"),
                Span(f"\nterms: {stats.terms}"),
                Span(f"\npostings: {stats.postings}"),
                Span(f"\nmemory: {megabytes:.1f} MB"),
            ),
        )
    )


def unknown_command_doc() -> Doc:
    """A command the bot does not have (private chats only)."""
    return Doc(((Span("I don't know that command. "), Span("/help"), Span(" lists mine.")),))


class KeyboardError(ValueError):
    """A keyboard Telegram would refuse: too many buttons, or a row too wide."""


def _keyboard(rows: Sequence[tuple[Button, ...]]) -> Keyboard:
    keyboard = tuple(tuple(row) for row in rows if row)
    buttons = sum(len(row) for row in keyboard)
    if buttons > limits.MAX_BUTTONS:
        raise KeyboardError(f"{buttons} buttons, over the Bot API's {limits.MAX_BUTTONS}")
    for row in keyboard:
        if len(row) > limits.MAX_BUTTONS_PER_ROW:
            raise KeyboardError(f"a row of {len(row)} buttons, over {limits.MAX_BUTTONS_PER_ROW}")
        for _label, data in row:
            checked(data)
    return keyboard


# ---------------------------------------------------------------- inline mode


def inline_article(paper: Paper, hit: Hit | None = None) -> InlineArticle:
    """An inline result: title; snippet (or abstract start) as description; a short card."""
    title = clip_words(clean(paper.title) or f"Paper {paper.id}", 255)
    abstract = clean(paper.abstract)
    if hit is not None and hit.snippet.text.strip():
        description = clean(hit.snippet.text)
    else:
        description = abstract
    description = clip_words(description, limits.INLINE_DESCRIPTION_CHARS)
    excerpt = clip_words(abstract, limits.INLINE_EXCERPT_CHARS)
    blocks: list[Block] = [(Span(_title(paper), "b"),)]
    if excerpt:
        blocks.append((Span(excerpt),))
    blocks.append((Span(f"id {paper.id} · "), Span(paper_command(paper.id))))
    message = to_html(Doc(tuple(blocks), single_message=True))[0].text
    result_id = paper_ref(paper.id)
    if limits.utf8_len(result_id) > limits.MAX_INLINE_RESULT_ID_BYTES:  # paper_ref hashes long ids
        raise ValueError(f"inline result id of {limits.utf8_len(result_id)} bytes")
    return InlineArticle(result_id, title, description, message)
