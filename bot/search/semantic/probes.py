"""Pseudo-questions cut from a corpus's own papers, and the shipped off-topic questions.

A probe's paper is scored on its text without the cut (`Probe.evidence`): a real summary does
not copy the abstract, so a probe must not match its paper on the very words it copied.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from bot.corpus import Paper
from bot.textutil import sentence_spans

OFF_TOPIC_FILE = Path(__file__).resolve().parents[1] / "data" / "offtopic_probes.txt"
"""Questions outside a corpus's field or near it, one a line (`#` starts a comment)."""
KEYWORDS = 6
"""Words in a keyword line at most: the title's first content words."""
SENTENCE_WORDS = 30
"""A summary sentence is cut to this many words."""
RARE_SHARE = 0.002
"""A word held by at most this share of the papers (and at least 2) is one of a paper's own
names: the paraphrase drops it."""

_WORD = re.compile(r"[^\W_][\w'’-]*")
_CLAIM = re.compile(
    r"\b(?:we|this paper|this work)\s+(?:propose|introduce|present|develop|show|study|give|"
    r"provide|design|describe|consider)",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Probe:
    """One pseudo-question about a paper, and the paper's text it may be matched on."""

    style: str
    """"title", "keyword", "sentence" or "paraphrase"."""
    text: str
    evidence: str
    """The paper's embedded text without what the probe was cut from."""


def paper_probes(
    paper: Paper, text: str, papers_with: Callable[[str], int], papers: int
) -> tuple[list[Probe], str]:
    """The probes of one paper and its text without the title and the summary sentence.

    `papers_with` tells how many of `papers` hold a word; probes match the returned evidence.
    """
    probes: list[Probe] = []
    evidence = text
    if paper.title and not paper.title_derived:
        evidence = evidence.replace(paper.title, " ")
        probes.append(Probe("title", paper.title, ""))
        keywords = _keywords(paper.title, papers_with)
        if keywords and keywords != paper.title:
            probes.append(Probe("keyword", keywords, ""))
    sentence = _summary_sentence(paper.abstract)
    if sentence:
        evidence = evidence.replace(sentence, " ")
        probes.append(Probe("sentence", sentence, ""))
        paraphrase = _without_rare_words(sentence, papers_with, max(2, int(RARE_SHARE * papers)))
        if len(paraphrase.split()) >= 4:
            probes.append(Probe("paraphrase", paraphrase, ""))
    evidence = " ".join(evidence.split())
    return [Probe(p.style, p.text, evidence) for p in probes], evidence


def _summary_sentence(abstract: str) -> str:
    """The abstract's summary sentence (else its first), cut; "" when none has six words."""
    sentences = [abstract[start:end].strip() for start, end in sentence_spans(abstract)]
    sentences = [s for s in sentences if len(s.split()) >= 6]
    if not sentences:
        return ""
    chosen = next((s for s in sentences if _CLAIM.search(s)), sentences[0])
    return " ".join(chosen.split()[:SENTENCE_WORDS])


def _keywords(title: str, papers_with: Callable[[str], int]) -> str:
    """The title's first `KEYWORDS` words that some paper holds (no stopwords, no symbols)."""
    return " ".join([word for word in _WORD.findall(title) if papers_with(word) > 0][:KEYWORDS])


def _without_rare_words(sentence: str, papers_with: Callable[[str], int], rare: int) -> str:
    """`sentence` without the words at most `rare` papers hold (words no paper holds stay)."""
    return " ".join(w for w in sentence.split() if not 0 < papers_with(w) <= rare)


@cache
def off_topic_questions(path: Path = OFF_TOPIC_FILE) -> tuple[str, ...]:
    """The shipped off-topic and near-field questions (none when the file cannot be read)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return ()
    return tuple(line.strip() for line in lines if line.strip() and not line.startswith("#"))
