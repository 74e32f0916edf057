"""Views of recommendations: a numbered page, each with why ("like: …") and "not interested"."""

from __future__ import annotations

from bot.i18n import Translator
from bot.render.blocks import EN, button_rows, checked_keyboard, paging, text_doc, translated
from bot.render.callbacks import Recommend, encode, paper_ref
from bot.render.doc import Block, Button, Doc, Segment
from bot.render.paper import numbered_paper, snippet_spans
from bot.search import Recommendation, Recommendations
from bot.textutil import clean, clip_words

LIKE_CHARS = 80  # the saved paper's title in "like: …"


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
        return text_doc("recommend.none_left" if found.profile else "recommend.nothing_saved", t=t)
    first = found.offset + 1
    last = found.offset + len(found.items)
    blocks: list[Block] = [
        translated(t, "recommend.header", found.profile, first=first, last=last, total=found.total)
    ]
    blocks += [_item(first + i, item, t) for i, item in enumerate(found.items)]
    blocks.append(translated(t, "recommend.dismiss_hint"))
    dismiss: list[Button] = [
        (f"✕ {first + i}", encode(Recommend(found.offset, paper_ref(item.hit.paper.id))))
        for i, item in enumerate(found.items)
    ]
    _line, nav = paging(
        t,
        offset=found.offset,
        last=last,
        total=found.total,
        per_page=per_page,
        data=lambda offset: encode(Recommend(offset)),
    )
    return Doc(tuple(blocks), checked_keyboard([*button_rows(dismiss), nav]), single_message=True)
