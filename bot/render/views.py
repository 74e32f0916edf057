"""Views: hits and papers as `Doc`s (what to say), before any HTML or console formatting.

A result is one title line ending in its tappable `/paper_<id>`, then its snippet: one way
to open it. Buttons are kept for paging (and a card's Similar, /lang's languages), so no
label is a title cut to fit. Every text comes from the catalogue in the reader's language
(`t`, English by default).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal
from urllib.parse import urlsplit

from bot.corpus import Paper, compact_authors
from bot.i18n import Translator, translator
from bot.render import limits
from bot.render.callbacks import (
    checked,
    page_data,
    paper_ref,
    query_fits_callback,
    similar_data,
)
from bot.render.doc import Block, Button, Doc, InlineArticle, Keyboard, Segment
from bot.render.filter_summary import filter_summary
from bot.render.html import is_web_url, to_html
from bot.render.ids import paper_command
from bot.render.text import clean, clean_keep_edges, clip_words, merge_marks
from bot.search import Hit, SearchResult
from bot.textutil import is_latin_letter

EN = translator("en")
"""The default of every view's `t`: handlers pass the user's translator instead."""

EXAMPLE_KEYS = ("examples.question_1", "examples.question_2", "examples.question_3")
"""Shown by /start and in hints; a test checks each finds papers in the seed corpus."""
EXAMPLE_QUESTIONS = tuple(EN.gettext(key) for key in EXAMPLE_KEYS)


def translated(t: Translator, key: str, n: int | None = None, /, **values: object) -> Block:
    """Catalogue entry `key` as spans; a value given as a `Segment` keeps its style (a link)."""
    spans: list[Segment] = []
    plain = {name: (v.text if isinstance(v, Segment) else v) for name, v in values.items()}
    for part in t.parts(key, n, **plain):
        given = values.get(part.field) if part.field else None
        if isinstance(given, Segment):
            spans.append(given)
        elif spans and spans[-1].style == part.style and spans[-1].style != "a":
            # "<b>{count} papers</b>" is one bold run, not a value and words in two tags.
            spans[-1] = Segment(spans[-1].text + part.text, part.style)
        else:
            spans.append(Segment(part.text, part.style))
    return tuple(spans)


def corrected_line(result: SearchResult, t: Translator) -> Block:
    """A new line "Showing results for <i>…</i>" when typos in the query were fixed; else none.

    Appended to a results header, by the bot, the console and the CLI alike.
    """
    if not result.corrected:
        return ()
    corrected = clip_words(clean(result.corrected), 200)
    return (Segment("\n"), *translated(t, "results.corrected", corrected=corrected))


def filters_line(result: SearchResult, t: Translator) -> Block:
    """A new line naming the query-syntax conditions that applied ("2 filters: …"); else none.

    Appended to a results header, by the bot, the console and the CLI alike.
    """
    summary = filter_summary(result.parsed, t) if result.parsed is not None else None
    return (Segment("\n"), Segment(clean(summary), "i")) if summary else ()


def warming_line(result: SearchResult, t: Translator) -> Block:
    """A new line, while the papers embed, under hits BM25 alone found for a question in
    another language (a Chinese one through its gloss): the model's answers come later,
    in about `ready_in` when known. Else none."""
    if not result.warming or classify_question(result.query, result.terms) != "non_english":
        return ()
    if result.ready_in is None:
        return (Segment("\n"), *translated(t, "results.warming"))
    eta = eta_text(result.ready_in, t=t)
    return (Segment("\n"), *translated(t, "results.warming_eta", eta=eta))


def header_notes(result: SearchResult, t: Translator) -> Block:
    """What a results header adds under its first line: corrections, conditions, and while
    the papers embed, that other languages' answers get better (`warming_line`)."""
    return corrected_line(result, t) + filters_line(result, t) + warming_line(result, t)


_CODE_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "huggingface.co", "codeberg.org")


def code_link(paper: Paper) -> str | None:
    """The paper's first link on a code host (or labelled Code), if any."""
    for label, link in paper.links:
        host = (urlsplit(link).hostname or "").lower() if is_web_url(link) else ""
        if label == "Code" or any(host == h or host.endswith("." + h) for h in _CODE_HOSTS):
            return link
    return None


_LINK_LABELS = {"Page": "link.page", "PDF": "link.pdf", "Code": "link.code"}
"""Link labels that read differently per language (arXiv and DOI are names)."""


def link_label(label: str, *, t: Translator = EN) -> str:
    """A link's label (Page, PDF, Code, arXiv, DOI) in the reader's language."""
    key = _LINK_LABELS.get(label)
    return t.gettext(key) if key else label


def venue_line(paper: Paper) -> str:
    """Venue, track, status and year in one line ("ICML 2025 poster · 2025"), "" if none."""
    parts = [paper.venue, paper.track, paper.status]
    if paper.year and str(paper.year) not in paper.venue:
        parts.append(str(paper.year))
    return " · ".join(clean(part) for part in parts if part and clean(part))


def _link_span(url: str) -> Segment:
    label = clip_words(re.sub(r"^https?://(www\.)?", "", url).rstrip("/"), limits.LINK_LABEL_CHARS)
    if is_web_url(url):
        return Segment(label, "a", href=url)
    return Segment(clean(url)[: limits.LINK_LABEL_CHARS])


def _title(paper: Paper, t: Translator, limit: int = limits.TITLE_CHARS) -> str:
    return clip_words(clean(paper.title) or t.gettext("paper.untitled", id=paper.id), limit)


def snippet_block(hit: Hit) -> Block:
    """The snippet as it is, its highlights (merged by `merge_marks`) as `mark` spans."""
    text = hit.snippet.text
    spans: list[Segment] = []
    pos = 0
    for start, end in merge_marks(hit.snippet.marks, text, join_blanks=True):
        if start > pos:
            spans.append(Segment(text[pos:start]))
        spans.append(Segment(text[start:end], "mark"))
        pos = end
    if pos < len(text):
        spans.append(Segment(text[pos:]))
    return tuple(spans)


def snippet_spans(hit: Hit, limit: int = limits.SNIPPET_CHARS) -> list[Segment]:
    """The snippet with its marks, cut to `limit` characters on a word boundary."""
    spans = snippet_block(hit)
    # Clean each span but keep single spaces between them, then cut to the limit.
    cleaned: list[Segment] = []
    used = 0
    for span in spans:
        piece = clean_keep_edges(span.text)  # whitespace runs already collapsed
        if not piece:
            continue
        if used + len(piece) > limit:
            piece = clip_words(piece, max(limit - used, 0))
            if piece.strip("…"):
                cleaned.append(Segment(piece, span.style))
            elif cleaned:
                cleaned.append(Segment("…"))
            break
        cleaned.append(Segment(piece, span.style))
        used += len(piece)
    if cleaned and cleaned[0].text.startswith(" "):
        cleaned[0] = Segment(cleaned[0].text.lstrip(), cleaned[0].style)
    return cleaned


def numbered_paper(number: int, paper: Paper, t: Translator) -> list[Segment]:
    """`1. <b>Title</b> · /paper_<id>` and the authors, compactly: how a listed paper starts."""
    spans = list(
        translated(
            t,
            "results.item",
            number=number,
            title=_title(paper, t),
            command=paper_command(paper.id),
        )
    )
    authors = clip_words(clean(compact_authors(paper.authors)), limits.AUTHORS_CHARS)
    if authors:
        spans += [Segment("\n"), Segment(authors, "i")]
    return spans


def _result_block(number: int, hit: Hit, t: Translator) -> Block:
    """One paper in a list: a numbered title line ending in its one way to open, the snippet.

    The tappable `/paper_<id>` on the title line is the only way to open a result: no
    open buttons (a third copy of each title, cut to fit), so buttons are for paging.
    """
    paper = hit.paper
    spans = numbered_paper(number, paper, t)
    snippet = snippet_spans(hit)
    if snippet:
        spans += [Segment("\n"), *snippet]
    link = code_link(paper)
    if link:
        spans += [Segment("\n"), *translated(t, "results.code", link=_link_span(link))]
    elif paper.links:  # no code: the paper's own page (PDF, arXiv…) is the next best thing
        label, url = paper.links[0]
        spans += [Segment(f"\n{link_label(label, t=t)}: "), _link_span(url)]
    return tuple(spans)


QuestionKind = Literal[
    "empty", "symbols", "non_english", "warming", "common_words", "no_match", "not_text"
]


def classify_question(query: str, terms: Sequence[str] = ()) -> QuestionKind:
    """Why a question found nothing: empty, emoji/symbols only, not English, only stopwords."""
    text = clean(query)
    if not text:
        return "empty"
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return "symbols"
    latin = sum(1 for ch in letters if is_latin_letter(ch))
    if latin * 2 < len(letters):
        return "non_english"
    if not terms:
        return "common_words"
    return "no_match"


def _hint_key(kind: QuestionKind) -> str:
    return "hint." + kind


def eta_text(seconds: float, *, t: Translator = EN) -> str:
    """A rough duration in the reader's language: "40 seconds", "12 minutes", "3 hours"."""
    if seconds < 90:
        return t.ngettext("eta.seconds", max(1, round(seconds)))
    if seconds < 90 * 60:
        return t.ngettext("eta.minutes", round(seconds / 60))
    return t.ngettext("eta.hours", round(seconds / 3600))


def hint_doc(
    kind: QuestionKind, query: str = "", *, t: Translator = EN, ready_in: float | None = None
) -> Doc:
    """A friendly nudge with example questions, for questions that found nothing.

    ready_in: for "warming", about how long until other languages are read (None: unknown).
    """
    if kind == "no_match" and query:
        first = translated(t, "hint.no_match_query", query=clip_words(clean(query), 200))
    elif kind == "warming" and ready_in is not None:
        first = translated(t, "hint.warming_eta", eta=eta_text(ready_in, t=t))
    else:
        first = translated(t, _hint_key(kind))
    return Doc((first, examples_block(t)))


def examples_block(t: Translator) -> Block:
    spans: list[Segment] = list(translated(t, "examples.try"))
    for key in EXAMPLE_KEYS:
        spans += [Segment("\n• "), Segment(f"/search {t.gettext(key)}", "code")]
    return tuple(spans)


def results_doc(
    result: SearchResult, *, per_page: int, page_key: str | None = None, t: Translator = EN
) -> Doc:
    """A page of results: numbered hits, Previous/Next buttons when there are more.

    Args:
        result: the page to show (its `offset` says which page).
        per_page: page size, for the page count and the Next button.
        page_key: state key for page turns when the query is too long for callback data.
        t: the reader's language.
    """
    if not result.hits and result.parsed is not None:  # conditions no paper meets
        return Doc((translated(t, "filters.no_match") + filters_line(result, t), examples_block(t)))
    if not result.hits:
        kind = classify_question(result.query, result.terms)
        if kind == "non_english" and result.warming:
            kind = "warming"  # the model will read it once the papers are embedded
        return hint_doc(kind, result.query, t=t, ready_in=result.ready_in)
    query = clip_words(clean(result.query), 200)
    first = result.offset + 1
    last = result.offset + len(result.hits)
    if result.confident:
        header = translated(
            t, "results.header", query=query, first=first, last=last, total=result.total
        )
    else:
        # The closest papers, said as such (not "nothing found"), and no "ask in English":
        # the hybrid reads other languages too. They page like any answer.
        header = translated(t, "results.weak")
    header += header_notes(result, t)
    blocks: list[Block] = [header]
    blocks += [_result_block(first + i, hit, t) for i, hit in enumerate(result.hits)]

    nav: list[Button] = []
    can_page = page_key is not None or query_fits_callback(result.query)
    if can_page and result.offset > 0:
        prev_offset = max(0, result.offset - per_page)
        nav.append(
            (t.gettext("button.previous"), page_data(prev_offset, query=result.query, key=page_key))
        )
    if can_page and last < result.total:
        nav.append((t.gettext("button.next"), page_data(last, query=result.query, key=page_key)))
    if result.total > per_page:
        pages = -(-result.total // per_page)
        page = result.offset // per_page + 1
        blocks.append(translated(t, "results.page", page=page, pages=pages))
    return Doc(tuple(blocks), checked_keyboard([tuple(nav)]), single_message=True)


def paper_doc(paper: Paper, *, t: Translator = EN) -> Doc:
    """A paper card: title, all authors, venue, the full clean abstract, links; Similar."""
    blocks: list[Block] = [(Segment(_title(paper, t), "b"),)]
    if paper.title_derived:  # issue 19: never passed off as the authors' title
        blocks[0] += (Segment("\n"), Segment(t.gettext("paper.title_derived"), "i"))
    authors = clip_words(clean(", ".join(paper.authors)), limits.ALL_AUTHORS_CHARS)
    if authors:
        blocks[0] += (Segment("\n"), Segment(authors, "i"))
    venue = clip_words(venue_line(paper), limits.VENUE_CHARS)
    if venue:
        blocks[0] += (Segment("\n"), Segment(venue))
    abstract = clip_words(clean(paper.abstract), limits.ABSTRACT_CHARS)
    if abstract:
        blocks.append((Segment(abstract),))
    links = list(dict.fromkeys((label, url) for label, url in paper.links if url))
    if links:
        spans: list[Segment] = list(translated(t, "paper.links"))
        for label, url in links[:10]:
            spans += [Segment(f"\n• {link_label(label, t=t)}: "), _link_span(url)]
        blocks.append(tuple(spans))
    keyboard = checked_keyboard([((t.gettext("button.similar"), similar_data(paper.id)),)])
    return Doc(tuple(blocks), keyboard)


def author_doc(name: str, papers: Sequence[Paper], *, shown: int = 10, t: Translator = EN) -> Doc:
    """A person's papers (`/author`, or a question that is just a name), numbered like results."""
    name = clip_words(clean(name), 80)
    if not papers:
        return Doc((translated(t, "author.none", name=name),))
    blocks: list[Block] = [translated(t, "author.header", len(papers), name=name)]
    for number, paper in enumerate(papers[:shown], start=1):
        spans = numbered_paper(number, paper, t)
        venue = clip_words(venue_line(paper), limits.VENUE_CHARS)
        if venue:
            spans += [Segment("\n"), Segment(venue)]
        blocks.append(tuple(spans))
    if len(papers) > shown:
        blocks.append((Segment(t.gettext("author.more", count=len(papers) - shown), "i"),))
    return Doc(tuple(blocks))


def similar_doc(paper: Paper, hits: Sequence[Hit], *, t: Translator = EN) -> Doc:
    """Papers like `paper`, numbered like results, each opened by its `/paper_<id>`."""
    header = translated(t, "similar.header", title=_title(paper, t))
    if not hits:
        return Doc((header, translated(t, "similar.none")))
    blocks = [header] + [_result_block(i + 1, hit, t) for i, hit in enumerate(hits)]
    return Doc(tuple(blocks))


def not_found_doc(paper_id: str, *, t: Translator = EN) -> Doc:
    """Unknown paper id."""
    return Doc(
        (
            translated(t, "paper.not_found", id=clip_words(paper_id, 80)),
            translated(t, "paper.ids_hint", example="/paper_3rmh7qdh"),
        )
    )


class KeyboardError(ValueError):
    """A keyboard Telegram would refuse: too many buttons, or a row too wide."""


def checked_keyboard(rows: Sequence[tuple[Button, ...]]) -> Keyboard:
    """`rows` as a keyboard Telegram accepts (empty rows dropped); `KeyboardError` if not."""
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


def inline_article(paper: Paper, hit: Hit | None = None, *, t: Translator = EN) -> InlineArticle:
    """An inline result: title; snippet (or abstract start) as description; a short card."""
    title = _title(paper, t, 255)
    abstract = clean(paper.abstract)
    if hit is not None and hit.snippet.text.strip():
        description = clean(hit.snippet.text)
    else:
        description = abstract
    description = clip_words(description, limits.INLINE_DESCRIPTION_CHARS)
    excerpt = clip_words(abstract, limits.INLINE_EXCERPT_CHARS)
    blocks: list[Block] = [(Segment(_title(paper, t), "b"),)]
    if excerpt:
        blocks.append((Segment(excerpt),))
    blocks.append(translated(t, "inline.id_line", id=paper.id, command=paper_command(paper.id)))
    message = to_html(Doc(tuple(blocks), single_message=True))[0].text
    result_id = paper_ref(paper.id)
    if limits.utf8_len(result_id) > limits.MAX_INLINE_RESULT_ID_BYTES:  # paper_ref hashes long ids
        raise ValueError(f"inline result id of {limits.utf8_len(result_id)} bytes")
    return InlineArticle(result_id, title, description, message)
