"""A paper's venue and year from its proceedings URLs (paperlists records state neither):
ICML's own site (`icml.cc/virtual/2019/…`) or PMLR's ICML volumes (`proceedings.mlr.press/v97/`);
anything else leaves them unknown rather than guessed."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["ICML_PMLR_VOLUMES", "venue_from_urls"]

# PMLR volume → the ICML year it holds (PMLR also publishes other venues).
ICML_PMLR_VOLUMES: dict[int, int] = {
    28: 2013, 32: 2014, 37: 2015, 48: 2016, 70: 2017, 80: 2018, 97: 2019,
    119: 2020, 139: 2021, 162: 2022, 202: 2023, 235: 2024, 267: 2025,
}  # fmt: skip

_ICML_SITE = re.compile(r"^https?://(?:www\.)?icml\.cc/(?:virtual|Conferences)/(20\d\d)/", re.I)
_PMLR = re.compile(r"^https?://proceedings\.mlr\.press/v(\d+)/", re.I)


def venue_from_urls(urls: Iterable[str]) -> tuple[str, int | None]:
    """("ICML 2019", 2019) when a URL names ICML and its year; else ("", None)."""
    for url in urls:
        site = _ICML_SITE.match(url)
        if site is not None:
            year = int(site[1])
            return f"ICML {year}", year
        volume = _PMLR.match(url)
        if volume is not None and int(volume[1]) in ICML_PMLR_VOLUMES:
            year = ICML_PMLR_VOLUMES[int(volume[1])]
            return f"ICML {year}", year
    return "", None
