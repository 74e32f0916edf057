"""bot.render.limits: every text sent fits its Bot API limit, the values in it clipped first."""

from __future__ import annotations

import string

import pytest

from bot import render
from bot.i18n import LANGUAGES, translator
from bot.render import MAX_CALLBACK_ANSWER_CHARS, fitted
from bot.render.limits import MAX_MESSAGE_CHARS, fit, tg_len
from testkit.i18n_build import key_of, placeholders, read_catalogue

# A value as long as a message, with astral characters (two UTF-16 units each), spaces and
# HTML-looking text: what a user can put in a topic, a question or a name.
LONG = ("graph 𝕎 <b>neural</b> & networks " * 200)[:MAX_MESSAGE_CHARS]
BIG = 10**15
# Texts shown as toasts (callback answers): 200 characters, whatever their values.
TOASTS = frozenset(
    {
        "error.expired_button",
        "error.something_went_wrong",
        "error.rate_limited",
        "button.private_bot",
        "list.saved",
        "list.removed",
        "list.already_saved",
        "list.not_saved",
        "list.full",
        "list.save_failed",
        "follow.removed",
        "follow.not_following",
    }
)


def _maximal(template: str) -> dict[str, object]:
    """Each placeholder of `template` at its worst: a number where a format needs one."""
    values: dict[str, object] = {}
    for _text, field, spec, _conv in string.Formatter().parse(template):
        if field is not None:
            values[field] = BIG + 0.5 if spec else LONG
    return values


def _catalogue() -> list[tuple[str, str, bool]]:
    """(language, key, plural) for every entry of every catalogue."""
    return [
        (lang, key_of(m), m.pluralizable)
        for lang in LANGUAGES
        for m in read_catalogue(lang)
        if m.id
    ]


def test_the_toast_keys_are_in_the_catalogue() -> None:
    keys = {key for _lang, key, _plural in _catalogue()}
    assert keys >= TOASTS


@pytest.mark.parametrize(("lang", "key", "plural"), _catalogue())
def test_every_entry_with_maximal_values_fits(lang: str, key: str, plural: bool) -> None:
    t = translator(lang)  # type: ignore[arg-type]
    n = BIG if plural else None
    values = _maximal(t.template(key, n))
    limit = MAX_CALLBACK_ANSWER_CHARS if key in TOASTS else MAX_MESSAGE_CHARS
    text = fitted(t, key, limit, n, **values)
    assert 0 < tg_len(text) <= limit
    # Only the values were clipped: the sentence around them is all there, in order.
    at = 0
    for part in t.parts(key, n, **values):
        if part.field is None and part.text:
            at = text.index(part.text, at) + len(part.text)


def test_a_long_topic_is_clipped_not_the_sentence() -> None:
    en = translator("en")
    text = fitted(en, "follow.removed", MAX_CALLBACK_ANSWER_CHARS, topic="deep " * 60)
    assert text.startswith("You no longer follow deep deep") and text.endswith("….")
    assert tg_len(text) <= MAX_CALLBACK_ANSWER_CHARS


def test_short_values_are_left_whole() -> None:
    en = translator("en")
    assert fitted(en, "follow.removed", 200, topic="graphs") == en.gettext(
        "follow.removed", topic="graphs"
    )


@pytest.mark.parametrize("text", ["x" * 500, "𝕎" * 150, "word " * 100, "a𝕎" * 100])
def test_fit_counts_like_telegram(text: str) -> None:
    cut = fit(text, MAX_CALLBACK_ANSWER_CHARS)
    assert 0 < tg_len(cut) <= MAX_CALLBACK_ANSWER_CHARS and cut.endswith("…")


def test_fit_toast_and_message() -> None:
    assert render.fit_toast("ok") == "ok"
    assert tg_len(render.fit_toast("y" * 1000)) == MAX_CALLBACK_ANSWER_CHARS
    assert tg_len(fit("z" * 5000, MAX_MESSAGE_CHARS)) == MAX_MESSAGE_CHARS


def test_placeholders_helper_agrees() -> None:  # the sweep's parser is the catalogue's
    assert placeholders("{a} and {b:.1f}") == {"a", "b"}
