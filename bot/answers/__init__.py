"""The use cases every front end shares: a request in, `Doc`s out. Telegram's handlers, its
inline mode and the console are adapters over these, so a behaviour is written once.

Index work (`questions`, the ranking in `recommend`, the planning in `week`) is synchronous:
Telegram runs it on its search thread, the console directly. Store work (`reading_list`,
the reads in `recommend` and `week`) is async over a `Store`.
"""

from bot.answers.about import help_text, start, stats
from bot.answers.corpus_facts import CorpusFacts, FactsMemo, corpus_facts, serving
from bot.answers.questions import (
    Answer,
    Numbered,
    ask,
    author,
    open_paper,
    page,
    random_paper,
    results,
    shared_paper,
    similar,
)
from bot.answers.readiness import pending_notice
from bot.answers.reading_list import (
    ExportFile,
    Toggled,
    export_file,
    export_format,
    follow,
    following,
    forget,
    remove,
    save,
    saved_id,
    saved_matches,
    saved_page,
    unfollow,
)
from bot.answers.recommend import Taste, dismiss, recommended, taste
from bot.answers.sessions import session, session_turn
from bot.answers.week import (
    Week,
    now_page,
    remind,
    saved_papers,
    schedule_page,
    timezone,
    timezone_answer,
    week_of,
)

__all__ = [
    "Answer",
    "CorpusFacts",
    "ExportFile",
    "FactsMemo",
    "Numbered",
    "Taste",
    "Toggled",
    "Week",
    "ask",
    "author",
    "corpus_facts",
    "dismiss",
    "export_file",
    "export_format",
    "follow",
    "following",
    "forget",
    "help_text",
    "now_page",
    "open_paper",
    "page",
    "pending_notice",
    "random_paper",
    "recommended",
    "remind",
    "remove",
    "results",
    "save",
    "saved_id",
    "saved_matches",
    "saved_page",
    "saved_papers",
    "schedule_page",
    "serving",
    "session",
    "session_turn",
    "shared_paper",
    "similar",
    "start",
    "stats",
    "taste",
    "timezone",
    "timezone_answer",
    "unfollow",
    "week_of",
]
