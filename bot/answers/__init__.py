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
- `week`: the conference week: /schedule, /now, /remind (store reads async, planning
  synchronous); the calendar file is an export (`reading_list`).
- `about`: /start, /help and /stats.
- `readiness`: the notice of how long until semantic answers are ready.
- `sessions`: `/session`, a session of the conference programme, paged.
- `corpus_facts`: what answers know of the served corpus as a whole (its programme, name and
  frequent topics), worked out once per index; front ends keep it.
"""

from bot.answers.about import help_text, start, stats
from bot.answers.corpus_facts import (
    CorpusFacts,
    FactsMemo,
    corpus_facts,
    name_of,
    programme_of,
    serving,
)
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
from bot.answers.sessions import session, session_page, session_turn
from bot.answers.week import (
    Week,
    now_page,
    remind,
    remind_minutes,
    saved_papers,
    schedule_page,
    topic_score,
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
    "name_of",
    "now_page",
    "numbered",
    "open_paper",
    "page",
    "pending_notice",
    "programme_of",
    "random_paper",
    "recommended",
    "remind",
    "remind_minutes",
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
    "session_page",
    "session_turn",
    "shared_paper",
    "similar",
    "start",
    "stats",
    "taste",
    "topic_score",
    "unfollow",
    "week_of",
]
