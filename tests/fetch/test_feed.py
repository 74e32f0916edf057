"""`fetch URL` / `fetch icml 2026` against the stand-in site: success, pages, retries, and
each refusal leaving the previous download byte for byte as it was."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.corpus import FETCHED_FILE, fetched_of
from bot.fetch.client import Http
from bot.fetch.feed import fetch_feed
from bot.fetch.http import FetchError, RetryPolicy
from bot.fetch.sources import FeedSource
from testkit import programme_data as data
from testkit.fetching import FEED, SIDECAR, fetch, files, serve
from testkit.programme_server import Fault, ProgrammeServer


def test_a_feed_and_its_sidecar_are_saved_beside_each_other(
    server: ProgrammeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, events = serve(server)
    code, err = fetch(capsys, url, "--out", str(tmp_path))
    assert code == 0, err
    assert set(files(tmp_path)) == {FETCHED_FILE, FEED, SIDECAR}
    feed = json.loads((tmp_path / FEED).read_text("utf-8"))
    assert feed["count"] == len(events) and feed["results"] == events
    assert json.loads((tmp_path / SIDECAR).read_text("utf-8")) == data.sidecar(events)
    assert f"saved {len(events):,} events and 130 abstracts" in err
    fetched = fetched_of([tmp_path / FEED])  # the day it was fetched, and from where
    assert fetched is not None and fetched.source == url
    assert (datetime.now(UTC).date() - fetched.on).days in (0, 1)  # today, or just past midnight
    [feed_request] = server.seen(server.feed_path())
    assert feed_request.headers["user-agent"].startswith("icml-papers-bot/")


def test_pages_are_followed_with_progress(
    server: ProgrammeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, events = serve(server, page_size=40)
    code, err = fetch(capsys, url, "--out", str(tmp_path))
    assert code == 0, err
    assert [r.query.get("page", "1") for r in server.seen(server.feed_path())] == [
        "1", "2", "3", "4"
    ]  # fmt: skip
    assert json.loads((tmp_path / FEED).read_bytes())["results"] == events
    assert f"page 2: 80 of {len(events)} events" in err
    assert f"page 4: {len(events)} of {len(events)} events" in err


def test_a_429_is_retried_after_the_seconds_retry_after_names(
    server: ProgrammeServer, tmp_path: Path, policy: RetryPolicy, waits: list[float]
) -> None:
    url, events = serve(server, page_size=50)
    server.fail(server.feed_path(), Fault.answer(429, retry_after="3"), page="2")
    lines: list[str] = []
    with Http(policy, lines.append) as http:
        saved = fetch_feed(FeedSource.parse(url), tmp_path, http)
    assert waits == [3.0]
    assert saved.events == len(events)
    assert json.loads((tmp_path / FEED).read_bytes())["results"] == events
    assert any("429 Too Many Requests" in line and "retrying in 3 s" in line for line in lines)


def test_a_retry_after_date_is_measured_from_the_answers_date(
    server: ProgrammeServer, tmp_path: Path, policy: RetryPolicy, waits: list[float]
) -> None:
    url, _ = serve(server)
    late = Fault.answer(
        503, retry_after="Wed, 15 Jul 2026 10:00:05 GMT", date="Wed, 15 Jul 2026 10:00:00 GMT"
    )
    server.fail(server.sidecar_path(), late)
    with Http(policy, print) as http:
        fetch_feed(FeedSource.parse(url), tmp_path, http)
    assert waits == [5.0]
    assert set(files(tmp_path)) == {FETCHED_FILE, FEED, SIDECAR}


def test_5xx_without_retry_after_backs_off_exponentially(
    server: ProgrammeServer, tmp_path: Path, policy: RetryPolicy, waits: list[float]
) -> None:
    url, _ = serve(server)
    server.fail(server.feed_path(), Fault.answer(502), Fault.answer(503), Fault.answer(500))
    with Http(policy, print) as http:
        fetch_feed(FeedSource.parse(url), tmp_path, http)
    assert waits == [2.0, 4.0, 8.0]
    assert len(server.seen(server.feed_path())) == 4


def test_retries_are_bounded_in_attempts_and_in_waiting(
    server: ProgrammeServer, tmp_path: Path, policy: RetryPolicy, waits: list[float]
) -> None:
    url, _ = serve(server)
    server.fail(server.feed_path(), Fault.answer(503), times=5)
    with Http(policy, print) as http, pytest.raises(FetchError, match="5 times: gave up"):
        fetch_feed(FeedSource.parse(url), tmp_path, http)
    assert waits == [2.0, 4.0, 8.0, 16.0]
    assert len(server.seen(server.feed_path())) == 5

    waits.clear()
    server.fail(server.sidecar_path(), Fault.answer(429, retry_after="3600"))
    with Http(policy, print) as http, pytest.raises(FetchError, match="3,600 s"):
        fetch_feed(FeedSource.parse(url), tmp_path, http)
    assert waits == []  # an hour is over the bound: refused at once, not waited for
    assert not tmp_path.exists() or files(tmp_path) == {}


REFUSALS = {
    "an HTML challenge with status 200": (
        [Fault.challenge()], {}, ['HTML page ("Just a moment...")', "200 OK", "text/html"]
    ),
    "a 403": ([Fault.answer(403, b"<html>denied</html>", content_type="text/html")], {},
              ["403 Forbidden", "text/html"]),
    "a feed that stops after its first page": (
        [Fault.no_next()], {}, ["stops short: 50 of its 148 events in 1 page"]
    ),
    "a next page answering 403": (
        [Fault.answer(403)], {"page": "2"}, ["page 2 of the feed after 50 of 148 events", "403"]
    ),
    "a transfer cut short of its Content-Length": ([Fault.cut()], {}, ["cut"]),
    "truncated JSON": ([Fault.truncated()], {"page": "3"}, ["not complete JSON", "page 3"]),
    "a connection dropped": ([Fault.drop()], {"page": "2"}, ["cut", "page 2"]),
}  # fmt: skip


@pytest.mark.parametrize("case", REFUSALS)
def test_a_refusal_exits_1_says_what_it_got_and_keeps_the_previous_download(
    case: str, server: ProgrammeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, _ = serve(server, page_size=50)
    assert fetch(capsys, url, "--out", str(tmp_path))[0] == 0
    (tmp_path / FEED).write_bytes((tmp_path / FEED).read_bytes() + b"\n")  # yesterday's copy
    before = files(tmp_path)
    faults, query, expected = REFUSALS[case]
    server.fail(server.feed_path(), *faults, **query)
    code, err = fetch(capsys, url, "--out", str(tmp_path))
    assert code == 1
    for words in expected:
        assert words in err
    assert f"nothing was saved; {tmp_path} is as it was" in err
    assert files(tmp_path) == before  # byte for byte, and no temporary file left


@pytest.mark.parametrize("fault", [Fault.challenge(), Fault.answer(403), Fault.cut()])
def test_a_failed_sidecar_keeps_both_files_of_the_previous_download(
    fault: Fault, server: ProgrammeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, _ = serve(server)
    assert fetch(capsys, url, "--out", str(tmp_path))[0] == 0
    before = files(tmp_path)
    server.add_feed(data.feed_events(140), sidecar=data.sidecar(data.feed_events(140)))
    server.fail(server.sidecar_path(), fault)
    code, err = fetch(capsys, url, "--out", str(tmp_path))
    assert code == 1 and "the abstracts sidecar" in err
    assert files(tmp_path) == before  # the new feed was fetched, but not saved without it


def test_a_missing_sidecar_is_fine_when_the_feed_carries_its_abstracts(
    server: ProgrammeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / SIDECAR).write_text("{}", "utf-8")  # an old sidecar: it would not match
    url = server.add_feed(data.feed_events(30, abstracts=True), sidecar=None)
    code, err = fetch(capsys, url, "--out", str(tmp_path))
    assert code == 0, err
    assert "no abstracts sidecar" in err and "404 Not Found" in err
    assert "the feed carries its own abstracts (33 of 33 posters and orals)" in err
    assert set(files(tmp_path)) == {FETCHED_FILE, FEED}


def test_a_missing_sidecar_is_refused_when_the_papers_have_no_abstracts(
    server: ProgrammeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = server.add_feed(data.feed_events(30), sidecar=None)
    code, err = fetch(capsys, url, "--out", str(tmp_path))
    assert code == 1 and "--without-abstracts" in err
    assert not tmp_path.exists() or files(tmp_path) == {}
    code, err = fetch(capsys, url, "--out", str(tmp_path), "--without-abstracts")
    assert code == 0, err
    assert set(files(tmp_path)) == {FETCHED_FILE, FEED}


def test_a_sidecar_written_as_a_list_is_saved_as_served(
    server: ProgrammeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = data.feed_events(20)
    url = server.add_feed(events, sidecar=data.sidecar(events, as_list=True))
    assert fetch(capsys, url, "--out", str(tmp_path))[0] == 0
    assert (tmp_path / SIDECAR).read_bytes() == json.dumps(
        data.sidecar(events, as_list=True)
    ).encode()


def test_by_default_it_saves_in_the_data_dirs_programme_folder(
    server: ProgrammeServer, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, _ = serve(server, papers=10)
    code, err = fetch(capsys, url)
    assert code == 0, err
    assert set(files(data_dir / "programme")) == {FETCHED_FILE, FEED, SIDECAR}


def test_conference_and_year_name_the_official_feed() -> None:
    icml = FeedSource.official("icml", "2026")
    assert icml.url == "https://icml.cc/static/virtual/data/icml-2026-orals-posters.json"
    assert icml.sidecar_url == "https://icml.cc/static/virtual/data/icml-2026-abstracts.json"
    assert FeedSource.official("NeurIPS", "2026").url.startswith("https://neurips.cc/static/")
    assert FeedSource.official("iclr", "2025").sidecar_name == "iclr-2025-abstracts.json"


@pytest.mark.parametrize(
    "argv",
    [["cvpr", "2026"], ["icml", "26"], ["https://icml.cc/virtual/2026/papers.html"],
     ["icml"], ["openreview", "not a venue"], ["icml", "2026", "--api", "http://127.0.0.1:9"],
     ["openreview", "ICML.cc/2026/Conference", "--without-abstracts"]],
)  # fmt: skip
def test_bad_sources_are_usage_errors(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = fetch(capsys, *argv, "--out", str(tmp_path))
    assert code == 2 and "error:" in err
    assert not tmp_path.exists() or files(tmp_path) == {}


def test_any_virtual_site_feed_url_finds_its_sidecar_beside_it() -> None:
    source = FeedSource.parse(
        "https://example.org/static/virtual/data/neurips-2025-orals-posters.json?x=1"
    )
    assert source.name == "neurips-2025-orals-posters.json"
    assert (
        source.sidecar_url == "https://example.org/static/virtual/data/neurips-2025-abstracts.json"
    )
