"""Hits and papers as Telegram HTML (escaped, balanced, within limits) or console text.

Every answer is first built as a `Doc`: blocks of styled `Span`s plus a keyboard of
plain `(label, callback_data)` pairs. `to_html` turns a Doc into Telegram messages
(split on block boundaries, each within `MAX_MESSAGE_CHARS`); `to_console` turns the
same Doc into plain text, bold via ANSI when asked. Nothing here imports `telegram`.
"""

from __future__ import annotations

import hashlib
import html
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from bot.corpus import Paper
from bot.search import Hit, IndexStats, SearchResult

MAX_MESSAGE_CHARS = 4096  # Bot API limit: sendMessage text after entity parsing (UTF-16 units)
MAX_CALLBACK_DATA_BYTES = 64  # Bot API limit: InlineKeyboardButton.callback_data, UTF-8 bytes
MAX_BUTTONS = 100  # Bot API limit (undocumented): buttons in one inline keyboard
MAX_BUTTONS_PER_ROW = 8  # Bot API limit: buttons in one keyboard row
MAX_INLINE_RESULTS = 50  # Bot API limit: results in one answerInlineQuery
MAX_INLINE_RESULT_ID_BYTES = 64  # Bot API limit: InlineQueryResult.id, UTF-8 bytes
MAX_CALLBACK_ANSWER_CHARS = 200  # Bot API limit: answerCallbackQuery text
MAX_COMMAND_CHARS = 32  # Bot API limit: BotCommand.command
MAX_COMMAND_DESCRIPTION_CHARS = 256  # Bot API limit: BotCommand.description

INLINE_RESULTS = 20  # ours: articles per inline answer, well under MAX_INLINE_RESULTS
TITLE_CHARS = 200  # ours: longest title shown, in characters
SNIPPET_CHARS = 320  # ours: longest snippet shown in a result, in characters
ABSTRACT_CHARS = 3000  # ours: longest abstract in a paper card, in characters
INLINE_EXCERPT_CHARS = 600  # ours: abstract excerpt in an inline article message
INLINE_DESCRIPTION_CHARS = 200  # ours: inline article description (the snippet)
BUTTON_LABEL_CHARS = 40  # ours: result button labels, in characters
LINK_LABEL_CHARS = 60  # ours: visible part of a link
MAX_URL_CHARS = 2048  # ours: longer "links" are data, not something to tap (browsers cap ~2k)

EXPIRED_BUTTON = "This button has expired — please ask again."
SOMETHING_WENT_WRONG = "Sorry, something went wrong on my side. Please try again in a moment."

EXAMPLE_QUESTIONS = (
    "large language model reasoning",
    "diffusion models",
    "reinforcement learning",
)
"""Shown by /start and in hints; a test checks each finds papers in the seed corpus."""

COMMANDS: tuple[tuple[str, str], ...] = (
    ("start", "What this bot knows and how to ask"),
    ("help", "Every command with a one-line description"),
    ("search", "Find papers: /search <question>"),
    ("paper", "Show a paper: /paper <id> (or tap /paper_<id>)"),
    ("similar", "Papers like this one: /similar <id>"),
    ("random", "A random ICML 2026 paper"),
    ("stats", "How many papers, sources and terms are indexed"),
)
"""Menu commands registered with `set_my_commands`, and the /help text."""

_CODE_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "huggingface.co", "codeberg.org")
_COMMAND_ID = re.compile(rf"^[A-Za-z0-9_]{{1,{MAX_COMMAND_CHARS - len('paper_')}}}$")
_SPACE = re.compile(r"\s+")

Style = Literal["", "b", "i", "mark", "code", "a"]
Button = tuple[str, str]
"""(label, callback_data)."""
Keyboard = tuple[tuple[Button, ...], ...]


@dataclass(frozen=True, slots=True)
class Span:
    """A run of text in one style; HTML escaping happens only when emitting."""

    text: str
    style: Style = ""
    href: str = ""
    """Target URL when `style == "a"`."""


Block = tuple[Span, ...]
"""A unit that is never split across messages (one result, one paragraph)."""


@dataclass(frozen=True, slots=True)
class Doc:
    """An answer before formatting: blocks, an inline keyboard, how to split."""

    blocks: tuple[Block, ...]
    keyboard: Keyboard = ()
    single_message: bool = False
    """Shrink to fit one message instead of splitting (pages edited in place)."""


@dataclass(frozen=True, slots=True)
class Message:
    """One Telegram message: HTML text and its keyboard."""

    text: str
    keyboard: Keyboard = ()


@dataclass(frozen=True, slots=True)
class InlineArticle:
    """An inline-mode result as plain data (handlers turn it into InlineQueryResultArticle)."""

    id: str
    title: str
    description: str
    message_html: str


# ---------------------------------------------------------------- callback data


@dataclass(frozen=True, slots=True)
class OpenPaper:
    """Button: open the paper behind `ref` (see `paper_ref`)."""

    ref: str


@dataclass(frozen=True, slots=True)
class ShowSimilar:
    """Button: papers similar to `ref`."""

    ref: str


@dataclass(frozen=True, slots=True)
class TurnPage:
    """Button: show the results page at `offset` of a query kept inline or under `key`."""

    offset: int
    query: str | None = None
    key: str | None = None


CallbackAction = OpenPaper | ShowSimilar | TurnPage
MAX_OFFSET = 10_000  # ours: deeper pages are refused as garbage


def utf8_len(text: str) -> int:
    """Length in UTF-8 bytes (how Telegram measures callback data and ids); never raises."""
    return len(text.encode("utf-8", "surrogatepass"))


def _encodable(text: str) -> bool:
    """False for text with lone surrogates, which neither UTF-8 nor Telegram can carry."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def tg_len(text: str) -> int:
    """Length in UTF-16 code units (how Telegram counts message characters)."""
    return len(text.encode("utf-16-le")) // 2


def paper_ref(paper_id: str) -> str:
    """A callback-safe reference: the id when it fits, else `#` + a stable hash of it."""
    fits = utf8_len("s:" + paper_id) <= MAX_CALLBACK_DATA_BYTES
    if fits and not paper_id.startswith("#") and _encodable(paper_id):
        return paper_id
    digest = hashlib.blake2b(paper_id.encode("utf-8", "surrogatepass"), digest_size=8)
    return "#" + digest.hexdigest()


def _checked(data: str) -> str:
    size = utf8_len(data)
    assert 1 <= size <= MAX_CALLBACK_DATA_BYTES, f"callback data of {size} bytes"
    return data


def open_paper_data(paper_id: str) -> str:
    """Callback data for an "open paper" button."""
    return _checked("p:" + paper_ref(paper_id))


def similar_data(paper_id: str) -> str:
    """Callback data for a "similar papers" button."""
    return _checked("s:" + paper_ref(paper_id))


def query_fits_callback(query: str, offset: int = MAX_OFFSET) -> bool:
    """Whether `query` can travel inside page-turn callback data."""
    fits = utf8_len(f"q:{offset}:{query}") <= MAX_CALLBACK_DATA_BYTES
    return bool(query) and fits and _encodable(query)


def page_data(offset: int, *, query: str | None = None, key: str | None = None) -> str:
    """Callback data for a page turn: the query itself when it fits, else a state key."""
    if query is not None and query_fits_callback(query):
        return _checked(f"q:{offset}:{query}")
    if key is None:
        raise ValueError("a query too long for callback data needs a state key")
    return _checked(f"k:{offset}:{key}")


def parse_callback(data: object) -> CallbackAction | None:
    """The action behind callback data, or None for anything stale or malformed."""
    if not isinstance(data, str) or not 3 <= utf8_len(data) <= MAX_CALLBACK_DATA_BYTES:
        return None
    if not _encodable(data):  # garbage: Telegram never sends lone surrogates
        return None
    kind, _, rest = data.partition(":")
    if kind in ("p", "s"):
        if not rest or rest != rest.strip():
            return None
        return OpenPaper(rest) if kind == "p" else ShowSimilar(rest)
    if kind in ("q", "k"):
        offset_text, sep, value = rest.partition(":")
        if not sep or not value or not offset_text.isascii() or not offset_text.isdigit():
            return None
        offset = int(offset_text)
        if offset > MAX_OFFSET:
            return None
        return TurnPage(offset, query=value) if kind == "q" else TurnPage(offset, key=value)
    return None


# ---------------------------------------------------------------- text helpers


def clean(text: str) -> str:
    """One line: whitespace runs collapsed, control characters dropped."""
    if text.isprintable():  # no controls, surrogates or line breaks: skip the per-char pass
        return _SPACE.sub(" ", text).strip()
    text = "".join(
        " " if ch in "\t\n\r\v\f" else ch
        for ch in text
        if ch in "\t\n\r\v\f" or unicodedata.category(ch) not in ("Cc", "Cs")
    )
    return _SPACE.sub(" ", text).strip()


def truncate_words(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters on a word boundary, with `…` when cut."""
    if limit < 1:
        return ""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-–—") + "…"


def paper_command(paper_id: str) -> str:
    """`/paper_12` when Telegram can make it tappable, else `/paper <id>`."""
    if _COMMAND_ID.match(paper_id):
        return f"/paper_{paper_id}"
    return f"/paper {paper_id}"


def code_link(paper: Paper) -> str | None:
    """The paper's first link on a code host, if any."""
    for link in (*paper.links, paper.url):
        host = (urlsplit(link).hostname or "").lower() if _is_web_url(link) else ""
        if any(host == h or host.endswith("." + h) for h in _CODE_HOSTS):
            return link
    return None


def _is_web_url(url: str) -> bool:
    """An http(s) URL Telegram takes as a link: no spaces, controls, invisible marks or surrogates.

    Checked on the text as given, since `urlsplit` silently strips leading controls and
    tabs/newlines that would still reach the `href`.
    """
    if not url or len(url) > MAX_URL_CHARS or not url.isprintable() or " " in url:
        return False
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def _link_span(url: str) -> Span:
    label = truncate_words(re.sub(r"^https?://(www\.)?", "", url).rstrip("/"), LINK_LABEL_CHARS)
    if _is_web_url(url):
        return Span(label, "a", href=url)
    return Span(clean(url)[:LINK_LABEL_CHARS])


def _title(paper: Paper) -> str:
    return truncate_words(clean(paper.title) or f"Paper {paper.id}", TITLE_CHARS)


def _snippet_spans(hit: Hit, limit: int = SNIPPET_CHARS) -> list[Span]:
    """The snippet with its marks, cut to `limit` characters on a word boundary."""
    text = hit.snippet.text
    marks = sorted(
        (max(0, s), min(len(text), e)) for s, e in hit.snippet.marks if min(len(text), e) > s
    )
    merged: list[tuple[int, int]] = []
    for start, end in marks:
        # "neural networks" reads better as one highlight than as two.
        if merged and (start <= merged[-1][1] or not text[merged[-1][1] : start].strip()):
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    spans: list[Span] = []
    pos = 0
    for start, end in merged:
        start = max(start, pos)
        if start >= end:
            continue
        if start > pos:
            spans.append(Span(text[pos:start]))
        spans.append(Span(text[start:end], "mark"))
        pos = end
    if pos < len(text):
        spans.append(Span(text[pos:]))
    # Clean each span but keep single spaces between them, then cut to the limit.
    cleaned: list[Span] = []
    used = 0
    for span in spans:
        piece = _SPACE.sub(" ", clean_keep_edges(span.text))
        if not piece:
            continue
        if used + len(piece) > limit:
            piece = truncate_words(piece, max(limit - used, 0))
            if piece.strip("…"):
                cleaned.append(Span(piece, span.style))
            elif cleaned:
                cleaned.append(Span("…"))
            break
        cleaned.append(Span(piece, span.style))
        used += len(piece)
    if cleaned and cleaned[0].text.startswith(" "):
        cleaned[0] = Span(cleaned[0].text.lstrip(), cleaned[0].style)
    return cleaned


def clean_keep_edges(text: str) -> str:
    """Like `clean`, but a leading/trailing space survives (spans join on it)."""
    lead = " " if text[:1].isspace() else ""
    trail = " " if text[-1:].isspace() and text.strip() else ""
    inner = clean(text)
    return f"{lead}{inner}{trail}" if inner else (" " if text else "")


# ---------------------------------------------------------------- documents


def _result_block(number: int, hit: Hit) -> Block:
    paper = hit.paper
    spans: list[Span] = [Span(f"{number}. "), Span(_title(paper), "b"), Span("\n")]
    snippet = _snippet_spans(hit)
    if snippet:
        spans += [*snippet, Span("\n")]
    spans.append(Span(paper_command(paper.id)))
    link = code_link(paper)
    if link:
        spans += [Span(" · code: "), _link_span(link)]
    return tuple(spans)


def _open_buttons(numbered: Sequence[tuple[int, Paper]]) -> list[tuple[Button, ...]]:
    rows = []
    for number, paper in numbered:
        label = truncate_words(f"{number}. {_title(paper)}", BUTTON_LABEL_CHARS)
        rows.append(((label, open_paper_data(paper.id)),))
    return rows


QuestionKind = Literal["empty", "symbols", "non_english", "common_words", "no_match", "not_text"]


def classify_question(query: str, terms: Sequence[str] = ()) -> QuestionKind:
    """Why a question found nothing: empty, emoji/symbols only, not English, only stopwords."""
    text = clean(query)
    if not text:
        return "empty"
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return "symbols"
    latin = sum(1 for ch in letters if "LATIN" in unicodedata.name(ch, ""))
    if latin * 2 < len(letters):
        return "non_english"
    if not terms:
        return "common_words"
    return "no_match"


_HINTS: dict[str, str] = {
    "empty": "Ask me about a topic and I'll find ICML 2026 papers on it.",
    "symbols": "I can only search words — emoji and symbols alone don't match any paper.",
    "non_english": "The papers are in English, so please ask in English.",
    "common_words": "Those words are too common to search on — add a topic word or two.",
    "no_match": "No paper matched those words.",
    "not_text": "I can only read text — send me your question in words.",
}


def hint_doc(kind: QuestionKind, query: str = "") -> Doc:
    """A friendly nudge with example questions, for questions that found nothing."""
    blocks: list[Block] = [(Span(_HINTS[kind]),)]
    if kind == "no_match" and query:
        blocks[0] = (Span("No paper matched "), Span(truncate_words(clean(query), 200), "i"))
    blocks.append(_examples_block())
    return Doc(tuple(blocks))


def _examples_block() -> Block:
    spans: list[Span] = [Span("Try for example:")]
    for example in EXAMPLE_QUESTIONS:
        spans += [Span("\n• "), Span(f"/search {example}", "code")]
    return tuple(spans)


def results_doc(result: SearchResult, *, per_page: int, page_key: str | None = None) -> Doc:
    """A page of results: numbered hits, open buttons, Previous/Next when there are more.

    Args:
        result: the page to show (its `offset` says which page).
        per_page: page size, for the page count and the Next button.
        page_key: state key for page turns when the query is too long for callback data.
    """
    if not result.hits:
        return hint_doc(classify_question(result.query, result.terms), result.query)
    query = truncate_words(clean(result.query), 200)
    first = result.offset + 1
    last = result.offset + len(result.hits)
    if result.confident:
        header: Block = (
            Span("Results for "),
            Span(query, "i"),
            Span(f" — {first}–{last} of {result.total}"),
        )
    else:
        header = (Span("Nothing matched well; closest:", "b"),)
        if classify_question(result.query, result.terms) == "non_english":
            header += (Span("\n" + _HINTS["non_english"]),)
    blocks: list[Block] = [header]
    blocks += [_result_block(first + i, hit) for i, hit in enumerate(result.hits)]

    rows = _open_buttons([(first + i, hit.paper) for i, hit in enumerate(result.hits)])
    nav: list[Button] = []
    can_page = result.confident and (page_key is not None or query_fits_callback(result.query))
    if can_page and result.offset > 0:
        prev_offset = max(0, result.offset - per_page)
        nav.append(("◀ Previous", page_data(prev_offset, query=result.query, key=page_key)))
    if can_page and last < result.total:
        nav.append(("Next ▶", page_data(last, query=result.query, key=page_key)))
    if nav:
        rows.append(tuple(nav))
    if result.confident and result.total > per_page:
        pages = -(-result.total // per_page)
        page = result.offset // per_page + 1
        blocks.append((Span(f"Page {page} of {pages}", "i"),))
    return Doc(tuple(blocks), _keyboard(rows), single_message=True)


def paper_doc(paper: Paper) -> Doc:
    """A paper card: title, authors, the full clean abstract, links, id; Similar button."""
    blocks: list[Block] = [(Span(_title(paper), "b"),)]
    authors = truncate_words(clean(paper.authors), 300)
    if authors:
        blocks[0] += (Span("\n"), Span(authors, "i"))
    abstract = truncate_words(clean(paper.abstract), ABSTRACT_CHARS)
    if abstract:
        blocks.append((Span(abstract),))
    links = list(dict.fromkeys(link for link in (*paper.links, paper.url) if link))
    if links:
        spans: list[Span] = [Span("Links:")]
        for link in links[:10]:
            spans += [Span("\n• "), _link_span(link)]
        blocks.append(tuple(spans))
    blocks.append((Span(f"id {paper.id} · similar: "), Span(_similar_command(paper.id))))
    keyboard = _keyboard([(("Similar papers", similar_data(paper.id)),)])
    return Doc(tuple(blocks), keyboard)


def _similar_command(paper_id: str) -> str:
    return f"/similar {paper_id}"


def similar_doc(paper: Paper, hits: Sequence[Hit]) -> Doc:
    """Papers like `paper`, numbered like results, with open buttons."""
    header: Block = (Span("Papers similar to "), Span(_title(paper), "b"))
    if not hits:
        return Doc((header, (Span("I found no similar papers."),)))
    blocks = [header] + [_result_block(i + 1, hit) for i, hit in enumerate(hits)]
    rows = _open_buttons([(i + 1, hit.paper) for i, hit in enumerate(hits)])
    return Doc(tuple(blocks), _keyboard(rows))


def not_found_doc(paper_id: str) -> Doc:
    """Unknown paper id."""
    return Doc(
        (
            (Span("I don't know a paper with id "), Span(truncate_words(paper_id, 80), "code")),
            (Span("Ids appear next to each result, e.g. "), Span("/paper_1")),
        )
    )


def usage_doc(command: str) -> Doc:
    """How to use a command that needs an argument."""
    usage = {
        "search": ("/search <question>", "/search diffusion models"),
        "paper": ("/paper <id>", "/paper 1"),
        "similar": ("/similar <id>", "/similar 1"),
    }[command]
    return Doc(((Span("Usage: "), Span(usage[0], "code"), Span(", e.g. "), Span(usage[1])),))


def start_doc(paper_count: int) -> Doc:
    """Welcome: what the bot knows, how to ask, examples."""
    return Doc(
        (
            (
                Span("Hi! I search "),
                Span(f"{paper_count} ICML 2026 papers", "b"),
                Span(" by their titles and abstracts."),
            ),
            (
                Span("Just send me a question in plain words (in groups: "),
                Span("/search <question>", "code"),
                Span(" or mention me). Tap a result to read its abstract, or "),
                Span("/help"),
                Span(" for every command."),
            ),
            _examples_block(),
        )
    )


def help_doc() -> Doc:
    """Every command with a one-line description."""
    spans: list[Span] = [Span("Commands", "b")]
    for command, description in COMMANDS:
        spans += [Span(f"\n/{command}"), Span(f" — {description}")]
    return Doc(
        (
            tuple(spans),
            (
                Span("In a private chat any message is a question. Inline: type "),
                Span("@<bot> question", "code"),
                Span(" in any chat."),
            ),
        )
    )


def stats_doc(stats: IndexStats) -> Doc:
    """Index sizes."""
    megabytes = stats.memory_bytes / 1_000_000
    return Doc(
        (
            (
                Span("Index", "b"),
                Span(f"\npapers: {stats.papers}"),
                Span(f"\nsources: {stats.sources}"),
                Span(f"\nterms: {stats.terms}"),
                Span(f"\npostings: {stats.postings}"),
                Span(f"\nmemory: {megabytes:.1f} MB"),
            ),
        )
    )


def unknown_command_doc() -> Doc:
    """A command the bot does not have (private chats only)."""
    return Doc(((Span("I don't know that command. "), Span("/help"), Span(" lists mine.")),))


def _keyboard(rows: Sequence[tuple[Button, ...]]) -> Keyboard:
    keyboard = tuple(tuple(row) for row in rows if row)
    assert sum(len(row) for row in keyboard) <= MAX_BUTTONS
    for row in keyboard:
        assert len(row) <= MAX_BUTTONS_PER_ROW
        for _label, data in row:
            _checked(data)
    return keyboard


# ---------------------------------------------------------------- inline mode


def inline_article(paper: Paper, hit: Hit | None = None) -> InlineArticle:
    """An inline result: title; snippet (or abstract start) as description; a short card."""
    title = truncate_words(clean(paper.title) or f"Paper {paper.id}", 255)
    abstract = clean(paper.abstract)
    if hit is not None and hit.snippet.text.strip():
        description = clean(hit.snippet.text)
    else:
        description = abstract
    description = truncate_words(description, INLINE_DESCRIPTION_CHARS)
    excerpt = truncate_words(abstract, INLINE_EXCERPT_CHARS)
    blocks: list[Block] = [(Span(_title(paper), "b"),)]
    if excerpt:
        blocks.append((Span(excerpt),))
    blocks.append((Span(f"id {paper.id} · "), Span(paper_command(paper.id))))
    message = to_html(Doc(tuple(blocks), single_message=True))[0].text
    result_id = paper_ref(paper.id)
    assert utf8_len(result_id) <= MAX_INLINE_RESULT_ID_BYTES
    return InlineArticle(result_id, title, description, message)


# ---------------------------------------------------------------- emitters


# Characters a message cannot carry: lone surrogates (invalid UTF-8/UTF-16) and controls
# (Telegram drops or refuses them); "\n" is the one control messages use.
_UNSENDABLE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def _unsendable(match: re.Match[str]) -> str:
    char = match.group()
    return "\ufffd" if char >= "\ud800" else " " if char.isspace() else ""


def sendable(text: str) -> str:
    """`text` safe to send: lone surrogates as U+FFFD, controls except newline dropped."""
    return _UNSENDABLE.sub(_unsendable, text) if _UNSENDABLE.search(text) else text


def _span_html(span: Span) -> str:
    # Every message's text is escaped here, so this is where unsendable characters go.
    text = html.escape(sendable(span.text), quote=False)
    if span.style in ("b", "mark"):
        return f"<b>{text}</b>"
    if span.style == "i":
        return f"<i>{text}</i>"
    if span.style == "code":
        return f"<code>{text}</code>"
    if span.style == "a" and _is_web_url(span.href):
        return f'<a href="{html.escape(span.href, quote=True)}">{text}</a>'
    return text


def block_html(block: Block) -> str:
    """One block as HTML; spans never nest, so tags are balanced by construction."""
    return "".join(_span_html(span) for span in block if span.text)


def _shrink(block: Block, budget: int) -> Block:
    """Cut the longest texts (on word boundaries) until the block's HTML fits `budget`."""
    spans = list(block)
    while spans and tg_len(block_html(tuple(spans))) > budget:
        longest = max(range(len(spans)), key=lambda i: len(spans[i].text))
        span = spans[longest]
        if len(span.text) > 8:
            spans[longest] = Span(truncate_words(span.text, len(span.text) // 2), span.style)
        else:
            spans.pop()
    return tuple(spans)


_SEPARATOR = "\n\n"


def to_html(doc: Doc, *, limit: int = MAX_MESSAGE_CHARS) -> list[Message]:
    """Telegram messages for `doc`: split between blocks, the keyboard on the last one."""
    if doc.single_message:
        budget = max(limit // max(len(doc.blocks), 1) - len(_SEPARATOR), 16)
        parts = [block_html(b) for b in doc.blocks]
        if tg_len(_SEPARATOR.join(parts)) > limit:
            parts = [block_html(_shrink(b, budget)) for b in doc.blocks]
        return [Message(_SEPARATOR.join(p for p in parts if p) or "…", doc.keyboard)]
    messages: list[str] = []
    current = ""
    for block in doc.blocks:
        part = block_html(block)
        if tg_len(part) > limit:
            part = block_html(_shrink(block, limit))
        if not part:
            continue
        joined = f"{current}{_SEPARATOR}{part}" if current else part
        if tg_len(joined) <= limit:
            current = joined
        else:
            messages.append(current)
            current = part
    messages.append(current or "…")
    result = [Message(text) for text in messages[:-1]]
    result.append(Message(messages[-1], doc.keyboard))
    return result


_ANSI_BOLD = "\033[1m"
_ANSI_ITALIC = "\033[3m"
_ANSI_RESET = "\033[0m"


def _span_console(span: Span, ansi: bool) -> str:
    text = span.text
    if span.style == "a" and span.href and span.href != text:
        text = span.href
    text = sendable(text)  # a terminal acts on controls; print() fails on lone surrogates
    if not ansi:
        return text
    if span.style in ("b", "mark"):
        return f"{_ANSI_BOLD}{text}{_ANSI_RESET}"
    if span.style == "i":
        return f"{_ANSI_ITALIC}{text}{_ANSI_RESET}"
    return text


def to_console(doc: Doc, *, ansi: bool = False) -> str:
    """Plain text for a terminal: same blocks, bold/italic as ANSI when `ansi`."""
    return _SEPARATOR.join(
        "".join(_span_console(span, ansi) for span in block) for block in doc.blocks
    )
