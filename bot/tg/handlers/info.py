"""Commands that only describe the bot: /start, /help, /stats, and unknown commands."""

from __future__ import annotations

from telegram import Update

from bot import render
from bot.tg.handlers._replies import index_of, reply
from bot.tg.state import Context


async def start(update: Update, context: Context) -> None:
    """Send what the bot knows and how to ask, on /start."""
    await reply(update, render.start_doc(len(index_of(context))))


async def help_command(update: Update, context: Context) -> None:
    """List every command, on /help."""
    await reply(update, render.help_doc())


async def stats(update: Update, context: Context) -> None:
    """Show index sizes, on /stats."""
    stats = index_of(context).stats()
    await reply(update, render.stats_doc(stats, skipped=context.bot_data.skipped))


async def unknown_command(update: Update, context: Context) -> None:
    """Point a private sender of an unknown command to /help."""
    await reply(update, render.unknown_command_doc())
