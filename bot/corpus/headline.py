"""A headline cut from a phrase at a boundary ("that", a comma…), never on a dangling word."""

from __future__ import annotations

import re

MAX_TITLE_CHARS = 90  # a title reads at a glance; longer is a sentence
_MIN_WORDS = 3  # "Bayesian optimization" says too little of what the paper does
# Words a title must not end with.
DANGLING = frozenset({
    "a", "an", "the", "and", "or", "but", "nor", "of", "for", "to", "with", "in", "on", "at",
    "by", "from", "as", "via", "into", "onto", "that", "which", "who", "whose", "where", "when",
    "while", "its", "their", "our", "his", "her", "this", "these", "those", "is", "are", "be",
    "was", "were", "than", "over", "under", "between", "among", "across", "through", "using",
    "both", "either", "such", "without", "within", "can", "may", "not", "we", "it", "whether",
    "if", "also", "more", "most", "how", "what", "each", "every", "any", "all", "no", "so",
})  # fmt: skip

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

# Hyphenated modifiers that need a noun after them ("fine-grained, layer-wise alignment").
_DANGLING_MODIFIER = re.compile(
    r"-(?:grained|wise|aware|based|free|level|scale|specific|agnostic|driven|like|dependent)$"
)
ASIDE = re.compile(r"\s*\((?:e\.g\.|i\.e\.|see|cf\.)[^()]*\)|\s*—[^—]{1,120}—\s*")
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


def _fits(phrase: str, limit: int) -> bool:
    """Whether `phrase` can stand as a title: short enough, whole words, not dangling."""
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
    """Whether the words end on a participle waiting for its complement ("A field trained")."""
    last = words[-1].lower()
    if not (last.endswith("ed") or last in ("seen", "given", "known", "shown", "taken")):
        return False
    return len(words) < 2 or words[-2].lower() not in _PARTICIPLE_OK_AFTER


def gerund(verb: str) -> str:
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
    verb = gerund(match.group("verb")) + match.group("rest")
    return verb if drop_head else f"{core} {verb}"


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
    phrase = ASIDE.sub(" ", " ".join(phrase.split())).strip().rstrip(".")
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


def first_words(text: str) -> str:
    """Last resort for text with no phrase to cut (a list of words, one huge token)."""
    words: list[str] = []
    for word in text.split()[:12]:
        if len(" ".join([*words, word])) > MAX_TITLE_CHARS:
            break
        words.append(word)
    while len(words) > 1 and words[-1].lower() in DANGLING:
        words.pop()
    return " ".join(words) or text.strip()[:MAX_TITLE_CHARS]
