"""A title the bot derived from an abstract says so wherever it could be mistaken
for the authors' title: the /paper card, the saved snapshot, and every export format."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import bibtexparser

from bot import render
from bot.corpus import load_corpus
from bot.i18n import translator
from bot.store import snapshot
from bot.store.export import DERIVED_NOTE, to_bibtex, to_csv, to_markdown
from bot.store.factory import open_store
from testkit.fake_bot_api import parse_html

ABSTRACT = "We introduce STA, a sponge tool attack that drains the energy of tool-using agents."


def _papers(tmp_path: Path):
    path = tmp_path / "p.jsonl"
    path.write_text(
        f'{{"id": "a", "abstract": "{ABSTRACT}"}}\n'
        '{"id": "b", "title": "Written By Its Authors", "abstract": "Another text."}\n'
    )
    derived, written = load_corpus([path]).papers
    return derived, written


def test_a_derived_title_is_marked_and_a_written_one_is_not(tmp_path: Path) -> None:
    derived, written = _papers(tmp_path)
    assert derived.title and derived.title_derived
    assert not written.title_derived


def test_the_paper_card_says_the_title_was_derived(tmp_path: Path) -> None:
    derived, written = _papers(tmp_path)
    for lang in ("en", "zh_Hans", "zh_Hant"):
        t = translator(lang)
        [card] = render.to_html(render.paper_doc(derived, t=t))
        assert t.gettext("paper.title_derived") in parse_html(card.text)
        [plain] = render.to_html(render.paper_doc(written, t=t))
        assert t.gettext("paper.title_derived") not in parse_html(plain.text)
    [card] = render.to_html(render.paper_doc(derived))
    assert "title derived from the abstract" in parse_html(card.text)


def test_every_export_marks_a_derived_title(tmp_path: Path) -> None:
    derived, written = _papers(tmp_path)
    saved = [snapshot(derived), snapshot(written)]
    assert saved[0].title_derived and not saved[1].title_derived
    entries = bibtexparser.parse_string(to_bibtex(saved)).entries
    assert entries[0].fields_dict["note"].value == DERIVED_NOTE
    assert "note" not in entries[1].fields_dict
    markdown = to_markdown(saved).splitlines()
    assert markdown[2].endswith(f"_({DERIVED_NOTE})_") and DERIVED_NOTE not in markdown[3]
    rows = list(csv.DictReader(io.StringIO(to_csv(saved))))
    assert [row["title_derived"] for row in rows] == ["true", ""]


async def test_the_mark_survives_the_store(tmp_path: Path) -> None:
    derived, written = _papers(tmp_path)
    store = await open_store(None, tmp_path / "data")
    try:
        await store.save(7, snapshot(derived))
        await store.save(7, snapshot(written))
        rows = {row.paper_id: row.title_derived for row in await store.export_rows(7)}
    finally:
        await store.close()
    assert rows == {derived.id: True, written.id: False}
