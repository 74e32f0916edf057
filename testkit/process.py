"""Starting a bot process (`start_bot`, the one way tests do it; `run_bot` runs one to its exit),
and its stderr read line by line so a test can wait for a log line."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from testkit.paths import REPO_ROOT


class LineWatch:
    """Reads `process.stderr` (a pipe); `seen` is set at a line containing `text`, or at EOF.

    EOF sets it too, so a test waiting for a line does not hang when the process exits
    without writing it: it then asserts on `text()`.
    """

    def __init__(self, process: subprocess.Popen, text: str) -> None:
        self.lines: list[str] = []
        self.seen = threading.Event()
        self._text = text
        self._thread = threading.Thread(target=self._read, args=(process,), daemon=True)
        self._thread.start()

    def _read(self, process: subprocess.Popen) -> None:
        assert process.stderr is not None
        for raw in process.stderr:
            self.lines.append(raw.decode("utf-8", "replace"))
            if self._text in self.lines[-1]:
                self.seen.set()
        self.seen.set()

    def text(self) -> str:
        """Everything read so far."""
        return "".join(self.lines)


START_TIMEOUT = 60.0  # generous: a cold interpreter on a slow CI machine


def start_bot(
    env: Mapping[str, str] | None = None,
    cwd: Path = REPO_ROOT,
    stderr_path: Path | None = None,
    *,
    args: tuple[str, ...] | list[str] = (),
    stdin: int | IO[Any] | None = None,
    stdout: int | IO[Any] | None = subprocess.PIPE,
    stderr: int | IO[Any] | None = None,
    text: bool = False,
) -> subprocess.Popen:
    """`python -m bot *args` (the bot itself without `args`) in `cwd` with `env` (None: this
    process's environment). Its stderr is written to `stderr_path` when given, else goes to
    `stderr` (a pipe, DEVNULL, or None for this process's); stdin and stdout likewise."""
    if stderr_path is not None:
        with open(stderr_path, "wb") as log:
            return start_bot(
                env, cwd, None, args=args, stdin=stdin, stdout=stdout, stderr=log, text=text
            )
    return subprocess.Popen(
        [sys.executable, "-m", "bot", *args],
        cwd=cwd,  # a temporary folder keeps a stray .env of the developer's checkout out
        env=env,
        stdin=stdin,
        stdout=stdout,
        stderr=stderr,
        text=text,
    )


def run_bot(
    *args: str,
    env: Mapping[str, str] | None = None,
    cwd: Path = REPO_ROOT,
    input: str | None = None,
    timeout: float = START_TIMEOUT,
) -> subprocess.CompletedProcess[str]:
    """`python -m bot *args` run to its exit, `input` on its stdin: its code, stdout, stderr."""
    stdin = subprocess.PIPE if input is not None else None
    process = start_bot(env, cwd, args=args, stdin=stdin, stderr=subprocess.PIPE, text=True)
    try:
        out, err = process.communicate(input, timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)
