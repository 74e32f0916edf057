"""Doc -> Telegram HTML: escaped, balanced, each message within MAX_MESSAGE_CHARS."""

from __future__ import annotations

import html
from urllib.parse import urlsplit

from bot.render.doc import Block, Doc, HtmlMessage, Segment
from bot.render.limits import MAX_MESSAGE_CHARS, MAX_URL_CHARS, tg_len
from bot.textutil import clip_words, sendable

SEPARATOR = "\n\n"
"""Between blocks, in HTML and on the console."""


class MessageTooLongError(ValueError):
    """A message over the limit even after shrinking: a rendering bug, never sent."""


def is_web_url(url: str) -> bool:
    """An http(s) URL Telegram takes as a link, checked on the text as given (not as parsed)."""
    if not url or len(url) > MAX_URL_CHARS or not url.isprintable() or " " in url:
        return False
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def _span_html(span: Segment) -> str:
    # Every message's text is escaped here, so this is where unsendable characters go.
    text = html.escape(sendable(span.text), quote=False)
    if span.style in ("b", "mark"):
        return f"<b>{text}</b>"
    if span.style == "i":
        return f"<i>{text}</i>"
    if span.style == "code":
        return f"<code>{text}</code>"
    if span.style == "a" and is_web_url(span.href):
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
            spans[longest] = Segment(clip_words(span.text, len(span.text) // 2), span.style)
        else:
            spans.pop()
    return tuple(spans)


def to_html(doc: Doc, *, limit: int = MAX_MESSAGE_CHARS) -> list[HtmlMessage]:
    """Telegram messages for `doc`: split between blocks, the keyboard on the last one."""
    if doc.single_message:
        budget = max(limit // max(len(doc.blocks), 1) - len(SEPARATOR), 16)
        parts = [block_html(b) for b in doc.blocks]
        if tg_len(SEPARATOR.join(parts)) > limit:
            parts = [block_html(_shrink(b, budget)) for b in doc.blocks]
        return _within(
            [HtmlMessage(SEPARATOR.join(p for p in parts if p) or "…", doc.keyboard)], limit
        )
    messages: list[str] = []
    current = ""
    for block in doc.blocks:
        part = block_html(block)
        if tg_len(part) > limit:
            part = block_html(_shrink(block, limit))
        if not part:
            continue
        joined = f"{current}{SEPARATOR}{part}" if current else part
        if tg_len(joined) <= limit:
            current = joined
        else:
            messages.append(current)
            current = part
    messages.append(current or "…")
    result = [HtmlMessage(text) for text in messages[:-1]]
    result.append(HtmlMessage(messages[-1], doc.keyboard))
    return _within(result, limit)


def _within(messages: list[HtmlMessage], limit: int) -> list[HtmlMessage]:
    """`messages`, checked against `limit` (not an assert: it vanishes under -O)."""
    for message in messages:
        size = tg_len(message.text)
        if size > limit:
            raise MessageTooLongError(f"a message of {size} UTF-16 units, over {limit}")
    return messages
