"""The use cases every front end shares: a request in, `Doc`s out.

Telegram's handlers, its inline mode and the console are adapters over these functions, so a
behaviour is written once and reaches every front end:

- `questions`: ask (a person's name or a search, paged), open a paper, similar, author,
  random. Synchronous index work: Telegram runs it on its search thread, the console directly.
- `reading_list`: save and remove, the reading list, export, topics, forget. Async over a
  `Store`: Telegram wraps each call in its outage gate, the console in its runner.
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
    saved_page,
    unfollow,
)

__all__ = [
    "Answer",
    "ExportFile",
    "Numbered",
    "Toggled",
    "ask",
    "author",
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
    "remove",
    "save",
    "saved_id",
    "saved_page",
    "similar",
    "start",
    "stats",
    "unfollow",
]
