"""The callback codec: one table read by encoder and parser; today's formats stay byte-identical."""

from __future__ import annotations

import pytest

from bot.render.callbacks import (
    CODES,
    ExportAs,
    Forget,
    OpenPaper,
    Recommend,
    SavedPage,
    SchedulePage,
    SessionPage,
    SetLanguage,
    ToggleSave,
    TurnPage,
    Unfollow,
    encode,
    page_data,
    paper_ref,
    parse_callback,
)

PINNED = [
    pytest.param(OpenPaper("3rmh7qdh"), "p:3rmh7qdh", id="open"),
    pytest.param(OpenPaper("3rmh7qdh", similar=True), "s:3rmh7qdh", id="similar"),
    pytest.param(TurnPage(5, query="graph: nets"), "q:5:graph: nets", id="page-query"),
    pytest.param(TurnPage(10, key="AbC-12_x"), "k:10:AbC-12_x", id="page-key"),
    pytest.param(ToggleSave("3rmh7qdh", save=True), "v:3rmh7qdh", id="save"),
    pytest.param(ToggleSave("3rmh7qdh", save=False), "u:3rmh7qdh", id="unsave"),
    pytest.param(SavedPage(5), "b:5", id="saved-page"),
    pytest.param(SavedPage(5, "a:b"), "r:5:a:b", id="remove"),
    pytest.param(ExportAs("bib"), "x:bib", id="export"),
    pytest.param(ExportAs("ics"), "x:ics", id="export-calendar"),
    pytest.param(Unfollow("0123456789abcdef"), "f:0123456789abcdef", id="unfollow"),
    pytest.param(Forget(True), "g:yes", id="forget"),
    pytest.param(Forget(False), "g:no", id="forget-cancel"),
    pytest.param(SetLanguage("zh_Hant"), "l:zh_Hant", id="lang"),
    pytest.param(Recommend(5), "c:5", id="recommend"),
    pytest.param(Recommend(5, "a:b"), "d:5:a:b", id="dismiss"),
    pytest.param(SchedulePage(8), "w:8", id="schedule-page"),
    pytest.param(SessionPage(10, 3, "0a1b2c3d"), "n:10:3:0a1b2c3d", id="session"),
]


@pytest.mark.parametrize(("action", "data"), PINNED)
def test_each_action_has_todays_data_and_reads_back(action, data: str) -> None:
    assert encode(action) == data
    assert parse_callback(data) == action


def test_the_pinned_formats_cover_every_row_of_the_table() -> None:
    pinned_prefixes = {param.values[1].split(":", 1)[0] for param in PINNED}
    assert pinned_prefixes == {code.prefix for code in CODES}
    assert len({code.prefix for code in CODES}) == len(CODES)  # one row per letter


@pytest.mark.parametrize("data", ["n:0:3:0a1b2c3", "n:0:3:0A1B2C3D", "n:0:x:0a1b2c3d", "n:0:3"])
def test_a_session_button_needs_a_position_and_its_check(data: str) -> None:
    assert parse_callback(data) is None


def test_a_long_id_travels_as_its_hash_and_a_long_query_as_its_key() -> None:
    assert encode(Recommend(10, paper_ref("3rmh7qdh"))) == "d:10:3rmh7qdh"
    long_id = "x" * 100  # a long id travels as its hash, within 64 bytes
    assert len(encode(Recommend(10_000, paper_ref(long_id))).encode()) <= 64
    assert page_data(0, query="x" * 100, key="k1") == "k:0:k1"  # too long to carry


def test_an_action_the_table_cannot_spell_is_refused() -> None:
    with pytest.raises(ValueError, match="no callback code"):
        encode(TurnPage(5))  # neither a query nor a key
    with pytest.raises(ValueError, match="no callback code"):
        encode(TurnPage(5, query="q", key="k"))  # both
