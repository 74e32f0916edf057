"""One paper: `/paper <id>`, the tappable `/paper_<id>`, `/similar`, `/random`, buttons."""

from __future__ import annotations

import random

from telegram import CallbackQuery, Message, Update, User
from telegram.ext import filters

from bot import render
from bot.commands import addressed_to
from bot.corpus import PAPER_COMMAND_PATTERN, Paper, parse_paper_command
from bot.i18n import Translator
from bot.render import Doc
from bot.tg.handlers._replies import argument_or_usage, index_of, off_loop, reply, send
from bot.tg.handlers.library import numbered, saveable, viewer, with_save_buttons
from bot.tg.language import user_translator
from bot.tg.state import Context

PAPER_SHORTCUT = filters.Regex(PAPER_COMMAND_PATTERN)


def resolve_paper(context: Context, ref: str) -> Paper | None:
    """The paper behind a callback `ref`: an id, or `#hash` of a long id."""
    state = context.bot_data
    index = index_of(context)
    if not ref.startswith("#"):
        return index.get(ref)
    if state.paper_refs is None or state.paper_refs[0] is not index:
        # From the ids alone: making every Paper of a cached index would hold the loop.
        refs = {render.paper_ref(paper_id): paper_id for paper_id in index.paper_ids() if paper_id}
        state.paper_refs = (index, refs)
    paper_id = state.paper_refs[1].get(ref)
    return index.get(paper_id) if paper_id is not None else None


async def paper(update: Update, context: Context) -> None:
    """Show one paper, on `/paper <id>`."""
    t = await user_translator(update, context)
    paper_id = await argument_or_usage(update, "paper", t)
    if paper_id is not None:
        await _show_paper(update, context, paper_id, t)


async def paper_shortcut(update: Update, context: Context) -> None:
    """Show one paper, on the tappable `/paper_<id>`."""
    message = update.effective_message
    parsed = parse_paper_command(message.text or "") if message else None
    if parsed is None:
        return
    paper_id, addressee = parsed
    if not addressed_to(addressee or None, context.bot.username):
        return  # another bot's command
    await _show_paper(update, context, paper_id, await user_translator(update, context))


async def _show_paper(update: Update, context: Context, paper_id: str, t: Translator) -> None:
    found = index_of(context).get(paper_id)
    if found is None:
        await reply(update, render.not_found_doc(paper_id, t=t))
        return
    doc = render.paper_doc(found, t=t)
    await reply(update, await saveable(update, context, doc, [(None, found.id)], t))


async def author(update: Update, context: Context) -> None:
    """List a person's papers, on `/author <name>`."""
    t = await user_translator(update, context)
    name = await argument_or_usage(update, "author", t)
    if name is not None:
        await reply(update, render.author_doc(name, index_of(context).by_author(name), t=t))


async def similar(update: Update, context: Context) -> None:
    """List papers like one paper, on `/similar <id>`."""
    t = await user_translator(update, context)
    paper_id = await argument_or_usage(update, "similar", t)
    if paper_id is None:
        return
    found = index_of(context).get(paper_id)
    if found is None:
        await reply(update, render.not_found_doc(paper_id, t=t))
        return
    user = viewer(update.effective_user, update.effective_chat)
    await reply(update, await _similar_doc(context, found, t, user))


async def _similar_doc(context: Context, found: Paper, t: Translator, user: User | None) -> Doc:
    """Papers like `found`, with Save buttons showing what `user` saved."""
    index = index_of(context)
    hits = await off_loop(context, index.similar, found.id, limit=context.bot_data.per_page)
    return await with_save_buttons(
        context, user, render.similar_doc(found, hits, t=t), numbered(hits), t
    )


async def random_paper(update: Update, context: Context) -> None:
    """Show a random paper, on /random."""
    t = await user_translator(update, context)
    papers = index_of(context).papers
    if not papers:
        await reply(update, render.hint_doc("no_match", t=t))
        return
    chosen = random.choice(papers)
    doc = render.paper_doc(chosen, t=t)
    await reply(update, await saveable(update, context, doc, [(None, chosen.id)], t))


async def open_from_button(
    query: CallbackQuery,
    message: Message,
    context: Context,
    action: render.OpenPaper | render.ShowSimilar,
    t: Translator,
) -> None:
    """Send the paper (or its similar papers) a result or card button points at."""
    found = resolve_paper(context, action.ref)
    if found is None:
        await query.answer(t.gettext("error.expired_button"))
        return
    await query.answer()
    user = viewer(query.from_user, message.chat)
    if isinstance(action, render.ShowSimilar):
        doc = await _similar_doc(context, found, t, user)
    else:
        card = render.paper_doc(found, t=t)
        doc = await with_save_buttons(context, user, card, [(None, found.id)], t)
    await send(message, doc, quote=False)
