"""Command line: `python -m bot [run|console|search]`; `search` never imports telegram."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from bot.config import DEFAULT_CORPUS, ConfigError, load_settings
from bot.corpus import CorpusError, LoadReport

if TYPE_CHECKING:
    from bot.search import Hit, SearchResult

__all__ = ["DEFAULT_CORPUS", "corpus_paths", "main", "result_json"]

EXIT_USAGE = 2  # argparse's own code for bad arguments; we use it for every input error
SCORE_DIGITS = 4  # JSON scores are rounded: more digits are noise for a reader

_BOLD, _RESET = "\x1b[1m", "\x1b[0m"
_PLAIN_MARKS = ("«", "»")
_CORPUS_HELP = "corpus file or directory (repeatable; default: $CORPUS or the repo's corpus/)"


class UsageError(Exception):
    """Bad input from the user: reported on stderr with exit code 2."""


def corpus_paths(given: Sequence[str] | None) -> list[Path]:
    """`--corpus` paths, else `$CORPUS` (joined by os.pathsep), else the repo's `corpus/`."""
    if given:
        return [Path(path) for path in given]
    env = os.environ.get("CORPUS", "").strip()
    if env:
        return [Path(path) for path in env.split(os.pathsep) if path]
    return [DEFAULT_CORPUS]


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="Find ICML 2026 papers with BM25. Without a command, runs the Telegram bot.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = commands.add_parser("run", help="run the Telegram bot (the default)")
    run.add_argument("--webhook", action="store_true", help="use a webhook instead of polling")

    console = commands.add_parser("console", help="chat with the bot's handlers in the terminal")
    console.add_argument("--corpus", action="append", metavar="PATH", help=_CORPUS_HELP)

    search = commands.add_parser("search", help="ask the search engine from the terminal")
    search.add_argument("query", nargs="*", metavar="QUERY", help="words to search for")
    search.add_argument("--corpus", action="append", metavar="PATH", help=_CORPUS_HELP)
    search.add_argument(
        "--limit", type=_positive_int, default=5, metavar="N", help="results per query (5)"
    )
    search.add_argument("--json", action="store_true", help="print one JSON object per query")
    search.add_argument(
        "--queries", metavar="FILE", help="run one query per line of FILE ('-' for stdin)"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse `argv` and run the chosen command; returns the process exit code."""
    args = _parser().parse_args(argv)
    if args.command in (None, "run"):
        webhook = getattr(args, "webhook", False)
        if not webhook and not _webhook_configured():
            _without_webhook_server()
        from bot.app import run  # lazy: only the bot needs telegram

        return run(webhook=webhook) or 0
    if args.command == "console":
        from bot.console import run_console  # lazy, like `run`

        # None lets the console apply the bot's settings (CORPUS from the environment or .env).
        return run_console(args.corpus or None) or 0
    try:
        return _search_command(args)
    except UsageError as exc:
        print(f"python -m bot search: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except CorpusError as exc:
        print(f"python -m bot search: corpus error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader (e.g. `| head`) went away; stop quietly like other Unix tools.
        sys.stderr.close()
        return 0


def _webhook_configured() -> bool:
    """True if the settings ask for webhook mode, or cannot be read (`run` reports why)."""
    try:
        return load_settings().webhook_url is not None
    except ConfigError:
        return True


def _without_webhook_server() -> None:
    """Keep PTB from importing tornado, its webhook server, into a process that polls."""
    # PTB imports tornado whenever it is installed (the `webhooks` extra, which webhook mode
    # needs) and marks webhooks unavailable if the import fails. Polling never uses it, and
    # importing it is ~80 ms of a ~1 s start. Only in a fresh process: once PTB is loaded
    # this would save nothing and could break a webhook server someone else starts.
    if "telegram.ext" not in sys.modules:
        sys.modules.setdefault("tornado", None)  # type: ignore[arg-type]


def _search_command(args: argparse.Namespace) -> int:
    queries = _queries(args)
    from bot.search import load_corpus_and_index  # lazy: numpy only once queries are read

    # Large corpora come from the index cache ($INDEX_CACHE_DIR, else .cache/), as in the bot.
    report, index = load_corpus_and_index(corpus_paths(args.corpus))
    _note_skipped(report)
    emphasis = _emphasis(sys.stdout)
    for query in queries:
        result = index.search(query, limit=args.limit)
        if args.json:
            print(json.dumps(result_json(result), ensure_ascii=False))
        else:
            print(_readable(result, emphasis))
    sys.stdout.flush()
    return 0


def _queries(args: argparse.Namespace) -> list[str]:
    """The queries to run: the QUERY words, or the lines of --queries FILE."""
    if args.queries is not None and args.query:
        raise UsageError("give either QUERY or --queries FILE, not both")
    if args.queries is None:
        if not args.query:
            raise UsageError("missing QUERY (or --queries FILE)")
        return [" ".join(args.query)]
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


def _note_skipped(report: LoadReport, shown: int = 5) -> None:
    """Tell stderr what the loader skipped (stdout stays clean for --json)."""
    if not report.skipped:
        return
    print(f"corpus: {report.summary()}", file=sys.stderr)
    for line in report.skipped[:shown]:
        print(f"  {line}", file=sys.stderr)
    if len(report.skipped) > shown:
        print(f"  … and {len(report.skipped) - shown} more", file=sys.stderr)


def result_json(result: SearchResult) -> dict[str, object]:
    """The `--json` contract: query, confident, results[id, title, score, snippet, ...]."""
    return {
        "query": result.query,
        "confident": bool(result.confident),
        "results": [
            {
                "id": hit.paper.id,
                "title": hit.paper.title,
                "score": round(float(hit.score), SCORE_DIGITS),
                "snippet": hit.snippet.text,
                "abstract": hit.paper.abstract,
                "links": list(hit.paper.links),
            }
            for hit in result.hits
        ],
    }


def _emphasis(stream: TextIO) -> tuple[str, str]:
    """ANSI bold on a terminal (unless NO_COLOR), «guillemets» in a pipe or file."""
    isatty = getattr(stream, "isatty", None)
    if isatty is not None and isatty() and not os.environ.get("NO_COLOR"):
        return _BOLD, _RESET
    return _PLAIN_MARKS


def _marked(hit: Hit, emphasis: tuple[str, str]) -> str:
    """The snippet with its matched spans wrapped in `emphasis`."""
    text = hit.snippet.text
    spans: list[list[int]] = []
    for start, end in sorted(hit.snippet.marks):
        if start >= end or end > len(text) or (spans and start < spans[-1][1]):
            continue  # empty, out-of-range or overlapping span: leave that text unmarked
        if spans and not text[spans[-1][1] : start].strip():
            spans[-1][1] = end  # «Arboreal Neural Networks» reads better than three marks
        else:
            spans.append([start, end])
    start_mark, end_mark = emphasis
    pieces, pos = [], 0
    for start, end in spans:
        pieces += [text[pos:start], start_mark, text[start:end], end_mark]
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces)


def _readable(result: SearchResult, emphasis: tuple[str, str]) -> str:
    """Results for a person: title, id, score, highlighted snippet, links."""
    lines = [f"Query: {result.query}"]
    if not result.hits:
        lines.append("  No papers matched.")
        return "\n".join(lines) + "\n"
    if not result.confident:
        lines.append("  Nothing matched well; the closest papers:")
    for rank, hit in enumerate(result.hits, start=result.offset + 1):
        lines.append("")
        lines.append(f"{rank}. {hit.paper.title}")
        lines.append(f"   id {hit.paper.id} · score {hit.score:.2f}")
        lines.append(f"   {_marked(hit, emphasis)}")
        lines.extend(f"   {link}" for link in hit.paper.links)
    return "\n".join(lines) + "\n"
