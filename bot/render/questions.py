"""Answers to a question: a page of results, similar papers, a person's papers, no-result hints."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from functools import partial
from typing import Literal

from bot.corpus import TIERS, Paper, session_number
from bot.i18n import Translator
from bot.render import limits
from bot.render.blocks import EN, checked_keyboard, examples_block, paging, text_doc, translated
from bot.render.callbacks import page_data, query_fits_callback
from bot.render.doc import Block, Doc, Segment
from bot.render.paper import (
    code_link,
    link_label,
    link_span,
    numbered_paper,
    paper_title,
    snippet_spans,
    venue_line,
)
from bot.render.presentations import day_month, hit_badge, kind_label, short_date, weekday_name
from bot.search import (
    Clause,
    DayFilter,
    FieldFilter,
    Hit,
    ParsedQuery,
    Phrase,
    SearchResult,
    YearFilter,
)
from bot.textutil import clean, clip_words, is_latin_letter

AUTHOR_PAPERS = 10  # a person's papers listed by /author
MAX_VALUE_CHARS = 40  # a typed value in the header (a pasted sentence as a phrase)
FILTER_SEPARATOR = " · "  # between conditions, in every language


def _year_label(clause: YearFilter, t: Translator) -> str:
    """`year 2018`, `year 2015–2017`, `year 2015 or later`, `year 2017 or earlier`."""
    low, high = clause.low, clause.high
    if low is not None and high is not None:
        if low == high:
            return t.gettext("filters.year", year=low)
        return t.gettext("filters.years", low=low, high=high)
    if low is not None:
        return t.gettext("filters.year_from", low=low)
    return t.gettext("filters.year_until", high=high)


def _day_label(clause: DayFilter, t: Translator) -> str:
    """`day today`, `day Wed`, `day Wed 15 Jul`, `day 15 Jul` (a date of any year)."""
    if clause.from_today is not None:
        day = t.gettext("date.today" if clause.from_today == 0 else "date.tomorrow")
    elif clause.weekday is not None:
        day = weekday_name(clause.weekday, t)
    elif clause.year is not None and clause.month is not None and clause.day is not None:
        day = short_date(date(clause.year, clause.month, clause.day), t)
    else:
        day = day_month(clause.month or 1, clause.day or 1, t)
    return t.gettext("filters.day", day=day)


def _label(clause: Clause, t: Translator, *, negated: bool = False) -> str:
    if isinstance(clause, YearFilter):
        label = _year_label(clause, t)
    elif isinstance(clause, DayFilter):
        label = _day_label(clause, t)
    elif isinstance(clause, Phrase):
        text = clip_words(" ".join(clause.text.split()), MAX_VALUE_CHARS)
        return t.gettext("filters.without" if negated else "filters.with", text=text)
    else:
        label = _field_label(clause, t)
    return t.gettext("filters.not", filter=label) if negated else label


def _field_label(clause: FieldFilter, t: Translator) -> str:
    """`author Bengio`, `title with 'x'`, `venue ICML`, `session Poster Session 3` …"""
    value = clip_words(clause.value, MAX_VALUE_CHARS)
    if clause.field == "title":
        return t.gettext("filters.title", text=value)
    number = session_number(clause.value) if clause.field == "session" else None
    if number is not None:
        return t.gettext("filters.poster_session", number=number)
    if clause.field == "status" and clause.value.casefold() in TIERS:
        value = kind_label(clause.value.casefold(), t)  # "状态 口头报告", not "状态 oral"
    return t.gettext(f"filters.{clause.field}", name=value)


def _either(clauses: tuple[Clause, ...], t: Translator) -> str:
    """An OR group: `with 'gan' or with 'vae'`."""
    labels = [_label(clause, t) for clause in clauses]
    joined = labels[0]
    for label in labels[1:]:
        joined = t.gettext("filters.or", left=joined, right=label)
    return joined


def filter_labels(parsed: ParsedQuery, t: Translator) -> tuple[str, ...]:
    """Each condition of `parsed` in words, in the order: phrases, fields, OR groups, exclusions."""
    return (
        *(_label(clause, t) for clause in parsed.phrases),
        *(_label(clause, t) for clause in parsed.filters),
        *(_either(group, t) for group in parsed.any_of),
        *(_label(clause, t, negated=True) for clause in parsed.excluded),
    )


def filter_summary(parsed: ParsedQuery, t: Translator) -> str | None:
    """`3 filters: author Bengio · …` as plain text; None for a plain query."""
    labels = filter_labels(parsed, t)
    if not labels:
        return None
    return t.ngettext("filters.header", len(labels), filters=FILTER_SEPARATOR.join(labels))


def filters_line(result: SearchResult, t: Translator) -> Block:
    """A new line naming the query-syntax conditions that applied ("2 filters: …"), if any."""
    summary = filter_summary(result.parsed, t) if result.parsed is not None else None
    return (Segment("\n"), Segment(clean(summary), "i")) if summary else ()


def header_notes(result: SearchResult, t: Translator) -> Block:
    """A results header's notes: the corrected query, its conditions, a note while papers embed."""
    notes: Block = ()
    if result.corrected:
        corrected = clip_words(clean(result.corrected), 200)
        notes = (Segment("\n"), *translated(t, "results.corrected", corrected=corrected))
    notes += filters_line(result, t)
    if not result.warming or classify_question(result.query, result.terms) != "non_english":
        return notes
    if result.ready_in is None:
        return (*notes, Segment("\n"), *translated(t, "results.warming"))
    eta = eta_text(result.ready_in, t=t)
    return (*notes, Segment("\n"), *translated(t, "results.warming_eta", eta=eta))


def _result_block(number: int, hit: Hit, t: Translator) -> Block:
    """A numbered result: title and `/paper_<id>` (how a result is opened), snippet, a link."""
    paper = hit.paper
    spans = numbered_paper(number, paper, t)
    snippet = snippet_spans(hit)
    if snippet:
        spans += [Segment("\n"), *snippet]
    link = code_link(paper)
    if link:
        spans += [Segment("\n"), *translated(t, "results.code", link=link_span(link))]
    elif paper.links:  # no code: the paper's own page (PDF, arXiv…) is the next best thing
        label, url = paper.links[0]
        spans += [Segment(f"\n{link_label(label, t=t)}: "), link_span(url)]
    return tuple(spans)


QuestionKind = Literal[
    "empty", "symbols", "non_english", "warming", "common_words", "no_match", "not_text"
]


def classify_question(query: str, terms: Sequence[str] = ()) -> QuestionKind:
    """Why a question found nothing: empty, emoji/symbols only, not English, only stopwords."""
    text = clean(query)
    if not text:
        return "empty"
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return "symbols"
    latin = sum(1 for ch in letters if is_latin_letter(ch))
    if latin * 2 < len(letters):
        return "non_english"
    if not terms:
        return "common_words"
    return "no_match"


def eta_text(seconds: float, *, t: Translator = EN) -> str:
    """A rough duration in the reader's language: "40 seconds", "12 minutes", "3 hours"."""
    if seconds < 90:
        return t.ngettext("eta.seconds", max(1, round(seconds)))
    if seconds < 90 * 60:
        return t.ngettext("eta.minutes", round(seconds / 60))
    return t.ngettext("eta.hours", round(seconds / 3600))


def hint_doc(
    kind: QuestionKind, query: str = "", *, t: Translator = EN, ready_in: float | None = None
) -> Doc:
    """A nudge with example questions for a question that found nothing."""
    if kind == "no_match" and query:
        first = translated(t, "hint.no_match_query", query=clip_words(clean(query), 200))
    elif kind == "warming" and ready_in is not None:
        first = translated(t, "hint.warming_eta", eta=eta_text(ready_in, t=t))
    else:
        first = translated(t, "hint." + kind)
    return Doc((first, examples_block(t)))


def results_doc(
    result: SearchResult, *, per_page: int, page_key: str | None = None, t: Translator = EN
) -> Doc:
    """A page of results; page buttons carry `page_key` when the query is too long to carry."""
    if not result.hits and result.parsed is not None:  # conditions no paper meets
        return Doc((translated(t, "filters.no_match") + filters_line(result, t), examples_block(t)))
    if not result.hits:
        kind = classify_question(result.query, result.terms)
        if kind == "non_english" and result.warming:
            kind = "warming"  # the model will read it once the papers are embedded
        return hint_doc(kind, result.query, t=t, ready_in=result.ready_in)
    first = result.offset + 1
    last = result.offset + len(result.hits)
    if result.confident:
        query = clip_words(clean(result.query), 200)
        header = translated(
            t, "results.header", query=query, first=first, last=last, total=result.total
        )
    else:  # the closest papers, said as such; no "ask in English": the hybrid reads others
        header = translated(t, "results.weak")
    blocks: list[Block] = [header + header_notes(result, t)]
    blocks += [_result_block(first + i, hit, t) for i, hit in enumerate(result.hits)]
    fits = page_key is not None or query_fits_callback(result.query)
    data = partial(page_data, query=result.query, key=page_key) if fits else None
    line, nav = paging(
        t, offset=result.offset, last=last, total=result.total, per_page=per_page, data=data
    )
    return Doc((*blocks, *line), checked_keyboard([nav]), single_message=True)


def similar_doc(paper: Paper, hits: Sequence[Hit], *, t: Translator = EN) -> Doc:
    """Papers like `paper`, numbered like results."""
    header = translated(t, "similar.header", title=paper_title(paper.title, paper.id, t))
    if not hits:
        return Doc((header, translated(t, "similar.none")))
    return Doc((header, *(_result_block(i + 1, hit, t) for i, hit in enumerate(hits))))


def author_doc(name: str, papers: Sequence[Paper], *, t: Translator = EN) -> Doc:
    """A person's papers (`/author`, or a question that is just a name), numbered like results."""
    name = clip_words(clean(name), 80)
    if not papers:
        return text_doc("author.none", t=t, name=name)
    blocks: list[Block] = [translated(t, "author.header", len(papers), name=name)]
    for number, paper in enumerate(papers[:AUTHOR_PAPERS], start=1):
        spans = numbered_paper(number, paper, t)  # its tier in the badge, if it has one
        venue = clip_words(venue_line(paper, t=t, tier=not hit_badge(paper, t)), limits.VENUE_CHARS)
        if venue:
            spans += [Segment("\n"), Segment(venue)]
        blocks.append(tuple(spans))
    if len(papers) > AUTHOR_PAPERS:
        more = t.gettext("author.more", count=len(papers) - AUTHOR_PAPERS)
        blocks.append((Segment(more, "i"),))
    return Doc(tuple(blocks))
