"""Bot API limits, our display caps, how Telegram measures text, and fitting text within a limit."""

from __future__ import annotations

from bot.i18n import Translator
from bot.textutil import clip_words

MAX_MESSAGE_CHARS = 4096  # Bot API limit: sendMessage text after entity parsing (UTF-16 units)
MAX_CALLBACK_DATA_BYTES = 64  # Bot API limit: InlineKeyboardButton.callback_data, UTF-8 bytes
MAX_BUTTONS = 100  # Bot API limit (undocumented): buttons in one inline keyboard
MAX_BUTTONS_PER_ROW = 8  # Bot API limit: buttons in one keyboard row
MAX_INLINE_RESULTS = 50  # Bot API limit: results in one answerInlineQuery
MAX_INLINE_RESULT_ID_BYTES = 64  # Bot API limit: InlineQueryResult.id, UTF-8 bytes
MAX_CALLBACK_ANSWER_CHARS = 200  # Bot API limit: answerCallbackQuery text
MAX_INLINE_QUERY_CHARS = 256  # Bot API limit: InlineQuery.query (what a Share button types)
MAX_COMMAND_DESCRIPTION_CHARS = 256  # Bot API limit: BotCommand.description
# MAX_COMMAND_CHARS (BotCommand.command) is bot.corpus's: the paper-id rule is built on it.

# Our own display caps:
INLINE_RESULTS = 20  # articles per inline answer, well under MAX_INLINE_RESULTS
TITLE_CHARS = 200  # longest title shown, in characters
AUTHORS_CHARS = 120  # the compact author line of a result ("A. Smith, B. Jones et al.")
ALL_AUTHORS_CHARS = 600  # every author in a paper card (a 1,000-author paper is clipped)
VENUE_CHARS = 200  # venue · track · status · year in a paper card; a presentation line
INSTITUTIONS_CHARS = 300  # the authors' institutions in a paper card
SNIPPET_CHARS = 320  # longest snippet shown in a result, in characters
ABSTRACT_CHARS = 3000  # longest abstract in a paper card, in characters
INLINE_EXCERPT_CHARS = 600  # abstract excerpt in an inline article message
INLINE_DESCRIPTION_CHARS = 200  # inline article description (the snippet)
BUTTON_LABEL_CHARS = 40  # result button labels, in characters
LINK_LABEL_CHARS = 60  # visible part of a link
MAX_URL_CHARS = 2048  # longer "links" are data, not something to tap (browsers cap ~2k)


def utf8_len(text: str) -> int:
    """Length in UTF-8 bytes (how Telegram measures callback data and ids); never raises."""
    return len(text.encode("utf-8", "surrogatepass"))


def tg_len(text: str) -> int:
    """Length in UTF-16 code units (how Telegram counts message characters)."""
    return len(text.encode("utf-16-le")) // 2


def encodable(text: str) -> bool:
    """False for text with lone surrogates, which neither UTF-8 nor Telegram can carry."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


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
