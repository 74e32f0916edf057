"""Telegram's HTML parse mode and limits, checked the way the Bot API checks them."""

from __future__ import annotations

import re

DEFAULT_TOKEN = "123456:TEST-secret-token-do-not-log-0123456789"
MAX_MESSAGE_CHARS = 4096
MAX_CALLBACK_DATA_BYTES = 64
MAX_INLINE_RESULTS = 50
MAX_BUTTONS = 100
MAX_BUTTONS_PER_ROW = 8
MAX_CALLBACK_ANSWER_CHARS = 200

# Tag -> attributes Telegram reads (https://core.telegram.org/bots/api#html-style).
ALLOWED_TAGS: dict[str, frozenset[str]] = {
    "b": frozenset(),
    "strong": frozenset(),
    "i": frozenset(),
    "em": frozenset(),
    "u": frozenset(),
    "ins": frozenset(),
    "s": frozenset(),
    "strike": frozenset(),
    "del": frozenset(),
    "a": frozenset({"href"}),
    "code": frozenset({"class"}),
    "pre": frozenset(),
    "blockquote": frozenset({"expandable"}),
    "tg-spoiler": frozenset(),
    "span": frozenset({"class"}),
    "tg-emoji": frozenset({"emoji-id"}),
}
_NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_ENTITY = re.compile(r"&(?:(lt|gt|amp|quot)|#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6}));")
_TAG_NAME = re.compile(r"[A-Za-z][A-Za-z0-9-]*")
_ATTRIBUTE = re.compile(r"""\s*([A-Za-z-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?""")


class HtmlError(ValueError):
    """Text that Telegram would refuse with `can't parse entities`."""


def _byte_offset(text: str, index: int) -> int:
    return len(text[:index].encode("utf-8"))


def _decode_entities(text: str, start: int, source: str) -> str:
    """Decode `&...;` in `text`; a bare `&` is an error (Telegram's rule)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "&":
            match = _ENTITY.match(text, i)
            if not match:
                raise HtmlError(
                    f'Unsupported HTML entity or unescaped "&" at byte offset '
                    f"{_byte_offset(source, start + i)}"
                )
            if match.group(1):
                out.append(_NAMED_ENTITIES[match.group(1)])
            else:
                code = int(match.group(2)) if match.group(2) else int(match.group(3), 16)
                if not 0 < code <= 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                    raise HtmlError(f"Invalid numeric entity at byte offset {start + i}")
                out.append(chr(code))
            i = match.end()
        elif ch in "<>":
            raise HtmlError(f'Unexpected "{ch}" at byte offset {_byte_offset(source, start + i)}')
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def parse_html(text: str) -> str:
    """The plain text of Telegram HTML `text`; raises HtmlError like Telegram would."""
    plain: list[str] = []
    stack: list[str] = []
    i = 0
    while i < len(text):
        lt = text.find("<", i)
        chunk_end = len(text) if lt == -1 else lt
        plain.append(_decode_entities(text[i:chunk_end], i, text))
        if lt == -1:
            break
        gt = text.find(">", lt)
        if gt == -1:
            raise HtmlError(f"Unclosed start tag at byte offset {_byte_offset(text, lt)}")
        inside = text[lt + 1 : gt]
        if inside.startswith("/"):
            name = inside[1:].strip().lower()
            if not stack:
                raise HtmlError(f"Unexpected end tag at byte offset {_byte_offset(text, lt)}")
            if stack[-1] != name:
                raise HtmlError(
                    f"Unmatched end tag at byte offset {_byte_offset(text, lt)}, expected "
                    f'"</{stack[-1]}>", found "</{name}>"'
                )
            stack.pop()
        else:
            match = _TAG_NAME.match(inside)
            name = match.group(0).lower() if match else ""
            if name not in ALLOWED_TAGS:
                raise HtmlError(
                    f'Unsupported start tag "{name}" at byte offset {_byte_offset(text, lt)}'
                )
            if (
                stack
                and stack[-1] in ("code", "pre")
                and not (stack[-1] == "pre" and name == "code")
            ):
                raise HtmlError(f'Tag "{name}" is not allowed inside "{stack[-1]}"')
            attributes = _parse_attributes(inside[len(name) :], lt + 1 + len(name), text)
            if name == "span" and attributes.get("class") != "tg-spoiler":
                raise HtmlError('Tag "span" must have class "tg-spoiler"')
            if name == "a" and "href" in attributes:
                href = attributes["href"]
                # Telegram (tdlib) reads the scheme case-insensitively: HTTP:// is a link too.
                scheme = re.match(r"^(https?|tg|mailto)://|^(tg|mailto):", href, re.IGNORECASE)
                if not scheme or re.search(r"\s", href):
                    raise HtmlError(f'Wrong URL in tag "a": "{href}"')
            stack.append(name)
        i = gt + 1
    if stack:
        raise HtmlError(f'Can\'t find end tag corresponding to start tag "{stack[-1]}"')
    return "".join(plain)


def _parse_attributes(text: str, start: int, source: str) -> dict[str, str]:
    attributes: dict[str, str] = {}
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        match = _ATTRIBUTE.match(text, pos)
        if not match or match.end() == pos:
            raise HtmlError(f"Bad attribute at byte offset {_byte_offset(source, start + pos)}")
        raw = next((g for g in match.group(2, 3, 4) if g is not None), "")
        attributes[match.group(1).lower()] = _decode_entities(raw, start + match.start(), source)
        pos = match.end()
    return attributes


def utf16_len(text: str) -> int:
    """Telegram counts message length in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2
