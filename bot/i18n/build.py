"""Compile the .po catalogues into the .mo files the bot loads (a development tool: needs babel).

    uv run python -m bot.i18n.build            # rewrite every bot.mo from its bot.po
    uv run python -m bot.i18n.build --check    # exit 1 if a bot.mo is out of date

The bot reads the committed .mo files with the standard library's `gettext`, so babel is
a dev dependency only and start-up does not parse .po text (benchmarks/i18n_load.py).
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Sequence

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from bot.i18n.languages import LANGUAGES, Lang
from bot.i18n.translator import DOMAIN, catalogue_path


def read_catalogue(lang: Lang) -> Catalog:
    """`lang`'s .po file as a babel Catalog (header, plural forms, entries)."""
    with catalogue_path(lang, ".po").open("rb") as po:
        return read_po(po, locale=lang, domain=DOMAIN)


def compile_catalogue(lang: Lang) -> bytes:
    """`lang`'s .po compiled to .mo bytes (fuzzy entries left out, as gettext tools do)."""
    mo = io.BytesIO()
    write_mo(mo, read_catalogue(lang), use_fuzzy=False)
    return mo.getvalue()


def stale_catalogues() -> list[Lang]:
    """Languages whose committed .mo differs from what their .po compiles to."""
    stale: list[Lang] = []
    for lang in LANGUAGES:
        path = catalogue_path(lang)
        if not path.exists() or path.read_bytes() != compile_catalogue(lang):
            stale.append(lang)
    return stale


def main(argv: Sequence[str] | None = None) -> int:
    """Compile (or with --check, verify) every catalogue; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m bot.i18n.build", description=__doc__)
    parser.add_argument("--check", action="store_true", help="only report stale .mo files")
    args = parser.parse_args(argv)
    stale = stale_catalogues()
    if args.check:
        for lang in stale:
            print(f"{catalogue_path(lang)} is out of date: run python -m bot.i18n.build")
        return 1 if stale else 0
    for lang in stale:
        catalogue_path(lang).write_bytes(compile_catalogue(lang))
        print(f"wrote {catalogue_path(lang)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
