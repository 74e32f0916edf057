"""The pieces every view is built from: catalogue text as spans, keyboards Telegram accepts,
paging, and the lines of a listed paper (title, authors, snippet, links)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from urllib.parse import urlsplit

from bot.corpus import Paper, compact_authors, tier_of
from bot.i18n import Translator, translator
from bot.render import limits
from bot.render.callbacks import checked
from bot.render.doc import Block, Button, Doc, InlineSwitch, Keyboard, Segment
from bot.render.html import is_web_url
from bot.render.ids import paper_command
from bot.render.presentations import hit_badge, tier_label
from bot.search import Hit
from bot.textutil import clean, clean_keep_edges, clip_words, merge_marks

EN = translator("en")  # every view's default `t`; handlers pass the user's
EXAMPLE_KEYS = ("examples.question_1", "examples.question_2", "examples.question_3")


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


def text_doc(key: str, n: int | None = None, /, *, t: Translator = EN, **values: object) -> Doc:
    """A one-paragraph answer from the catalogue entry `key`."""
    return Doc((translated(t, key, n, **values),))


def said_doc(text: str, then: Doc | None = None) -> Doc:
    """`text` (what an action did) as a paragraph, then `then`'s blocks: what Telegram says in
    a toast, said in a message."""
    return Doc(((Segment(text),), *(then.blocks if then is not None else ())))


def examples_block(t: Translator, examples: Sequence[str] = ()) -> Block:
    """ "Try for example" and questions to copy: `examples` (the corpus's topics), else the
    catalogue's."""
    questions = [clip_words(clean(text), limits.TITLE_CHARS) for text in examples]
    questions = [text for text in questions if text] or [t.gettext(key) for key in EXAMPLE_KEYS]
    spans: list[Segment] = list(translated(t, "examples.try"))
    for question in questions:
        spans += [Segment("\n• "), Segment(f"/search {question}", "code")]
    return tuple(spans)


# ---------------------------------------------------------------- keyboards


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
            if not isinstance(data, InlineSwitch):
                checked(data)
            elif not 0 < len(data.query) <= limits.MAX_INLINE_QUERY_CHARS:
                raise KeyboardError(f"an inline query of {len(data.query)} characters")
    return keyboard


def button_rows(buttons: Sequence[Button]) -> list[tuple[Button, ...]]:
    """`buttons` in rows as wide as Telegram allows ("☆ 1 ☆ 2 …", "✕ 1 ✕ 2 …")."""
    size = limits.MAX_BUTTONS_PER_ROW
    return [tuple(buttons[i : i + size]) for i in range(0, len(buttons), size)]


def paging(
    t: Translator,
    *,
    offset: int,
    last: int,
    total: int,
    per_page: int,
    data: Callable[[int], str] | None,
) -> tuple[tuple[Block, ...], tuple[Button, ...]]:
    """For a page of items `offset` to `last` of `total`: the line "page 2 of 5" (when there
    are several), and Previous/Next (none without `data`: `data(offset)` shows a page)."""
    nav: list[Button] = []
    if data is not None and offset > 0:
        nav.append((t.gettext("button.previous"), data(max(0, offset - per_page))))
    if data is not None and last < total:
        nav.append((t.gettext("button.next"), data(last)))
    line = translated(t, "results.page", page=offset // per_page + 1, pages=-(-total // per_page))
    return ((line,) if total > per_page else ()), tuple(nav)


# ---------------------------------------------------------------- a listed paper


def paper_title(title: str, paper_id: str, t: Translator, limit: int = limits.TITLE_CHARS) -> str:
    """A title to show: clean and cut, or "Paper <id>" for a paper without one."""
    return clip_words(clean(title) or t.gettext("paper.untitled", id=paper_id), limit)


_CODE_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "huggingface.co", "codeberg.org")


def code_link(paper: Paper) -> str | None:
    """The paper's first link on a code host (or labelled Code), if any."""
    for label, link in paper.links:
        host = (urlsplit(link).hostname or "").lower() if is_web_url(link) else ""
        if label == "Code" or any(host == h or host.endswith("." + h) for h in _CODE_HOSTS):
            return link
    return None


_LINK_LABELS = {"Page": "link.page", "PDF": "link.pdf", "Code": "link.code"}  # arXiv, DOI: names


def link_label(label: str, *, t: Translator = EN) -> str:
    """A link's label (Page, PDF, Code, arXiv, DOI) in the reader's language."""
    key = _LINK_LABELS.get(label)
    return t.gettext(key) if key else label


def link_span(url: str) -> Segment:
    """A link shown by its address without the scheme, cut; plain text when not a web URL."""
    label = clip_words(re.sub(r"^https?://(www\.)?", "", url).rstrip("/"), limits.LINK_LABEL_CHARS)
    if is_web_url(url):
        return Segment(label, "a", href=url)
    return Segment(clean(url)[: limits.LINK_LABEL_CHARS])


def venue_line(paper: Paper, *, t: Translator = EN, tier: bool = True) -> str:
    """Venue, track, status and year in one line ("ICML 2025 · Poster · 2025"), "" if none; a
    status that names the tier reads as the tier ("🎤 Oral"), or not at all without `tier`."""
    status = tier_label(tier_of(paper.status), t) if tier_of(paper.status) else paper.status
    parts = [paper.venue, paper.track, status if tier or not tier_of(paper.status) else ""]
    if paper.year and str(paper.year) not in paper.venue:
        parts.append(str(paper.year))
    return " · ".join(clean(part) for part in parts if part and clean(part))


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


def snippet_spans(hit: Hit) -> list[Segment]:
    """The snippet with its marks, each span cleaned, cut on a word boundary."""
    limit = limits.SNIPPET_CHARS
    spans = snippet_block(hit)
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
    """How a listed paper starts: `1. <b>Title</b> · /paper_<id>`, its authors compactly, its
    `hit_badge` ("🎤 Oral · Wed 10:00") if any."""
    title = paper_title(paper.title, paper.id, t)
    spans = list(
        translated(t, "results.item", number=number, title=title, command=paper_command(paper.id))
    )
    authors = clip_words(clean(compact_authors(paper.authors)), limits.AUTHORS_CHARS)
    if authors:
        spans += [Segment("\n"), Segment(authors, "i")]
    badge = hit_badge(paper, t)
    if badge:
        spans += [Segment("\n"), Segment(badge)]
    return spans
