"""Compile the .po catalogues into the .mo files the bot loads (a development tool: needs babel),
and write `bot/i18n/KEYS.md` (`testkit.i18n_keys`).

    uv run python -m testkit.i18n_build            # rewrite every stale bot.mo, and KEYS.md
    uv run python -m testkit.i18n_build --check    # exit 1 if a bot.mo or KEYS.md is stale

Both first check every catalogue against the English one (`problems`) and refuse to
compile a catalogue with a missing key, a changed placeholder or unbalanced markup.

The bot reads the committed .mo files with the standard library's `gettext`, so babel is a
dev dependency only, this tool lives outside `bot/`, and start-up parses no .po text.
"""

from __future__ import annotations

import argparse
import io
import string
import sys
from collections.abc import Sequence

from babel.messages.catalog import Catalog, Message
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from bot.i18n.catalogue import DOMAIN, TAG, catalogue_path, split_markup
from bot.i18n.languages import DEFAULT_LANGUAGE, LANGUAGES, Lang
from testkit.i18n_keys import KEYS_MD, keys_md


def placeholders(template: str) -> set[str]:
    """The names of the `{placeholders}` in `template`."""
    parsed = string.Formatter().parse(template)
    return {field for _text, field, _spec, _conv in parsed if field is not None}


def read_catalogue(lang: Lang) -> Catalog:
    """`lang`'s .po file as a babel Catalog (header, plural forms, entries)."""
    with catalogue_path(lang, ".po").open("rb") as po:
        return read_po(po, locale=lang, domain=DOMAIN)


def key_of(message: Message) -> str:
    """A catalogue entry's key (a plural entry's id is the pair of its ids)."""
    return message.id if isinstance(message.id, str) else message.id[0]


def catalogue_keys() -> list[str]:
    """The English catalogue's keys, in its order (what every language must have)."""
    return [key_of(m) for m in read_catalogue("en") if m.id]


def compile_catalogue(lang: Lang) -> bytes:
    """`lang`'s .po compiled to .mo bytes (fuzzy entries left out, as gettext tools do)."""
    mo = io.BytesIO()
    write_mo(mo, read_catalogue(lang), use_fuzzy=False)
    return mo.getvalue()


def _forms(message: Message) -> tuple[str, ...]:
    return tuple(message.string) if message.pluralizable else (message.string,)


def _shape(forms: tuple[str, ...]) -> tuple[set[str], set[tuple[str, ...]]]:
    """Placeholders over all plural forms, and each form's markup tags (sorted)."""
    names = set().union(*(placeholders(form) for form in forms))
    tags = {tuple(sorted(tag.group() for tag in TAG.finditer(form))) for form in forms}
    return names, tags


def problems(catalogue: Catalog, reference: Catalog) -> list[str]:
    """What is wrong with `catalogue` measured against `reference` (English); [] if nothing.

    Every key of the reference is present and no other; no entry is empty or fuzzy; plural
    entries stay plural with the language's number of forms; the markup is balanced; the
    placeholders and tags are the same as the reference's.
    """
    found: list[str] = []
    keys = {key_of(message) for message in catalogue}
    ref_keys = {key_of(m) for m in reference}
    found += [f"missing key {key!r}" for key in sorted(ref_keys - keys)]
    found += [f"unknown key {key!r}" for key in sorted(keys - ref_keys) if key]
    for message in catalogue:
        if not message.id:
            continue  # the header
        key = key_of(message)
        forms = _forms(message)
        if not all(form.strip() for form in forms):
            found.append(f"{key}: empty entry")
        if message.fuzzy:
            found.append(f"{key}: marked fuzzy (gettext would not use it)")
        if message.pluralizable and len(forms) != catalogue.num_plurals:
            found.append(
                f"{key}: {len(forms)} plural forms, the language has {catalogue.num_plurals}"
            )
        try:
            for form in forms:
                split_markup(form)
        except ValueError as exc:
            found.append(f"{key}: {exc}")
        ref = reference.get(message.id)
        if ref is None or not message.id:
            continue
        if ref.pluralizable != message.pluralizable:
            found.append(f"{key}: plural in one language, not in the other")
        if _shape(forms) != _shape(_forms(ref)):
            found.append(f"{key}: placeholders or tags differ from {reference.locale_identifier}")
    return found


def all_problems() -> list[str]:
    """`problems` of every catalogue against the English one, each prefixed by its language."""
    reference = read_catalogue(DEFAULT_LANGUAGE)
    return [
        f"{lang}: {problem}"
        for lang in LANGUAGES
        for problem in problems(read_catalogue(lang), reference)
    ]


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
    parser = argparse.ArgumentParser(prog="python -m testkit.i18n_build", description=__doc__)
    parser.add_argument("--check", action="store_true", help="only report stale .mo files")
    args = parser.parse_args(argv)
    found = all_problems()
    for problem in found:
        print(problem, file=sys.stderr)
    if found:
        return 1
    stale = {catalogue_path(lang): compile_catalogue(lang) for lang in stale_catalogues()}
    keys = keys_md(catalogue_keys()).encode()
    if not KEYS_MD.exists() or KEYS_MD.read_bytes() != keys:
        stale[KEYS_MD] = keys
    if args.check:
        for path in stale:
            print(f"{path} is out of date: run python -m testkit.i18n_build")
        return 1 if stale else 0
    for path, content in stale.items():
        path.write_bytes(content)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
