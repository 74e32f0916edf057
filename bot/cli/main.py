"""`python -m bot [run|console|search|prepare|export|fetch]`: reads the arguments, runs the
command (its work is its own module's; only `run` imports telegram) and turns errors into
exit codes."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from bot.cli import fetch as fetch_cli
from bot.cli.search import UsageError, search_command
from bot.config import DEFAULT_RESULTS_PER_PAGE, ConfigError, load_settings
from bot.corpus import CorpusError
from bot.i18n import LANGUAGES, Lang, language_named, translator
from bot.logs import redact
from bot.store import FORMATS

EXIT_USAGE = 2  # argparse's own code for bad arguments; we use it for every input error

_EN = translator("en")  # the CLI speaks English
_CORPUS_HELP = "corpus file or directory (repeatable; default: $CORPUS or the repo's corpus/)"


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
        description=_EN.gettext("cli.description"),
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
    search = _search_parser(commands)  # in the order `--help` lists them
    prepare = commands.add_parser(
        "prepare", help="build the index cache and the papers' vectors ahead of time"
    )
    prepare.add_argument("--corpus", action="append", metavar="PATH", help=_CORPUS_HELP)
    prepare.add_argument("--strict", action="store_true", help=_EN.gettext("cli.strict_help"))
    export = _export_parser(commands)
    fetch = fetch_cli.add_parser(commands)  # `fetch`: its parser and run live in bot/fetch/
    return parser, {
        "run": run,
        "console": console,
        "search": search,
        "prepare": prepare,
        "export": export,
        "fetch": fetch,
    }


def _search_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
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
    search.add_argument(  # a slice of a large snapshot
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
    return search


def _export_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    export = commands.add_parser("export", help="write a user's reading list (for operators)")
    export.add_argument(
        "--user", type=_positive_int, required=True, metavar="ID", help="the Telegram user id"
    )
    export.add_argument("--format", choices=FORMATS, default="bib", help="file format (bib)")
    export.add_argument("--output", metavar="FILE", help="write here instead of stdout")
    return export


def _export_command(args: argparse.Namespace) -> int:
    """Write user `args.user`'s reading list in `args.format`; exit 2 naming a bad setting."""
    from bot.cli.console import LazyStore
    from bot.store import StoreError, export_text, open_store

    settings = load_settings()
    store = LazyStore(lambda: open_store(settings.database_url, settings.data_dir))
    try:
        saved = store(lambda opened: opened.export_rows(args.user))
    except StoreError as exc:
        print(f"python -m bot export: {redact(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        store.close()
    text = export_text(saved, args.format)
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
        from bot.tg.serve import run  # lazy: only the bot needs telegram

        return run(webhook=getattr(args, "webhook", False)) or 0
    if args.command == "console":
        from bot.cli.console import run_console  # lazy, like `run`

        # None lets the console apply the bot's settings (CORPUS from the environment or .env).
        return run_console(args.corpus or None, lang=args.lang) or 0
    if args.command == "fetch":
        return fetch_cli.run(args)
    name = f"python -m bot {args.command}"
    try:
        if args.command == "export":
            return _export_command(args)
        if args.command == "prepare":
            from bot.cli.prepare import prepare_command  # lazy, like `run`

            return prepare_command(args.corpus, strict=args.strict)
        return search_command(args)
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
