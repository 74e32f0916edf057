"""What every view is built from: catalogue text as spans, examples, keyboards, paging."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.i18n import Translator, translator
from bot.render import limits
from bot.render.callbacks import checked
from bot.render.doc import Block, Button, Doc, InlineSwitch, Keyboard, Segment
from bot.textutil import clean, clip_words

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
    """`text` as a paragraph, then `then`'s blocks: what a toast says, said in a message."""
    return Doc(((Segment(text),), *(then.blocks if then is not None else ())))


def examples_block(t: Translator, examples: Sequence[str] = ()) -> Block:
    """ "Try for example" and questions to copy: `examples` if given, else the catalogue's."""
    questions = [clip_words(clean(text), limits.TITLE_CHARS) for text in examples]
    questions = [text for text in questions if text] or [t.gettext(key) for key in EXAMPLE_KEYS]
    spans: list[Segment] = list(translated(t, "examples.try"))
    for question in questions:
        spans += [Segment("\n• "), Segment(f"/search {question}", "code")]
    return tuple(spans)


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
    """The "page 2 of 5" line and Previous/Next buttons (with callback data `data(offset)`)."""
    nav: list[Button] = []
    if data is not None and offset > 0:
        nav.append((t.gettext("button.previous"), data(max(0, offset - per_page))))
    if data is not None and last < total:
        nav.append((t.gettext("button.next"), data(last)))
    line = translated(t, "results.page", page=offset // per_page + 1, pages=-(-total // per_page))
    return ((line,) if total > per_page else ()), tuple(nav)
