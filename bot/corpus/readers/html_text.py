"""HTML fragments (a site's abstracts and titles) as plain text: tags dropped, entities decoded.
Only real HTML tag names are tags: `$x<y$ and $y>z$` in a LaTeX abstract is text."""

from __future__ import annotations

import html
import re

__all__ = ["html_to_text"]

_BLOCK = (r"p|br|div|li|ul|ol|h[1-6]|blockquote|pre|table|tr|td|th|thead|tbody|hr|dl|dt|dd|"
          r"section|article|header|footer|figure|figcaption")  # fmt: skip
_INLINE = r"a|b|i|u|s|em|strong|sub|sup|span|code|small|big|font|mark|abbr|cite|q|tt|del|ins"
_BLOCK_TAG = re.compile(rf"</?(?:{_BLOCK})\b[^<>]*>", re.IGNORECASE)
_INLINE_TAG = re.compile(rf"</?(?:{_INLINE})\b[^<>]*>", re.IGNORECASE)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_SCRIPT = re.compile(r"<(script|style)\b[^<>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)


def html_to_text(raw: str) -> str:
    """`raw` without HTML tags (a block tag becomes a space), its entities decoded."""
    if "<" in raw:
        raw = _SCRIPT.sub(" ", _COMMENT.sub(" ", raw))
        raw = _INLINE_TAG.sub("", _BLOCK_TAG.sub(" ", raw))
    return html.unescape(raw) if "&" in raw else raw
