"""Commands that only describe the bot (/start, /help, /stats, unknown commands), and /lang."""

from __future__ import annotations

from telegram import CallbackQuery, Message, Update
from telegram.constants import ChatType

from bot import answers, render
from bot.i18n import Translator, translator
from bot.planner import paper_from_payload
from bot.tg.handlers import papers
from bot.tg.menu import set_chat_menu
from bot.tg.preferences import choose_language, user_translator
from bot.tg.replies import command_argument, edit_doc, index_of, reply
from bot.tg.state import Context


async def start(update: Update, context: Context) -> None:
    """/start: what the bot serves and how to ask; `/start <paper id>` (a `t.me` link): the card."""
    t = await user_translator(update, context)
    paper_id = paper_from_payload(command_argument(update.effective_message))
    if paper_id is not None and index_of(context).get(paper_id) is not None:
        await papers.open_card(update, context, paper_id, t)
        return
    facts = await context.bot_data.corpus_facts()  # built off the loop, once per index
    await reply(update, answers.start(index_of(context), facts, t=t))


async def help_command(update: Update, context: Context) -> None:
    """List every command, on /help."""
    t = await user_translator(update, context)
    facts = await context.bot_data.corpus_facts()
    await reply(update, answers.help_text(index_of(context), facts, t=t))


async def stats(update: Update, context: Context) -> None:
    """Show how many papers from how many sources, loaded when, on /stats."""
    t = await user_translator(update, context)
    state = context.bot_data
    doc = answers.stats(
        index_of(context),
        sources=state.sources,
        skipped=state.skipped,
        loaded_at=state.loaded_at,
        t=t,
        facts=await state.corpus_facts(),
    )
    await reply(update, doc)


async def unknown_command(update: Update, context: Context) -> None:
    """Point a private sender of an unknown command to /help."""
    await reply(update, render.unknown_command_doc(t=await user_translator(update, context)))


async def lang(update: Update, context: Context) -> None:
    """Offer the languages as buttons, on /lang."""
    await reply(update, render.lang_doc(t=await user_translator(update, context)))


async def set_language(
    query: CallbackQuery,
    message: Message,
    context: Context,
    action: render.SetLanguage,
    _t: Translator,
) -> None:
    """Switch the user to the language of the /lang button they tapped; confirm in it."""
    await choose_language(context, query.from_user.id, action.lang)
    await query.answer()
    await edit_doc(query, render.lang_changed_doc(t=translator(action.lang)))
    if message.chat.type == ChatType.PRIVATE:
        name = (await context.bot_data.corpus_facts()).name
        await set_chat_menu(context.bot, message.chat.id, action.lang, name)
