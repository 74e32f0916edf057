"""Bot start-up time and reply latency, through the fake Bot API and the real bot process.

    uv run python -m benchmarks.bot_latency [--runs 5] [--questions 50] [--corpus PATH]

Start-up: from `Popen` of `python -m bot` to its first `getUpdates` (corpus load, index
build, PTB initialise, getMe, setMyCommands, deleteWebhook). Reply: from the moment an
update is queued on the fake server (a long-poll in flight returns it at once) to the
moment its `sendMessage` arrives. Prints medians (and min/max).
"""

from __future__ import annotations

import argparse
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from testkit.botenv import bot_env
from testkit.fake_bot_api import FakeBotApi, Updates

QUESTION = "neural network that compiles into a decision tree with if-else rules"


def _env(api: FakeBotApi, corpus: str | None) -> dict[str, str]:
    env = bot_env(
        TELEGRAM_BOT_TOKEN=api.token, TELEGRAM_API_BASE_URL=api.base_url, LOG_LEVEL="WARNING"
    )
    if corpus:
        env["CORPUS"] = corpus
    return env


def _start(api: FakeBotApi, corpus: str | None, workdir: str) -> tuple[subprocess.Popen, float]:
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "bot"],
        cwd=workdir,
        env=_env(api, corpus),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    if not api.first_get_updates.wait(120):
        process.kill()
        raise SystemExit("the bot never polled")
    return process, time.perf_counter() - started


def _stop(process: subprocess.Popen) -> int:
    process.send_signal(signal.SIGINT)
    return process.wait(30)


def main() -> int:
    """Run the measurements and print medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="start-ups to time (5)")
    parser.add_argument("--questions", type=int, default=50, help="questions to time (50)")
    parser.add_argument("--corpus", help="corpus path (default: the bot's, corpus/)")
    args = parser.parse_args()

    startups: list[float] = []
    latencies: list[float] = []
    with tempfile.TemporaryDirectory() as workdir:
        for run in range(args.runs):
            with FakeBotApi() as api:
                process, startup = _start(api, args.corpus, workdir)
                startups.append(startup)
                if run == 0:
                    updates = Updates()
                    for i in range(args.questions):
                        chat_id = 5000 + i
                        queued = time.monotonic()  # ApiCall.at uses the same clock
                        api.push_update(updates.message(QUESTION, chat_id=chat_id))
                        [reply] = api.wait_for(
                            "sendMessage",
                            predicate=lambda c, cid=chat_id: c.params["chat_id"] == cid,
                        )
                        latencies.append(reply.at - queued)
                code = _stop(process)
                if code != 0:
                    raise SystemExit(f"bot exited with {code}")

    def ms(values: list[float]) -> str:
        return (
            f"median {statistics.median(values) * 1000:.0f} ms "
            f"(min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f}, n={len(values)})"
        )

    print(f"start-up to first getUpdates: {ms(startups)}")
    print(f"reply latency (update queued -> sendMessage received): {ms(latencies)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
