"""Recommendations: papers like the ones a user saved, shaped by the ones they dismissed."""

from __future__ import annotations

from dataclasses import dataclass

from bot.answers.questions import Answer, numbered
from bot.i18n import Translator
from bot.render import recommend_doc
from bot.search import Retriever, recommend
from bot.store import Store


@dataclass(frozen=True, slots=True)
class Taste:
    """What a user's recommendations start from: saved ids (newest first), dismissed ids."""

    saved: tuple[str, ...]
    dismissed: frozenset[str]


async def taste(store: Store, user_id: int) -> Taste:
    """The user's saved (newest first) and dismissed papers."""
    rows = await store.export_rows(user_id)
    return Taste(tuple(row.paper_id for row in rows), await store.dismissed(user_id))


def recommended(
    index: Retriever, taste: Taste, *, offset: int, per_page: int, t: Translator
) -> Answer:
    """A page of recommendations (numbered like results), or the hint on how to get some."""
    found = recommend(index, taste.saved, taste.dismissed, limit=per_page, offset=offset)
    hits = [item.hit for item in found.items]
    return Answer(recommend_doc(found, per_page=per_page, t=t), numbered(hits, offset + 1))


async def dismiss(store: Store, user_id: int, paper_id: str | None, *, t: Translator) -> str:
    """Record "not interested" in `paper_id` (None: a stale button); the acknowledgement."""
    if paper_id is None:
        return t.gettext("error.expired_button")
    await store.dismiss(user_id, paper_id)
    return t.gettext("recommend.dismissed")
