"""Bot API limits and our display caps, and the two ways Telegram measures text."""

from __future__ import annotations

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

INLINE_RESULTS = 20  # ours: articles per inline answer, well under MAX_INLINE_RESULTS
TITLE_CHARS = 200  # ours: longest title shown, in characters
AUTHORS_CHARS = 120  # ours: the compact author line of a result ("A. Smith, B. Jones et al.")
ALL_AUTHORS_CHARS = 600  # ours: every author in a paper card (a 1,000-author paper is clipped)
VENUE_CHARS = 200  # ours: venue · track · status · year in a paper card; a presentation line
INSTITUTIONS_CHARS = 300  # ours: the authors' institutions in a paper card
SNIPPET_CHARS = 320  # ours: longest snippet shown in a result, in characters
ABSTRACT_CHARS = 3000  # ours: longest abstract in a paper card, in characters
INLINE_EXCERPT_CHARS = 600  # ours: abstract excerpt in an inline article message
INLINE_DESCRIPTION_CHARS = 200  # ours: inline article description (the snippet)
BUTTON_LABEL_CHARS = 40  # ours: result button labels, in characters
LINK_LABEL_CHARS = 60  # ours: visible part of a link
MAX_URL_CHARS = 2048  # ours: longer "links" are data, not something to tap (browsers cap ~2k)


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
