"""Webhook units: the JSON depth limit."""

from __future__ import annotations

import json
from typing import Any

from bot.tg.webhook import MAX_JSON_DEPTH, json_depth, parse_update


def test_json_depth_and_the_depth_limit() -> None:
    assert [json_depth(v) for v in (1, [], {"a": [1, {"b": 2}]}, [[[]]])] == [0, 1, 3, 3]
    ok = {"update_id": 1, "message": {"chat": {"id": 5}}}
    assert parse_update(json.dumps(ok).encode()) == ok
    deep: Any = 1
    for _ in range(MAX_JSON_DEPTH):
        deep = [deep]
    assert parse_update(json.dumps({"update_id": 1, "x": deep}).encode()) == "malformed JSON"
