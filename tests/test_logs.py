"""Logging never shows a bot token: URLs, bare tokens, tracebacks, %-args."""

from __future__ import annotations

import io
import logging

import pytest

from bot.logs import RedactingFilter, RedactingFormatter, configure_logging, redact

TOKEN = "123456789:AAH-secretPart_0123456789abcdefghij"
SECRET = TOKEN.split(":")[1]


def test_redact_url_and_bare_token() -> None:
    text = f"POST https://api.telegram.org/bot{TOKEN}/getMe and also {TOKEN}"
    redacted = redact(text)
    assert SECRET not in redacted
    assert "https://api.telegram.org/bot<redacted>/getMe" in redacted


def test_redact_short_test_token_given_as_secret() -> None:
    assert "shh" not in redact("token 1:shh here", ["1:shh"])


@pytest.fixture
def captured() -> tuple[logging.Logger, io.StringIO]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(RedactingFormatter(secrets=[TOKEN]))
    handler.addFilter(RedactingFilter([TOKEN]))
    logger = logging.getLogger("test_logs.captured")
    logger.handlers = [handler]
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    return logger, stream


def test_token_in_args_and_exception_is_redacted(captured) -> None:
    logger, stream = captured
    logger.debug("Set Bot API URL: %s", f"https://api.telegram.org/bot{TOKEN}")
    try:
        raise ValueError(f"The token `{TOKEN}` was rejected by the server.")
    except ValueError:
        logger.exception("failed")
    output = stream.getvalue()
    assert SECRET not in output
    assert "Traceback" in output and "<redacted>" in output


def test_configure_logging_quiets_httpx_and_redacts_root_handlers() -> None:
    root = logging.getLogger()
    saved_handlers, saved_level = root.handlers[:], root.level
    stream = io.StringIO()
    root.handlers = [logging.StreamHandler(stream)]
    try:
        configure_logging("DEBUG", secrets=[TOKEN])
        logging.getLogger("some.library").debug("url %s", f"http://x/bot{TOKEN}/m")
        assert logging.getLogger("httpx").level == logging.WARNING
        assert logging.getLogger("httpcore").level == logging.WARNING
    finally:
        root.handlers, root.level = saved_handlers, saved_level
        logging.getLogger("httpx").setLevel(logging.NOTSET)
        logging.getLogger("httpcore").setLevel(logging.NOTSET)
    assert "url http://x/bot<redacted>/m" in stream.getvalue()
    assert SECRET not in stream.getvalue()
