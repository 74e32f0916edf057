"""Texts that fit their Bot API limit: the one helper every sent text goes through.

A catalogue entry is short (its template is tested to fit), but its values are not: a long
topic in "You no longer follow <topic>." would make a toast Telegram refuses. So `fitted`
clips the longest values, never the sentence around them; `fit` is the last resort for a
text already made (clipped at the end). Lengths are Telegram's (UTF-16 units).
"""

from __future__ import annotations

from bot.i18n import Translator
from bot.render.limits import MAX_CALLBACK_ANSWER_CHARS, tg_len
from bot.textutil import clip_words

__all__ = ["fit", "fit_toast", "fitted"]


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
    """`text` as a callback answer (a toast): at most 200 characters."""
    return fit(text, MAX_CALLBACK_ANSWER_CHARS)


def fitted(t: Translator, key: str, limit: int, n: int | None = None, /, **values: object) -> str:
    """Entry `key` as plain text within `limit`: its longest text values clipped to fit.

    n: the plural count (`ngettext`), as for the translator.
    """
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
