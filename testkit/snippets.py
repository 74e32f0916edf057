"""What the snippet tests share: the dev set's questions, the slow path, fuzzed abstract text."""

from __future__ import annotations

import json

from hypothesis import strategies as st

from bot.search.analysis import EnglishAnalyzer
from testkit.devset import DEVSET


def questions() -> list[str]:
    """The dev set's questions, in file order."""
    return [json.loads(line)["question"] for line in DEVSET.read_text("utf-8").splitlines()]


class SentenceBySentence:
    """The English analyzer without its optional `chunk_terms`: snippets take the slow path."""

    def __init__(self, analyzer: EnglishAnalyzer) -> None:
        self.language, self.version = analyzer.language, analyzer.version
        self.analyze, self.analyze_spans = analyzer.analyze, analyzer.analyze_spans


ENGLISH = EnglishAnalyzer()
WORDS = st.sampled_from(
    ["Graph", "graphs,", "networks.", "(GNNs)", "state-of-the-art", "e.g.", "al.", "J.", "?",
     '."', "models.)", "—", "naïve", "ﬁne-tuning", "http://x.org/graph", "\\emph{graph}", "LLMs",
     "Attention!", "data", "x", "\u00a0", "\n", "  "]
)  # fmt: skip
SNIPPET_TEXT = st.lists(st.one_of(WORDS, st.text(max_size=12)), max_size=60).map(" ".join)
