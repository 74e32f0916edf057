"""The `Store` methods both backends run alike: their input rules and SQL in one place, over
the primitives each backend supplies (a read, a write, an insert under a per-user cap, and a
statement run once per row: ledger claims and releases)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from typing import Any

from bot.store import _queries as q
from bot.store.model import (
    FollowOutcome,
    Limits,
    ReminderKey,
    ReminderUser,
    SavedPaper,
    SaveOutcome,
    check_language,
    check_minutes,
    check_page,
    check_reminder_keys,
    check_topic,
    clean_paper,
    clean_text,
    normalize_topic,
    topic_key,
)

Params = tuple[Any, ...]
ADDED, PRESENT, FULL = 0, 1, 2
"""What `_add_under_cap` found: inserted, already there, or the user's cap reached."""
_SAVED = (SaveOutcome.SAVED, SaveOutcome.ALREADY_SAVED, SaveOutcome.LIMIT_REACHED)
_FOLLOWED = (FollowOutcome.FOLLOWED, FollowOutcome.ALREADY_FOLLOWING, FollowOutcome.LIMIT_REACHED)


class SqlStore(ABC):
    """A backend's shared half; each method keeps the contract its `Store` docstring states."""

    limits: Limits

    @abstractmethod
    async def _rows(self, sql: str, params: Params = ()) -> list[tuple[Any, ...]]:
        """All rows of one read-only query (qmark style)."""

    @abstractmethod
    async def _change(self, sql: str, params: Params) -> int:
        """One write in its own transaction; how many rows it changed."""

    @abstractmethod
    async def _add_under_cap(
        self, user_id: int, insert: str, params: Params, exists: str, key: Params
    ) -> int:
        """`insert` with the user's writes locked, else whether `exists` finds `key`: ADDED,
        PRESENT or FULL, in one transaction."""

    @abstractmethod
    async def _claim_each(self, user_id: int, sql: str, rows: list[Params]) -> list[Any]:
        """With the user's writes locked, `sql` (an insert … RETURNING) once per params, in
        order, in one transaction: the rows it returned. A replica inserting the same row
        waits for this commit, then gets no row back."""

    @abstractmethod
    async def _change_each(self, sql: str, rows: list[Params]) -> None:
        """`sql` once per params, in one transaction."""

    async def save(self, user_id: int, paper: SavedPaper) -> SaveOutcome:
        paper = clean_paper(paper)
        params = q.save_params(user_id, paper, self.limits.max_saved)
        key = (user_id, paper.paper_id)
        found = await self._add_under_cap(user_id, q.SAVE_UNDER_CAP, params, q.IS_SAVED, key)
        return _SAVED[found]

    async def remove(self, user_id: int, paper_id: str) -> bool:
        return await self._change(q.REMOVE, (user_id, clean_text(paper_id))) > 0

    async def list_saved(
        self, user_id: int, *, offset: int = 0, limit: int = 10
    ) -> tuple[SavedPaper, ...]:
        check_page(offset, limit)
        rows = await self._rows(q.LIST_SAVED, (user_id, limit, offset))
        return tuple(q.paper_from_row(row) for row in rows)

    async def count_saved(self, user_id: int) -> int:
        return (await self._rows(q.COUNT_SAVED, (user_id,)))[0][0]

    async def is_saved(self, user_id: int, paper_id: str) -> bool:
        return bool(await self._rows(q.IS_SAVED, (user_id, clean_text(paper_id))))

    async def saved_among(self, user_id: int, paper_ids: Iterable[str]) -> frozenset[str]:
        wanted = frozenset(paper_ids)
        if not wanted:
            return frozenset()
        stored = {row[0] for row in await self._rows(q.SAVED_IDS, (user_id,))}
        return frozenset(pid for pid in wanted if clean_text(pid) in stored)  # as save stored it

    async def export_rows(self, user_id: int) -> tuple[SavedPaper, ...]:
        return tuple(q.paper_from_row(row) for row in await self._rows(q.EXPORT, (user_id,)))

    async def follow(self, user_id: int, topic: str) -> FollowOutcome:
        rejected = check_topic(topic, self.limits)
        if rejected:
            return rejected
        key = topic_key(topic)
        params = (user_id, normalize_topic(topic), key, user_id, self.limits.max_topics)
        found = await self._add_under_cap(
            user_id, q.FOLLOW_UNDER_CAP, params, q.IS_FOLLOWED, (user_id, key)
        )
        return _FOLLOWED[found]

    async def unfollow(self, user_id: int, topic: str) -> bool:
        return await self._change(q.UNFOLLOW, (user_id, topic_key(topic))) > 0

    async def topics(self, user_id: int) -> tuple[str, ...]:
        return tuple(row[0] for row in await self._rows(q.TOPICS, (user_id,)))

    async def followers(self) -> Mapping[int, tuple[str, ...]]:
        return q.group_followers(await self._rows(q.FOLLOWERS))

    async def dismiss(self, user_id: int, paper_id: str) -> bool:
        return await self._change(q.DISMISS, (user_id, clean_text(paper_id))) > 0

    async def dismissed(self, user_id: int) -> frozenset[str]:
        return frozenset(row[0] for row in await self._rows(q.DISMISSED, (user_id,)))

    async def get_language(self, user_id: int) -> str | None:
        rows = await self._rows(q.GET_LANGUAGE, (user_id,))
        return rows[0][0] if rows else None

    async def set_language(self, user_id: int, language: str) -> None:
        await self._change(q.SET_LANGUAGE, (user_id, check_language(language)))

    async def claim_alerts(self, user_id: int, paper_ids: Iterable[str]) -> frozenset[str]:
        # Sorted: replicas claiming overlapping ids lock the rows in one order (no deadlock).
        rows = [(user_id, paper_id) for paper_id in sorted(set(paper_ids))]
        claimed = await self._claim_each(user_id, q.CLAIM_ALERT, rows) if rows else []
        return frozenset(row[0] for row in claimed)

    async def release_alerts(self, user_id: int, paper_ids: Iterable[str]) -> None:
        rows = [(user_id, paper_id) for paper_id in sorted(set(paper_ids))]
        if rows:
            await self._change_each(q.RELEASE_ALERT, rows)

    async def set_reminder(
        self, user_id: int, minutes: int | None, *, language: str | None = None
    ) -> None:
        minutes = check_minutes(minutes)
        if minutes is None:
            await self._change(q.REMINDERS_OFF, (user_id,))
            return
        tag = check_language(language) if language is not None else None
        await self._change(q.SET_REMINDER, (user_id, minutes, tag))

    async def get_reminder(self, user_id: int) -> int | None:
        rows = await self._rows(q.GET_REMINDER, (user_id,))
        return rows[0][0] if rows else None

    async def reminder_users(self) -> tuple[ReminderUser, ...]:
        rows = await self._rows(q.REMINDER_USERS)
        return tuple(ReminderUser(user_id, minutes, lang) for user_id, minutes, lang in rows)

    async def claim_reminders(
        self, user_id: int, keys: Iterable[ReminderKey]
    ) -> frozenset[ReminderKey]:
        rows = [(user_id, pid, key, user_id) for pid, key in check_reminder_keys(keys)]
        claimed = await self._claim_each(user_id, q.CLAIM_REMINDER, rows) if rows else []
        return frozenset((pid, key) for pid, key in claimed)

    async def release_reminders(self, user_id: int, keys: Iterable[ReminderKey]) -> None:
        rows = [(user_id, pid, key) for pid, key in check_reminder_keys(keys)]
        if rows:
            await self._change_each(q.RELEASE_REMINDER, rows)

    async def sent_reminders(self, user_id: int) -> frozenset[ReminderKey]:
        return frozenset((pid, key) for pid, key in await self._rows(q.SENT_REMINDERS, (user_id,)))
