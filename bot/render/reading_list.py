"""Views of what a user keeps: Save buttons, /saved, /export, /following, /forget, alerts."""

from __future__ import annotations

from collections.abc import Sequence

from bot.corpus import Paper
from bot.i18n import Translator
from bot.render import limits
from bot.render.about import usage_doc
from bot.render.blocks import EN, button_rows, checked_keyboard, paging, text_doc, translated
from bot.render.callbacks import (
    EXPORT_FORMATS,
    ExportAs,
    Forget,
    Recommend,
    SavedPage,
    ToggleSave,
    Unfollow,
    encode,
    paper_ref,
    topic_ref,
)
from bot.render.doc import Block, Button, Doc, Keyboard, Segment
from bot.render.paper import paper_command, paper_title
from bot.store import FollowOutcome, Limits, SavedPaper, topic_key
from bot.textutil import clean, clip_words

EXPORT_LABELS = {
    "bib": "button.export_bibtex",
    "md": "button.export_markdown",
    "csv": "button.export_csv",
    "ics": "button.export_ics",
}
EXPORT_FILE_STEM = "reading-list"
TOPIC_LABEL_CHARS = 40  # an Unfollow button shows the topic's start


def _star(saved: bool, number: int | None, t: Translator) -> str:
    """ "☆ Save" / "★ Saved" alone, "☆ 3" / "★ 3" for result 3."""
    if number is None:
        return t.gettext("button.saved" if saved else "button.save")
    return f"{'★' if saved else '☆'} {number}"


def with_save_buttons(
    doc: Doc,
    papers: Sequence[tuple[int | None, str]],
    saved: frozenset[str],
    *,
    t: Translator = EN,
) -> Doc:
    """`doc` with a Save button per paper above its other rows, "★" for those in `saved`."""
    buttons = [
        (_star(pid in saved, number, t), encode(ToggleSave(paper_ref(pid), pid not in saved)))
        for number, pid in papers
    ]
    rows = [*button_rows(buttons), *doc.keyboard]
    return Doc(doc.blocks, checked_keyboard(rows), doc.single_message)


def flip_save(keyboard: Keyboard, ref: str, saved: bool, *, t: Translator = EN) -> Keyboard:
    """`keyboard` with the Save button of `ref` showing `saved` (after a tap changed it)."""
    old = {encode(ToggleSave(ref, save=True)), encode(ToggleSave(ref, save=False))}
    long_labels = {t.gettext("button.save"), t.gettext("button.saved")}
    data = encode(ToggleSave(ref, save=not saved))  # a tap on "★" removes

    def flipped(label: str) -> str:
        if label in long_labels:
            return _star(saved, None, t)
        number = label.lstrip("☆★ ")
        return _star(saved, int(number), t) if number.isdigit() else label

    return tuple(
        tuple(
            (flipped(label), data) if old_data in old else (label, old_data)
            for label, old_data in row
        )
        for row in keyboard
    )


def saved_doc(
    papers: Sequence[SavedPaper],
    *,
    total: int,
    offset: int,
    per_page: int,
    in_corpus: frozenset[str],
    t: Translator = EN,
) -> Doc:
    """A page of the reading list with Remove and page buttons; papers not `in_corpus` marked."""
    if not papers:
        return text_doc("list.empty", t=t)
    blocks: list[Block] = [translated(t, "list.title", total)]
    removes: list[Button] = []
    for number, paper in enumerate(papers, start=offset + 1):
        blocks.append(_saved_block(number, paper, paper.paper_id in in_corpus, t))
        removes.append((f"✕ {number}", encode(SavedPage(offset, paper_ref(paper.paper_id)))))
    line, nav = paging(
        t,
        offset=offset,
        last=offset + len(papers),
        total=total,
        per_page=per_page,
        data=lambda at: encode(SavedPage(at)),
    )
    recommend = (t.gettext("button.recommend"), encode(Recommend(0)))
    rows = [*button_rows(removes), nav, (recommend,)]
    return Doc((*blocks, *line), checked_keyboard(rows), single_message=True)


def _saved_block(number: int, paper: SavedPaper, in_corpus: bool, t: Translator) -> Block:
    spans = [Segment(f"{number}. "), Segment(paper_title(paper.title, paper.paper_id, t), "b")]
    byline = ", ".join(paper.authors)
    if byline:
        spans += [Segment("\n"), Segment(clip_words(clean(byline), 200), "i")]
    if in_corpus:
        spans += [Segment("\n"), Segment(paper_command(paper.paper_id))]
    else:
        gone = clip_words(paper.paper_id, 80)
        spans += [Segment(f"\nid {gone} · "), Segment(t.gettext("list.gone"), "i")]
    return tuple(spans)


def export_prompt_doc(*, t: Translator = EN) -> Doc:
    """/export without a format: one button per format."""
    row = tuple((t.gettext(EXPORT_LABELS[fmt]), encode(ExportAs(fmt))) for fmt in EXPORT_FORMATS)
    return Doc((translated(t, "export.prompt"),), checked_keyboard([row]))


def export_filename(fmt: str) -> str:
    """ "reading-list.bib" and the like."""
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
    return usage_doc("follow", t=t)  # EMPTY: only whitespace


def following_doc(topics: Sequence[str], *, t: Translator = EN) -> Doc:
    """The user's topics, numbered, one Unfollow button each."""
    if not topics:
        return Doc((translated(t, "follow.none"), *usage_doc("follow", t=t).blocks))
    lines: list[Segment] = list(translated(t, "follow.title", len(topics)))
    rows: list[tuple[Button, ...]] = []
    for number, topic in enumerate(topics, start=1):
        lines += [Segment(f"\n{number}. "), Segment(clip_words(topic, 300), "i")]
        label = f"✕ {number}. {clip_words(topic, TOPIC_LABEL_CHARS)}"
        data = encode(Unfollow(topic_ref(topic_key(topic))))
        rows.append(((clip_words(label, limits.BUTTON_LABEL_CHARS), data),))
    return Doc((tuple(lines),), checked_keyboard(rows))


def forget_prompt_doc(*, t: Translator = EN) -> Doc:
    """/forget: what it deletes, with confirm and cancel buttons."""
    row = (
        (t.gettext("button.forget_confirm"), encode(Forget(True))),
        (t.gettext("button.cancel"), encode(Forget(False))),
    )
    return Doc((translated(t, "forget.confirm"),), checked_keyboard([row]))


def alert_doc(matches: Sequence[tuple[str, Sequence[Paper]]], *, t: Translator = EN) -> Doc:
    """New papers for the user's topics: one block per paper, under its topic's header."""
    blocks: list[Block] = []
    for topic, papers in matches:
        blocks.append(translated(t, "follow.alert", len(papers), topic=clip_words(topic, 200)))
        for paper in papers:
            title = paper_title(paper.title, paper.id, t)
            command = paper_command(paper.id)
            blocks.append((Segment("• "), Segment(title, "b"), Segment(f"\n{command}")))
    return Doc(tuple(blocks))
