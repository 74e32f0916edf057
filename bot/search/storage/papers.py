"""A `LoadReport` as cache state, one typed column per `Paper` field, and back (`PaperColumns`)."""

from __future__ import annotations

from dataclasses import astuple, fields
from typing import Any, get_type_hints

import numpy as np

from bot.corpus import LoadReport, Paper, Presentation
from bot.search.storage.cache_file import CacheMiss
from bot.search.storage.columns import (
    Column,
    PaperColumns,
    TextColumn,
    grouped_column,
    int_column,
    pairs_column,
    presentations_column,
    table_column,
)

__all__ = ["PAPER_FIELDS", "engine_state", "report_from_state", "report_state"]

PAPER_FIELDS = tuple((f.name, get_type_hints(Paper)[f.name]) for f in fields(Paper))
"""Each `Paper` field's name and type: a column each, stored as its type says."""

_PAPERS = "papers."  # state keys of the cached papers, apart from the engine's own keys
_PAIRS = tuple[tuple[str, str], ...]  # Paper.links
_PAIR_SEP = "\x1f"  # a control character: clean labels and URLs never contain one
_PRESENTATIONS = tuple[Presentation, ...]  # Paper.presentations: fields joined like pairs


def engine_state(state: dict[str, Any]) -> dict[str, Any]:
    """The engine's part of a cached state (everything but the papers)."""
    return {k: v for k, v in state.items() if not k.startswith(_PAPERS)}


def report_state(report: LoadReport) -> dict[str, Any]:
    """A `LoadReport` as state entries: one column per `Paper` field, typed by the field."""
    state: dict[str, Any] = {
        _PAPERS + "sources": list(report.sources),
        _PAPERS + "skipped": list(report.skipped),
        _PAPERS + "bad_records": int(report.bad_records),
    }
    papers = report.papers
    for name, kind in PAPER_FIELDS:
        column = [getattr(p, name) for p in papers]
        key = _PAPERS + name
        if kind is int:
            state[key] = np.array(column, dtype=np.int64)
        elif kind == int | None:  # a year: 0 stands for "unknown" (no paper is from year 0)
            state[key] = np.array([v or 0 for v in column], dtype=np.int64)
        elif kind is str:
            distinct = list(dict.fromkeys(column))
            if len(distinct) * 2 <= len(column):  # few values, many papers (`source`): a table
                row = {value: i for i, value in enumerate(distinct)}
                state[key] = distinct
                state[key + ":rows"] = np.array([row[v] for v in column], dtype=np.int32)
            else:
                state[key] = column
        elif kind == _PAIRS:  # (label, url) pairs: joined by a separator neither can hold
            state[key] = [_PAIR_SEP.join(pair) for items in column for pair in items]
            state[key + ":counts"] = np.array([len(items) for items in column], dtype=np.int32)
        elif kind == _PRESENTATIONS:  # each presentation's fields, one clean line each
            state[key] = [_PAIR_SEP.join(astuple(p)) for items in column for p in items]
            state[key + ":counts"] = np.array([len(items) for items in column], dtype=np.int32)
        else:  # tuple[str, ...]: flattened, with a count per paper
            state[key] = [item for items in column for item in items]
            state[key + ":counts"] = np.array([len(items) for items in column], dtype=np.int32)
    return state


def report_from_state(state: dict[str, Any]) -> LoadReport:
    """The inverse of `report_state`, papers as lazy `PaperColumns`; `CacheMiss` if broken."""
    try:
        columns = {name: _column(state, _PAPERS + name, kind) for name, kind in PAPER_FIELDS}
        papers = PaperColumns.from_columns(columns)
        sources, skipped = state[_PAPERS + "sources"], state[_PAPERS + "skipped"]
        sources, skipped = tuple(map(str, sources)), tuple(map(str, skipped))
        bad_records = int(state[_PAPERS + "bad_records"])
    except (KeyError, AttributeError, IndexError, TypeError, ValueError) as error:
        raise CacheMiss(f"papers missing or inconsistent: {error!r}") from error
    # A LoadReport's papers: any Sequence[Paper] reads the same (the cached ones are columns).
    return LoadReport(
        papers=papers,  # type: ignore[arg-type]
        sources=sources,
        skipped=skipped,
        bad_records=bad_records,
    )


def _column(state: dict[str, Any], key: str, kind: object) -> Column | TextColumn:
    """One field's stored column, as `PaperColumns.from_columns` takes it."""
    values = state[key]
    if kind is int or kind == int | None:
        return int_column(values, optional=kind is not int)
    if kind is str:
        rows = state.get(key + ":rows")
        if rows is not None:
            return table_column(values, rows)
        if not isinstance(values, TextColumn):
            raise ValueError(f"{key}: not a text column")
        return values
    if kind == _PAIRS:
        return pairs_column(values, state[key + ":counts"], _PAIR_SEP)
    if kind == _PRESENTATIONS:
        return presentations_column(values, state[key + ":counts"], _PAIR_SEP)
    return grouped_column(values, state[key + ":counts"])
