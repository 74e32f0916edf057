"""The reading list with real `python -m bot` processes: SIGKILL mid-burst, two replicas on
one PostgreSQL, a database unreachable at start, the SQLite file deleted mid-run, and a fatal
signal leaving a traceback."""

from __future__ import annotations

import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest

from bot.corpus import load_corpus
from bot.render import paper_ref
from bot.store import snapshot
from bot.store.factory import SQLITE_FILE
from testkit.botenv import bot_env
from testkit.fake_bot_api import FakeBotApi, Updates
from testkit.paths import SEED_CORPUS
from testkit.pg import Backend, free_port
from testkit.process import run_bot, start_bot

# Tiers (tests/README.md): starts bot processes.
pytestmark = pytest.mark.slow

START_TIMEOUT = 60.0  # a cold interpreter on a slow CI machine
SAVED = "Saved to your reading list"
REMOVED = "Removed"
SAVE_FAILED = "I couldn't save that right now, please try again."
ALREADY = "Already in your reading list"
USERS = tuple(range(501, 507))


def paper_ids() -> list[str]:
    return [paper.id for paper in load_corpus([SEED_CORPUS]).papers]


@contextmanager
def running_bot(
    api: FakeBotApi, workdir: Path, backend: Backend, **extra_env: str
) -> Iterator[subprocess.Popen]:
    """`python -m bot` polling `api`, storing in `backend`; killed on exit."""
    env = bot_env(
        TELEGRAM_BOT_TOKEN=api.token,
        TELEGRAM_API_BASE_URL=api.base_url,
        DATA_DIR=str(backend.data_dir),
        **({"DATABASE_URL": backend.database_url} if backend.database_url else {}),
        **extra_env,
    )
    workdir.mkdir(exist_ok=True)
    process = start_bot(env, workdir, workdir / "stderr.log")
    try:
        if not api.first_get_updates.wait(START_TIMEOUT):
            raise AssertionError((workdir / "stderr.log").read_text()[-3000:])
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(10)


def wait_for_line(
    log: Path, text: str, process: subprocess.Popen, timeout: float = START_TIMEOUT
) -> None:
    """Until the bot's log holds `text` (what a background load logs when it ends); fails if
    the bot exits or the deadline passes first."""
    deadline = time.monotonic() + timeout
    while text not in log.read_text("utf-8", "replace"):
        if process.poll() is not None or time.monotonic() > deadline:
            raise AssertionError(f"no {text!r} in the log:\n{log.read_text()[-3000:]}")
        time.sleep(0.02)  # a condition polled, not a pause: it returns once the line is there


def tap(api: FakeBotApi, updates: Updates, data: str, user: int) -> str:
    """Push a button press by `user` (on a message without a keyboard); its callback id."""
    message = updates.message("(a results message)", chat_id=user)["message"]
    payload = updates.callback(data, message=message, user_id=user)
    api.push_update(payload)
    return payload["callback_query"]["id"]


def answers(api: FakeBotApi) -> dict[str, str]:
    """callback_query_id -> the toast text, for every answer the bot sent."""
    return {
        str(c.params["callback_query_id"]): str(c.params.get("text") or "")
        for c in api.calls_of("answerCallbackQuery")
    }


async def test_every_acknowledged_save_survives_sigkill(backend: Backend, tmp_path: Path) -> None:
    ids = paper_ids()
    burst = [(user, paper_id) for user in USERS for paper_id in ids]
    with FakeBotApi() as api, running_bot(api, tmp_path / "bot", backend) as process:
        updates = Updates(bot_username=api.bot["username"], bot_id=api.bot["id"])
        sent = {tap(api, updates, f"v:{paper_ref(p)}", user): (user, p) for user, p in burst}
        api.wait_for("answerCallbackQuery", count=len(burst) // 2, timeout=60)
        process.send_signal(signal.SIGKILL)
        process.wait(10)
        toasts = answers(api)
        acknowledged = {sent[q] for q, text in toasts.items() if text == SAVED}

    assert process.returncode == -signal.SIGKILL
    # Under load a save may time out: the user is told so, and it is not counted as acknowledged.
    assert set(toasts.values()) <= {SAVED, SAVE_FAILED}
    assert len(burst) // 2 <= len(toasts) < len(burst)  # killed mid-burst
    assert acknowledged
    store = await backend.open()
    try:
        stored = {
            (user, row.paper_id): row for user in USERS for row in await store.export_rows(user)
        }
    finally:
        await store.close()
    print(f"{backend.name}: {len(burst)} saves sent, {len(acknowledged)} acknowledged, "
          f"{len(stored)} stored")  # fmt: skip
    assert acknowledged <= stored.keys()
    papers = {paper.id: paper for paper in load_corpus([SEED_CORPUS]).papers}
    for (_user, paper_id), row in stored.items():  # nothing half-written
        expected = snapshot(papers[paper_id])
        assert (row.title, row.authors, row.year) == (expected.title, expected.authors, 2026)


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
async def test_two_replicas_saving_and_removing_for_one_user(
    backend: Backend, tmp_path: Path
) -> None:
    user = 777
    ids = paper_ids()
    both, only_first, removed = ids[: len(ids) // 2], ids[len(ids) // 2 : -5], ids[-5:]
    store = await backend.open()
    for paper in load_corpus([SEED_CORPUS]).papers:
        if paper.id in removed:
            await store.save(user, snapshot(paper))

    with ExitStack() as stack:
        apis = [stack.enter_context(FakeBotApi()) for _ in range(2)]
        for number, api in enumerate(apis):
            stack.enter_context(running_bot(api, tmp_path / f"bot{number}", backend))
        first, second = (Updates(bot_username=a.bot["username"], bot_id=a.bot["id"]) for a in apis)
        # Interleaved: both replicas save the same papers; the first saves more while the
        # second removes others, all for the same user at once.
        for position, paper_id in enumerate(both):
            tap(apis[0], first, f"v:{paper_ref(paper_id)}", user)
            tap(apis[1], second, f"v:{paper_ref(paper_id)}", user)
            if position < len(only_first):
                tap(apis[0], first, f"v:{paper_ref(only_first[position])}", user)
            if position < len(removed):
                tap(apis[1], second, f"u:{paper_ref(removed[position])}", user)
        expected_answers = [len(both) + len(only_first), len(both) + len(removed)]
        for api, count in zip(apis, expected_answers, strict=True):
            api.wait_for("answerCallbackQuery", count=count, timeout=60)
        toasts = [text for api in apis for text in answers(api).values()]

    try:
        rows = await store.export_rows(user)
    finally:
        await store.close()
    saved_ids = [row.paper_id for row in rows]
    print(f"two replicas: {len(toasts)} answers {sorted(set(toasts))}, {len(saved_ids)} rows")
    assert sorted(saved_ids) == sorted(both + only_first)  # no lost update, no duplicate
    assert set(toasts) <= {SAVED, ALREADY, REMOVED}  # no error shown to the user
    assert toasts.count(ALREADY) == len(both)  # each shared save won by exactly one replica


def test_database_unreachable_at_start_exits_2_naming_the_setting(tmp_path: Path) -> None:
    url = f"postgresql://bot:s3cret-pw@127.0.0.1:{free_port()}/bot"
    with FakeBotApi() as api:
        env = bot_env(
            TELEGRAM_BOT_TOKEN=api.token, TELEGRAM_API_BASE_URL=api.base_url, DATABASE_URL=url
        )
        started = time.monotonic()
        done = run_bot(env=env, cwd=tmp_path)
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "Configuration error: DATABASE_URL" in output
    assert "Traceback" not in output and "s3cret-pw" not in output
    assert time.monotonic() - started < START_TIMEOUT


@pytest.mark.parametrize("delete", ["file", "folder"])
async def test_no_save_is_acknowledged_and_lost_when_the_sqlite_file_is_deleted(
    tmp_path: Path, delete: str
) -> None:
    # `rm bot.sqlite3` (or `git clean -xdf` on the old in-checkout data/) under a
    # running bot: every later save was answered "Saved" and none, nor the earlier ones,
    # existed after a restart. Nothing was logged.
    backend = Backend("sqlite", None, tmp_path / "data")
    user, ids = 601, paper_ids()
    before, after = ids[:5], ids[5:15]
    with FakeBotApi() as api, running_bot(api, tmp_path / "bot", backend) as process:
        updates = Updates(bot_username=api.bot["username"], bot_id=api.bot["id"])
        sent = {tap(api, updates, f"v:{paper_ref(p)}", user): p for p in before}
        api.wait_for("answerCallbackQuery", count=len(before), timeout=60)
        if delete == "file":
            (backend.data_dir / SQLITE_FILE).unlink()
        else:
            shutil.rmtree(backend.data_dir)
        sent |= {tap(api, updates, f"v:{paper_ref(p)}", user): p for p in after}
        api.wait_for("answerCallbackQuery", count=len(sent), timeout=60)
        toasts = answers(api)
        process.send_signal(signal.SIGKILL)  # no clean shutdown to lean on
        process.wait(10)
    acknowledged = {p for q, p in sent.items() if toasts[q] == SAVED}
    refused = {p for q, p in sent.items() if toasts[q] == SAVE_FAILED}
    store = await backend.open()
    try:
        stored = {row.paper_id for row in await store.export_rows(user)}
    finally:
        await store.close()
    stderr = (tmp_path / "bot" / "stderr.log").read_text("utf-8", "replace")
    print(f"{delete} deleted: {len(sent)} saves, {len(acknowledged)} acknowledged, "
          f"{len(refused)} refused, {len(stored)} present after restart")  # fmt: skip
    assert stored == acknowledged  # every acknowledged save present, nothing else
    assert set(before) <= acknowledged  # the rows saved before the delete were carried over
    assert len(refused) == 1 and acknowledged | refused == set(sent.values())
    assert "ERROR bot.store.sqlite: The database file" in stderr and "was deleted" in stderr
    assert "Traceback" not in stderr


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
@pytest.mark.parametrize("fatal", [signal.SIGBUS, signal.SIGSEGV], ids=["SIGBUS", "SIGSEGV"])
def test_a_fatal_signal_leaves_a_traceback_on_stderr(
    backend: Backend, tmp_path: Path, fatal: signal.Signals
) -> None:
    # What a memory-mapped cache truncated under the bot delivers: without
    # faulthandler the process died with no line at all. PYTHONFAULTHANDLER cleared, so only
    # the bot's own set-up can produce the traceback.
    log = tmp_path / "bot" / "stderr.log"
    with (
        FakeBotApi() as api,
        running_bot(api, tmp_path / "bot", backend, PYTHONFAULTHANDLER="") as process,
    ):
        # faulthandler reads the other threads' frames without their lock: a thread running
        # Python code meanwhile (the glossary's parse, the one busy at start) can crash the
        # dump itself (a cut-off stack, a SIGSEGV for the SIGBUS). So the signal comes once
        # that work is done, as a real fault in a settled bot would.
        wait_for_line(log, "Chinese glossary (CC-CEDICT) loaded", process)
        process.send_signal(fatal)
        process.wait(10)
    stderr = log.read_text("utf-8", "replace")
    assert process.returncode == -fatal
    name = {signal.SIGBUS: "Bus error", signal.SIGSEGV: "Segmentation fault"}[fatal]
    assert f"Fatal Python error: {name}" in stderr, stderr[-2000:]
    assert 'File "' in stderr and "Thread 0x" in stderr  # every thread's stack, file and line
