"""Rendering: answers as `Doc`s (blocks of styled `Segment`s and a keyboard), then Telegram
HTML (`to_html`, split within the Bot API's limits) or console text (`to_console`). Nothing
here imports `telegram`; the reading-list views are used as the `library` namespace.
"""

from bot.render.callbacks import (
    CALLBACK_ACTIONS,
    EXPORT_FORMATS,
    ExportAs,
    Forget,
    OpenPaper,
    Recommend,
    SavedPage,
    SchedulePage,
    SessionPage,
    SetLanguage,
    ToggleSave,
    TurnPage,
    Unfollow,
    paper_ref,
    parse_callback,
    query_fits_callback,
    session_ref,
    topic_ref,
)
from bot.render.console import (
    ANSI_MARKS,
    PLAIN_MARKS,
    author_text,
    results_text,
    to_console,
    typed_turns,
)
from bot.render.doc import Doc, InlineArticle, InlineSwitch, Keyboard, Segment
from bot.render.filter_summary import filter_labels
from bot.render.fit import fit_toast, fitted
from bot.render.html import to_html
from bot.render.info import (
    command_description,
    corpus_papers,
    fetched_line,
    help_doc,
    lang_changed_doc,
    lang_codes_doc,
    lang_doc,
    start_doc,
    stats_doc,
    unknown_command_doc,
    usage_doc,
)
from bot.render.limits import INLINE_RESULTS, MAX_CALLBACK_ANSWER_CHARS
from bot.render.paper import inline_article, not_found_doc, paper_doc
from bot.render.parts import said_doc, text_doc, translated
from bot.render.presentations import kind_label
from bot.render.recommend import recommend_doc
from bot.render.sessions import (
    SESSION_PAGE,
    no_programme_doc,
    session_choice_doc,
    session_doc,
    unknown_session_doc,
)
from bot.render.views import author_doc, eta_text, hint_doc, results_doc, similar_doc
from bot.render.week import SCHEDULE_PER_PAGE, now_doc, remind_doc, reminder_doc, schedule_doc

__all__ = [
    "ANSI_MARKS",
    "CALLBACK_ACTIONS",
    "EXPORT_FORMATS",
    "INLINE_RESULTS",
    "MAX_CALLBACK_ANSWER_CHARS",
    "PLAIN_MARKS",
    "SCHEDULE_PER_PAGE",
    "SESSION_PAGE",
    "Doc",
    "ExportAs",
    "Forget",
    "InlineArticle",
    "InlineSwitch",
    "Keyboard",
    "OpenPaper",
    "Recommend",
    "SavedPage",
    "SchedulePage",
    "Segment",
    "SessionPage",
    "SetLanguage",
    "ToggleSave",
    "TurnPage",
    "Unfollow",
    "author_doc",
    "author_text",
    "command_description",
    "corpus_papers",
    "eta_text",
    "fetched_line",
    "filter_labels",
    "fit_toast",
    "fitted",
    "help_doc",
    "hint_doc",
    "inline_article",
    "kind_label",
    "lang_changed_doc",
    "lang_codes_doc",
    "lang_doc",
    "no_programme_doc",
    "not_found_doc",
    "now_doc",
    "paper_doc",
    "paper_ref",
    "parse_callback",
    "query_fits_callback",
    "recommend_doc",
    "remind_doc",
    "reminder_doc",
    "results_doc",
    "results_text",
    "said_doc",
    "schedule_doc",
    "session_choice_doc",
    "session_doc",
    "session_ref",
    "similar_doc",
    "start_doc",
    "stats_doc",
    "text_doc",
    "to_console",
    "to_html",
    "topic_ref",
    "translated",
    "typed_turns",
    "unknown_command_doc",
    "unknown_session_doc",
    "usage_doc",
]
