"""One paper: its command, its lines in a list, its card, an unknown id, its inline article."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from bot.corpus import PAPER_COMMAND, Paper, compact_authors, is_tappable_id, tier_of
from bot.i18n import Translator
from bot.planner import start_link
from bot.render import limits
from bot.render.blocks import EN, checked_keyboard, translated
from bot.render.callbacks import OpenPaper, encode, paper_ref
from bot.render.doc import Block, Button, Doc, InlineArticle, InlineSwitch, Segment
from bot.render.html import is_web_url, to_html
from bot.render.presentations import hit_badge, presentation_line, tier_label
from bot.search import Hit
from bot.textutil import clean, clean_keep_edges, clip_words, merge_marks, sendable

MAX_PRESENTATIONS = 6  # presentation lines on a card (a paper has one or two)
_CODE_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "huggingface.co", "codeberg.org")
_LINK_LABELS = {"Page": "link.page", "PDF": "link.pdf", "Code": "link.code"}  # arXiv, DOI: names


def paper_command(paper_id: str) -> str:
    """`/paper_12` when Telegram can make it tappable, else `/paper <id>`."""
    if is_tappable_id(paper_id):
        return f"/{PAPER_COMMAND}{paper_id}"
    return f"/paper {paper_id}"


def paper_title(title: str, paper_id: str, t: Translator, limit: int = limits.TITLE_CHARS) -> str:
    """A title to show: clean and cut, or "Paper <id>" for a paper without one."""
    return clip_words(clean(title) or t.gettext("paper.untitled", id=paper_id), limit)


def code_link(paper: Paper) -> str | None:
    """The paper's first link on a code host (or labelled Code), if any."""
    for label, link in paper.links:
        host = (urlsplit(link).hostname or "").lower() if is_web_url(link) else ""
        if label == "Code" or any(host == h or host.endswith("." + h) for h in _CODE_HOSTS):
            return link
    return None


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
    """Venue, track, status (as its tier, "🎤 Oral", or left out without `tier`) and year."""
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
    """How a listed paper starts: `1. <b>Title</b> · /paper_<id>`, its authors, its badge."""
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


def share_query(paper_id: str) -> str | None:
    """What a Share button types after `@bot` (the paper's command); None if it cannot be typed."""
    query = paper_command(paper_id)
    typable = sendable(query, controls="space") == query  # no controls, no lone surrogates
    return query if typable and len(query) <= limits.MAX_INLINE_QUERY_CHARS else None


def _card_buttons(paper: Paper, t: Translator) -> tuple[Button, ...]:
    buttons: list[Button] = [
        (t.gettext("button.similar"), encode(OpenPaper(paper_ref(paper.id), similar=True)))
    ]
    query = share_query(paper.id)
    if query is not None:
        buttons.append((t.gettext("button.share"), InlineSwitch(query)))
    return tuple(buttons)


def paper_doc(
    paper: Paper, *, t: Translator = EN, bot_username: str | None = None, mine: str = ""
) -> Doc:
    """A paper card: title, authors, venue, presentations, abstract, links; Similar and Share."""
    blocks: list[Block] = [(Segment(paper_title(paper.title, paper.id, t), "b"),)]
    if paper.title_derived:  # made from the abstract: never passed off as the authors' title
        blocks[0] += (Segment("\n"), Segment(t.gettext("paper.title_derived"), "i"))
    authors = clip_words(clean(", ".join(paper.authors)), limits.ALL_AUTHORS_CHARS)
    if authors:
        blocks[0] += (Segment("\n"), Segment(authors, "i"))
    venue = clip_words(venue_line(paper, t=t), limits.VENUE_CHARS)
    if venue:
        blocks[0] += (Segment("\n"), Segment(venue))
    blocks[0] += tuple(_programme_spans(paper, t, mine))
    abstract = clip_words(clean(paper.abstract), limits.ABSTRACT_CHARS)
    if abstract:
        blocks.append((Segment(abstract),))
    links = list(dict.fromkeys((label, url) for label, url in paper.links if url))
    if links:
        spans: list[Segment] = list(translated(t, "paper.links"))
        for label, url in links[:10]:
            spans += [Segment(f"\n• {link_label(label, t=t)}: "), link_span(url)]
        blocks.append(tuple(spans))
    deep_link = start_link(bot_username, paper.id) if bot_username else None
    if deep_link is not None:  # as code: a tap copies it
        blocks.append(translated(t, "paper.deep_link", link=Segment(deep_link, "code")))
    return Doc(tuple(blocks), checked_keyboard([_card_buttons(paper, t)]))


def _programme_spans(paper: Paper, t: Translator, mine: str) -> list[Segment]:
    """The card's programme lines: each presentation, the topic, the institutions."""
    shown = paper.presentations[:MAX_PRESENTATIONS]
    spans = [Segment("\n" + presentation_line(presentation, t, mine)) for presentation in shown]
    topic = " → ".join(filter(None, (clean(part) for part in paper.topic.split("->"))))
    if topic:
        topic = clip_words(topic, limits.INSTITUTIONS_CHARS)
        spans += [Segment("\n"), *translated(t, "paper.topic", topic=topic)]
    names = clip_words(clean(", ".join(paper.institutions)), limits.INSTITUTIONS_CHARS)
    if names:
        spans += [Segment("\n"), *translated(t, "paper.institutions", names=names)]
    return spans


def not_found_doc(paper_id: str, *, t: Translator = EN) -> Doc:
    """Unknown paper id."""
    return Doc(
        (
            translated(t, "paper.not_found", id=clip_words(paper_id, 80)),
            translated(t, "paper.ids_hint", example="/paper_3rmh7qdh"),
        )
    )


def inline_article(
    paper: Paper, hit: Hit | None = None, *, t: Translator = EN, bot_username: str | None = None
) -> InlineArticle:
    """An inline result: the title, the snippet (or abstract) as description, and a short card."""
    abstract = clean(paper.abstract)
    if hit is not None and hit.snippet.text.strip():
        description = clean(hit.snippet.text)
    else:
        description = abstract
    badge = hit_badge(paper, t)  # "🎤 Oral · Wed 10:00 · …": first, as in a list of results
    description = f"{badge} · {description}" if badge and description else badge or description
    description = clip_words(description, limits.INLINE_DESCRIPTION_CHARS)
    excerpt = clip_words(abstract, limits.INLINE_EXCERPT_CHARS)
    blocks: list[Block] = [(Segment(paper_title(paper.title, paper.id, t), "b"),)]
    if excerpt:
        blocks.append((Segment(excerpt),))
    blocks.append(translated(t, "inline.id_line", id=paper.id, command=paper_command(paper.id)))
    deep_link = start_link(bot_username, paper.id) if bot_username else None
    if deep_link is not None:
        blocks.append(translated(t, "inline.open_in_bot", link=link_span(deep_link)))
    message = to_html(Doc(tuple(blocks), single_message=True))[0].text
    result_id = paper_ref(paper.id)
    if limits.utf8_len(result_id) > limits.MAX_INLINE_RESULT_ID_BYTES:  # paper_ref hashes long ids
        raise ValueError(f"inline result id of {limits.utf8_len(result_id)} bytes")
    title = paper_title(paper.title, paper.id, t, 255)
    return InlineArticle(result_id, title, description, message)
