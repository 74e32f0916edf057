"""The limits no server can push `fetch` past, against the stand-in site misbehaving as broken
or hostile servers do: a gzip bomb, a body that never ends, a drip of bytes, a feed whose
count is huge or whose `next` always leads on. Each is refused naming the limit and the
numbers, and the previous download stays byte for byte; the real feed is still fetched."""

from __future__ import annotations

import json
import time
from pathlib import Path

import orjson
import pytest

from bot.fetch import feed as feed_module
from bot.fetch.client import Http
from bot.fetch.feed import fetch_feed
from bot.fetch.http import FetchError, Limits, RetryPolicy
from bot.fetch.openreview import fetch_openreview
from bot.fetch.sources import FeedSource
from testkit import programme_data as data
from testkit.devset import ICML2026
from testkit.fetching import FEED, SIDECAR, fetch, files, serve
from testkit.programme_server import Fault, ProgrammeServer


@pytest.fixture
def previous(
    server: ProgrammeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[str, dict[str, bytes]]:
    """A feed of 148 events in pages of 50 fetched once into `tmp_path`, and changed by
    hand (yesterday's copy): its URL and the folder's files."""
    url, _ = serve(server, page_size=50)
    assert fetch(capsys, url, "--out", str(tmp_path))[0] == 0
    (tmp_path / FEED).write_bytes((tmp_path / FEED).read_bytes() + b"\n")
    return url, files(tmp_path)


def refused(
    capsys: pytest.CaptureFixture[str], url: str, out: Path, before: dict[str, bytes], *argv: str
) -> tuple[str, float]:
    """`fetch URL --out OUT ARGV`, which must exit 1 and leave OUT as `before`: its stderr
    and how long it took."""
    started = time.monotonic()
    code, err = fetch(capsys, url, "--out", str(out), *argv)
    took = time.monotonic() - started
    assert code == 1, err
    assert f"nothing was saved; {out} is as it was" in err
    assert files(out) == before  # byte for byte, and no temporary file left
    return err, took


def test_a_gzip_bomb_is_refused_at_the_ceiling_counted_as_it_inflates(
    server: ProgrammeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], previous
) -> None:
    url, before = previous
    server.fail(server.feed_path(), Fault.bomb(200_000_000), page="2")
    err, _ = refused(capsys, url, tmp_path, before, "--max-bytes", "5MB")
    assert "page 2 of the feed after 50 of 148 events" in err
    assert (
        "over the 5 MB ceiling of one download (--max-bytes 5000000), the feed's pages together"
        in err
    )
    stopped = int(err.split("stopped after ")[1].split(" bytes")[0].replace(",", ""))
    sent = int(err.split("inflated from ")[1].split(" bytes")[0].replace(",", ""))
    assert 5_000_000 < stopped <= 5_000_000 + (1 << 20)  # at most one slice past it
    assert sent < stopped // 20  # counted inflated (page 1 and one read of the bomb sent)


def test_a_gzipped_feed_within_the_ceiling_is_saved_inflated(
    server: ProgrammeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, events = serve(server, page_size=50)
    server.gzip = True
    code, err = fetch(capsys, url, "--out", str(tmp_path))
    assert code == 0, err
    assert json.loads((tmp_path / FEED).read_bytes())["results"] == events
    assert json.loads((tmp_path / SIDECAR).read_bytes()) == data.sidecar(events)
    assert server.seen(server.feed_path())[0].headers["accept-encoding"] == "gzip, deflate"


def test_a_body_that_never_ends_is_refused_at_the_ceiling(
    server: ProgrammeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], previous
) -> None:
    url, before = previous
    server.fail(server.sidecar_path(), Fault.endless())
    err, _ = refused(capsys, url, tmp_path, before, "--max-bytes", "3MB")
    assert (
        "the abstracts sidecar: over the 3 MB ceiling of one download (--max-bytes 3000000): "
        in err
    )
    assert "inflated" not in err


def test_a_drip_is_refused_at_the_deadline_of_the_whole_fetch(
    server: ProgrammeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], previous
) -> None:
    url, before = previous
    server.fail(server.feed_path(), Fault.drip(0.05), page="3")  # well within the idle limit
    err, took = refused(capsys, url, tmp_path, before, "--timeout", "0.8")
    assert "page 3 of the feed after 100 of 148 events" in err
    assert "past the 0.8 s deadline of the whole fetch (--timeout;" in err
    assert 0.8 <= took < 1.5


def test_a_silent_server_is_refused_at_the_idle_limit(
    server: ProgrammeServer, tmp_path: Path, policy: RetryPolicy
) -> None:
    url, _ = serve(server)
    server.fail(server.sidecar_path(), Fault.drip(60.0))  # nothing comes after the headers
    started = time.monotonic()
    with (
        Http(policy, print, Limits(idle=0.3)) as http,
        pytest.raises(FetchError, match=r"no data for 0\.3 s, the idle limit of each read"),
    ):
        fetch_feed(FeedSource.parse(url), tmp_path, http)
    assert time.monotonic() - started < 2.0
    assert files(tmp_path) == {}


def test_a_redirects_body_is_never_read_and_redirects_are_bounded(
    server: ProgrammeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, events = serve(server, page_size=50)
    server.fail(server.feed_path(), Fault.redirect(f"{url}?page=1"))  # with an endless body
    code, err = fetch(capsys, url, "--out", str(tmp_path), "--timeout", "5")
    assert code == 0, err
    assert json.loads((tmp_path / FEED).read_bytes())["results"] == events
    server.fail(server.feed_path(), Fault.redirect(url), times=20)
    code, err = fetch(capsys, url, "--out", str(tmp_path))
    assert code == 1 and "more than 10 redirects" in err


def test_a_retry_that_would_pass_the_deadline_is_not_waited_for(
    server: ProgrammeServer, tmp_path: Path, policy: RetryPolicy, waits: list[float]
) -> None:
    url, _ = serve(server, page_size=50)
    now = [1000.0]
    server.fail(server.feed_path(), Fault.answer(503, retry_after="30"), page="2")
    server.fail(server.feed_path(), Fault.answer(503, retry_after="30"), page="3")
    limits = Limits(timeout=100.0, clock=lambda: now[0])

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        now[0] += seconds

    policy = RetryPolicy(sleep=sleep)
    with Http(policy, print, limits) as http, pytest.raises(FetchError) as refusal:
        now[0] += 50.0  # the first page took 50 s
        fetch_feed(FeedSource.parse(url), tmp_path, http)
    assert waits == [30.0]  # page 2's wait fitted in the 50 s left; page 3's would not
    assert str(refusal.value) == (
        "page 3 of the feed after 100 of 148 events: waiting 30 s would pass the 100 s "
        "deadline of the whole fetch (--timeout; 80.0 s so far): 503 Service Unavailable, "
        "application/json, 19 bytes"
    )


def test_a_feed_counting_more_events_than_any_conference_is_refused_at_once(
    server: ProgrammeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], previous
) -> None:
    url, before = previous
    server.add_feed(data.feed_events(130), page_size=40, count=1_000_000_000, endless=True,
                    sidecar=data.sidecar(data.feed_events(130)))  # fmt: skip
    requests_before = len(server.seen(server.feed_path()))
    err, _ = refused(capsys, url, tmp_path, before)
    assert "the feed's count is 1,000,000,000 events, more than the 100,000" in err
    assert len(server.seen(server.feed_path())) == requests_before + 1  # its first page only


def test_a_feed_paging_on_past_what_its_count_needs_is_refused(
    server: ProgrammeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], previous
) -> None:
    url, before = previous
    events = data.feed_events(130)
    server.add_feed(events, page_size=40, endless=True, sidecar=data.sidecar(events))
    requests_before = len(server.seen(server.feed_path()))
    err, _ = refused(capsys, url, tmp_path, before)
    assert len(events) == 148
    assert (
        "the feed goes on past 6 pages: its count of 148 events in pages of 40 (the first "
        "page's) needs 4, and 2 more are allowed for pages that shift" in err
    )
    assert len(server.seen(server.feed_path())) == requests_before + 6


def test_a_feed_without_a_count_pages_on_at_most_max_pages(
    server: ProgrammeServer,
    tmp_path: Path,
    policy: RetryPolicy,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(feed_module, "MAX_PAGES", 7)
    events = data.feed_events(20)
    url = server.add_feed(events, page_size=5, endless=True, sidecar=data.sidecar(events))
    server.fail(server.feed_path(), Fault.answer(200, b'{"next": "?page=2", "results": []}'))
    with Http(policy, print) as http, pytest.raises(FetchError, match="past 7 pages and gives no"):
        fetch_feed(FeedSource.parse(url), tmp_path, http)
    assert len(server.seen(server.feed_path())) == 7


@pytest.mark.parametrize(
    ("argv", "expected"),
    [(["--max-bytes", "lots"], "not a size: 'lots'"), (["--max-bytes", "0"], "not a size"),
     (["--timeout", "0"], "not a number of seconds: '0'"), (["--timeout", "nan"], "seconds")],
)  # fmt: skip
def test_limits_that_are_not_numbers_are_usage_errors(
    argv: list[str], expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as usage:
        fetch(capsys, "icml", "2026", "--out", str(tmp_path), *argv)
    assert usage.value.code == 2
    assert expected in capsys.readouterr().err


def test_sizes_read_as_bytes_or_decimal_units() -> None:
    from bot.cli.fetch import _size

    assert [_size(t) for t in ("600000000", "800MB", "2GB", "1.5 gb", "64k")] == [
        600_000_000, 800_000_000, 2_000_000_000, 1_500_000_000, 64_000
    ]  # fmt: skip


def test_openreview_notes_are_held_to_the_same_limits(
    server: ProgrammeServer, tmp_path: Path, policy: RetryPolicy
) -> None:
    server.notes = data.openreview_notes(25)
    server.notes_page_cap = 10
    (tmp_path / "openreview-icml-2026.json").write_bytes(b"yesterday's")
    before = files(tmp_path)
    run = {"venue": data.VENUE, "out": tmp_path, "api": server.base_url, "credentials": None,
           "policy": policy, "say": print}  # fmt: skip
    server.fail("/notes", Fault.bomb(50_000_000), offset="10")
    with pytest.raises(
        FetchError,
        match=r"2 MB ceiling of one download \(--max-bytes 2000000\), the pages of notes together",
    ):
        fetch_openreview(**run, limits=Limits(max_bytes=2_000_000))  # type: ignore[arg-type]
    server.fail("/notes", Fault.drip(0.05), offset="20")
    started = time.monotonic()
    with pytest.raises(FetchError, match=r"past the 0\.6 s deadline of the whole fetch"):
        fetch_openreview(**run, limits=Limits(timeout=0.6))  # type: ignore[arg-type]
    assert 0.6 <= time.monotonic() - started < 1.3
    assert files(tmp_path) == before


@pytest.mark.slow
@pytest.mark.skipif(not ICML2026.exists(), reason="needs shared/icml2026")
def test_the_real_feed_in_pages_of_1000_is_fetched_whole(
    server: ProgrammeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    feed = orjson.loads((ICML2026 / "icml-2026-orals-posters.json").read_bytes())
    sidecar = orjson.loads((ICML2026 / "icml-2026-abstracts.json").read_bytes())
    url = server.add_feed(feed["results"], page_size=1000, sidecar=sidecar)
    server.gzip = True  # as the site sends it: pages of ~1.5 MB inflated a slice at a time
    code, err = fetch(capsys, url, "--out", str(tmp_path))
    assert code == 0, err
    assert "page 7: 6,796 of 6,796 events" in err
    saved = orjson.loads((tmp_path / FEED).read_bytes())
    assert saved == {**feed, "next": None, "previous": None}
    assert orjson.loads((tmp_path / SIDECAR).read_bytes()) == sidecar
