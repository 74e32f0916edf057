"""Views of recommendations: a numbered page, each with why ("like: …") and "not interested".

Pure like the other views. Buttons carry a page offset and a paper ref, never a user id.
"""

from __future__ import annotations

from bot.i18n import Translator
from bot.render import limits
from bot.render.callbacks import dismiss_data, recommend_data
from bot.render.doc import Block, Button, Doc, Segment
from bot.render.text import clean, clip_words
from bot.render.views import EN, checked_keyboard, numbered_paper, snippet_spans, translated
from bot.search.recommend import Recommendation, Recommendations

__all__ = ["recommend_doc"]

LIKE_CHARS = 80
"""The saved paper's title in "like: …" is cut to this many characters."""


def _item(number: int, item: Recommendation, t: Translator) -> Block:
    """`1. <b>Title</b> · /paper_<id>`, the authors, "like: <i>saved title</i>", the snippet."""
    spans = numbered_paper(number, item.hit.paper, t)
    like = clip_words(clean(item.like.title) or item.like.id, LIKE_CHARS)
    spans += [Segment("\n"), *translated(t, "recommend.like", title=like)]
    snippet = snippet_spans(item.hit)
    if snippet:
        spans += [Segment("\n"), *snippet]
    return tuple(spans)


def recommend_doc(found: Recommendations, *, per_page: int, t: Translator = EN) -> Doc:
    """A page of recommendations, or how to get some (nothing saved, or nothing left)."""
    if not found.items:
        key = "recommend.nothing_saved" if not found.profile else "recommend.none_left"
        return Doc((translated(t, key),))
    first = found.offset + 1
    last = found.offset + len(found.items)
    blocks: list[Block] = [
        translated(t, "recommend.header", found.profile, first=first, last=last, total=found.total)
    ]
    blocks += [_item(first + i, item, t) for i, item in enumerate(found.items)]
    dismiss: list[Button] = [
        (f"✕ {first + i}", dismiss_data(found.offset, item.hit.paper.id))
        for i, item in enumerate(found.items)
    ]
    size = limits.MAX_BUTTONS_PER_ROW
    rows = [tuple(dismiss[i : i + size]) for i in range(0, len(dismiss), size)]
    nav: list[Button] = []
    if found.offset > 0:
        nav.append((t.gettext("button.previous"), recommend_data(max(0, found.offset - per_page))))
    if last < found.total:
        nav.append((t.gettext("button.next"), recommend_data(last)))
    if nav:
        rows.append(tuple(nav))
    blocks.append(translated(t, "recommend.dismiss_hint"))
    return Doc(tuple(blocks), checked_keyboard(rows), single_message=True)
