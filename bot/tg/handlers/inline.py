"""Inline mode: `@bot question` in any chat answers with paper articles."""

from __future__ import annotations

import random
from collections.abc import Sequence

from telegram import (
    InlineQueryResultArticle,
    InlineQueryResultsButton,
    InputTextMessageContent,
    Update,
)
from telegram.constants import ParseMode

from bot import answers, render
from bot.corpus import Paper
from bot.render import InlineArticle
from bot.search import Retriever, SearchResult
from bot.textutil import clean
from bot.tg.preferences import user_translator
from bot.tg.replies import NO_PREVIEW, index_of, off_loop
from bot.tg.state import Context, Verdict, normalise_query

INLINE_CACHE_SECONDS = 300  # Telegram caches an inline answer this long
INLINE_SAMPLE_CACHE_SECONDS = 30  # the empty-query sample changes more often


def _sample(papers: Sequence[Paper], size: int) -> list[Paper]:
    return random.sample(papers, min(size, len(papers)))


async def cached_search(
    context: Context, index: Retriever, question: str, *, limit: int, user_id: int
) -> SearchResult | None:
    """`answers.results` from the inline cache, else searched at the cost of one question."""
    cache = context.bot_data.inline_results(index)
    key = (normalise_query(question), limit)
    result = cache.results.get(key)
    if result is not None:
        return result
    if context.bot_data.limiter().check(user_id) is not Verdict.ALLOW:
        return None
    result = await off_loop(context, answers.results, index, key[0], limit=limit)
    cache.results.put(key, result)
    return result


def _results(articles: Sequence[InlineArticle]) -> list[InlineQueryResultArticle]:
    """`articles` as Telegram's results: each paper once, at most `INLINE_RESULTS`."""
    unique = list({article.id: article for article in articles}.values())
    return [
        InlineQueryResultArticle(
            id=article.id,
            title=article.title,
            description=article.description,
            input_message_content=InputTextMessageContent(
                article.message_html,
                parse_mode=ParseMode.HTML,
                link_preview_options=NO_PREVIEW,
            ),
        )
        for article in unique[: render.INLINE_RESULTS]
    ]


async def inline_query(update: Update, context: Context) -> None:
    """Answer `@bot question` with up to 20 articles; an empty query gets a sample."""
    query = update.inline_query
    if query is None:
        return
    t = await user_translator(update, context)
    index, name = index_of(context), context.bot.username
    question = clean(query.query)  # not cut here: the query pipeline does that
    shared = answers.shared_paper(index, question) if question else None
    if shared is not None:  # a Share button's query: that paper, first
        articles = [render.inline_article(shared, t=t, bot_username=name)]
        cache_time = INLINE_CACHE_SECONDS
    elif question:
        result = await cached_search(
            context, index, question, limit=render.INLINE_RESULTS, user_id=query.from_user.id
        )
        if result is None:  # over the budget: nothing now, and nothing Telegram keeps
            await query.answer([], cache_time=0, is_personal=True)
            return
        articles = [
            render.inline_article(hit.paper, hit, t=t, bot_username=name) for hit in result.hits
        ]
        cache_time = INLINE_CACHE_SECONDS
    else:
        sample = _sample(index.papers, render.INLINE_RESULTS)
        articles = [render.inline_article(paper, t=t, bot_username=name) for paper in sample]
        cache_time = INLINE_SAMPLE_CACHE_SECONDS
    results = _results(articles)
    hint = None
    if question and not results:
        hint = InlineQueryResultsButton(
            text=t.gettext("button.inline_no_match"), start_parameter="help"
        )
    # Personal: Telegram would otherwise serve this answer, in this user's language, to
    # anyone typing the same query (our InlineCache keeps the search itself shared).
    await query.answer(results, cache_time=cache_time, is_personal=True, button=hint)
