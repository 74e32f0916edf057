"""Starting a bot process, and its stderr read line by line so a test can wait for a log line."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path


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


def start_bot(env: dict[str, str], cwd: Path, stderr_path: Path) -> subprocess.Popen:
    """`python -m bot` in `cwd` with `env`, its stderr written to `stderr_path`."""
    with open(stderr_path, "wb") as stderr:
        return subprocess.Popen(
            [sys.executable, "-m", "bot"],
            cwd=cwd,  # no stray .env from the developer's checkout
            env=env,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
