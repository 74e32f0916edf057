"""Named methods in abstracts ("ArbNN: Arboreal Neural Networks"): title derivation's first
pass, its result maybe clipped ("…") for the headline pass to shorten."""

from __future__ import annotations

import re
from collections.abc import Iterator

from bot.textutil import clip_words


def capitalise(text: str) -> str:
    """`text` with its first character upper-cased (the rest kept: "LoRA", "k-means")."""
    return text[:1].upper() + text[1:]


_CLIP_CHARS = 100  # a clipped name is shortened again by the headline pass (MAX_TITLE_CHARS)

_CONNECTORS = r"(?:and|And|with|via|of|for|in|on|to|from|the|under|by|&)"
_NAME_WORD = r"(?:[A-Z0-9][\w²³¹⁰-⁹@+'’.]*(?:[-–][\w²³¹⁰-⁹@+]+)*)"
_NAME_WORD_CAP = r"(?:[A-Z][\w²³¹⁰-⁹@+'’.]*(?:[-–][\w²³¹⁰-⁹@+]+)*)"
_NAME = (
    rf"{_NAME_WORD}(?:\s+(?:{_CONNECTORS}\s+)?{_NAME_WORD_CAP}"
    rf"|\s+\((?:{_NAME_WORD})\)(?=\s+[A-Z]))*"
)
_ACRONYM = r"[A-Za-z0-9²³¹⁰-⁹@+\-–]*[A-Z][A-Za-z0-9²³¹⁰-⁹@+\-–]*"
_PHRASE = r"[a-z][\w\-–]*(?:\s+[a-z][\w\-–]*){1,7}"
# Plain substring search finds the verbs that introduce a contribution (far cheaper than a
# regex scan of every abstract); the name patterns then run anchored right after each.
_INTRO_VERBS = (
    "propos", "introduc", "present", "develop", "design", "build", "construct", "releas",
)  # fmt: skip
_NAMING_WORDS = ("called", "named", "termed", "dubbed")
_VERB_TAIL = re.compile(r"(?:e|es|ed|ing)?\s+")
_WORD_TAIL = re.compile(r"\s+")
_NAMED_SUBJECT = re.compile(r"\b(?:[Ww]e|[Tt]his (?:paper|work))\b")
_DETERMINER = (
    r"(?:(?:a|an|the|our|two|three)\s+(?=[A-Z]|[a-z][^,.;]{0,60}\((?:" + _ACRONYM + r")\)))?"
)
_LONG_SHORT = re.compile(
    _DETERMINER + rf"(?P<long>{_NAME}|{_PHRASE})\s+\((?P<short>{_ACRONYM})\)(?!\s+[A-Z])"
)
_SHORT_LONG = re.compile(
    _DETERMINER + rf"(?P<short>{_NAME_WORD})\s+\((?P<long>{_NAME_WORD_CAP}(?:\s+{_NAME_WORD}|"
    rf"\s+{_CONNECTORS})+)\)"
)
_NAMED = re.compile(
    _DETERMINER + rf"(?P<name>{_NAME})(?=\s*(?:[,.;:]|\s[—–-]\s|\s+(?:that|which)\b))"
)
_SENTENCE_START_NAME = re.compile(rf"^(?P<name>{_NAME}), (?:a|an) ")
_APPOSITIVE = re.compile(r"\s*(?:,|\s[—–]|:)\s*(?P<desc>(?:a|an)\s(?:(?![.;](?:\s|$)|\s[—–]\s).)+)")
_STOP_TAIL = re.compile(
    r"(?:[\s,;:—–-]+(?:a|an|the|and|or|of|for|to|with|in|on|by|that|which|from|as|at|via|"
    r"is|are|its|their|our))+$|[\s,;:—–-]+$"
)
_GENERIC = frozenset({
    "a", "an", "the", "this", "that", "these", "our", "new", "novel", "simple", "general",
    "unified", "framework", "method", "approach", "model", "algorithm", "technique", "strategy",
})  # fmt: skip


def _clip(text: str) -> str:
    """`text` as a title: cut on a word boundary, no dangling 'of the' before the ellipsis."""
    text = text.strip()
    if len(text) <= _CLIP_CHARS:
        return text.rstrip(".")
    cut = clip_words(text, _CLIP_CHARS, strip="")[:-1]
    return _STOP_TAIL.sub("", cut).rstrip(" ,;:—–-(") + "…"


def _is_name(name: str) -> bool:
    """A proper name of a contribution, not a generic phrase like 'A Novel Framework'."""
    words = name.split()
    if not words or words[0].lower() in _GENERIC:
        return False
    return not all(word.lower() in _GENERIC for word in words)


def _acronym_fits(phrase: str, acronym: str) -> bool:
    """Whether the acronym's letters follow the phrase's word initials, from the first."""
    initials = "".join(part[0] for part in re.split(r"[\s\-–]+", phrase) if part).lower()
    letters = [ch for ch in acronym.lower() if ch.isalpha()]
    if not letters or not initials or letters[0] != initials[0]:
        return False
    pos = 0
    for ch in letters:
        pos = initials.find(ch, pos)
        if pos < 0:
            return False
        pos += 1
    return True


def _initials(name: str) -> str | None:
    """`Deep Trajectory Supervision` → `DTS` (None for a one-word name)."""
    words = [word for word in re.split(r"[\s\-–]+", name) if word[:1].isupper()]
    return "".join(word[0] for word in words) if len(words) >= 2 else None


def _title_case_shouting(phrase: str) -> str:
    """`LOGIT-LINEAR SELECTION` → `Logit-Linear Selection`; other phrases unchanged."""
    letters = [ch for ch in phrase if ch.isalpha()]
    if len(phrase.split()) > 1 and letters and all(ch.isupper() for ch in letters):
        return re.sub(r"[A-Za-z]+", lambda m: m.group(0).capitalize(), phrase)
    return phrase


def _introduced(head: str) -> Iterator[int]:
    """Positions right after 'we propose/introduce/…' or 'called/named/…', in text order."""
    found: list[tuple[int, int]] = []
    for stems, tail, needs_subject in (
        (_INTRO_VERBS, _VERB_TAIL, True),
        (_NAMING_WORDS, _WORD_TAIL, False),
    ):
        for stem in stems:
            start = head.find(stem)
            while start >= 0:
                end = tail.match(head, start + len(stem))
                whole_word = not (start and head[start - 1].isalnum())
                if end and whole_word and (not needs_subject or _has_subject(head, start)):
                    found.append((start, end.end()))
                start = head.find(stem, start + 1)
    for _, pos in sorted(found):
        yield pos


def _has_subject(head: str, verb: int) -> bool:
    """Whether 'we' / 'this paper' comes earlier in the verb's sentence (≤ 200 chars back)."""
    sentence_start = max(head.rfind(".", 0, verb), head.rfind(";", 0, verb))
    return _NAMED_SUBJECT.search(head, max(sentence_start + 1, verb - 200), verb) is not None


def _name_at(head: str, pos: int) -> str | None:
    """The title for a contribution named at `pos`, if a proper name starts there."""
    match = _LONG_SHORT.match(head, pos)
    if match:
        long, short = match.group("long"), match.group("short")
        fits = _acronym_fits(long, short)
        proper = fits or (long[0].isupper() and _is_name(long))
        if proper and short.lower() not in ("e.g", "i.e") and len(short) <= 30:
            return f"{short}: {capitalise(_title_case_shouting(long))}"
    match = _SHORT_LONG.match(head, pos)
    if match and (
        len(match.group("short")) > 1 or _acronym_fits(match.group("long"), match.group("short"))
    ):
        return f"{match.group('short')}: {_title_case_shouting(match.group('long'))}"
    match = _NAMED.match(head, pos)
    if match:
        name = match.group("name").rstrip(".")
        if not _is_name(name):
            return None
        initials = _initials(name)
        if initials and re.search(rf"\b{initials}s?\b", head):
            return f"{initials}: {name}"
        appositive = _APPOSITIVE.match(head, match.end("name"))
        if appositive:
            return f"{name}: {capitalise(appositive.group('desc').strip().rstrip(','))}"
        return name
    return None


def named_title(text: str) -> str | None:
    """'Short: Long name' or 'Name: description' when the abstract introduces a named thing."""
    head = text[:4000]
    first = _SENTENCE_START_NAME.match(head)
    if first and _is_name(first.group("name")):
        appositive = _APPOSITIVE.match(head, first.end("name"))
        desc = appositive.group("desc") if appositive else ""
        return _clip(f"{first.group('name')}: {capitalise(desc)}".rstrip(": "))
    for pos in _introduced(head):
        title = _name_at(head, pos)
        if title:
            return _clip(title)
    return None
