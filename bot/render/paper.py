"""Views of one paper: its card, the answer to an unknown id, and its inline-mode article."""

from __future__ import annotations

from bot.corpus import Paper
from bot.i18n import Translator
from bot.planner import start_link
from bot.render import limits
from bot.render.callbacks import OpenPaper, encode, paper_ref
from bot.render.doc import Block, Button, Doc, InlineArticle, InlineSwitch, Segment
from bot.render.html import to_html
from bot.render.ids import paper_command
from bot.render.parts import (
    EN,
    checked_keyboard,
    link_label,
    link_span,
    paper_title,
    translated,
    venue_line,
)
from bot.render.presentations import hit_badge, presentation_line
from bot.search import Hit
from bot.textutil import clean, clip_words, sendable

MAX_PRESENTATIONS = 6  # ours: presentation lines on a card (a paper has one or two)


def share_query(paper_id: str) -> str | None:
    """What a Share button types after `@bot`: the paper's command, which inline mode answers
    with that paper first; None if it cannot be typed."""
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
    """A paper card: title, authors, venue and tier, its presentations (on the reader's clock
    `mine` beside the venue's, if they set one) and the authors' institutions, the abstract,
    links, the `t.me` link that opens it (given the bot's username); Similar and Share."""
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
    """The card's programme lines: each presentation (on the reader's clock `mine` too), the
    programme's topic ("Deep Learning → Large Language Models"), then the institutions."""
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
    """An inline result: the title, the snippet (or the abstract) as description, and a short
    card with the `t.me` link that opens the paper in the bot."""
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
