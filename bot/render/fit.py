"""Texts within their Bot API limit (UTF-16 units): `fitted` clips a catalogue entry's
longest values, never the sentence around them; `fit` cuts a text already made."""

from __future__ import annotations

from bot.i18n import Translator
from bot.render.limits import MAX_CALLBACK_ANSWER_CHARS, tg_len
from bot.textutil import clip_words


def fit(text: str, limit: int) -> str:
    """`text` within `limit` UTF-16 units, cut on a word boundary with `…` when too long."""
    if tg_len(text) <= limit:
        return text
    chars = limit
    while chars > 0:
        cut = clip_words(text, chars)
        if tg_len(cut) <= limit:
            return cut
        chars -= max(1, (tg_len(cut) - limit + 1) // 2)  # astral characters count twice
    return ""


def fit_toast(text: str) -> str:
    """`text` as a toast (a callback answer)."""
    return fit(text, MAX_CALLBACK_ANSWER_CHARS)


def fitted(t: Translator, key: str, limit: int, n: int | None = None, /, **values: object) -> str:
    """Entry `key` (plural count `n`) as plain text within `limit`, its longest values clipped."""
    values = dict(values)
    while True:
        text = t.gettext(key, **values) if n is None else t.ngettext(key, n, **values)
        over = tg_len(text) - limit
        if over <= 0:
            return text
        longest = max(
            (name for name, value in values.items() if isinstance(value, str) and len(value) > 1),
            key=lambda name: len(str(values[name])),
            default=None,
        )
        if longest is None:  # nothing left to shorten: only the text itself
            return fit(text, limit)
        value = str(values[longest])
        values[longest] = clip_words(value, max(1, min(len(value) - 1, len(value) - over)))
