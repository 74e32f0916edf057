"""Operator controls: /reload and SIGHUP swap in a fresh index; the ALLOWED_CHAT_IDS gate."""

from __future__ import annotations

import asyncio
import logging
import re
import signal
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from telegram import InlineQueryResultsButton, Message, Update
from telegram.constants import ParseMode
from telegram.error import TelegramError
from telegram.ext import (
    Application,
    ApplicationHandlerStop,
    filters,
)

from bot import render
from bot.commands import addressed_to
from bot.config import Settings
from bot.corpus import CorpusError, LoadReport
from bot.i18n import Translator, translator
from bot.loading import load_index
from bot.search import Index
from bot.textutil import clip_words, sendable
from bot.tg import alerts, menu, semantic
from bot.tg.preferences import user_translator
from bot.tg.reload_guard import Refusal, refusal
from bot.tg.replies import command_argument, toast
from bot.tg.state import BotState, Context

logger = logging.getLogger(__name__)

ACCESS_GROUP = -2  # handler group: the chat gate runs before everything
ADMIN_GROUP = -1  # handler group: admin commands, before the public handlers
FORCE = "force"  # `/reload force`: serve a corpus the guard would refuse
MAX_ERROR_CHARS = 600  # a reload error shown to admins; escaped, well under 4096
_EN = translator("en")


@dataclass(frozen=True, slots=True)
class ReloadOutcome:
    """What a reload did: papers served now, the error or the refusal, records skipped."""

    ok: bool
    papers: int
    seconds: float
    error: str = ""
    skipped: int = 0
    refused: Refusal | None = None

    def html(self, t: Translator = _EN) -> str:
        """The outcome as a short Telegram HTML message in `t`'s language."""
        if self.refused is not None:
            doc = render.text_doc(self.refused.key, t=t, **self.refused.values)
        elif self.ok:
            blocks = [render.translated(t, "admin.reloaded", self.papers, seconds=self.seconds)]
            if self.skipped:
                blocks.append(render.translated(t, "stats.skipped", self.skipped))
            doc = render.Doc(tuple(blocks))
        else:  # sendable and short: it may quote a long id or file name
            error = clip_words(sendable(self.error), MAX_ERROR_CHARS)
            doc = render.text_doc("admin.reload_failed", self.papers, t=t, error=error)
        return render.to_html(doc)[0].text


def load_corpus(settings: Settings) -> tuple[LoadReport, Index]:
    """Read the configured corpus and index it through the index cache; log what was skipped."""
    report, index = load_index(
        settings.corpus,
        settings.index_cache_dir,
        strict=settings.corpus_strict,
        corpus_filter=settings.corpus_filter,
        venue_timezone=settings.venue_timezone,
    )
    for line in report.skipped:
        logger.warning("Skipped %s", line)
    return report, index


def _load_and_build(settings: Settings) -> tuple[Index, LoadReport]:
    """The corpus loaded for a reload (in a worker thread), its glossary started."""
    report, index = load_corpus(settings)
    index.queries.start_glossary()  # as post_init does for the first index
    return index, report


async def reload_index(application: Application, *, force: bool = False) -> ReloadOutcome:
    """Rebuild the index and swap it in, unless it looks half-copied (`force` serves it anyway)."""
    state: BotState = application.bot_data
    async with state.reload_lock:
        started = time.perf_counter()
        try:
            index, report = await asyncio.to_thread(_load_and_build, state.settings)
        except (CorpusError, OSError) as exc:
            old = len(state.index) if state.index is not None else 0
            logger.warning("Reload failed, still serving %d papers: %s", old, exc)
            return ReloadOutcome(False, old, time.perf_counter() - started, str(exc))
        old, skipped = state.index, report.not_loaded
        served = len(old) if old is not None else 0
        why = None if force else await _refused(served, index, report)
        if why is not None:
            seconds = time.perf_counter() - started
            return ReloadOutcome(False, served, seconds, skipped=skipped, refused=why)
        before = state.built_facts()
        state.index, state.skipped = index, skipped  # handlers see the old index or the new
        state.sources = len(report.sources)  # for /stats: the files this load read
        state.loaded_at = datetime.now(UTC)
        state.prepare_corpus_facts()  # the new corpus's programme and name, off the loop
        if before is not None:  # the menus name the corpus (/random): again if renamed
            state.set_commands_task = asyncio.create_task(
                menu.register_when_named(application.bot, state, before.name)
            )
        alerts.start_alerts(application, old, index)  # in the background: we answer now
        seconds = time.perf_counter() - started
        logger.info(
            "Reloaded the corpus: %d papers (%d skipped) in %.2f s", len(index), skipped, seconds
        )
        # Cached vectors are reused: only new or changed papers are embedded.
        await semantic.serve_semantic(application, index)
        return ReloadOutcome(True, len(index), seconds, skipped=skipped)


async def _refused(served: int, index: Index, report: LoadReport) -> Refusal | None:
    """Why the new corpus should not replace `served` papers (logged), or None."""
    why = await asyncio.to_thread(refusal, served, len(index), report.sources)  # reads files
    if why is not None:
        logger.warning(
            "Reload refused, still serving %d papers: %s %s (/reload force loads it)",
            served,
            why.key,
            why.values,
        )
    return why


def is_admin(update: Update, settings: Settings) -> bool:
    """True if the update comes from a user listed in ADMIN_USER_IDS."""
    user = update.effective_user
    return user is not None and user.id in settings.admin_user_ids


async def reload_command(update: Update, context: Context) -> None:
    """Rebuild the index on /reload, for admins only; others are told no."""
    message = update.effective_message
    if message is None:
        raise ApplicationHandlerStop
    t = await user_translator(update, context)
    if not is_admin(update, context.bot_data.settings):
        user = update.effective_user
        logger.info("Refused /reload from user %s", user.id if user else "?")
        await message.reply_text(t.gettext("error.admin_only"))
        raise ApplicationHandlerStop
    await message.reply_text(t.gettext("admin.reloading"))
    force = command_argument(message).casefold() == FORCE
    outcome = await reload_index(context.application, force=force)
    await message.reply_text(outcome.html(t), parse_mode=ParseMode.HTML)
    raise ApplicationHandlerStop  # the public handlers would call it an unknown command


async def reload_on_signal(application: Application) -> None:
    """Reload after SIGHUP and tell each admin the outcome (best effort)."""
    logger.info("SIGHUP: reloading the corpus")
    outcome = await reload_index(application)
    settings = application.bot_data.settings
    for admin_id in sorted(settings.admin_user_ids):
        try:
            await application.bot.send_message(
                admin_id, "SIGHUP: " + outcome.html(), parse_mode=ParseMode.HTML
            )
        except TelegramError as exc:
            logger.info("Could not tell admin %s about the reload: %s", admin_id, exc)


def watch_sighup(application: Application) -> None:
    """Reload on SIGHUP; call from inside the running event loop (post_init)."""
    if not hasattr(signal, "SIGHUP"):
        return  # Windows
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(
            signal.SIGHUP,
            lambda: application.create_task(reload_on_signal(application), name="sighup-reload"),
        )
    except (NotImplementedError, RuntimeError):
        logger.info("SIGHUP reload unavailable on this event loop; /reload still works")


class _AdminCommand(filters.MessageFilter):
    """`/reload` or `/reload@thisbot` at the start of a message."""

    __slots__ = ("_pattern", "command")

    def __init__(self, command: str) -> None:
        super().__init__(name=f"admin_command({command})")
        self.command = command
        self._pattern = re.compile(rf"^/{re.escape(command)}(?:@([A-Za-z0-9_]+))?(?:\s|$)")

    def filter(self, message: Message) -> bool:
        """True when the message is this command, addressed to us (or to nobody)."""
        match = self._pattern.match(message.text or "")
        if match is None:
            return False
        return addressed_to(match.group(1), message.get_bot().username)


ADMIN_COMMAND = _AdminCommand("reload")  # a filter: admin commands stay out of /help and the menu


# ---------------------------------------------------------------- access


def _served(update: Update, settings: Settings) -> bool:
    if not settings.allowed_chat_ids or is_admin(update, settings):
        return True
    if update.inline_query is not None:
        return update.inline_query.from_user.id in settings.allowed_chat_ids
    chat = update.effective_chat
    if chat is not None:
        return chat.id in settings.allowed_chat_ids
    user = update.effective_user  # a button on an inaccessible message
    return user is not None and user.id in settings.allowed_chat_ids


def _first_refusal(context: Context, chat_id: int) -> bool:
    """True the first time `chat_id` is refused (remembered in a bounded LRU)."""
    refused = context.bot_data.refused_chats
    first = chat_id not in refused
    refused.put(chat_id, None)  # seen again: most recent
    return first


async def access_gate(update: Update, context: Context) -> None:
    """Stop updates from chats outside ALLOWED_CHAT_IDS; refuse each chat politely once."""
    settings = context.bot_data.settings
    if _served(update, settings):
        return
    user = update.effective_user
    chat = update.effective_chat
    logger.debug("Not served: chat %s, user %s", chat.id if chat else None, user and user.id)
    t = await user_translator(update, context)
    if update.inline_query is not None:
        await update.inline_query.answer(
            [],
            cache_time=300,
            is_personal=True,
            button=InlineQueryResultsButton(
                text=t.gettext("button.private_bot"), start_parameter="private"
            ),
        )
    elif update.callback_query is not None:
        await toast(update.callback_query, t.gettext("button.private_bot"))
    elif (
        chat is not None
        and update.effective_message is not None
        and _first_refusal(context, chat.id)
    ):
        await update.effective_message.reply_text(t.gettext("error.private_bot"), do_quote=False)
    raise ApplicationHandlerStop
