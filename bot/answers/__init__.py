"""The use cases every front end shares: a request in, `Doc`s out.

Telegram's handlers, its inline mode and the console are adapters over these functions, so a
behaviour is written once and reaches every front end:

- `questions`: ask (a person's name or a search, paged), the results of a search, open a
  paper, similar, author, random. Synchronous index work: Telegram runs it on its search
  thread, the console directly.
- `reading_list`: save and remove, the reading list, export, topics, forget. Async over a
  `Store`: Telegram wraps each call in its outage gate, the console in its runner.
- `recommend`: papers like the saved ones, "not interested" (store reads async, ranking
  synchronous).
- `about`: /start, /help and /stats.
- `readiness`: the notice of how long until semantic answers are ready.
"""

from bot.answers.about import help_text, start, stats
from bot.answers.questions import (
    Answer,
    Numbered,
    ask,
    author,
    numbered,
    open_paper,
    page,
    random_paper,
    results,
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

__all__ = [
    "Answer",
    "ExportFile",
    "Numbered",
    "Taste",
    "Toggled",
    "ask",
    "author",
    "dismiss",
    "export_file",
    "export_format",
    "follow",
    "following",
    "forget",
    "help_text",
    "numbered",
    "open_paper",
    "page",
    "pending_notice",
    "random_paper",
    "recommended",
    "remove",
    "results",
    "save",
    "saved_id",
    "saved_matches",
    "saved_page",
    "similar",
    "start",
    "stats",
    "taste",
    "unfollow",
]
