"""Readable titles for untitled abstracts: the named method, else a headline of the contribution."""

from __future__ import annotations

import re
from collections.abc import Iterator

from bot.corpus.headline import ASIDE, MAX_TITLE_CHARS, first_words, gerund, headline
from bot.corpus.method_names import capitalise, named_title
from bot.textutil import sentence_spans

_SUBJECT = r"(?:[Ww]e|[Tt]his (?:paper|work|study)|[Oo]ur (?:main )?(?:contribution|work))"
_LEAD_WORDS = (
    r"In this (?:paper|work)|In|Here|However|Moreover|Furthermore|Additionally|Further|Second|"
    r"Third|Therefore|Thus|Hence|Instead|Specifically|Finally|First|Then|Crucially"
)
_LEAD_CLAUSE = r"(?:To|Unlike|Building on|In contrast|In a)\b[^,.]{0,80},"
# Atomic and bounded: "To To To …" must not make the regex engine try every split.
_LEAD_IN = rf"^(?>(?:{_LEAD_CLAUSE}|(?:{_LEAD_WORDS}),?)\s+){{0,3}}"
# Verbs that name an artefact come first: "we propose X" says what the paper is.
_ARTEFACT_VERBS = r"propose|introduce|present|develop|design|release"
_STUDY_VERBS = (
    r"study|investigate|identify|analy[sz]e|characteri[sz]e|cast|examine|explore|build|"
    r"construct|formali[sz]e"
)
_CLAIM_VERBS = r"show|prove|find|found|demonstrate|establish|derive|provide|argue|observe"
# Artefacts first; then whatever the abstract states first (its main finding, usually).
_VERB_RANKS = ((_ARTEFACT_VERBS, 0), (_STUDY_VERBS, 1), (_CLAIM_VERBS, 1))
_CONTRIBUTION = re.compile(
    _LEAD_IN
    + r"(?:[^.]{0,200}?,?\s(?:yet|but|and|however|here),?\s+(?:in this (?:paper|work),?\s+)?)?"
    rf"{_SUBJECT}\s+(?:\w+ly\s+|then\s+|also\s+|first\s+|further\s+)*"
    rf"(?P<verb>(?:{_ARTEFACT_VERBS}|{_STUDY_VERBS}|{_CLAIM_VERBS})(?:s|d|ed)?)\b\s*"
    r"(?P<rest>.+)"
)
_MAIN_CONTRIBUTION = re.compile(
    r"^Our main contribution is to (?P<verb>show|prove|propose|introduce)\s+(?P<rest>.+)"
)
_BY_DOING = re.compile(rf"^{_SUBJECT}\b[^.]*?\bby (?P<rest>[a-z]+ing\b.+)")
# "We bound the error of X" → "Bounding the error of X": any other verb, as a gerund.
_WE_VERB = re.compile(
    r"^(?:[A-Z][a-z]+,\s+)?[Ww]e\s+(?:\w+ly\s+)?(?P<verb>[a-z]{3,})\s+(?P<rest>[^.]+)"
)
_NOT_CONTRIBUTIONS = frozenset({
    "are", "have", "can", "could", "may", "might", "will", "would", "should", "must", "did",
    "also", "then", "first", "further", "thus", "here", "now", "take", "make", "turn", "note",
    "call", "refer", "consider", "hypothesize", "hypothesise", "believe", "begin", "aim",
    "seek", "want", "need", "hope", "try", "attempt", "conduct", "evaluate", "use", "report",
    "discuss", "review", "focus", "mitigate", "address", "tackle", "close", "fill", "bridge",
    "extend", "complement", "argue", "observe", "find", "show", "treat", "define",
    "denote", "let", "assume", "follow", "adopt", "employ", "leverage", "rely",
})  # fmt: skip
_DETERMINERS = re.compile(
    r"^(?:(?:a|an|the|our|two|novel|new|first|principled|simple|simple yet effective|general|"
    r"generic|rigorous|comprehensive|systematic|extensive|dedicated|major)\s+)+",
    re.IGNORECASE,
)
_FRAMES = re.compile(
    r"^(?:the |a )?(?:problem|question|task|setting|use|notion|issue) of\s+", re.IGNORECASE
)
_THAT = re.compile(r"^that\s+(?:,?\s*(?:surprisingly|in fact|perhaps surprisingly),?\s+)?")
_ACRONYM_DEF = (
    r"(?<![\w\-–])(?P<long>[A-Za-z][\w\-–]{{0,40}}(?:\s+[\w\-–]{{1,40}}){{0,5}})\s+\({acronym}\)"
)


def _expand_acronym(phrase: str, abstract: str) -> str:
    """`SD for ridge regression` → `Self-distillation for …` when the abstract defines SD."""
    first = phrase.split(None, 1)
    if not first or not re.fullmatch(r"[A-Z][A-Za-z]*[A-Z]s?", first[0]):
        return phrase
    acronym = first[0]
    match = re.search(_ACRONYM_DEF.format(acronym=re.escape(acronym)), abstract)
    if not match:
        return phrase
    long = match.group("long")
    letters = [ch.lower() for ch in acronym if ch.isupper()]
    words = re.split(r"[\s\-–]+", long)
    # The definition is the last len(letters) word-parts whose initials spell the acronym.
    for size in range(len(words), 0, -1):
        tail = words[-size:]
        if [w[0].lower() for w in tail] == letters:
            start = long.rfind(tail[0])
            return long[start:] + phrase[len(acronym) :]
    return phrase


def _contributions(abstract: str) -> Iterator[tuple[int, int, int, str]]:
    """(verb rank, sentence number, pattern rank, phrase) per sentence stating a contribution."""
    for number, sentence in enumerate(_sentences(abstract[:4000])):
        match = _CONTRIBUTION.match(sentence) or _MAIN_CONTRIBUTION.match(sentence)
        if match:
            verb = match.group("verb").lower()
            rank = next(r for verbs, r in _VERB_RANKS if re.match(verbs, verb))
            yield rank, number, 0, _phrase(match.group("rest"), verb)
            continue
        by_doing = _BY_DOING.match(sentence)
        if by_doing:  # after the sentence's own verb: "certify X by masking" is about X
            yield 1, number, 2, by_doing.group("rest")
        we_verb = _WE_VERB.match(sentence)
        if we_verb and we_verb.group("verb") not in _NOT_CONTRIBUTIONS:
            verb, rest = we_verb.group("verb"), we_verb.group("rest")
            if not verb.endswith(("ed", "ing")):  # "we obtained", "we finding": not a base form
                both = re.match(r"and ([a-z]{3,})\s+(.+)", rest)  # "we add and remove edges"
                if both:
                    verb = f"{gerund(verb + 's')} and {gerund(both.group(1) + 's')}"
                    rest = both.group(2)
                else:
                    verb = gerund(verb + "s")
                yield 1, number, 1, f"{verb} {rest}"


def _phrase(rest: str, verb: str) -> str:
    """The object of a contribution verb as a headline phrase."""
    rest = rest.strip()
    if re.match(_CLAIM_VERBS, verb) or rest.startswith("that "):
        rest = _THAT.sub("", rest)
        # "across five benchmarks and models, surprisingly, X": the claim follows the commas
        rest = re.sub(
            r"^(?:across|in|for|on|under|with|whether|although|while|if|when|given|"
            r"even when)\b[^,]{0,80},\s*",
            "",
            ASIDE.sub(" ", rest),
        )
        rest = re.sub(r"^\w+ly,\s*", "", rest)  # "surprisingly, it cannot"
    rest = re.sub(r"^(?:a|an|the)\s[^:,]{0,40}:\s*", "", rest)  # "a surprising phenomenon: X"
    rest = _DETERMINERS.sub("", rest)
    rest = _FRAMES.sub("", rest)
    return _DETERMINERS.sub("", rest)


# A title must make sense alone: no pointing back at what the abstract said before.
_VAGUE = re.compile(
    r"^(?:this|these|such|it|that|them|their|its|the following)\b|\b(?:these|a similar|the same)\b"
    r"|\b(?:this|such) (?:question|problem|issue|gap|challenge|effect|direction|result)s?\b",
    re.IGNORECASE,
)


def _contribution_headline(abstract: str) -> str | None:
    """A headline from the sentence that best states the contribution, if one reads well."""
    found = sorted(_contributions(abstract))
    for *_, phrase in found:
        title = headline(_expand_acronym(phrase, abstract))
        if title and not _VAGUE.search(title):
            return capitalise(title)
    return None


def _subject_headline(abstract: str) -> str | None:
    """Last resort: the first sentence's subject ("Self-distillation for ridge regression")."""
    for sentence in _sentences(abstract[:2000]):
        title = headline(sentence)
        if title:
            return capitalise(title)
    return None


def _from_clipped(title: str, abstract: str) -> str | None:
    """A clipped `Name: description…` as `Name: description` cut at a phrase boundary."""
    name, sep, description = title.rstrip("…").partition(": ")
    if not sep:
        return None
    whole = re.search(
        re.escape(name) + r"(?:,|:|\s[—–])\s*(?P<desc>(?:a|an)\s.+?)(?:[.;](?:\s|$)|$)", abstract
    )
    if whole and whole.group("desc").casefold().startswith(description[:20].casefold()):
        description = whole.group("desc")
    short = headline(
        _DETERMINERS.sub("", description), limit=MAX_TITLE_CHARS - len(name) - 2, drop_head=True
    )
    if short and not _VAGUE.search(short):
        return f"{name}: {capitalise(short)}"
    return None


def derive_title(abstract: str) -> str:
    """A title for a clean abstract: "Name: Expansion", else a contribution headline (≤ 90)."""
    named = named_title(abstract)
    if named and not _sentence_like(named):
        if not named.endswith("…") and len(named) <= MAX_TITLE_CHARS:
            return named
        shortened = _from_clipped(named, abstract)
        if shortened:
            return shortened
        name = named.partition(": ")[0].rstrip("…")
        if len(name) <= MAX_TITLE_CHARS:
            return name
    return (
        _contribution_headline(abstract)
        or _subject_headline(abstract)
        or headline(abstract, limit=MAX_TITLE_CHARS)
        or first_words(abstract)
    )


def _sentence_like(title: str) -> bool:
    """A derived title that is really a sentence start ('We study …', 'Jung et al. …')."""
    return bool(re.match(rf"{_SUBJECT}\b|\S+ et al\.", title))


def _sentences(text: str) -> list[str]:
    return [text[start:end].strip() for start, end in sentence_spans(text)]
