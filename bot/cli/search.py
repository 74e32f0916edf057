"""`python -m bot search`: questions answered on stdout, as text or JSON, over the bot's corpus
and settings; notices go to stderr, so the JSON stays clean."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from bot import answers, loading
from bot.config import Settings, load_settings
from bot.corpus import Paper
from bot.i18n import translator
from bot.logs import progress_reporter

if TYPE_CHECKING:
    from bot.search import Index, Retriever, SearchResult

SCORE_DIGITS = 4  # JSON scores are rounded: more digits are noise for a reader
_EN = translator("en")  # the CLI speaks English
_NAME = "python -m bot search"


class UsageError(Exception):
    """Bad input from the user: reported on stderr with exit code 2."""


def search_command(args: argparse.Namespace) -> int:
    """Answer `args`' queries (or look up `--author`) over the configured corpus; the exit code."""
    queries = _queries(args)
    settings = load_settings()
    report, index = loading.load_index(
        loading.corpus_paths(settings, args.corpus),
        settings.index_cache_dir,
        strict=args.strict or settings.corpus_strict,
        corpus_filter=settings.corpus_filter if args.filter is None else _filter(args.filter),
        venue_timezone=settings.venue_timezone,
    )
    for line in report.notes():  # what the loader skipped, on stderr: stdout may be JSON
        print(line, file=sys.stderr)
    if args.author is not None:  # a lookup by name: no ranking, so no embeddings to wait for
        _print_author(index, args.author, limit=args.limit, as_json=args.json)
    else:
        if args.no_semantic:
            settings = dataclasses.replace(settings, semantic=False)
        _print_answers(index, queries, settings, args)
    sys.stdout.flush()
    return 0


def _print_author(index: Index, name: str, *, limit: int, as_json: bool) -> None:
    from bot.render import author_text  # lazy: after the input checks and the load

    papers = index.by_author(name, limit=limit)
    total = len(index.authors.papers(name))  # "first N of M", not "N papers"
    if as_json:
        print(json_line(author_json(name, papers, total=total)))
    else:
        print(author_text(name, papers, total=total))


def _print_answers(
    index: Index, queries: Sequence[str], settings: Settings, args: argparse.Namespace
) -> None:
    """Each query's answer, fused with the embeddings when they are ready (or `--wait`)."""
    from bot import render  # lazy: after the input checks and the load
    from bot.cli.console import styled
    from bot.search import is_chinese

    # All cores: this process does nothing else while papers embed. The progress bar shows
    # only once we wait for the papers (`--wait`, or a few): else the notice says it all.
    bar, shown = progress_reporter(len(index), label="embedding papers"), threading.Event()
    started = loading.start_semantic(
        index, settings, embed_threads=None, progress=lambda d, n: shown.is_set() and bar(d, n)
    )
    retriever: Retriever = index if started is None else started.retriever
    ready = started is not None and _settle(started, wait=args.wait, waiting=shown.set)
    index.queries.load_speller()  # a one-shot answer corrects typos as the bot's do
    if any(map(is_chinese, queries)):  # and glosses Chinese ones (the glossary only for them)
        index.queries.load_glossary()
    marks = render.ANSI_MARKS if styled(sys.stdout) else render.PLAIN_MARKS
    for query in queries:
        result = answers.results(retriever, query, limit=args.limit)
        if args.json:
            # Fused: the vectors were ready and the question had words to compare.
            fused = ready and bool(result.terms)
            print(json_line(result_json(result, semantic=fused)))
        else:
            print(render.results_text(result, marks))


def _settle(started: loading.SemanticStart, *, wait: bool, waiting: Callable[[], object]) -> bool:
    """Whether answers are fused: waits for vectors that are cached or quick to make (or for
    all, with `--wait`); else stops the job and says on stderr what is left and what to do."""
    readiness = loading.settle(started, wait=wait, waiting=waiting)
    if readiness.ready:
        return True
    started.job.stop()  # BM25 answers now; what was embedded so far stays cached
    print(f"{_NAME}: {answers.pending_notice(readiness, t=_EN)}", file=sys.stderr)
    print(f"{_NAME}: {_EN.gettext('cli.semantic_options')}", file=sys.stderr)
    return False


def _queries(args: argparse.Namespace) -> list[str]:
    """The queries to run: the QUERY words, or the lines of --queries FILE."""
    if args.author is not None:
        if args.query or args.queries is not None:
            raise UsageError("give either --author NAME or QUERY / --queries FILE, not both")
        if not args.author.strip():
            raise UsageError("--author needs a name")
        return []
    if args.queries is not None and args.query:
        raise UsageError("give either QUERY or --queries FILE, not both")
    if args.queries is None:
        if not args.query:
            raise UsageError("missing QUERY (or --queries FILE)")
        return [query for query in args.query if query.strip()] or [" ".join(args.query)]
    if args.queries == "-":
        lines: Iterable[str] = sys.stdin.read().splitlines()
    else:
        try:
            lines = Path(args.queries).read_text(encoding="utf-8-sig").splitlines()
        except OSError as exc:
            raise UsageError(f"cannot read {args.queries}: {exc.strerror or exc}") from exc
        except UnicodeDecodeError as exc:
            raise UsageError(f"{args.queries}: not valid UTF-8") from exc
    return [line.strip() for line in lines if line.strip()]


def _filter(text: str) -> str:
    """`--filter TERMS`, checked before the load (a typo is a usage error, not a traceback)."""
    from bot.corpus import LoadFilter

    try:
        LoadFilter.parse(text)
    except ValueError as error:
        raise UsageError(f"--filter: {error}") from error
    return text


def json_line(value: object) -> str:
    """`value` as one line of compact JSON: orjson for speed, `json` for the text orjson
    refuses (a lone surrogate), which it writes escaped."""
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        return json.dumps(value, separators=(",", ":"))


def result_json(result: SearchResult, *, semantic: bool = False) -> dict[str, object]:
    """The `--json` contract (`semantic`: fused with the embeddings). `corrected` and
    `filters` (in English words) appear only when the query had some."""
    answer: dict[str, object] = {
        "query": result.query,
        "confident": bool(result.confident),
        # How well the first paper matched, and what `confident` asks of it (null: no answer).
        "margin": None if result.margin is None else round(result.margin, SCORE_DIGITS),
        "cut": None if result.cut is None else round(result.cut, SCORE_DIGITS),
        "semantic": semantic,
        "results": [
            {
                "id": hit.paper.id,
                "title": hit.paper.title,
                "score": round(float(hit.score), SCORE_DIGITS),
                "snippet": hit.snippet.text,
                "abstract": hit.paper.abstract,
                "links": [url for _label, url in hit.paper.links],
                "authors": list(hit.paper.authors),
                "year": hit.paper.year,
                "venue": hit.paper.venue or None,
                **_derived(hit.paper),
            }
            for hit in result.hits
        ],
    }
    if result.corrected:
        answer["corrected"] = result.corrected
    if result.parsed is not None:  # the conditions every result meets, in words
        from bot.render import filter_labels

        answer["filters"] = list(filter_labels(result.parsed, _EN))
    return answer


_PRESENTATION_KEYS = ("kind", "session", "start", "end", "room", "position", "zone")


def _derived(paper: Paper) -> dict[str, object]:
    """The fields both JSON answers add to a paper; `presentations` keep the ISO 8601 times
    of the source, with `zone`, the venue's clock."""
    return {
        "title_derived": paper.title_derived,
        "status": paper.tier or None,
        "presentations": [
            {key: getattr(p, key) for key in _PRESENTATION_KEYS} for p in paper.presentations
        ],
        "institutions": list(paper.institutions),
    }


def author_json(name: str, papers: Sequence[Paper], total: int) -> dict[str, object]:
    """`--author NAME --json`: the name, how many papers match, and each shown paper."""
    return {
        "author": name,
        "total": total,
        "results": [
            {
                "id": paper.id,
                "title": paper.title,
                "authors": list(paper.authors),
                "venue": paper.venue,
                "year": paper.year,
                "links": [url for _label, url in paper.links],
                **_derived(paper),
            }
            for paper in papers
        ],
    }
