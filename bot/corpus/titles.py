"""Readable titles for untitled abstracts: the named method, else a headline of the contribution.

Never a clipped sentence: a headline is a whole phrase cut at a phrase boundary (before "that",
a comma, a preposition…), at most 90 characters, and never ends in a dangling word.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from bot.textutil import clip_words, sentence_spans

__all__ = ["DANGLING", "MAX_TITLE_CHARS", "derive_title", "headline"]


MAX_TITLE_CHARS = 90  # issue 9: "at most 90 characters"
_MIN_WORDS = 3  # "Bayesian optimization" says too little of what the paper does
DANGLING = frozenset({
    "a", "an", "the", "and", "or", "but", "nor", "of", "for", "to", "with", "in", "on", "at",
    "by", "from", "as", "via", "into", "onto", "that", "which", "who", "whose", "where", "when",
    "while", "its", "their", "our", "his", "her", "this", "these", "those", "is", "are", "be",
    "was", "were", "than", "over", "under", "between", "among", "across", "through", "using",
    "both", "either", "such", "without", "within", "can", "may", "not", "we", "it", "whether",
    "if", "also", "more", "most", "how", "what", "each", "every", "any", "all", "no", "so",
})  # fmt: skip
"""Words a title must not end with."""

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
# Where a phrase may end: before a clause, an apposition, a list, a preposition. The first
# group ends a headline's core; the second may be dropped to fit the length limit.
_CLAUSE_BREAK = re.compile(
    r",|;|:|\s[—–]\s|—|\s(?:that|which|who|whose|where|whereby|wherein|while|whereas|when|"
    r"because|since|thereby|so that|such that|even|without|regardless|instead of|rather than)\b"
    r"|\sand (?=(?:then |also |further |thus )?(?:provide|show|prove|demonstrate|propose|"
    r"introduce|develop|derive|establish|use|apply|evaluate|achieve|find|present|study|"
    r"analy[sz]e|give|obtain|design|validate|release|offer|compute|fit|learn|report|"
    r"recover|improve|reduce|outperform|match|remove|add|train|test|compare|confirm)\w*\b)"
    # "… and compute their couplings": a word between "and" and a determiner is a verb
    r"|\sand (?=[a-z]+ (?:the|a|an|their|its|our|how|them|it)\b)"
)
_PHRASE_BREAK = re.compile(
    r"\s(?=(?:for|to|in|on|with|via|by|using|through|from|under|across|over|of|between|"
    r"and|as|into|at|based|than)\b)|\s\("
)
_ACRONYM_DEF = (
    r"(?<![\w\-–])(?P<long>[A-Za-z][\w\-–]{{0,40}}(?:\s+[\w\-–]{{1,40}}){{0,5}})\s+\({acronym}\)"
)


# Hyphenated modifiers that need a noun after them ("fine-grained, layer-wise alignment").
_DANGLING_MODIFIER = re.compile(
    r"-(?:grained|wise|aware|based|free|level|scale|specific|agnostic|driven|like|dependent)$"
)
_ASIDE = re.compile(r"\s*\((?:e\.g\.|i\.e\.|see|cf\.)[^()]*\)|\s*—[^—]{1,120}—\s*")
_ACRONYM_ASIDE = re.compile(r"\s\([A-Z][\w\-]*[A-Z]s?\)")
_ADVERB = re.compile(r"\b(?!(?:only|early|family|apply|supply|reply|anomaly|assembly)\b)\w{4,}ly\s")
_GENERIC_HEAD = (
    r"framework|method|approach|model|pipeline|system|algorithm|technique|architecture|"
    r"benchmark|strategy|paradigm|toolkit|library|procedure|scheme|mechanism|module|tool"
)
_HEAD_THAT = re.compile(
    rf"^(?P<core>(?:[^\s,;]+\s+){{0,4}}?(?:{_GENERIC_HEAD}|[^\s,;]+))\s+that\s+"
    r"(?:\w+ly\s+)?(?P<verb>[a-z]+s)\b(?P<rest>.*)"
)

_HEAD_USING = re.compile(
    rf"^(?:[^\s,;]+\s+){{0,4}}?(?:{_GENERIC_HEAD})\s+(?:employing|using|leveraging|based on)\s+"
    r"(?P<rest>.+)"
)

_HEAD_USING = re.compile(
    rf"^(?:[^\s,;]+\s+){{0,4}}?(?:{_GENERIC_HEAD})\s+(?:employing|using|leveraging|based on)\s+"
    r"(?P<rest>.+)"
)


def _fits(phrase: str, limit: int) -> bool:
    """True if `phrase` can stand as a title: short enough, whole words, not dangling."""
    words = phrase.split()
    last = words[-1].lower().strip(",.;:") if words else ""
    return (
        len(phrase) <= limit
        and len(words) >= _MIN_WORDS
        and last not in DANGLING
        and not _DANGLING_MODIFIER.search(last)
        and not (len(words) > 1 and words[-2].lower() in ("both", "either", "between"))
        and not (len(words) > 1 and words[-2].lower() == "by" and last.endswith("ing"))
        and not _dangling_participle(words)
        and phrase.count("(") == phrase.count(")")
    )


_PARTICIPLE_OK_AFTER = frozenset({"is", "are", "was", "were", "be", "been", "being", "remain"})


def _dangling_participle(words: list[str]) -> bool:
    """True for "A neural field trained": a participle waiting for its complement."""
    last = words[-1].lower()
    if not (last.endswith("ed") or last in ("seen", "given", "known", "shown", "taken")):
        return False
    return len(words) < 2 or words[-2].lower() not in _PARTICIPLE_OK_AFTER


def _gerund(verb: str) -> str:
    """`exploits` → `exploiting`, `values` → `valuing`, `quantifies` → `quantifying`."""
    if verb.endswith("ies"):
        stem = verb[:-3] + "y"
    elif verb.endswith(("sses", "shes", "ches", "xes", "zzes")):
        stem = verb[:-2]
    else:
        stem = verb[:-1]
    if stem.endswith("ie"):
        return stem[:-2] + "ying"
    if stem.endswith("e") and not stem.endswith(("ee", "ye", "oe")):
        stem = stem[:-1]
    elif re.fullmatch(r"[^aeiou]*[aeiou][bdgmnpt]", stem):  # map → mapping
        stem += stem[-1]
    return stem + "ing"


def _participle(phrase: str, *, drop_head: bool) -> str | None:
    """`framework that exploits X` → `Exploiting X` (drop_head) or `model that performs X` →
    `model performing X`; None when the phrase has no such clause."""
    using = _HEAD_USING.match(phrase)
    if drop_head and using:
        return using.group("rest")
    match = _HEAD_THAT.match(phrase)
    if not match:
        return None
    core = match.group("core")
    if drop_head and not re.search(rf"\b(?:{_GENERIC_HEAD})s?$", core):
        return None
    verb = _gerund(match.group("verb")) + match.group("rest")
    return verb if drop_head else f"{core} {verb}"


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def _core(phrase: str) -> str:
    """`phrase` up to its first clause break that leaves a few words ("X, a Y that …" → X)."""
    for match in _CLAUSE_BREAK.finditer(phrase):
        core = phrase[: match.start()].strip()
        if match.group() == "," and _DANGLING_MODIFIER.search(core):
            continue  # "fine-grained, layer-wise alignment": a list of modifiers
        if len(core.split()) >= _MIN_WORDS:
            return core
    return phrase


def headline(phrase: str, *, limit: int = MAX_TITLE_CHARS, drop_head: bool = False) -> str | None:
    """The longest whole-phrase start of `phrase` that fits `limit`, or None."""
    phrase = _ASIDE.sub(" ", " ".join(phrase.split())).strip().rstrip(".")
    participle = _participle(phrase, drop_head=drop_head)
    if (participle and _MIN_WORDS <= len(_core(phrase).split()) <= 4) or (drop_head and participle):
        title = headline(participle, limit=limit)  # type: ignore[arg-type]
        if title:
            return title
    core = _core(phrase)
    compressed = _ADVERB.sub("", _ACRONYM_ASIDE.sub("", core))
    for candidate in (core, compressed):
        if _fits(candidate, limit):
            return candidate
    for text in (compressed, core):
        cuts = [m.start() for m in _PHRASE_BREAK.finditer(text) if 0 < m.start() <= limit]
        for cut in reversed(cuts):
            candidate = text[:cut].rstrip(" ,;:")
            if _fits(candidate, limit):
                return candidate
            words = candidate.split()
            if words and _dangling_participle(words):  # "A neural field trained" → "A neural field"
                shorter = " ".join(words[:-1])
                if _fits(shorter, limit):
                    return shorter
    return None


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
                    verb = f"{_gerund(verb + 's')} and {_gerund(both.group(1) + 's')}"
                    rest = both.group(2)
                else:
                    verb = _gerund(verb + "s")
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
            _ASIDE.sub(" ", rest),
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
            return _capitalise(title)
    return None


def _subject_headline(abstract: str) -> str | None:
    """Last resort: the first sentence's subject ("Self-distillation for ridge regression")."""
    for sentence in _sentences(abstract[:2000]):
        title = headline(sentence)
        if title:
            return _capitalise(title)
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
        return f"{name}: {_capitalise(short)}"
    return None


def derive_title(abstract: str) -> str:
    """A title for a clean abstract: "Name: Expansion", else a contribution headline (≤ 90)."""
    named = _named_title(abstract)
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
        or _first_words(abstract)
    )


def _first_words(text: str) -> str:
    """Last resort for text with no phrase to cut (a list of words, one huge token)."""
    words: list[str] = []
    for word in text.split()[:12]:
        if len(" ".join([*words, word])) > MAX_TITLE_CHARS:
            break
        words.append(word)
    while len(words) > 1 and words[-1].lower() in DANGLING:
        words.pop()
    return " ".join(words) or text.strip()[:MAX_TITLE_CHARS]


def _sentence_like(title: str) -> bool:
    """A derived title that is really a sentence start ('We study …', 'Jung et al. …')."""
    return bool(re.match(rf"{_SUBJECT}\b|\S+ et al\.", title))


# --- named methods ("ArbNN: Arboreal Neural Networks") ------------------------------------------

_CLIP_CHARS = 100  # the named-method pass clips at ~100; the headline pass brings it to 90

_CONNECTORS = r"(?:and|And|with|via|of|for|in|on|to|from|the|under|by|&)"
_NAME_WORD = r"(?:[A-Z0-9][\w²³¹⁰-⁹@+'’.]*(?:[-–][\w²³¹⁰-⁹@+]+)*)"
_NAME_WORD_CAP = r"(?:[A-Z][\w²³¹⁰-⁹@+'’.]*(?:[-–][\w²³¹⁰-⁹@+]+)*)"
_NAME = (
    rf"{_NAME_WORD}(?:\s+(?:{_CONNECTORS}\s+)?{_NAME_WORD_CAP}"
    rf"|\s+\((?:{_NAME_WORD})\)(?=\s+[A-Z]))*"
)
_ACRONYM = r"[A-Za-z0-9²³¹⁰-⁹@+\-–]*[A-Z][A-Za-z0-9²³¹⁰-⁹@+\-–]*"
_PHRASE = r"[a-z][\w\-–]*(?:\s+[a-z][\w\-–]*){1,7}"
# Plain substring search finds the verbs that introduce a contribution (a regex scan with
# them costs ~10x on 100k abstracts); the name patterns then run anchored right after each.
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


def _clip(text: str, limit: int = _CLIP_CHARS) -> str:
    """`text` as a title: cut on a word boundary, no dangling 'of the' before the ellipsis."""
    text = text.strip()
    if len(text) <= limit:
        return text.rstrip(".")
    cut = clip_words(text, limit, strip="")[:-1]
    return _STOP_TAIL.sub("", cut).rstrip(" ,;:—–-(") + "…"


def _is_name(name: str) -> bool:
    """A proper name of a contribution, not a generic phrase like 'A Novel Framework'."""
    words = name.split()
    if not words or words[0].lower() in _GENERIC:
        return False
    return not all(word.lower() in _GENERIC for word in words)


def _acronym_fits(phrase: str, acronym: str) -> bool:
    """True if the acronym's letters follow the phrase's word initials, starting with the first."""
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
    """True if 'we' / 'this paper' comes earlier in the verb's sentence (≤ 200 chars back)."""
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
            return f"{short}: {_capitalise(_title_case_shouting(long))}"
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
            return f"{name}: {_capitalise(appositive.group('desc').strip().rstrip(','))}"
        return name
    return None


def _named_title(text: str) -> str | None:
    """'Short: Long name' or 'Name: description' when the abstract introduces a named thing."""
    head = text[:4000]
    first = _SENTENCE_START_NAME.match(head)
    if first and _is_name(first.group("name")):
        appositive = _APPOSITIVE.match(head, first.end("name"))
        desc = appositive.group("desc") if appositive else ""
        return _clip(f"{first.group('name')}: {_capitalise(desc)}".rstrip(": "))
    for pos in _introduced(head):
        title = _name_at(head, pos)
        if title:
            return _clip(title)
    return None


def _sentences(text: str) -> list[str]:
    """The sentences of `text`, stripped (bot.textutil's splitter)."""
    return [text[start:end].strip() for start, end in sentence_spans(text)]
