"""One long poster session and a short oral one, written the way icml.cc's feed writes them:
enough posters to page through `/session`.

    Tue 14 Jul  Oral 1A Theory 10:00-10:30 (two talks, West Ballroom A)
                Poster Session 1 11:00-13:30: 23 posters, boards E-1 … E-23 (listed shuffled)
"""

from __future__ import annotations

import random
from typing import Any

from testkit.programme import authors_of, feed_event
from testkit.week import at

POSTERS = 23


def hall_events() -> list[dict[str, Any]]:
    """Poster Session 1 with 23 posters (boards E-1 … E-23, listed in shuffled order), and
    Oral 1A with two talks."""
    boards = list(range(1, POSTERS + 1))
    random.Random(7).shuffle(boards)
    when = {"starttime": at(14, "11:00"), "endtime": at(14, "13:30")}
    posters = [
        feed_event(
            70000 + board, f"Poster paper number {board}", "Poster", session="Poster Session 1",
            room_name="East Exhibition Hall A-B", poster_position=f"E-{board}",
            decision="Accept (poster)", authors=authors_of([("Ana Silva", "KAIST")]), **when,
        )
        for board in boards
    ]  # fmt: skip
    talks = [
        feed_event(
            80000 + n, f"Talk number {n}", "Oral", session="Oral 1A Theory",
            room_name="West Ballroom A", starttime=at(14, f"10:{15 * n:02d}"),
            endtime=at(14, f"10:{15 * n + 15:02d}"), decision="Accept (oral)",
        )
        for n in range(2)
    ]  # fmt: skip
    return posters + talks
