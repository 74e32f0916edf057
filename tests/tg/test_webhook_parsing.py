"""Webhook units: the bounded memory of update ids, the JSON depth limit."""

from __future__ import annotations

import json
from typing import Any

from bot.tg.webhook import MAX_JSON_DEPTH, RecentIds, json_depth, parse_update


def test_recent_update_ids_are_bounded_and_forget_the_oldest() -> None:
    recent = RecentIds(capacity=3)
    assert [recent.add(i) for i in (1, 2, 3, 2)] == [True, True, True, False]
    assert recent.add(4) is True  # 1 is forgotten to make room ...
    assert recent.add(1) is True  # ... so it is taken again; memory stays at 3 ids
    assert recent.add(4) is False and len(recent._seen) == len(recent._order) == 3


def test_json_depth_and_the_depth_limit() -> None:
    assert [json_depth(v) for v in (1, [], {"a": [1, {"b": 2}]}, [[[]]])] == [0, 1, 3, 3]
    ok = {"update_id": 1, "message": {"chat": {"id": 5}}}
    assert parse_update(json.dumps(ok).encode()) == ok
    deep: Any = 1
    for _ in range(MAX_JSON_DEPTH):
        deep = [deep]
    assert parse_update(json.dumps({"update_id": 1, "x": deep}).encode()) == "malformed JSON"
