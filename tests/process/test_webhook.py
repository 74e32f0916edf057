"""Webhook mode end to end: `python -m bot run --webhook`, real HTTP posts, the fake Bot API."""

from __future__ import annotations

import http.client
import json
import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.tg.app import ALLOWED_UPDATES
from testkit.botenv import bot_env
from testkit.fake_bot_api import DEFAULT_TOKEN, ApiCall, FakeBotApi, Updates
from testkit.process import LineWatch, run_bot, start_bot

# Tiers (tests/README.md): starts bot processes.
pytestmark = pytest.mark.slow

SECRET = "wh-Secret_0123456789abcdefDEADbeef"
PATH = "/tg/hook"
PARAPHRASE = "neural network that compiles into a decision tree with if-else rules"
START_TIMEOUT = 60.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class WebhookBot:
    """The bot process in webhook mode, its fake Bot API and its HTTP address."""

    def __init__(
        self,
        api: FakeBotApi,
        process: subprocess.Popen,
        port: int,
        log: Path,
        watch: LineWatch | None = None,
    ) -> None:
        self.api = api
        self.process = process
        self.port = port
        self.log = log
        self.watch = watch
        """Its stderr read from a pipe, when started with `watch_for` (else in `log`)."""
        self.updates = Updates(bot_username=api.bot["username"], bot_id=api.bot["id"])

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, Any]]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, json.loads(response.read() or b"{}")
        finally:
            connection.close()

    def post_update(
        self, update: dict[str, Any] | bytes, *, secret: str | None = SECRET
    ) -> tuple[int, dict[str, Any]]:
        if isinstance(update, dict):
            update.setdefault("update_id", next(self.api._update_ids))
        body = update if isinstance(update, bytes) else json.dumps(update).encode()
        headers = {"Content-Type": "application/json"}
        if secret is not None:
            headers["X-Telegram-Bot-Api-Secret-Token"] = secret
        return self.request("POST", PATH, body, headers)

    def sent_to(self, chat_id: int) -> list[ApiCall]:
        return [c for c in self.api.calls_of("sendMessage") if c.params["chat_id"] == chat_id]

    def ask(self, text: str, chat_id: int) -> ApiCall:
        before = len(self.sent_to(chat_id))
        status, _ = self.post_update(self.updates.message(text, chat_id=chat_id))
        assert status == 200
        return self.api.wait_for(
            "sendMessage", count=before + 1, predicate=lambda c: c.params["chat_id"] == chat_id
        )[before]

    def stderr(self) -> str:
        if self.watch is not None:
            return self.watch.text()
        return self.log.read_text(encoding="utf-8", errors="replace")


def start_webhook_bot(
    api: FakeBotApi, workdir: Path, *, watch_for: str | None = None, **extra: str
) -> WebhookBot:
    """The bot in webhook mode, once it registered its webhook; `watch_for`: a log line to
    wait for (stderr then goes to a pipe, read by `bot.watch`)."""
    port = free_port()
    env = bot_env(
        TELEGRAM_BOT_TOKEN=api.token,
        TELEGRAM_API_BASE_URL=api.base_url,
        WEBHOOK_URL=f"https://bot.example.org{PATH}",
        WEBHOOK_PORT=str(port),
        WEBHOOK_SECRET=SECRET,
        LOG_LEVEL="DEBUG",
        **extra,
    )
    log = workdir / "stderr.log"
    to_log = log if watch_for is None else None  # else stderr is a pipe the watch reads
    args = ("run", "--webhook")
    process = start_bot(env, workdir, to_log, args=args, stderr=subprocess.PIPE)
    watch = LineWatch(process, watch_for) if watch_for is not None else None
    bot = WebhookBot(api, process, port, log, watch)
    try:
        api.wait_for("setWebhook", timeout=START_TIMEOUT)
    except AssertionError:
        process.kill()
        raise AssertionError(f"no setWebhook; stderr:\n{bot.stderr()[-3000:]}") from None
    return bot


@pytest.fixture(scope="module")
def webhook_bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebhookBot]:
    with FakeBotApi() as api:
        bot = start_webhook_bot(api, tmp_path_factory.mktemp("webhook"))
        try:
            yield bot
        finally:
            if bot.process.poll() is None:
                bot.process.kill()
                bot.process.wait(10)


def test_webhook_is_registered_with_secret_and_handled_update_types(
    webhook_bot: WebhookBot,
) -> None:
    [call] = webhook_bot.api.calls_of("setWebhook")
    assert call.params["url"] == f"https://bot.example.org{PATH}"
    assert call.params["secret_token"] == SECRET
    assert call.params["allowed_updates"] == list(ALLOWED_UPDATES)
    assert webhook_bot.api.calls_of("getUpdates") == []  # no polling in webhook mode


def test_update_with_the_secret_is_answered(webhook_bot: WebhookBot) -> None:
    call = webhook_bot.ask(PARAPHRASE, chat_id=3001)
    assert call.ok
    assert "/paper_3rmh7qdh" in call.params["text"].split("\n\n")[1]


@pytest.mark.parametrize(
    "secret",
    [
        pytest.param(None, id="missing"),
        pytest.param("wrong-secret", id="wrong"),
        pytest.param(SECRET[:-1], id="prefix"),
        pytest.param(SECRET + "x", id="longer"),
        pytest.param("", id="empty"),
    ],
)
def test_update_without_the_secret_is_rejected_and_not_processed(
    webhook_bot: WebhookBot, secret: str | None
) -> None:
    chat = 3002
    update = webhook_bot.updates.message(PARAPHRASE, chat_id=chat)
    status, body = webhook_bot.post_update(update, secret=secret)
    assert status == 403 and body["ok"] is False
    webhook_bot.ask("diffusion models", chat_id=3003)  # a barrier: later updates are served
    assert webhook_bot.sent_to(chat) == []


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(b'{"update_id": 5, "message": ', id="truncated"),
        pytest.param(b"\xff\xfe not utf-8", id="bytes"),
        pytest.param(b"[1, 2, 3]", id="array"),
        pytest.param(b'{"message": {}}', id="no-update-id"),
        pytest.param(b"", id="empty"),
    ],
)
def test_malformed_json_gets_400_and_the_server_goes_on(
    webhook_bot: WebhookBot, body: bytes
) -> None:
    status, reply = webhook_bot.post_update(body)
    assert status == 400 and reply["ok"] is False
    assert webhook_bot.ask(PARAPHRASE, chat_id=3004).ok


def test_update_ptb_cannot_parse_is_acknowledged_and_skipped(webhook_bot: WebhookBot) -> None:
    broken = {"message": {"text": "no id, no chat, no date"}}
    status, reply = webhook_bot.post_update(broken)
    assert status == 200 and reply.get("skipped") is True  # Telegram must not redeliver it
    unknown = {"brand_new_update_type": {"x": 1}}
    assert webhook_bot.post_update(unknown)[0] == 200
    assert webhook_bot.ask(PARAPHRASE, chat_id=3005).ok


def test_a_forged_text_is_skipped_and_a_lone_surrogate_answered(webhook_bot: WebhookBot) -> None:
    forged = webhook_bot.updates.message("placeholder", chat_id=3010)
    forged["message"]["text"] = ["not", "a", "string"]
    status, reply = webhook_bot.post_update(forged)
    assert status == 200 and reply.get("skipped") is True
    assert webhook_bot.ask("\ud800 " + PARAPHRASE, chat_id=3011).ok
    assert webhook_bot.sent_to(3010) == []
    assert "Traceback" not in webhook_bot.stderr()


def test_healthz_says_the_index_is_loaded(webhook_bot: WebhookBot) -> None:
    status, body = webhook_bot.request("GET", "/healthz")
    assert status == 200
    assert body["index_loaded"] is True and body["papers"] > 0 and body["running"] is True


def test_only_post_is_accepted_on_the_update_path(webhook_bot: WebhookBot) -> None:
    status, _ = webhook_bot.request("GET", PATH)
    assert status == 405


# ------------------------------------------------------------------ hostile or odd posts


def test_a_repeated_update_id_is_acknowledged_but_answered_once(webhook_bot: WebhookBot) -> None:
    # Telegram redelivers an update whose 200 it did not see; the bot must not answer twice.
    chat = 3201
    update = webhook_bot.updates.message(PARAPHRASE, chat_id=chat)
    update["update_id"] = next(webhook_bot.api._update_ids)
    first = webhook_bot.post_update(json.dumps(update).encode())
    again = webhook_bot.post_update(json.dumps(update).encode())
    assert first == (200, {"ok": True})
    assert again == (200, {"ok": True, "duplicate": True})
    webhook_bot.api.wait_for("sendMessage", predicate=lambda c: c.params["chat_id"] == chat)
    webhook_bot.ask("diffusion models", chat_id=chat)  # a barrier: both posts were handled
    texts = [call.params["text"] for call in webhook_bot.sent_to(chat)]
    assert len(texts) == 2 and "diffusion" in texts[1]  # the paraphrase once, the barrier once


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(b"[" * 200_000 + b"]" * 200_000, id="deep-array"),
        pytest.param(
            b'{"update_id": 7, "message": ' + b'{"a": ' * 100_000 + b"1" + b"}" * 100_001,
            id="deep-object-in-update",
        ),
        pytest.param(  # parsable, but far deeper than any real update
            b'{"update_id": 9, "message": ' + b'{"a": ' * 500 + b"1" + b"}" * 501,
            id="parsable-but-deep",
        ),
    ],
)
def test_deeply_nested_json_gets_400_without_a_traceback(
    webhook_bot: WebhookBot, body: bytes
) -> None:
    status, reply = webhook_bot.post_update(body)
    assert (status, reply) == (400, {"ok": False, "error": "malformed JSON"})
    assert webhook_bot.ask(PARAPHRASE, chat_id=3202).ok
    assert "RecursionError" not in webhook_bot.stderr()


def test_an_oversized_update_gets_413_and_the_server_goes_on(webhook_bot: WebhookBot) -> None:
    body = b'{"update_id": 8, "padding": "' + b"x" * (10 << 20) + b'"}'
    status, reply = webhook_bot.post_update(body)
    assert (status, reply) == (413, {"ok": False, "error": "update too large"})
    assert webhook_bot.ask(PARAPHRASE, chat_id=3203).ok


def test_sigterm_exits_zero_and_debug_logs_hold_no_token_or_secret(
    webhook_bot: WebhookBot,
) -> None:
    webhook_bot.process.send_signal(signal.SIGTERM)
    assert webhook_bot.process.wait(timeout=30) == 0
    log = webhook_bot.stderr()
    assert "Calling Bot API endpoint" in log  # DEBUG logging was really on
    assert "Rejected a webhook request" in log  # the 403s were logged ...
    assert SECRET not in log  # ... without the secret (it was in setWebhook's parameters)
    assert DEFAULT_TOKEN.split(":", 1)[1] not in log


def test_an_update_posted_while_stopping_gets_503_so_telegram_sends_it_again(
    tmp_path: Path,
) -> None:
    with FakeBotApi() as api:
        bot = start_webhook_bot(api, tmp_path, watch_for=PTB_STOPPING)
        try:
            connection = http.client.HTTPConnection("127.0.0.1", bot.port, timeout=10)
            answer = api.hold_next("sendMessage")  # the first question is in hand ...
            assert post(connection, bot.updates.message(PARAPHRASE, chat_id=3101))[0] == 200
            assert answer.arrived.wait(30), bot.stderr()
            bot.process.send_signal(signal.SIGTERM)
            assert bot.watch is not None and bot.watch.seen.wait(30), bot.stderr()
            # ... the bot is stopping: no new connections; this kept-alive one is told to retry
            status, body = post(connection, bot.updates.message("diffusion", chat_id=3102))
            answer.release.set()
            assert bot.process.wait(timeout=30) == 0
        finally:
            if bot.process.poll() is None:
                bot.process.kill()
                bot.process.wait(10)
    assert (status, body) == (503, {"ok": False, "error": "shutting down"})
    assert len(bot.sent_to(3101)) == 1  # the update in hand was answered before the exit
    assert bot.sent_to(3102) == []  # not taken: Telegram keeps it and posts it again later


PTB_STOPPING = "Application is stopping"
"""PTB's log line once `Application.running` is False."""


def post(connection: http.client.HTTPConnection, update: dict[str, Any]) -> tuple[int, Any]:
    """POST an update as Telegram does, on a connection kept open between posts."""
    update.setdefault("update_id", update["message"]["message_id"])
    headers = {"Content-Type": "application/json", "X-Telegram-Bot-Api-Secret-Token": SECRET}
    connection.request("POST", PATH, body=json.dumps(update).encode(), headers=headers)
    response = connection.getresponse()
    return response.status, json.loads(response.read() or b"{}")


# ------------------------------------------------------------------ settings


def run_to_exit(tmp_path: Path, *args: str, **env: str) -> tuple[int, str]:
    done = run_bot(*args, env=bot_env(TELEGRAM_BOT_TOKEN=DEFAULT_TOKEN, **env), cwd=tmp_path)
    return done.returncode, done.stderr + done.stdout


@pytest.mark.parametrize(
    ("args", "env", "named"),
    [
        pytest.param(
            ["run", "--webhook"],
            {"WEBHOOK_URL": "https://bot.example.org/hook"},
            "WEBHOOK_SECRET",
            id="no-secret",
        ),
        pytest.param(
            [],
            {"WEBHOOK_URL": "https://bot.example.org/hook", "WEBHOOK_SECRET": "has space!"},
            "WEBHOOK_SECRET",
            id="bad-secret",
        ),
        pytest.param(
            [],
            {"WEBHOOK_URL": "https://b.example/h", "WEBHOOK_SECRET": "x" * 257},
            "WEBHOOK_SECRET",
            id="secret-too-long",
        ),
        pytest.param(
            ["run", "--webhook"], {"WEBHOOK_SECRET": "secret-abc"}, "WEBHOOK_URL", id="no-url"
        ),
        pytest.param(
            [], {"WEBHOOK_URL": "http://insecure.example/hook"}, "WEBHOOK_URL", id="http-url"
        ),
        pytest.param(
            [],
            {
                "WEBHOOK_URL": "https://b.example/h",
                "WEBHOOK_SECRET": "valid-secret-123",
                "WEBHOOK_PORT": "99999",
            },
            "WEBHOOK_PORT",
            id="bad-port",
        ),
    ],
)
def test_bad_webhook_settings_are_named_exit_2(
    tmp_path: Path, args: list[str], env: dict[str, str], named: str
) -> None:
    code, output = run_to_exit(tmp_path, *args, **env)
    assert code == 2, output
    assert named in output and "Traceback" not in output
    if "WEBHOOK_SECRET" in env:
        assert env["WEBHOOK_SECRET"] not in output.replace(named, "")


def test_a_busy_webhook_port_is_named_exit_2(tmp_path: Path) -> None:
    with socket.socket() as taken, FakeBotApi() as api:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, output = run_to_exit(
            tmp_path,
            "run",
            "--webhook",
            TELEGRAM_API_BASE_URL=api.base_url,
            WEBHOOK_URL=f"https://bot.example.org{PATH}",
            WEBHOOK_PORT=str(port),
            WEBHOOK_SECRET=SECRET,
        )
        assert api.calls_of("setWebhook") == []
    assert code == 2, output
    assert f"127.0.0.1:{port}" in output and "address already in use" in output, output
    assert "WEBHOOK_PORT" in output
    assert "still running" not in output and "Traceback" not in output
