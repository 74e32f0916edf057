"""One paper: `/paper <id>`, the tappable `/paper_<id>`, `/similar`, `/random`, buttons."""

from __future__ import annotations

import random

from telegram import CallbackQuery, Message, Update
from telegram.ext import filters

from bot import render
from bot.corpus import Paper
from bot.render import Doc
from bot.tg.handlers._replies import argument_or_usage, index_of, off_loop, reply, send
from bot.tg.handlers.library import saveable, viewer, with_save_buttons
from bot.tg.state import Context

PAPER_SHORTCUT = filters.Regex(render.PAPER_SHORTCUT)


def resolve_paper(context: Context, ref: str) -> Paper | None:
    """The paper behind a callback `ref`: an id, or `#hash` of a long id."""
    state = context.bot_data
    index = index_of(context)
    if not ref.startswith("#"):
        return index.get(ref)
    if state.paper_refs is None or state.paper_refs[0] is not index:
        state.paper_refs = (index, {render.paper_ref(p.id): p.id for p in index.papers if p.id})
    paper_id = state.paper_refs[1].get(ref)
    return index.get(paper_id) if paper_id is not None else None


async def paper(update: Update, context: Context) -> None:
    """Show one paper, on `/paper <id>`."""
    paper_id = await argument_or_usage(update, "paper")
    if paper_id is not None:
        await _show_paper(update, context, paper_id)


async def paper_shortcut(update: Update, context: Context) -> None:
    """Show one paper, on the tappable `/paper_<id>`."""
    message = update.effective_message
    parsed = render.parse_paper_shortcut(message.text or "") if message else None
    if parsed is None:
        return
    paper_id, addressee = parsed
    if addressee and addressee.lower() != (context.bot.username or "").lower():
        return  # another bot's command
    await _show_paper(update, context, paper_id)


async def _show_paper(update: Update, context: Context, paper_id: str) -> None:
    found = index_of(context).get(paper_id)
    doc = render.paper_doc(found) if found else render.not_found_doc(paper_id)
    await reply(update, await saveable(update, context, doc))


async def similar(update: Update, context: Context) -> None:
    """List papers like one paper, on `/similar <id>`."""
    paper_id = await argument_or_usage(update, "similar")
    if paper_id is None:
        return
    found = index_of(context).get(paper_id)
    if found is None:
        await reply(update, render.not_found_doc(paper_id))
        return
    doc = await _similar_doc(context, found)
    await reply(update, await saveable(update, context, doc))


async def _similar_doc(context: Context, found: Paper) -> Doc:
    index = index_of(context)
    hits = await off_loop(context, index.similar, found.id, limit=context.bot_data.per_page)
    return render.similar_doc(found, hits)


async def random_paper(update: Update, context: Context) -> None:
    """Show a random paper, on /random."""
    papers = index_of(context).papers
    if not papers:
        await reply(update, render.hint_doc("no_match"))
        return
    doc = render.paper_doc(random.choice(papers))
    await reply(update, await saveable(update, context, doc))


async def open_from_button(
    query: CallbackQuery,
    message: Message,
    context: Context,
    action: render.OpenPaper | render.ShowSimilar,
) -> None:
    """Send the paper (or its similar papers) a result or card button points at."""
    found = resolve_paper(context, action.ref)
    if found is None:
        await query.answer(render.EXPIRED_BUTTON)
        return
    await query.answer()
    if isinstance(action, render.ShowSimilar):
        doc = await _similar_doc(context, found)
    else:
        doc = render.paper_doc(found)
    await send(
        message,
        await with_save_buttons(context, viewer(query.from_user, message.chat), doc),
        quote=False,
    )
