"""Logging set-up for the bot process: one stderr handler that never prints a bot token."""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Iterable

# `bot<id>:<secret>` as it appears in Bot API URLs, and a bare token anywhere else.
_TOKEN_IN_URL = re.compile(r"bot\d+:[A-Za-z0-9_-]+")
_BARE_TOKEN = re.compile(r"\b\d{5,}:[A-Za-z0-9_-]{20,}")
REDACTED = "<redacted>"
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
QUIET_LOGGERS = ("httpx", "httpcore")
"""These log every request URL, and a Bot API URL contains the token."""


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with bot tokens (and each of `secrets`) replaced by a marker."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    text = _TOKEN_IN_URL.sub("bot" + REDACTED, text)
    return _BARE_TOKEN.sub(REDACTED, text)


class RedactingFilter(logging.Filter):
    """Rewrites each record's message, traceback and stack so no token survives."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self.secrets = tuple(s for s in secrets if s)

    def filter(self, record: logging.LogRecord) -> bool:
        """Redact in place; never drops a record."""
        try:
            message = record.getMessage()
        except Exception:  # a broken %-format must not hide the record
            message = str(record.msg)
        record.msg = redact(message, self.secrets)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, self.secrets)
        if record.stack_info:
            record.stack_info = redact(record.stack_info, self.secrets)
        return True


class RedactingFormatter(logging.Formatter):
    """A second line of defence: redacts the fully formatted line too."""

    def __init__(self, fmt: str = LOG_FORMAT, secrets: Iterable[str] = ()) -> None:
        super().__init__(fmt)
        self.secrets = tuple(s for s in secrets if s)

    def format(self, record: logging.LogRecord) -> str:
        """Format, then redact."""
        return redact(super().format(record), self.secrets)


def configure_logging(level: str = "INFO", *, secrets: Iterable[str] = ()) -> None:
    """Root logger to stderr at `level`, tokens redacted, httpx/httpcore at WARNING."""
    secrets = tuple(secrets)
    root = logging.getLogger()
    root.setLevel(level)
    if not root.handlers:
        root.addHandler(logging.StreamHandler(sys.stderr))
    for handler in root.handlers:
        handler.setFormatter(RedactingFormatter(secrets=secrets))
        handler.addFilter(RedactingFilter(secrets))
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
