"""Command line: `python -m bot [run|console|search|prepare|export]`; only `run` imports
telegram."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import orjson

from bot import loading
from bot.config import DEFAULT_CORPUS, DEFAULT_RESULTS_PER_PAGE, ConfigError, load_settings
from bot.corpus import CorpusError, LoadReport, Paper
from bot.i18n import LANGUAGES, Lang, language_named, translator
from bot.logs import redact
from bot.progress import progress_reporter
from bot.store.export import FORMATS

if TYPE_CHECKING:
    from bot.search import Retriever, SearchResult

__all__ = ["DEFAULT_CORPUS", "author_json", "json_line", "main", "result_json"]

EXIT_USAGE = 2  # argparse's own code for bad arguments; we use it for every input error
SCORE_DIGITS = 4  # JSON scores are rounded: more digits are noise for a reader

_PLAIN_MARKS = ("«", "»")
_EN = translator("en")  # the CLI speaks English until the i18n work picks a language
_CORPUS_HELP = "corpus file or directory (repeatable; default: $CORPUS or the repo's corpus/)"


class UsageError(Exception):
    """Bad input from the user: reported on stderr with exit code 2."""


def _language(text: str) -> Lang:
    """`--lang`: a language as Telegram's `language_code` names it (`zh`, `zh-TW`, `zh_Hant`)."""
    lang = language_named(text)
    if lang is None:
        raise argparse.ArgumentTypeError(
            f"unknown language {text!r} (choose from {', '.join(LANGUAGES)}, or zh, zh-TW…)"
        )
    return lang


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


def _parsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The top-level parser and each command's, so a command's bad option gets its usage."""
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="Find ICML 2026 papers with BM25. Without a command, runs the Telegram bot.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = commands.add_parser("run", help="run the Telegram bot (the default)")
    run.add_argument("--webhook", action="store_true", help="use a webhook instead of polling")

    console = commands.add_parser("console", help="chat with the bot's handlers in the terminal")
    console.add_argument("--corpus", action="append", metavar="PATH", help=_CORPUS_HELP)
    console.add_argument(
        "--lang",
        type=_language,
        metavar="CODE",
        help="language of the answers: "
        + ", ".join(LANGUAGES)
        + " or a code like zh, zh-TW, zh_CN (default: from $LANG)",
    )

    search = commands.add_parser("search", help="ask the search engine from the terminal")
    search.add_argument(
        "query",
        nargs="*",
        metavar="QUERY",
        help='one query per argument: quote a query of several words ("graph neural networks")',
    )
    search.add_argument("--corpus", action="append", metavar="PATH", help=_CORPUS_HELP)
    search.add_argument(
        "--limit",
        type=_positive_int,
        default=DEFAULT_RESULTS_PER_PAGE,
        metavar="N",
        help=f"results per query ({DEFAULT_RESULTS_PER_PAGE})",
    )
    search.add_argument("--json", action="store_true", help="print one JSON object per query")
    search.add_argument(
        "--queries", metavar="FILE", help="run one query per line of FILE ('-' for stdin)"
    )
    search.add_argument("--author", metavar="NAME", help=_EN.gettext("cli.author_help"))
    search.add_argument("--strict", action="store_true", help=_EN.gettext("cli.strict_help"))
    search.add_argument(  # issue 19: a slice of a large snapshot
        "--filter",
        metavar="TERMS",
        help="load only matching records, e.g. 'categories:cs.LG year:2025'",
    )
    search.add_argument(
        "--no-semantic",
        action="store_true",
        help="BM25 alone (default: fused with embeddings, as SEMANTIC says)",
    )
    search.add_argument(
        "--wait",
        action="store_true",
        help="embed the papers that lack vectors first, however long (default: answer with "
        "BM25 at once unless they embed in a few seconds)",
    )

    prepare = commands.add_parser(
        "prepare", help="build the index cache and the papers' vectors ahead of time"
    )
    prepare.add_argument("--corpus", action="append", metavar="PATH", help=_CORPUS_HELP)
    prepare.add_argument("--strict", action="store_true", help=_EN.gettext("cli.strict_help"))

    export = commands.add_parser("export", help="write a user's reading list (for operators)")
    export.add_argument("--user", type=_positive_int, required=True, metavar="ID",
                        help="the Telegram user id")  # fmt: skip
    export.add_argument("--format", choices=FORMATS, default="bib", help="file format (bib)")
    export.add_argument("--output", metavar="FILE", help="write here instead of stdout")
    commands_ = {"run": run, "console": console, "search": search, "export": export}
    return parser, {**commands_, "prepare": prepare}


def _export_command(args: argparse.Namespace) -> int:
    """Write user `args.user`'s reading list in `args.format`; exit 2 naming a bad setting."""
    import asyncio

    from bot.store import SavedPaper, StoreError, open_store
    from bot.store.export import export

    settings = load_settings()

    async def rows() -> tuple[SavedPaper, ...]:
        store = await open_store(settings.database_url, settings.data_dir)
        try:
            return await store.export_rows(args.user)
        finally:
            await store.close()

    try:
        saved = asyncio.run(rows())
    except StoreError as exc:
        print(f"python -m bot export: {redact(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    text = export(saved, args.format)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"{len(saved)} papers written to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Parse `argv` and run the chosen command; returns the process exit code."""
    parser, commands = _parsers()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # argparse would print the top-level usage for a command's bad option
        commands.get(args.command, parser).error("unrecognized arguments: " + " ".join(unknown))
    if args.command in (None, "run"):
        from bot.tg.app import run  # lazy: only the bot needs telegram

        webhook = getattr(args, "webhook", False)

        return run(webhook=webhook) or 0
    if args.command == "console":
        from bot.console import run_console  # lazy, like `run`

        # None lets the console apply the bot's settings (CORPUS from the environment or .env).
        return run_console(args.corpus or None, lang=args.lang) or 0
    name = f"python -m bot {args.command}"
    try:
        if args.command == "export":
            return _export_command(args)
        if args.command == "prepare":
            from bot.prepare import prepare_command  # lazy, like `run`

            return prepare_command(args.corpus, strict=args.strict)
        return _search_command(args)
    except UsageError as exc:
        print(f"{name}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ConfigError as exc:
        # A mistyped TELEGRAM_API_BASE_URL is echoed, and may hold a pasted token.
        print(f"{name}: configuration error: {redact(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except CorpusError as exc:
        print(f"{name}: corpus error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader (e.g. `| head`) went away; stop quietly like other Unix tools.
        sys.stderr.close()
        return 0


def _search_command(args: argparse.Namespace) -> int:
    queries = _queries(args)
    # The bot's settings and load path: CORPUS and INDEX_CACHE_DIR from the environment or .env.
    settings = load_settings()
    paths = loading.corpus_paths(settings, args.corpus)
    strict = args.strict or settings.corpus_strict
    corpus_filter = _filter(args.filter) if args.filter is not None else settings.corpus_filter
    report, index = loading.load_index(
        paths, settings.index_cache_dir, strict=strict, corpus_filter=corpus_filter
    )
    from bot.render.console import author_text, results_text  # lazy: after input checks
    from bot.search.gloss import is_chinese

    _note_skipped(report)
    if args.author is not None:  # a lookup by name: no ranking, so no embeddings to wait for
        papers = index.by_author(args.author, limit=args.limit)
        total = len(index.authors.papers(args.author))  # "first N of M", not "N papers"
        if args.json:
            print(json_line(author_json(args.author, papers, total=total)))
        else:
            print(author_text(args.author, papers, total=total))
        sys.stdout.flush()
        return 0
    if args.no_semantic:
        settings = dataclasses.replace(settings, semantic=False)
    # All cores: this process does nothing else while papers embed. The progress bar shows
    # only once we wait for the papers (`--wait`, or a few): else the notice says it all.
    bar, shown = progress_reporter(len(index), label="embedding papers"), threading.Event()
    started = loading.start_semantic(
        index, settings, embed_threads=None, progress=lambda d, n: shown.is_set() and bar(d, n)
    )
    retriever: Retriever = index if started is None else started.retriever
    ready = started is not None and _settle(started, wait=args.wait, waiting=shown.set)
    index.queries.load_speller()  # a one-shot answer corrects typos as the bot's do
    # and glosses Chinese ones, BM25 alone included (the glossary, ~1 s, only for them)
    if any(map(is_chinese, queries)):
        index.queries.load_glossary()
    emphasis = _emphasis(sys.stdout)
    from bot.answers import results

    for query in queries:
        result = results(retriever, query, limit=args.limit)
        if args.json:
            # Fused: the vectors were ready and the question had words to compare.
            fused = ready and bool(result.terms)
            print(json_line(result_json(result, semantic=fused)))
        else:
            print(results_text(result, emphasis))
    sys.stdout.flush()
    return 0


def _settle(started: loading.SemanticStart, *, wait: bool, waiting: Callable[[], object]) -> bool:
    """Whether answers are fused: waits for vectors that are cached or quick to make (or
    `--wait`); else says on stderr what is left and how to prepare it, and stops the job
    (the batch it embeds is lost when we exit first: a few seconds of work at most)."""
    from bot.answers import pending_notice

    readiness = loading.settle(started, wait=wait, waiting=waiting)
    if readiness.ready:
        return True
    started.job.stop()  # BM25 answers now; what was embedded so far stays cached
    print(f"python -m bot search: {pending_notice(readiness, t=_EN)}", file=sys.stderr)
    print(f"python -m bot search: {_EN.gettext('cli.semantic_options')}", file=sys.stderr)
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


def _note_skipped(report: LoadReport, shown: int = 5) -> None:
    """Tell stderr what the loader skipped (stdout stays clean for --json)."""
    if not report.skipped:
        return
    print(f"corpus: {report.summary()}", file=sys.stderr)
    for line in report.skipped[:shown]:
        print(f"  {line}", file=sys.stderr)
    if len(report.skipped) > shown:
        print(f"  … and {len(report.skipped) - shown} more", file=sys.stderr)


def json_line(value: object) -> str:
    """`value` as one line of compact UTF-8 JSON (orjson: ~12x the standard library's encoder
    on a 10-hit answer, whose abstracts make it ~19 kB). Text that is not valid Unicode (a lone
    surrogate from a damaged file) is written escaped, as `json` does, instead of failing."""
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        return json.dumps(value, separators=(",", ":"))


def result_json(result: SearchResult, *, semantic: bool = False) -> dict[str, object]:
    """The `--json` contract: query, confident, semantic, results[id, title, score, snippet…].

    `semantic`: whether the answer was fused with the embeddings (false: BM25 alone).
    `corrected` (the query with its typos fixed, as searched) is there only when a word was
    corrected, and `filters` (the query-syntax conditions, in English words) only when the
    query set some, so a plain answer has exactly the keys it had. `year` and `venue` are
    null when unknown.
    """
    answer: dict[str, object] = {
        "query": result.query,
        "confident": bool(result.confident),
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
        from bot.render.filter_summary import filter_labels

        answer["filters"] = list(filter_labels(result.parsed, _EN))
    return answer


def _derived(paper: Paper) -> dict[str, bool]:
    """`"title_derived"`: true for a title the loader made from the abstract, not the authors'."""
    return {"title_derived": paper.title_derived}


def author_json(name: str, papers: Sequence[Paper], total: int | None = None) -> dict[str, object]:
    """`--author NAME --json`: the name asked, how many papers match (`total`), and each
    shown paper's id, title, authors, links."""
    return {
        "author": name,
        "total": len(papers) if total is None else total,
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


def _emphasis(stream: TextIO) -> tuple[str, str]:
    """ANSI bold on a terminal (unless NO_COLOR), «guillemets» in a pipe or file."""
    from bot.render.console import ANSI_BOLD, ANSI_RESET  # lazy: the index loads first

    isatty = getattr(stream, "isatty", None)
    if isatty is not None and isatty() and not os.environ.get("NO_COLOR"):
        return ANSI_BOLD, ANSI_RESET
    return _PLAIN_MARKS
