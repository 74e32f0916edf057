"""The planner's fixtures: the small week of `testkit.week`, loaded through the feed reader."""

from __future__ import annotations

import pytest

from bot.corpus import Paper
from bot.planner import Programme, build_programme
from testkit.week import load_week


@pytest.fixture(scope="session")
def week(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Paper]:
    """Short name ("A") -> the week's paper, read from a feed as the bot reads it."""
    return load_week(tmp_path_factory.mktemp("week"))


@pytest.fixture(scope="session")
def programme(week: dict[str, Paper]) -> Programme:
    """The week's programme (built from every paper, as from an index)."""
    return build_programme(week.values())
