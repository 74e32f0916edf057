"""A paper tests add to a corpus: unlike every seed paper, so a reload's new one is easy to find."""

from __future__ import annotations

NEW_PAPER = {
    "id": "quokka1",
    "title": "Quokkaformer: marsupial attention for tabular data",
    "abstract": "We introduce Quokkaformer, a quokkaformer attention layer for tabular data "
    "that hops between rows and columns, and show it beats gradient boosting on forty tables.",
}
"""One JSON record, as a `.jsonl` line or array item."""
