"""`Store`: per-user reading lists, topics, preferences and ledgers, one transaction a method
(input rules and SQL here, each backend's primitives in `sqlite` and `postgres`). Every method
takes the user id, so none reaches another's data; an outage raises `StoreUnavailable`."""

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
    check_timezone,
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


class Store(ABC):
    """The store every front end uses; `open_store` picks the backend."""

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
        one transaction: the rows it returned. A replica inserting the same row waits for
        this commit, then gets no row back."""

    @abstractmethod
    async def _change_each(self, sql: str, rows: list[Params]) -> None:
        """`sql` once per params, in one transaction."""

    @abstractmethod
    async def never_served(
        self, served: Iterable[str], candidates: Iterable[str]
    ) -> frozenset[str]:
        """Record `served` (an index being replaced); the `candidates` never recorded (alerts
        announce only those: a paper back after a half-copied reload was served before)."""

    @abstractmethod
    async def forget_user(self, user_id: int) -> None:
        """Delete everything stored about the user."""

    @abstractmethod
    async def close(self) -> None:
        """Release connections and threads; the store is unusable afterwards."""

    async def save(self, user_id: int, paper: SavedPaper) -> SaveOutcome:
        """Save a snapshot; saving again keeps one row (and its first snapshot)."""
        paper = clean_paper(paper)
        params = q.save_params(user_id, paper, self.limits.max_saved)
        key = (user_id, paper.paper_id)
        found = await self._add_under_cap(user_id, q.SAVE_UNDER_CAP, params, q.IS_SAVED, key)
        return _SAVED[found]

    async def remove(self, user_id: int, paper_id: str) -> bool:
        """Remove a saved paper; False when it was not saved."""
        return await self._change(q.REMOVE, (user_id, clean_text(paper_id))) > 0

    async def list_saved(
        self, user_id: int, *, offset: int = 0, limit: int = 10
    ) -> tuple[SavedPaper, ...]:
        """Saved papers, newest first, `limit` of them from `offset`."""
        check_page(offset, limit)
        rows = await self._rows(q.LIST_SAVED, (user_id, limit, offset))
        return tuple(q.paper_from_row(row) for row in rows)

    async def count_saved(self, user_id: int) -> int:
        return (await self._rows(q.COUNT_SAVED, (user_id,)))[0][0]

    async def is_saved(self, user_id: int, paper_id: str) -> bool:
        return bool(await self._rows(q.IS_SAVED, (user_id, clean_text(paper_id))))

    async def saved_among(self, user_id: int, paper_ids: Iterable[str]) -> frozenset[str]:
        """Which of `paper_ids` the user has saved (one query for a page of buttons)."""
        wanted = frozenset(paper_ids)
        if not wanted:
            return frozenset()
        stored = {row[0] for row in await self._rows(q.SAVED_IDS, (user_id,))}
        return frozenset(pid for pid in wanted if clean_text(pid) in stored)  # as save stored it

    async def export_rows(self, user_id: int) -> tuple[SavedPaper, ...]:
        """Every saved paper, newest first."""
        return tuple(q.paper_from_row(row) for row in await self._rows(q.EXPORT, (user_id,)))

    async def follow(self, user_id: int, topic: str) -> FollowOutcome:
        """Follow a topic (whitespace collapsed; case-insensitively unique per user)."""
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
        """Stop following a topic (matched case-insensitively); False when not followed."""
        return await self._change(q.UNFOLLOW, (user_id, topic_key(topic))) > 0

    async def topics(self, user_id: int) -> tuple[str, ...]:
        """The user's topics in the order they were followed."""
        return tuple(row[0] for row in await self._rows(q.TOPICS, (user_id,)))

    async def followers(self) -> Mapping[int, tuple[str, ...]]:
        """Every user with topics, mapped to them (for alerts after a corpus reload)."""
        grouped: dict[int, list[str]] = {}
        for user_id, topic in await self._rows(q.FOLLOWERS):
            grouped.setdefault(user_id, []).append(topic)
        return {user_id: tuple(topics) for user_id, topics in grouped.items()}

    async def dismiss(self, user_id: int, paper_id: str) -> bool:
        """Mark a paper "not interested"; False when it already was."""
        return await self._change(q.DISMISS, (user_id, clean_text(paper_id))) > 0

    async def dismissed(self, user_id: int) -> frozenset[str]:
        return frozenset(row[0] for row in await self._rows(q.DISMISSED, (user_id,)))

    async def get_language(self, user_id: int) -> str | None:
        rows = await self._rows(q.GET_LANGUAGE, (user_id,))
        return rows[0][0] if rows else None

    async def set_language(self, user_id: int, language: str) -> None:
        await self._change(q.SET_LANGUAGE, (user_id, check_language(language)))

    async def languages(self) -> Mapping[int, str]:
        """Every user who chose a language (/lang), mapped to it."""
        return dict(await self._rows(q.LANGUAGES))

    async def get_timezone(self, user_id: int) -> str | None:
        """The user's /timezone choice; None when they have none."""
        rows = await self._rows(q.GET_TIMEZONE, (user_id,))
        return rows[0][0] if rows else None

    async def set_timezone(self, user_id: int, zone: str | None) -> None:
        """Keep `zone` (an IANA name or offset, stored as `parse_zone` writes it) for the user,
        or None: none; ValueError for a zone that is neither."""
        if zone is None:
            await self._change(q.CLEAR_TIMEZONE, (user_id,))
            return
        await self._change(q.SET_TIMEZONE, (user_id, check_timezone(zone)))

    async def claim_alerts(self, user_id: int, paper_ids: Iterable[str]) -> frozenset[str]:
        """Record alerts as sent; the ids newly claimed (of replicas, exactly one gets each)."""
        # Sorted: replicas claiming overlapping ids lock the rows in one order (no deadlock).
        rows = [(user_id, paper_id) for paper_id in sorted(set(paper_ids))]
        claimed = await self._claim_each(user_id, q.CLAIM_ALERT, rows) if rows else []
        return frozenset(row[0] for row in claimed)

    async def release_alerts(self, user_id: int, paper_ids: Iterable[str]) -> None:
        """Forget claims whose alert could not be sent, so a later reload may send it."""
        rows = [(user_id, paper_id) for paper_id in sorted(set(paper_ids))]
        if rows:
            await self._change_each(q.RELEASE_ALERT, rows)

    async def set_reminder(
        self, user_id: int, minutes: int | None, *, language: str | None = None
    ) -> None:
        """Remind `minutes` (1..120) before each saved paper's presentation, or None: off (the
        ledger is kept); `language`: the one the user is answered in now, if no /lang choice."""
        minutes = check_minutes(minutes)
        if minutes is None:
            await self._change(q.REMINDERS_OFF, (user_id,))
            return
        tag = check_language(language) if language is not None else None
        await self._change(q.SET_REMINDER, (user_id, minutes, tag))

    async def get_reminder(self, user_id: int) -> int | None:
        """The reminder lead in minutes; None when reminders are off."""
        rows = await self._rows(q.GET_REMINDER, (user_id,))
        return rows[0][0] if rows else None

    async def reminder_users(self) -> tuple[ReminderUser, ...]:
        rows = await self._rows(q.REMINDER_USERS)
        return tuple(ReminderUser(*row) for row in rows)

    async def claim_reminders(
        self, user_id: int, keys: Iterable[ReminderKey]
    ) -> frozenset[ReminderKey]:
        """Record reminders as sent before sending them; the keys newly claimed, only while
        reminders are on (of replicas, exactly one gets each). ValueError for a bad key."""
        rows = [(user_id, pid, key, user_id) for pid, key in check_reminder_keys(keys)]
        claimed = await self._claim_each(user_id, q.CLAIM_REMINDER, rows) if rows else []
        return frozenset((pid, key) for pid, key in claimed)

    async def release_reminders(self, user_id: int, keys: Iterable[ReminderKey]) -> None:
        """Forget claims whose reminder could not be sent, so a later try may send it."""
        rows = [(user_id, pid, key) for pid, key in check_reminder_keys(keys)]
        if rows:
            await self._change_each(q.RELEASE_REMINDER, rows)

    async def sent_reminders(self, user_id: int) -> frozenset[ReminderKey]:
        """Every key claimed for the user (sent, or being sent)."""
        return frozenset((pid, key) for pid, key in await self._rows(q.SENT_REMINDERS, (user_id,)))
