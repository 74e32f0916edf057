"""`fetch openreview VENUE_ID` through openreview-py against the stand-in API: guest and
logged-in fetches paged with offset and limit, 403 for guests, retries, refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from bot.corpus import FETCHED_FILE
from bot.fetch.http import FetchError, RetryPolicy
from bot.fetch.openreview import Credentials, fetch_openreview
from bot.fetch.sources import openreview_file_name
from testkit import programme_data as data
from testkit.programme_server import Fault, ProgrammeServer

SAVED = "openreview-icml-2026.json"
PASSWORD = "correct horse battery staple"


def fetch(
    capsys: pytest.CaptureFixture[str], server: ProgrammeServer, out: Path
) -> tuple[int, str]:
    code = main(["fetch", "openreview", data.VENUE, "--out", str(out), "--api", server.base_url])
    captured = capsys.readouterr()
    assert captured.out == ""  # openreview-py's own retry messages would land here
    return code, captured.err


@pytest.fixture
def api(server: ProgrammeServer) -> ProgrammeServer:
    """The stand-in with 25 accepted notes and 8 others, in pages of 10."""
    server.notes = data.openreview_notes(25, rejected=5, withdrawn=2, desk_rejected=1)
    server.notes_page_cap = 10
    return server


def test_a_guest_gets_every_accepted_note_page_by_page(
    api: ProgrammeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = fetch(capsys, api, tmp_path)
    assert code == 0, err
    saved = json.loads((tmp_path / SAVED).read_text("utf-8"))
    assert saved["count"] == 25 == len(saved["notes"])
    assert {note["content"]["venueid"]["value"] for note in saved["notes"]} == {data.VENUE}
    expected = [n for n in api.notes if n["content"]["venueid"]["value"] == data.VENUE]
    assert [n["id"] for n in saved["notes"]] == [n["id"] for n in expected]
    assert saved["notes"][0]["content"] == expected[0]["content"]  # values still wrapped
    assert saved["notes"][0]["number"] == expected[0]["number"]
    asked = api.seen("/notes")
    assert [(r.query.get("offset"), r.query.get("count")) for r in asked] == [
        (None, "true"), ("10", None), ("20", None)
    ]  # fmt: skip
    assert all(r.query["content.venueid"] == data.VENUE for r in asked)
    assert all(r.query["limit"] == "1000" for r in asked)  # the server caps it at 10
    assert "icml-papers-bot/" in asked[0].headers["user-agent"]
    assert "authorization" not in asked[0].headers
    assert "notes: 20 of 25" in err and "as a guest" in err


def test_403_for_guests_is_refused_with_the_way_to_log_in(
    api: ProgrammeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert fetch(capsys, api, tmp_path)[0] == 0
    before = (tmp_path / SAVED).read_bytes()
    api.guests_allowed = False
    code, err = fetch(capsys, api, tmp_path)
    assert code == 1
    assert "403 Forbidden" in err and "OPENREVIEW_USERNAME and OPENREVIEW_PASSWORD" in err
    assert (tmp_path / SAVED).read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [FETCHED_FILE, SAVED]


def test_credentials_from_the_environment_log_in_and_are_never_shown(
    api: ProgrammeServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    api.guests_allowed = False
    api.accounts = {"reader@example.org": PASSWORD}
    monkeypatch.setenv("OPENREVIEW_USERNAME", "reader@example.org")
    monkeypatch.setenv("OPENREVIEW_PASSWORD", PASSWORD)
    code, err = fetch(capsys, api, tmp_path)
    assert code == 0, err
    assert len(json.loads((tmp_path / SAVED).read_bytes())["notes"]) == 25
    assert [r.method for r in api.seen("/login")] == ["POST"]
    assert all(r.headers["authorization"].startswith("Bearer ") for r in api.seen("/notes"))
    assert PASSWORD not in err and "reader@example.org" not in err

    monkeypatch.setenv("OPENREVIEW_PASSWORD", "wrong " + PASSWORD)
    code, err = fetch(capsys, api, tmp_path)
    assert code == 1 and "login failed: Invalid username or password" in err
    assert PASSWORD not in err


def test_half_a_login_is_a_usage_error(
    api: ProgrammeServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENREVIEW_USERNAME", "reader@example.org")
    code, err = fetch(capsys, api, tmp_path)
    assert code == 2 and "set both OPENREVIEW_USERNAME and OPENREVIEW_PASSWORD" in err
    assert api.requests == []


def test_a_429_from_the_api_is_retried_by_fetchs_policy(
    api: ProgrammeServer, tmp_path: Path, policy: RetryPolicy, waits: list[float]
) -> None:
    api.fail("/notes", Fault.answer(429, retry_after="2"), offset="10")
    lines: list[str] = []
    saved = fetch_openreview(
        data.VENUE, tmp_path, api=api.base_url, credentials=None, policy=policy, say=lines.append
    )
    assert waits == [2.0] and saved.notes == 25
    assert len(api.seen("/notes")) == 4


REFUSALS = {
    "an HTML challenge with status 200": (Fault.challenge(), {}, "HTML page"),
    "a transfer cut short": (Fault.cut(), {"offset": "10"}, "cut"),
    "truncated JSON": (Fault.truncated(), {}, "not complete JSON"),
    "notes that stop short of the count": (
        Fault.answer(200, b'{"notes": []}'),
        {"offset": "20"},
        "stop short: 20 of 25",
    ),
}


@pytest.mark.parametrize("case", REFUSALS)
def test_a_refusal_keeps_the_previous_notes(
    case: str, api: ProgrammeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert fetch(capsys, api, tmp_path)[0] == 0
    before = (tmp_path / SAVED).read_bytes()
    fault, query, expected = REFUSALS[case]
    api.fail("/notes", fault, **query)
    code, err = fetch(capsys, api, tmp_path)
    assert code == 1 and expected in err, err
    assert (tmp_path / SAVED).read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [FETCHED_FILE, SAVED]


def test_a_venue_without_accepted_notes_is_refused(
    api: ProgrammeServer, tmp_path: Path, policy: RetryPolicy
) -> None:
    with pytest.raises(FetchError, match=r"no accepted notes with venueid ICML\.cc/2025"):
        fetch_openreview(
            "ICML.cc/2025/Conference", tmp_path, api=api.base_url, credentials=None,
            policy=policy, say=print,
        )  # fmt: skip
    assert not tmp_path.exists() or list(tmp_path.iterdir()) == []


def test_the_file_name_comes_from_the_venue_id() -> None:
    assert openreview_file_name("ICML.cc/2026/Conference") == "openreview-icml-2026.json"
    assert openreview_file_name("NeurIPS.cc/2025/Conference") == "openreview-neurips-2025.json"
    assert (
        openreview_file_name("ICML.cc/2026/Workshop/Example_WS")
        == "openreview-icml-2026-workshop-example-ws.json"
    )


def test_credentials_never_show_the_password() -> None:
    login = Credentials.from_env({"OPENREVIEW_USERNAME": "a@b.org", "OPENREVIEW_PASSWORD": "s3"})
    assert login is not None and "s3" not in repr(login)
    assert Credentials.from_env({}) is None
