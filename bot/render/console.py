"""Doc -> console text: the same blocks as plain text, emphasis as ANSI or given marks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot.corpus import Paper, compact_authors
from bot.i18n import Translator
from bot.render.blocks import EN, text_doc, translated
from bot.render.doc import Block, Doc, Segment
from bot.render.html import SEPARATOR
from bot.render.paper import snippet_block
from bot.render.presentations import hit_badge
from bot.render.questions import filters_line, header_notes
from bot.textutil import sendable

if TYPE_CHECKING:
    from bot.search import SearchResult

ANSI_BOLD = "\033[1m"
ANSI_ITALIC = "\033[3m"
ANSI_RESET = "\033[0m"
ANSI_MARKS = (ANSI_BOLD, ANSI_RESET)
"""Highlights on a terminal: bold."""
PLAIN_MARKS = ("«", "»")
"""Highlights in a pipe or a file, where ANSI codes would be noise."""


def _span_console(span: Segment, ansi: bool, marks: tuple[str, str] | None) -> str:
    text = span.text
    if span.style == "a" and span.href and span.href != text:
        text = span.href
    text = sendable(text)  # a terminal acts on controls; print() fails on lone surrogates
    if marks is not None and span.style == "mark":
        return f"{marks[0]}{text}{marks[1]}"
    if not ansi:
        return text
    if span.style in ("b", "mark"):
        return f"{ANSI_BOLD}{text}{ANSI_RESET}"
    if span.style == "i":
        return f"{ANSI_ITALIC}{text}{ANSI_RESET}"
    return text


def to_console(doc: Doc, *, ansi: bool = False, marks: tuple[str, str] | None = None) -> str:
    """Plain text for a terminal: bold and italic as ANSI when `ansi`, highlights in `marks`."""
    return SEPARATOR.join(
        "".join(_span_console(span, ansi, marks) for span in block) for block in doc.blocks
    )


def typed_turns(result: SearchResult, *, t: Translator = EN) -> Block:
    """Under a page of results in the console, which has no buttons: the /next and /prev to type."""
    turns = {
        "/next": result.offset + len(result.hits) < result.total,
        "/prev": result.offset > 0 and bool(result.hits),
    }
    typed = " ".join(name for name, can in turns.items() if can)
    return translated(t, "console.more", commands=typed) if typed else ()


def author_text(
    name: str, papers: Sequence[Paper], *, total: int | None = None, t: Translator = EN
) -> str:
    """`search --author NAME`: each paper's title, id, authors and links; how many more match."""
    if not papers:
        return to_console(text_doc("author.none", t=t, name=name)) + "\n"
    total = max(total or 0, len(papers))
    blocks: list[Block] = [translated(t, "author.header", total, name=name)]
    for rank, paper in enumerate(papers, start=1):
        spans = [Segment(f"{rank}. {paper.title}\n   id {paper.id}")]
        if paper.authors:
            spans.append(Segment(f" · {compact_authors(paper.authors)}"))
        spans += [Segment(f"\n   {url}") for _label, url in paper.links]
        blocks.append(tuple(spans))
    if total > len(papers):
        blocks.append((Segment(t.gettext("author.more", count=total - len(papers))),))
    return to_console(Doc(tuple(blocks))) + "\n"


def results_text(result: SearchResult, marks: tuple[str, str], *, t: Translator = EN) -> str:
    """`search` results: title, id, tier and time, marked snippet, links (no score: JSON has it)."""
    header: Block = translated(t, "cli.query", query=result.query)
    if not result.hits:
        header += (Segment("\n"), *translated(t, "cli.no_match"), *filters_line(result, t))
        return to_console(Doc((header,))) + "\n"
    if not result.confident:
        header += (Segment("\n"), *translated(t, "cli.weak"))
    header += header_notes(result, t)  # as the bot and the console say it
    blocks = [header]
    for rank, hit in enumerate(result.hits, start=result.offset + 1):
        paper = hit.paper
        spans = [
            Segment(f"{rank}. {paper.title}\n"),
            *translated(t, "cli.hit_line", id=paper.id),
        ]
        if paper.authors:
            spans.append(Segment(f" · {compact_authors(paper.authors)}"))
        badge = hit_badge(paper, t)  # "🎤 Oral · Tue 10:15 Seoul time", as the bot lists it
        if badge:
            spans.append(Segment(f"\n   {badge}"))
        if hit.snippet.text.strip():  # a title-only paper has no snippet
            spans += [Segment("\n   "), *snippet_block(hit)]
        spans += [Segment(f"\n   {url}") for _label, url in paper.links]
        blocks.append(tuple(spans))
    return to_console(Doc(tuple(blocks)), marks=marks) + "\n"
