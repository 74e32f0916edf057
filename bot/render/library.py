"""Views of what a user keeps: Save buttons, /saved, /export, /following, /forget, alerts.

Pure like the other views: `SavedPaper` snapshots and papers in, `Doc`s out. Buttons carry
only paper refs, page offsets and topic hashes; the user is whoever taps them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from bot.corpus import Paper
from bot.i18n import Part, Translator, translator
from bot.render import limits
from bot.render.callbacks import (
    OpenPaper,
    ShowSimilar,
    export_data,
    forget_data,
    open_paper_data,
    paper_ref,
    parse_callback,
    remove_saved_data,
    save_data,
    saved_page_data,
    unfollow_data,
)
from bot.render.doc import Block, Button, Doc, Keyboard, Span
from bot.render.ids import paper_command
from bot.render.text import clean, clip_words
from bot.render.views import usage_doc
from bot.store.export import FORMATS
from bot.store.model import FollowOutcome, Limits, SavedPaper, topic_key

EN = translator("en")
"""The default language until a view is given the user's (the i18n convention)."""
EXPORT_LABELS = {
    "bib": "button.export_bibtex",
    "md": "button.export_markdown",
    "csv": "button.export_csv",
}
EXPORT_FILE_STEM = "reading-list"
TOPIC_LABEL_CHARS = 40  # ours: an Unfollow button shows the topic's start


def spans(parts: Iterable[Part]) -> Block:
    """A catalogue entry's styled parts as a Block."""
    return tuple(Span(part.text, part.style) for part in parts)


def text_doc(key: str, n: int | None = None, /, *, t: Translator, **values: object) -> Doc:
    """A one-paragraph answer from the catalogue entry `key`."""
    return Doc((spans(t.parts(key, n, **values)),))


def save_button(paper_id: str, saved: bool, *, t: Translator = EN) -> Button:
    """The Save button: "☆ Save", or "★ Saved" (a tap removes it)."""
    return (
        t.gettext("button.saved" if saved else "button.save"),
        save_data(paper_id, save=not saved),
    )


def save_row(paper_id: str, saved: bool, *, t: Translator = EN) -> tuple[Button, ...]:
    """A keyboard row with the paper's Save button, for a paper card."""
    return (save_button(paper_id, saved, t=t),)


def with_row(doc: Doc, row: tuple[Button, ...]) -> Doc:
    """`doc` with one more keyboard row at the bottom."""
    return Doc(doc.blocks, (*doc.keyboard, row), doc.single_message)


def save_target(row: Sequence[Button]) -> OpenPaper | ShowSimilar | None:
    """The paper a keyboard row is about: a result's open button, or a card's Similar button."""
    action = parse_callback(row[0][1]) if len(row) == 1 else None
    return action if isinstance(action, OpenPaper | ShowSimilar) else None


def save_refs(doc: Doc) -> list[str]:
    """The refs of the papers `with_save_buttons` would add buttons for."""
    return [action.ref for row in doc.keyboard if (action := save_target(row)) is not None]


def with_save_buttons(doc: Doc, saved: frozenset[str], *, t: Translator = EN) -> Doc:
    """`doc` with a Save button beside every "open paper" button (a result row).

    `saved` holds the paper ids the user has saved; matching is by button ref, so this
    works on any view whose rows start with an open button.
    """
    saved_refs = {paper_ref(paper_id) for paper_id in saved}
    rows: list[tuple[Button, ...]] = []
    for row in doc.keyboard:
        action = save_target(row)
        if action is not None and len(row) < limits.MAX_BUTTONS_PER_ROW:
            is_saved = action.ref in saved_refs
            label = t.gettext("button.saved" if is_saved else "button.save")
            data = ("u:" if is_saved else "v:") + action.ref
            row = (*row, (label, data))
        rows.append(row)
    return Doc(doc.blocks, tuple(rows), doc.single_message)


def flip_save(keyboard: Keyboard, ref: str, saved: bool, *, t: Translator = EN) -> Keyboard:
    """`keyboard` with the Save button of `ref` showing `saved` (after a tap changed it)."""
    old = {"v:" + ref, "u:" + ref}
    label = t.gettext("button.saved" if saved else "button.save")
    new = (label, ("u:" if saved else "v:") + ref)
    return tuple(
        tuple(new if data in old else (text, data) for text, data in row) for row in keyboard
    )


def _saved_title(paper: SavedPaper) -> str:
    return clip_words(clean(paper.title) or f"Paper {paper.paper_id}", limits.TITLE_CHARS)


def saved_doc(
    papers: Sequence[SavedPaper],
    *,
    total: int,
    offset: int,
    per_page: int,
    in_corpus: frozenset[str],
    t: Translator = EN,
) -> Doc:
    """A page of the reading list, newest first: open and Remove buttons, Previous/Next.

    A paper not in `in_corpus` (gone after a reload) keeps its stored title and is marked.
    """
    if not papers:
        return text_doc("list.empty", t=t)
    blocks: list[Block] = [spans(t.parts("list.title", total))]
    rows: list[tuple[Button, ...]] = []
    for number, paper in enumerate(papers, start=offset + 1):
        spans_: list[Span] = [Span(f"{number}. "), Span(_saved_title(paper), "b")]
        byline = ", ".join(paper.authors)
        if byline:
            spans_ += [Span("\n"), Span(clip_words(clean(byline), 200), "i")]
        if paper.paper_id in in_corpus:
            spans_ += [Span("\n"), Span(paper_command(paper.paper_id))]
            label = clip_words(f"{number}. {_saved_title(paper)}", limits.BUTTON_LABEL_CHARS)
            row: tuple[Button, ...] = ((label, open_paper_data(paper.paper_id)),)
        else:
            spans_ += [
                Span("\n"),
                Span(f"id {clip_words(paper.paper_id, 80)} · "),
                Span(t.gettext("list.gone"), "i"),
            ]
            row = ()
        remove = f"✕ {number}. {t.gettext('button.remove')}"
        rows.append(
            (
                *row,
                (
                    clip_words(remove, limits.BUTTON_LABEL_CHARS),
                    remove_saved_data(offset, paper.paper_id),
                ),
            )
        )
        blocks.append(tuple(spans_))
    nav: list[Button] = []
    if offset > 0:
        nav.append((t.gettext("button.previous"), saved_page_data(max(0, offset - per_page))))
    if offset + len(papers) < total:
        nav.append((t.gettext("button.next"), saved_page_data(offset + len(papers))))
    if nav:
        rows.append(tuple(nav))
    if total > per_page:
        pages = -(-total // per_page)
        blocks.append(spans(t.parts("results.page", page=offset // per_page + 1, pages=pages)))
    return Doc(tuple(blocks), tuple(rows), single_message=True)


def export_prompt_doc(*, t: Translator = EN) -> Doc:
    """/export without a format: one button per format."""
    row = tuple((t.gettext(EXPORT_LABELS[fmt]), export_data(fmt)) for fmt in FORMATS)
    return Doc((spans(t.parts("export.prompt")),), (row,))


def export_filename(fmt: str) -> str:
    """The document's file name for `fmt`."""
    return f"{EXPORT_FILE_STEM}.{fmt}"


def follow_doc(outcome: FollowOutcome, topic: str, limits: Limits, *, t: Translator = EN) -> Doc:
    """The answer to `/follow <topic>` for what the store did."""
    if outcome is FollowOutcome.FOLLOWED:
        return text_doc("follow.added", t=t, topic=topic)
    if outcome is FollowOutcome.ALREADY_FOLLOWING:
        return text_doc("follow.already", t=t, topic=topic)
    if outcome is FollowOutcome.LIMIT_REACHED:
        return text_doc("follow.full", limits.max_topics, t=t, limit=limits.max_topics)
    if outcome is FollowOutcome.TOO_LONG:
        return text_doc("follow.too_long", t=t, limit=limits.max_topic_chars)
    return usage_doc("follow")  # EMPTY: only whitespace


def following_doc(topics: Sequence[str], *, t: Translator = EN) -> Doc:
    """The user's topics, numbered, one Unfollow button each."""
    if not topics:
        return Doc(
            (
                spans(t.parts("follow.none")),
                spans(
                    t.parts(
                        "usage.line",
                        usage=t.gettext("usage.follow"),
                        example=t.gettext("usage.follow_example"),
                    )
                ),
            )
        )
    lines: list[Span] = list(spans(t.parts("follow.title", len(topics))))
    rows: list[tuple[Button, ...]] = []
    for number, topic in enumerate(topics, start=1):
        lines += [Span(f"\n{number}. "), Span(clip_words(topic, 300), "i")]
        label = f"✕ {number}. {clip_words(topic, TOPIC_LABEL_CHARS)}"
        rows.append(
            ((clip_words(label, limits.BUTTON_LABEL_CHARS), unfollow_data(topic_key(topic))),)
        )
    return Doc((tuple(lines),), tuple(rows))


def forget_prompt_doc(*, t: Translator = EN) -> Doc:
    """/forget: what it deletes, with confirm and cancel buttons."""
    row = (
        (t.gettext("button.forget_confirm"), forget_data(confirm=True)),
        (t.gettext("button.cancel"), forget_data(confirm=False)),
    )
    return Doc((spans(t.parts("forget.confirm")),), (row,))


def alert_doc(matches: Sequence[tuple[str, Sequence[Paper]]], *, t: Translator = EN) -> Doc:
    """New papers for the user's topics: one block per paper, under its topic's header.

    `to_html` splits it on block boundaries when it is longer than one message.
    """
    blocks: list[Block] = []
    for topic, papers in matches:
        blocks.append(spans(t.parts("follow.alert", len(papers), topic=clip_words(topic, 200))))
        for paper in papers:
            title = clip_words(clean(paper.title) or f"Paper {paper.id}", limits.TITLE_CHARS)
            blocks.append((Span("• "), Span(title, "b"), Span("\n"), Span(paper_command(paper.id))))
    return Doc(tuple(blocks))


def snapshot(paper: Paper, *, venue: str = "ICML 2026", year: int | None = 2026) -> SavedPaper:
    """What the store keeps of a paper, so exports outlive corpus changes."""
    authors = tuple(
        name.strip() for name in paper.authors.replace(" and ", ",").split(",") if name.strip()
    )
    url = paper.url or next(iter(paper.links), "")
    return SavedPaper(paper.id, clean(paper.title), authors, year, venue, url)
