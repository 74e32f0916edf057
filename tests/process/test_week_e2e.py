"""The conference week end to end: the real `python -m bot` process, our fake Bot API over
HTTP, and a programme written around the wall clock (a poster session on now, the next one
minutes ahead), so /now and the reminders run on real time.

WEEK_TRANSCRIPT=<file> also writes what the bot said, as plain text, to that file.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import icalendar
import ics
import pytest

from bot.corpus import Paper
from bot.store import open_store, snapshot
from testkit.botenv import bot_env
from testkit.fake_bot_api import (
    ApiCall,
    FakeBotApi,
    Updates,
    UploadedFile,
    assert_telegram_would_accept,
    parse_html,
)
from testkit.process import START_TIMEOUT, start_bot
from testkit.week import live_week

# Tiers (tests/README.md): starts bot processes.
pytestmark = pytest.mark.slow

ALICE, BOB = 4101, 4202
AHEAD = timedelta(minutes=4)  # the next session starts this far ahead (to the minute)


class Bot:
    """`python -m bot` on a corpus folder and a data folder, restartable; what it said."""

    def __init__(self, api: FakeBotApi, corpus: Path, data: Path, workdir: Path) -> None:
        self.api, self.workdir = api, workdir
        self.env = bot_env(
            TELEGRAM_BOT_TOKEN=api.token, TELEGRAM_API_BASE_URL=api.base_url,
            CORPUS=str(corpus), DATA_DIR=str(data),
        )  # fmt: skip
        self.updates = Updates(bot_username=api.bot["username"], bot_id=api.bot["id"])
        self.transcript: list[str] = []
        self.runs = 0

    @contextmanager
    def running(self) -> Iterator[subprocess.Popen]:
        """The bot polling until the block ends; then stopped with SIGTERM, as in production."""
        self.runs += 1
        polls = len(self.api.calls_of("getUpdates", include_failed=True))
        log = self.workdir / f"stderr-{self.runs}.log"
        process = start_bot(self.env, self.workdir, log)
        try:
            self.api.wait_for("getUpdates", count=polls + 1, timeout=START_TIMEOUT)
            self.transcript.append(f"*(bot started, run {self.runs})*")
            yield process
            process.send_signal(signal.SIGTERM)
            assert process.wait(30) == 0, log.read_text()[-3000:]
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(10)

    def say(self, text: str, user: int = ALICE, method: str = "sendMessage") -> ApiCall:
        """Send `text` in `user`'s private chat; the bot's first answer by `method`."""
        before = len(self._to(user, method))
        self.transcript.append(f"**{user}:** `{text}`")
        self.api.push_update(self.updates.message(text, chat_id=user))
        call = self.api.wait_for(method, count=before + 1, predicate=_to_chat(user))[before]
        self._said(call)
        return call

    def tap(self, on: ApiCall, data: str, user: int = ALICE) -> str:
        """Tap the button carrying `data` on the message `on` sent; the toast."""
        message = self.api.message_json(on.result["chat"]["id"], on.result["message_id"])
        payload = self.updates.callback(data, message=message, user_id=user)
        self.api.push_update(payload)
        query = payload["callback_query"]["id"]
        [answer] = self.api.wait_for(
            "answerCallbackQuery", predicate=lambda c: c.params["callback_query_id"] == query
        )
        toast = str(answer.params.get("text") or "")
        self.transcript.append(f"**{user}** taps `{data}`" + (f" → *{toast}*" if toast else ""))
        return toast

    def reminders(self, user: int) -> list[str]:
        return [t for t in map(_plain, self._to(user, "sendMessage")) if t.startswith("⏰")]

    def _to(self, user: int, method: str) -> list[ApiCall]:
        return [call for call in self.api.calls_of(method) if _to_chat(user)(call)]

    def _said(self, call: ApiCall) -> None:
        if call.method == "sendDocument":
            name = call.params["document"].filename
            self.transcript.append(f"bot sends `{name}`: *{call.params.get('caption', '')}*")
            return
        assert_telegram_would_accept(call)
        buttons = [button["text"] for button in _keyboard(call)]
        shown = "\n".join(f"    {line}" for line in _plain(call).splitlines())
        self.transcript.append(f"bot:\n\n{shown}\n" + (f"\n    [{' | '.join(buttons)}]\n"
                                                      if buttons else ""))  # fmt: skip


def _to_chat(user: int):
    return lambda call: call.params.get("chat_id") == user


def _plain(call: ApiCall) -> str:
    return parse_html(call.params["text"])


def _keyboard(call: ApiCall) -> list[dict[str, Any]]:
    rows = (call.params.get("reply_markup") or {}).get("inline_keyboard", [])
    return [button for row in rows for button in row]


def test_the_week_end_to_end(tmp_path: Path) -> None:
    week = live_week(tmp_path / "corpus", datetime.now(UTC), ahead=AHEAD)
    data = tmp_path / "data"
    with FakeBotApi() as api:
        bot = Bot(api, tmp_path / "corpus", data, tmp_path)
        with bot.running():
            share = _card_and_share(bot, week["A"])
            _share_puts_the_paper_first(bot, share, week["A"])
            for name in "BD":
                _save(bot, bot.say(f"/paper_{week[name].id}"), week[name])
            _schedule(bot, week)
            _calendar(bot, week)
            _now(bot, week)
            bot.say("/remind 5")
            api.wait_for("sendMessage", predicate=lambda c: _plain(c).startswith("⏰"))
            assert _is_reminder_of(week["D"], bot.reminders(ALICE))
            bot._said(api.calls_of("sendMessage")[-1])
        asyncio.run(_while_down(data, week["E"]))  # Bob saves E and turns reminders on
        bot.transcript.append(f"*(bot stopped; {BOB} saved E and chose /remind 5 meanwhile)*")
        with bot.running():
            api.wait_for("sendMessage", predicate=lambda c: c.params["chat_id"] == BOB)
            assert _is_reminder_of(week["E"], bot.reminders(BOB))  # due while down: sent
            assert len(bot.reminders(ALICE)) == 1  # handled before Bob: not sent twice
            bot._said(api.calls_of("sendMessage")[-1])
            _forget(bot)
    assert asyncio.run(_reminders_left(data)) == (None, frozenset())
    if os.environ.get("WEEK_TRANSCRIPT"):
        Path(os.environ["WEEK_TRANSCRIPT"]).write_text("\n\n".join(bot.transcript) + "\n")


def _card_and_share(bot: Bot, paper: Paper) -> str:
    """`/start <id>` (a t.me link) opens the card: its link to copy, Save and Share."""
    card = bot.say(f"/start {paper.id}")
    text = _plain(card)
    assert text.startswith(paper.title)
    assert f"Link to this paper: https://t.me/icml_papers_bot?start={paper.id}" in text
    _save(bot, card, paper)
    [share] = [b for b in _keyboard(card) if b["text"] == "Share"]
    return str(share["switch_inline_query"])


def _save(bot: Bot, card: ApiCall, paper: Paper) -> None:
    assert bot.tap(card, f"v:{paper.id}") == "Saved to your reading list"


def _share_puts_the_paper_first(bot: Bot, query: str, paper: Paper) -> None:
    bot.transcript.append(f"**{BOB}** (in another chat) types `@icml_papers_bot {query}`")
    bot.api.push_update(bot.updates.inline(query, user_id=BOB))
    [answer] = bot.api.wait_for("answerInlineQuery")
    first = answer.params["results"][0]
    assert first["id"] == paper.id
    message = parse_html(first["input_message_content"]["message_text"])
    assert f"t.me/icml_papers_bot?start={paper.id}" in message
    bot.transcript.append(f"inline result 1: *{first['title']}*\n\n    " + message.replace(
        "\n", "\n    "))  # fmt: skip


def _schedule(bot: Bot, week: dict[str, Paper]) -> None:
    text = _plain(bot.say("/schedule"))
    order = [
        "Poster Session 1",
        week["A"].title,
        "#E-101",
        week["B"].title,
        "#E-102",
        "Poster Session 2",
        week["D"].title,
        "#E-204",
        "⚠ Clash in Poster Session 1",
    ]
    at = 0
    for part in order:
        at = text.index(part, at) + len(part)  # fmt: skip
    clash = text[text.index("⚠ Clash") :]
    assert week["A"].title in clash and week["B"].title in clash and week["D"].title not in clash


def _calendar(bot: Bot, week: dict[str, Paper]) -> None:
    call = bot.say("/export ics", method="sendDocument")
    document = call.params["document"]
    assert isinstance(document, UploadedFile) and document.filename.endswith(".ics")
    feed = {(datetime.fromisoformat(p.presentations[0].start).astimezone(UTC),
             datetime.fromisoformat(p.presentations[0].end).astimezone(UTC),
             f"East Exhibition Hall A-B, #{p.presentations[0].position}")
            for p in (week["A"], week["B"], week["D"])}  # fmt: skip
    first = icalendar.Calendar.from_ical(document.data).walk("VEVENT")
    assert {(e.decoded("dtstart"), e.decoded("dtend"), str(e["location"])) for e in first} == feed
    second = ics.Calendar(document.data.decode("utf-8")).events
    assert {(e.begin.datetime, e.end.datetime, e.location) for e in second} == feed


def _now(bot: Bot, week: dict[str, Paper]) -> None:
    text = _plain(bot.say("/now"))
    assert text.startswith("Now: ")
    current = text[text.index("Poster Session 1") : text.index("Next")]
    assert "Your 2 saved papers here:" in current
    assert week["A"].title in current and week["B"].title in current
    assert week["C"].title not in current
    assert "Poster Session 2" in text[text.index("Next") :]


def _is_reminder_of(paper: Paper, sent: list[str]) -> bool:
    """Whether `sent` is the one reminder of `paper`'s poster; its minutes left are read back
    (a minute may have turned since it was sent) and must be within the lead."""
    shown = paper.presentations[0]
    start, end = datetime.fromisoformat(shown.start), datetime.fromisoformat(shown.end)
    assert len(sent) == 1, sent
    minutes = int(sent[0].removeprefix("⏰ In ").split(" ", 1)[0])
    assert 1 <= minutes <= AHEAD.total_seconds() // 60
    return sent[0] == (
        f"⏰ In {minutes} minute{'s' if minutes > 1 else ''}: {paper.title}\n"
        f"Poster Session 2\nPoster · {start:%a} {start.day} {start:%b} {start:%H:%M}–{end:%H:%M}"
        f" Seoul time · East Exhibition Hall A-B · #{shown.position}\n/paper_{paper.id}"
    )


def _forget(bot: Bot) -> None:
    prompt = bot.say("/forget")
    assert "reminders" in _plain(prompt)
    bot.tap(prompt, "g:yes")
    [done] = bot.api.wait_for("editMessageText")
    assert _plain(done).startswith("Done")
    bot._said(done)


async def _while_down(data: Path, paper: Paper) -> None:
    store = await open_store(None, data)
    try:
        await store.save(BOB, snapshot(paper))
        await store.set_reminder(BOB, 5, language="en")
    finally:
        await store.close()


async def _reminders_left(data: Path) -> tuple[int | None, frozenset[tuple[str, str]]]:
    store = await open_store(None, data)
    try:
        return await store.get_reminder(ALICE), await store.sent_reminders(ALICE)
    finally:
        await store.close()
