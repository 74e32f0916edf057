"""Each corpus module's `__all__` names exactly its public functions and classes."""

from __future__ import annotations

import importlib
import inspect

import pytest

MODULES = ["authors", "readers.bibtex", "readers.csv_table", "ids", "links", "records", "titles",
           "headline", "filter", "merge", "loader", "readers.arxiv_atom", "readers.base",
           "readers.compressed", "readers.json_records", "readers.openalex", "readers.ris",
           "readers.seed_text", "readers.semantic_scholar", "readers.shapes", "readers.zotero",
           "readers.virtual_site", "readers.feed_events", "readers.openreview",
           "readers.html_text", "sessions"]  # fmt: skip


@pytest.mark.parametrize("name", MODULES)
def test_all_lists_the_public_api(name: str) -> None:
    module = importlib.import_module(f"bot.corpus.{name}")
    public = {
        attr
        for attr, value in vars(module).items()
        if not attr.startswith("_")
        and (inspect.isfunction(value) or inspect.isclass(value))
        and value.__module__ == module.__name__
    }
    assert public <= set(module.__all__)
    assert all(hasattr(module, attr) for attr in module.__all__)
