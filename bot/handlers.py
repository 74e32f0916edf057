"""Telegram handlers: thin async glue from an update to the index and back as HTML."""

from __future__ import annotations

import asyncio
import functools
import logging
import random
import re
import secrets
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from telegram import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InlineQueryResultsButton,
    InputTextMessageContent,
    LinkPreviewOptions,
    Message,
    MessageEntity,
    Update,
)
from telegram.constants import ParseMode
from telegram.error import BadRequest, TelegramError
from telegram.ext import ContextTypes, filters

from bot import limits, render
from bot.corpus import Paper
from bot.render import Doc, Keyboard
from bot.search import MAX_QUERY_CHARS, Index

logger = logging.getLogger(__name__)

# bot_data keys: the only shared state, as in PTB's examples.
INDEX = "index"
RESULTS_PER_PAGE = "results_per_page"
PAGE_STATES = "page_states"
PAPER_REFS = "paper_refs"
SEARCH_EXECUTOR = "search_executor"

SEARCH_THREADS = 1  # ours: searches hold the GIL (snippets are Python), see _search_executor

MAX_QUESTION_CHARS = MAX_QUERY_CHARS  # the analyzer reads no further; one cap, in bot/text.py
MAX_PAGE_STATES = 2048  # ours: long queries remembered for Next/Previous (LRU)
INLINE_CACHE_SECONDS = 300  # ours: Telegram caches an inline answer this long
INLINE_SAMPLE_CACHE_SECONDS = 30  # ours: the empty-query sample changes more often
_NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
_PAPER_COMMAND = re.compile(r"^/paper_([A-Za-z0-9_]+)(?:@([A-Za-z0-9_]+))?(?:\s|$)")
_P = ParamSpec("_P")
_R = TypeVar("_R")


# ---------------------------------------------------------------- state helpers


def _index(context: ContextTypes.DEFAULT_TYPE) -> Index:
    return context.bot_data[INDEX]


def _per_page(context: ContextTypes.DEFAULT_TYPE) -> int:
    return context.bot_data.get(RESULTS_PER_PAGE, 5)


def _search_executor(context: ContextTypes.DEFAULT_TYPE) -> ThreadPoolExecutor:
    """The bot's bounded search thread pool (made on first use, kept in bot_data).

    Not asyncio's default pool (up to min(32, CPUs + 4) threads): every search thread
    holding the GIL makes the event loop wait another switch interval (5 ms) to run, so
    many at once would hold a /start back behind questions; with one, the loop gets
    the GIL back within one interval, and searches run one after another at the same
    total speed, as each is CPU work under the GIL anyway.
    """
    executor = context.bot_data.get(SEARCH_EXECUTOR)
    if executor is None:
        executor = ThreadPoolExecutor(max_workers=SEARCH_THREADS, thread_name_prefix="search")
        context.bot_data[SEARCH_EXECUTOR] = executor
    return executor


async def _off_loop(
    context: ContextTypes.DEFAULT_TYPE,
    function: Callable[_P, _R],
    /,
    *args: _P.args,
    **kwargs: _P.kwargs,
) -> _R:
    """Run index work (BM25 over a large corpus is CPU work) on the search executor."""
    loop = asyncio.get_running_loop()
    call = functools.partial(function, *args, **kwargs)
    return await loop.run_in_executor(_search_executor(context), call)


def _remember_query(context: ContextTypes.DEFAULT_TYPE, query: str) -> str:
    """Store a long query under a short random key (bounded LRU in bot_data)."""
    states: OrderedDict[str, str] = context.bot_data.setdefault(PAGE_STATES, OrderedDict())
    key = secrets.token_urlsafe(8)
    states[key] = query
    while len(states) > MAX_PAGE_STATES:
        states.popitem(last=False)
    return key


def _recall_query(context: ContextTypes.DEFAULT_TYPE, key: str) -> str | None:
    states: OrderedDict[str, str] | None = context.bot_data.get(PAGE_STATES)
    if not states or key not in states:
        return None
    states.move_to_end(key)
    return states[key]


def _resolve_paper(context: ContextTypes.DEFAULT_TYPE, ref: str) -> Paper | None:
    """The paper behind a callback `ref`: an id, or `#hash` of a long id."""
    index = _index(context)
    if not ref.startswith("#"):
        return index.get(ref)
    cached = context.bot_data.get(PAPER_REFS)
    if cached is None or cached[0] is not index:
        refs = {render.paper_ref(p.id): p.id for p in index.papers if len(p.id) > 0}
        cached = (index, refs)
        context.bot_data[PAPER_REFS] = cached
    paper_id = cached[1].get(ref)
    return index.get(paper_id) if paper_id is not None else None


def _markup(keyboard: Keyboard) -> InlineKeyboardMarkup | None:
    if not keyboard:
        return None
    return InlineKeyboardMarkup(
        [
            [InlineKeyboardButton(label, callback_data=data) for label, data in row]
            for row in keyboard
        ]
    )


async def _send(message: Message, doc: Doc, *, quote: bool | None) -> None:
    """Send `doc` as HTML in reply to `message`; only the first part may quote it."""
    for part in render.to_html(doc):
        await message.reply_text(
            part.text,
            parse_mode=ParseMode.HTML,
            reply_markup=_markup(part.keyboard),
            link_preview_options=_NO_PREVIEW,
            do_quote=quote,
        )
        quote = False if quote else quote


async def _reply(update: Update, doc: Doc) -> None:
    """Send `doc` as HTML, answering the message (quoted in groups and for edits)."""
    message = update.effective_message
    if message is None:
        return
    await _send(message, doc, quote=True if update.edited_message is not None else None)


def _command_argument(message: Message) -> str:
    """Text after the leading `/command` (or `/command@bot`), newlines kept."""
    text = message.text or ""
    parts = text.split(maxsplit=1)
    return parts[1].strip() if len(parts) > 1 else ""


async def _argument_or_usage(update: Update, command: str) -> str | None:
    """The command's argument; without one, the command's usage is sent and None returned."""
    message = update.effective_message
    if message is None:
        return None
    argument = _command_argument(message)
    if not argument:
        await _reply(update, render.usage_doc(command))
        return None
    return argument


async def _answer_question(update: Update, context: ContextTypes.DEFAULT_TYPE, text: str) -> None:
    if not await limits.allow_question(update, context):
        return
    question = text[:MAX_QUESTION_CHARS]
    per_page = _per_page(context)
    result = await _off_loop(context, _index(context).search, question, limit=per_page, offset=0)
    key = None
    if result.total > per_page and not render.query_fits_callback(question):
        key = _remember_query(context, question)
    await _reply(update, render.results_doc(result, per_page=per_page, page_key=key))


# ---------------------------------------------------------------- filters


class _AddressedToBot(filters.MessageFilter):
    """Group messages that mention this bot or reply to it (privacy-mode style)."""

    __slots__ = ()

    def filter(self, message: Message) -> bool:
        """True when the message is for us."""
        bot = message.get_bot()
        if message.from_user is not None and message.from_user.is_bot:
            return False
        replied = message.reply_to_message
        if replied and replied.from_user and replied.from_user.id == bot.id:
            return True
        username = (bot.username or "").lower()
        for entity, text in message.parse_entities(
            [MessageEntity.MENTION, MessageEntity.TEXT_MENTION]
        ).items():
            if entity.user is not None and entity.user.id == bot.id:
                return True
            if username and text.lstrip("@").lower() == username:
                return True
        return False


ADDRESSED_TO_BOT = _AddressedToBot(name="addressed_to_bot")
PAPER_COMMAND = filters.Regex(_PAPER_COMMAND)


def _strip_mentions(message: Message) -> str:
    """The message text without mentions of this bot."""
    text = message.text or ""
    username = message.get_bot().username or ""
    if username:
        text = re.sub(rf"@{re.escape(username)}\b", " ", text, flags=re.IGNORECASE)
    return text.strip()


# ---------------------------------------------------------------- commands


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Send what the bot knows and how to ask, on /start."""
    await _reply(update, render.start_doc(len(_index(context))))


async def help_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """List every command, on /help."""
    await _reply(update, render.help_doc())


async def search(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Answer `/search <question>` (also `/search@bot` in groups)."""
    question = await _argument_or_usage(update, "search")
    if question is not None:
        await _answer_question(update, context, question)


async def private_text(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Treat any plain text in a private chat as a question (edits are answered anew)."""
    message = update.effective_message
    if message is None:
        return
    await _answer_question(update, context, message.text or "")


async def group_text(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Answer a group message that mentions the bot or replies to it."""
    message = update.effective_message
    if message is None:
        return
    await _answer_question(update, context, _strip_mentions(message))


async def not_text(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Nudge a private sender of stickers, photos and the like towards a text question."""
    await _reply(update, render.hint_doc("not_text"))


async def paper(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Show one paper, on `/paper <id>`."""
    paper_id = await _argument_or_usage(update, "paper")
    if paper_id is not None:
        await _show_paper(update, context, paper_id)


async def paper_shortcut(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Show one paper, on the tappable `/paper_<id>`."""
    message = update.effective_message
    match = _PAPER_COMMAND.match(message.text or "") if message else None
    if match is None:
        return
    addressee = match.group(2)
    if addressee and addressee.lower() != (context.bot.username or "").lower():
        return  # another bot's command
    await _show_paper(update, context, match.group(1))


async def _show_paper(update: Update, context: ContextTypes.DEFAULT_TYPE, paper_id: str) -> None:
    found = _index(context).get(paper_id)
    await _reply(update, render.paper_doc(found) if found else render.not_found_doc(paper_id))


async def similar(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """List papers like one paper, on `/similar <id>`."""
    paper_id = await _argument_or_usage(update, "similar")
    if paper_id is None:
        return
    found = _index(context).get(paper_id)
    if found is None:
        await _reply(update, render.not_found_doc(paper_id))
        return
    await _reply(update, await _similar_doc(context, found))


async def _similar_doc(context: ContextTypes.DEFAULT_TYPE, found: Paper) -> Doc:
    index = _index(context)
    hits = await _off_loop(context, index.similar, found.id, limit=_per_page(context))
    return render.similar_doc(found, hits)


async def random_paper(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Show a random paper, on /random."""
    papers = _index(context).papers
    if not papers:
        await _reply(update, render.hint_doc("no_match"))
        return
    await _reply(update, render.paper_doc(random.choice(papers)))


async def stats(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Show index sizes, on /stats."""
    await _reply(update, render.stats_doc(_index(context).stats()))


async def unknown_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Point a private sender of an unknown command to /help."""
    await _reply(update, render.unknown_command_doc())


# ---------------------------------------------------------------- buttons


async def button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Handle result, paging and similar buttons; anything stale gets a short notice."""
    query = update.callback_query
    if query is None:
        return
    action = render.parse_callback(query.data)
    message = query.message if query.message is not None and query.message.is_accessible else None
    if action is None or message is None:
        await query.answer(render.EXPIRED_BUTTON)
        return

    if isinstance(action, render.TurnPage):
        question = action.query if action.query is not None else _recall_query(context, action.key)
        if question is None:
            await query.answer(render.EXPIRED_BUTTON)
            return
        per_page = _per_page(context)
        index = _index(context)
        result = await _off_loop(
            context, index.search, question, limit=per_page, offset=action.offset
        )
        if not result.hits:
            await query.answer(render.EXPIRED_BUTTON)
            return
        await query.answer()
        page = render.to_html(render.results_doc(result, per_page=per_page, page_key=action.key))
        try:
            await query.edit_message_text(
                page[0].text,
                parse_mode=ParseMode.HTML,
                reply_markup=_markup(page[0].keyboard),
                link_preview_options=_NO_PREVIEW,
            )
        except BadRequest as exc:
            # A double tap asks for the page already shown: nothing to do.
            if "not modified" not in exc.message.lower():
                raise
        return

    found = _resolve_paper(context, action.ref)
    if found is None:
        await query.answer(render.EXPIRED_BUTTON)
        return
    await query.answer()
    if isinstance(action, render.ShowSimilar):
        doc = await _similar_doc(context, found)
    else:
        doc = render.paper_doc(found)
    await _send(message, doc, quote=False)


# ---------------------------------------------------------------- inline mode


def _sample(papers: Sequence[Paper], size: int) -> list[Paper]:
    return random.sample(papers, min(size, len(papers)))


async def inline_query(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Answer `@bot question` with up to 20 articles; an empty query gets a sample."""
    query = update.inline_query
    if query is None:
        return
    index = _index(context)
    question = render.clean(query.query)[:MAX_QUESTION_CHARS]
    if question:
        result = await limits.cached_search(
            context,
            index,
            question,
            limit=render.INLINE_RESULTS,
            run=functools.partial(_off_loop, context),
        )
        articles = [render.inline_article(hit.paper, hit) for hit in result.hits]
        cache_time = INLINE_CACHE_SECONDS
    else:
        articles = [render.inline_article(p) for p in _sample(index.papers, render.INLINE_RESULTS)]
        cache_time = INLINE_SAMPLE_CACHE_SECONDS
    unique = list({article.id: article for article in articles}.values())
    results = [
        InlineQueryResultArticle(
            id=article.id,
            title=article.title,
            description=article.description,
            input_message_content=InputTextMessageContent(
                article.message_html,
                parse_mode=ParseMode.HTML,
                link_preview_options=_NO_PREVIEW,
            ),
        )
        for article in unique[: render.INLINE_RESULTS]
    ]
    hint = None
    if question and not results:
        hint = InlineQueryResultsButton(
            text="No papers matched — how to ask", start_parameter="help"
        )
    await query.answer(results, cache_time=cache_time, is_personal=False, button=hint)


# ---------------------------------------------------------------- errors


async def error_handler(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log the error with its update id, then tell the user (if there is one)."""
    update_id = update.update_id if isinstance(update, Update) else None
    # Log the error before we do anything else, so we can see it even if something breaks.
    logger.error("Error while handling update %s", update_id, exc_info=context.error)
    if not isinstance(update, Update):
        return  # polling/network errors arrive with update=None
    try:
        if update.callback_query is not None:
            await update.callback_query.answer(render.SOMETHING_WENT_WRONG)
        elif update.effective_message is not None and update.effective_chat is not None:
            await update.effective_message.reply_text(render.SOMETHING_WENT_WRONG)
    except TelegramError as exc:
        logger.warning("Could not tell the user about the error in update %s: %s", update_id, exc)
