"""Logging never shows a bot token (URLs, bare tokens, tracebacks, %-args); PTB's shutdown-race
log reaches the operator as what it is."""

from __future__ import annotations

import inspect
import io
import logging

import pytest

from bot.logs import (
    KEPT_FOR_NEXT_START,
    PULLED_WHILE_STOPPING,
    RedactingFilter,
    RedactingFormatter,
    configure_logging,
    pulled_while_stopping_is_not_a_crash,
    redact,
)

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


# ------------------------------------------------------------------ PTB's shutdown-race log


def updater_log(level: int, *messages: str) -> list[str]:
    """What a stderr handler with our filter prints for PTB's Updater logger."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    handler.addFilter(pulled_while_stopping_is_not_a_crash)
    updater = logging.getLogger("telegram.ext.Updater")
    old_level = updater.level
    updater.addHandler(handler)
    updater.setLevel(level)
    try:
        for message in messages:
            updater.critical(message)
    finally:
        updater.removeHandler(handler)
        updater.setLevel(old_level)
    return stream.getvalue().splitlines()


PTB_SHUTDOWN_RACE = (
    "Updater stopped unexpectedly. Pulled updates will be ignored and pulled again on restart."
)


def test_updates_pulled_while_stopping_are_logged_as_kept_not_as_a_crash() -> None:
    assert updater_log(logging.INFO, PTB_SHUTDOWN_RACE) == [f"INFO {KEPT_FOR_NEXT_START}"]


def test_the_rewritten_line_obeys_the_log_level() -> None:
    assert updater_log(logging.WARNING, PTB_SHUTDOWN_RACE) == []


def test_other_critical_updater_logs_stay_critical() -> None:
    assert updater_log(logging.WARNING, "Something went wrong") == ["CRITICAL Something went wrong"]


def test_ptb_still_logs_the_shutdown_race_as_our_filter_expects() -> None:
    # A PTB upgrade rewording it would bring the crash-like CRITICAL back: fail here instead.
    from telegram.ext import _updater

    assert f'"{PULLED_WHILE_STOPPING}' in inspect.getsource(_updater)
    assert "_LOGGER.critical(" in inspect.getsource(_updater)
