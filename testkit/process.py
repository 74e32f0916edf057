"""A bot process's stderr read line by line in a thread, so a test can wait for a log line."""

from __future__ import annotations

import subprocess
import threading


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
