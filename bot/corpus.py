"""Read corpus files (seed text, JSON Lines, JSON array, CSV) into clean `Paper` records.

Formats, chosen by extension:

- `.txt`, `.md`: the seed text format: an optional header line, then abstracts separated by one
  or more blank lines (a hard-wrapped abstract is joined into one paragraph);
- `.jsonl`: one JSON object per line;
- `.json`: one JSON array of objects;
- `.csv`: a header row, then one record per row.

Records carry `abstract` (required) and optional `title`, `authors`, `url`, `id`.
A directory stands for the supported files directly in it, sorted by name.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "EXTENSIONS",
    "CorpusError",
    "LoadReport",
    "Paper",
    "clean_abstract",
    "clean_title",
    "command_safe",
    "derive_title",
    "load_corpus",
]

TEXT_EXTENSIONS = (".txt", ".md")
EXTENSIONS = (*TEXT_EXTENSIONS, ".jsonl", ".json", ".csv")
"""File extensions `load_corpus` reads (case-insensitive)."""

MAX_TITLE_CHARS = 100  # issue 2: "at most ~100 characters"
_MAX_HEADER_CHARS = 120  # a longer first paragraph is an abstract, not a header line


class CorpusError(Exception):
    """A corpus file that cannot be read; names the file and the line."""

    def __init__(self, path: str | Path, line: int | None, reason: str) -> None:
        self.path = str(path)
        self.line = line
        self.reason = reason
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: {reason}")


@dataclass(frozen=True, slots=True)
class Paper:
    """One paper: clean text plus where it came from."""

    id: str
    """Stable id: the source's own, else a short number (see README)."""
    title: str
    """The source's title, else a headline derived from the abstract."""
    abstract: str
    """Clean readable text: no LaTeX/Markdown markup."""
    links: tuple[str, ...] = ()
    """Code and project URLs found in the abstract (and the source's `url`)."""
    source: str = ""
    """File the paper was read from."""
    line: int = 0
    """1-based line in `source` where the record starts."""
    authors: str = ""
    url: str = ""


@dataclass(frozen=True, slots=True)
class LoadReport:
    """What `load_corpus` loaded and what it skipped (nothing is dropped silently)."""

    papers: tuple[Paper, ...]
    sources: tuple[str, ...]
    skipped: tuple[str, ...] = field(default=())
    """One human-readable line per skipped record, naming file and line."""

    def summary(self) -> str:
        """One line: how many papers from how many files, and how many skipped."""
        files = "file" if len(self.sources) == 1 else "files"
        return (
            f"{len(self.papers)} papers from {len(self.sources)} {files}; "
            f"{len(self.skipped)} skipped"
        )


_COMMAND_SAFE = re.compile(r"[A-Za-z0-9_]{1,32}")  # Bot API: commands are [a-z0-9_], ≤32 chars


def command_safe(paper_id: str) -> bool:
    """True if `paper_id` can be typed in a Telegram command like `/paper_<id>`."""
    return _COMMAND_SAFE.fullmatch(paper_id) is not None


# ---------------------------------------------------------------------------------------------
# Markup → clean text
# ---------------------------------------------------------------------------------------------

_GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ",
    "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "varpi": "ϖ", "rho": "ρ",
    "varrho": "ϱ", "sigma": "σ", "varsigma": "ς", "tau": "τ", "upsilon": "υ", "phi": "φ",
    "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ",
    "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ", "Upsilon": "Υ",
    "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
}  # fmt: skip
_SYMBOLS = {
    **_GREEK,
    "ell": "ℓ", "nabla": "∇", "partial": "∂", "infty": "∞", "sum": "∑", "prod": "∏",
    "int": "∫", "forall": "∀", "exists": "∃", "emptyset": "∅", "varnothing": "∅", "neg": "¬",
    "star": "⋆", "ast": "*", "dagger": "†", "prime": "′", "hbar": "ℏ", "top": "⊤",
    "bot": "⊥", "dots": "…", "ldots": "…", "cdots": "⋯", "vdots": "⋮", "ddots": "⋱",
    "langle": "⟨", "rangle": "⟩", "lceil": "⌈", "rceil": "⌉", "lfloor": "⌊", "rfloor": "⌋",
    "lVert": "‖", "rVert": "‖", "Vert": "‖", "|": "‖", "lvert": "|", "rvert": "|", "vert": "|",
    "mid": "|", "S": "§", "textbackslash": "∖", "dag": "†",
}  # fmt: skip
_BINARY = {
    "times": "×", "cdot": "·", "circ": "∘", "pm": "±", "mp": "∓", "otimes": "⊗",
    "oplus": "⊕", "odot": "⊙", "cup": "∪", "cap": "∩", "setminus": "∖", "wedge": "∧",
    "vee": "∨", "div": "÷", "bullet": "•",
}  # fmt: skip
_RELATIONS = {
    "in": "∈", "notin": "∉", "ni": "∋", "le": "≤", "leq": "≤", "leqslant": "≤", "ge": "≥",
    "geq": "≥", "geqslant": "≥", "ne": "≠", "neq": "≠", "approx": "≈", "sim": "∼",
    "simeq": "≃", "cong": "≅", "equiv": "≡", "propto": "∝", "ll": "≪", "gg": "≫",
    "to": "→", "rightarrow": "→", "leftarrow": "←", "Rightarrow": "⇒", "Leftarrow": "⇐",
    "leftrightarrow": "↔", "Leftrightarrow": "⇔", "implies": "⇒", "iff": "⇔", "mapsto": "↦",
    "subset": "⊂", "subseteq": "⊆", "supset": "⊃", "supseteq": "⊇", "perp": "⊥",
    "coloneqq": "≔", "triangleq": "≜", "preceq": "⪯", "succeq": "⪰", "prec": "≺",
    "succ": "≻",
}  # fmt: skip
_FUNCTIONS = frozenset({
    "log", "ln", "exp", "max", "min", "sup", "inf", "lim", "liminf", "limsup", "arg", "argmax",
    "argmin", "det", "dim", "ker", "sin", "cos", "tan", "tanh", "sigmoid", "softmax", "Pr",
    "deg", "gcd", "mod", "poly", "polylog", "var", "Var", "Cov", "tr", "rank", "sgn", "sign",
    "diag",
})  # fmt: skip
_BLACKBOARD = {"R": "ℝ", "N": "ℕ", "Z": "ℤ", "Q": "ℚ", "C": "ℂ", "E": "𝔼", "P": "ℙ"}
_STYLE_COMMANDS = frozenset({
    "textbf", "textit", "emph", "texttt", "textrm", "textsf", "textsc", "textup", "textnormal",
    "underline", "mbox", "text", "mathrm", "mathbf", "mathit", "mathsf", "mathtt", "mathcal",
    "mathscr", "mathfrak", "boldsymbol", "bm", "operatorname", "mathnormal", "hbox", "bf", "it",
    "rm", "tt",
})  # fmt: skip
_SPACING = {",": " ", ";": " ", ":": " ", "!": "", " ": " ", "quad": " ", "qquad": " "}
_DROP = frozenset({
    "left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "biggl",
    "biggr", "displaystyle", "textstyle", "scriptstyle", "limits", "nolimits", "noindent",
    "centering",
})  # fmt: skip
_ESCAPES = {"%": "%", "&": "&", "_": "_", "#": "#", "$": "$", "{": "{", "}": "}", "~": "~"}
_SUPERSCRIPTS = str.maketrans("0123456789+-=()n*", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ*")
_SUBSCRIPTS = str.maketrans("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ")
_SUPER_OK = frozenset("0123456789+-=()")  # Unicode has all of these; letters only partly
_SUB_OK = frozenset("0123456789+-=()")

# Private-use placeholders keep protected spans (URLs, escaped braces) out of later passes.
_PH_OPEN, _PH_CLOSE = "\ue000", "\ue001"
_LBRACE, _RBRACE, _DOLLAR = "\ue002", "\ue003", "\ue004"

_URL = re.compile(r"""https?://[^\s<>"{}\\^`|\[\]]+""")
_URL_TRAILING = ".,;:!?'\"’”*_"
_HREF = re.compile(r"\\href\s*\{([^{}]*)\}\s*\{((?:[^{}]|\{[^{}]*\})*)\}")
_URL_CMD = re.compile(r"\\url\s*\{([^{}]*)\}")
_MD_LINK = re.compile(r"\[([^\[\]\n]*)\]\(\s*(https?://[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)\s*\)")
_MATH = re.compile(r"\$\$(.+?)\$\$|\$((?:\\.|[^$\\])+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.DOTALL)
_COMMAND = re.compile(r"\\([A-Za-z]+)\s*|\\(.)", re.DOTALL)
_STYLE_ARG = re.compile(r"\\([A-Za-z]+)\s*\{([^{}]*)\}")
_SCRIPT = re.compile(r"([\^_])\s*(?:\{([^{}]*)\}|(\\[A-Za-z]+)|([^\s{}\\]))")
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_SQRT = re.compile(r"\\sqrt\s*(?:\{([^{}]*)\}|(\\[A-Za-z]+|\w))")
# Each pattern starts with its literal marker so the regex engine can skip ahead to it.
_BOLD_MD = re.compile(
    r"\*\*(?<![*\w]\*\*)(?=\S)(.+?)(?<=\S)\*\*(?![*\w])"
    r"|__(?<![_\w]__)(?=\S)(.+?)(?<=\S)__(?![_\w])"
)
_ITALIC_MD = re.compile(
    r"\*(?<![*\w]\*)(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![*\w])"
    r"|_(?<![_\w]_)(?=[^\s_])([^_\n]+?)(?<=[^\s_])_(?![_\w])"
)
_SPACE_BEFORE_PUNCT = re.compile(r" (?=[,.;:!?](?: |$))")
_CODE_MD = re.compile(r"`([^`\n]+)`")
_TEX_QUOTES = re.compile(r"``(.+?)''")
_SPACES = re.compile(r"[ \t\r\n\f\v\u00a0\u2000-\u200b\u202f\u205f\u3000]+")
_SPACE_BEFORE_CLOSE = re.compile(r"\s+([)\],.;:!?])")
_SPACE_AFTER_OPEN = re.compile(r"([(\[])\s+")
_PLACEHOLDER = re.compile(_PH_OPEN + r"(\d+)" + _PH_CLOSE)


def _needs_cleaning(text: str) -> bool:
    """False for plain text, which skips every markup pass (most of a big corpus)."""
    return any(mark in text for mark in _MARKUP_SIGNS)


_MARKUP_SIGNS = ("\\", "$", "*", "_", "`", "[", "{", "}", "http", "--", "''")


def _strip_url(url: str) -> str:
    """Drop trailing characters that belong to the sentence, not to the URL."""
    while url:
        last = url[-1]
        if last in _URL_TRAILING or (last == ")" and url.count("(") < url.count(")")):
            url = url[:-1]
        else:
            break
    return url


def _script(text: str, marker: str) -> str:
    """Render a super/subscript: Unicode where it exists, else `^x` / `^(xy)`."""
    text = text.strip()
    if text[:1] == _LBRACE and text[-1:] == _RBRACE and _LBRACE not in text[1:]:
        text = text[1:-1]  # `T^{\{1-b\}}`: the set braces add nothing inside a script
    if not text:
        return ""
    if marker == "^":
        if text in ("*", "⋆", "∗"):
            return "*"
        if text in ("′", "'", "′′", "''"):
            return "′" * len(text.replace("′", "'"))
        if set(text) <= _SUPER_OK:
            return text.translate(_SUPERSCRIPTS)
    elif set(text) <= _SUB_OK or (len(text) == 1 and text.translate(_SUBSCRIPTS) != text):
        return text.translate(_SUBSCRIPTS)
    if re.fullmatch(r"[\w′*]+", text):
        return marker + text
    return f"{marker}({text})"


def _latex_commands(text: str, *, math: bool) -> str:
    """Replace LaTeX commands (symbols, spacing, escapes) by their readable text."""

    def command(match: re.Match[str]) -> str:
        name, other = match.group(1), match.group(2)
        if other is not None:
            if other in _ESCAPES:
                return _ESCAPES[other] if other not in "{}$" else {
                    "{": _LBRACE, "}": _RBRACE, "$": _DOLLAR}[other]  # fmt: skip
            if other == "\\":  # `\\{` is a doubly escaped `\{`; a lone `\\` is a line break
                return " "
            return _SPACING.get(other, other)
        if name in _SPACING:
            return _SPACING[name]
        if name in _DROP:
            return ""
        if name in _RELATIONS:
            return f" {_RELATIONS[name]} "
        trailing = match.group(0)[len(name) + 1 :]  # the space a control word swallows
        if name in _BINARY:
            return f" {_BINARY[name]} " if trailing else _BINARY[name]
        if name in _SYMBOLS:
            return _SYMBOLS[name]
        if name in _FUNCTIONS:
            if not math:
                return name + trailing
            following = match.string[match.end() : match.end() + 1]
            return f" {name}" if following in "({[^_" + _LBRACE else f" {name} "
        if name in _STYLE_COMMANDS:
            return ""
        return name + trailing  # unknown command: keep its name, lose the backslash

    return _COMMAND.sub(command, text)


def _style_arguments(text: str) -> str:
    """Unwrap `\\textbf{X}`-like commands (innermost first, so nesting works)."""

    def unwrap(match: re.Match[str]) -> str:
        name, arg = match.group(1), match.group(2)
        if name == "mathbb":
            return "".join(_BLACKBOARD.get(ch, ch) for ch in arg)
        if name in _STYLE_COMMANDS or name in ("mathbb", "textsuperscript", "textsubscript"):
            if name == "textsuperscript":
                return _script(arg, "^")
            if name == "textsubscript":
                return _script(arg, "_")
            return arg
        return match.group(0)

    for _ in range(8):
        new = _STYLE_ARG.sub(unwrap, text)
        if new == text:
            break
        text = new
    return text


def _math(body: str) -> str:
    """Render the inside of `$…$` as readable plain text."""
    for escaped, placeholder in (("\\\\{", _LBRACE), ("\\\\}", _RBRACE), ("\\{", _LBRACE)):
        body = body.replace(escaped, placeholder)
    body = body.replace("\\}", _RBRACE)
    body = _style_arguments(body)
    for _ in range(4):  # nested fractions and roots, innermost first
        new = _FRAC.sub(lambda m: f"{_group(m.group(1))}/{_group(m.group(2))}", body)
        new = _SQRT.sub(lambda m: "√" + _group(m.group(1) or m.group(2)), new)
        if new == body:
            break
        body = new
    body = _SCRIPT.sub(_script_match, body)
    body = _latex_commands(body, math=True)
    body = body.replace("{", "").replace("}", "")
    body = _SPACES.sub(" ", body).strip()
    body = _SPACE_AFTER_OPEN.sub(r"\1", body)
    return re.sub(r"\s+([)\]])", r"\1", body)


def _group(text: str) -> str:
    """Parenthesise a multi-token fraction part or root argument."""
    text = text.strip()
    if re.fullmatch(r"\\?[A-Za-z]+|[\w.]+", text):
        return text
    return f"({text})"


def _script_match(match: re.Match[str]) -> str:
    marker, braced, command, single = match.groups()
    if command is not None:
        name = command[1:]
        if name == "star" or name == "ast":
            return "*" if marker == "^" else "_*"
        if name == "prime":
            return "′"
        content = _latex_commands(command, math=True).strip()
    elif braced is not None:
        content = _latex_commands(_SCRIPT.sub(_script_match, braced), math=True)
        content = content.replace("{", "").replace("}", "")
    else:
        content = single
    return _script(_SPACES.sub(" ", content), marker)


# Characters no message can carry: C0/C1 controls (Telegram refuses them in links, terminals
# act on them) and lone surrogates, which JSON escapes ("\\ud800") can produce but neither
# UTF-8 nor Telegram's UTF-16 can encode.
_UNSENDABLE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def _unsendable(match: re.Match[str]) -> str:
    return "\ufffd" if match.group() >= "\ud800" else " "


def _sendable(text: str) -> str:
    """`text` with control characters as spaces and lone surrogates as U+FFFD."""
    if text.isprintable() or not _UNSENDABLE.search(text):  # isprintable: the fast common case
        return text
    return _UNSENDABLE.sub(_unsendable, text)


def clean_abstract(raw: str) -> tuple[str, tuple[str, ...]]:
    """Plain readable text of `raw` (LaTeX/Markdown removed) and the URLs it links to."""
    # str.split knows Unicode spaces and is faster than a regex; controls become spaces first.
    text = " ".join(_sendable(raw).split())
    if not _needs_cleaning(text):
        return text, ()
    links: list[str] = []
    protected: list[str] = []

    def protect(url: str) -> str:
        url = _strip_url(url)
        if url not in links:
            links.append(url)
        protected.append(url)
        return f"{_PH_OPEN}{len(protected) - 1}{_PH_CLOSE}"

    def href(match: re.Match[str]) -> str:
        url = _strip_url(match.group(1).strip())
        if url and url not in links:
            links.append(url)
        label = match.group(2).strip()
        return protect(label) if _URL.fullmatch(label) else label

    def md_link(match: re.Match[str]) -> str:
        url = _strip_url(match.group(2))
        if url not in links:
            links.append(url)
        label = match.group(1).strip()
        return protect(label) if _URL.fullmatch(label) else label

    def bare(match: re.Match[str]) -> str:
        url = match.group(0)
        kept = _strip_url(url)
        return protect(kept) + url[len(kept) :]

    if "http" in text:
        text = _HREF.sub(href, text) if "\\href" in text else text
        text = (
            _URL_CMD.sub(lambda m: protect(m.group(1).strip()), text) if "\\url" in text else text
        )
        text = _MD_LINK.sub(md_link, text) if "](" in text else text
        text = _URL.sub(bare, text)
    if "$" in text or "\\(" in text or "\\[" in text:
        text = _MATH.sub(lambda m: _math(next(g for g in m.groups() if g is not None)), text)
    if "\\" in text:
        text = text.replace("\\\\{", "\\{").replace("\\\\}", "\\}")
        text = _style_arguments(text)
        text = _latex_commands(text, math=False)
    text = text.replace("{", "").replace("}", "")
    if "``" in text:
        text = _TEX_QUOTES.sub(r"“\1”", text)
    text = text.replace("---", "—").replace("--", "–")
    if "*" in text or "_" in text:
        for _ in range(2):  # `***x***` and `**_x_**` nest
            text = _BOLD_MD.sub(lambda m: m.group(1) or m.group(2), text)
            text = _ITALIC_MD.sub(lambda m: m.group(1) or m.group(2), text)
    if "`" in text:
        text = _CODE_MD.sub(r"\1", text)
    text = text.replace(_LBRACE, "{").replace(_RBRACE, "}").replace(_DOLLAR, "$")
    if protected:
        text = _PLACEHOLDER.sub(lambda m: protected[int(m.group(1))], text)
    text = " ".join(text.split())
    if any(f" {mark}" in text for mark in ",.;:!?"):
        text = _SPACE_BEFORE_PUNCT.sub("", text)
    if "( " in text:
        text = text.replace("( ", "(")
    return text, tuple(links)


def clean_title(raw: str) -> str:
    """A source title as plain text (markup removed, whitespace collapsed)."""
    return clean_abstract(raw)[0]


# ---------------------------------------------------------------------------------------------
# Titles
# ---------------------------------------------------------------------------------------------

_ABBREVIATIONS = frozenset({
    "al", "e.g", "i.e", "etc", "vs", "cf", "fig", "eq", "approx", "resp", "ca", "no", "dr", "mr",
    "ms",
})  # fmt: skip
_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z(“\"'\d])")
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
_SUBJECT = re.compile(r"\b(?:[Ww]e|[Tt]his (?:paper|work))\b")
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
_CONTRIBUTION = re.compile(
    r"^(?:(?:In|Here,?|Therefore|Thus|To [^,]{0,60}|Specifically|Instead),?\s+(?:this "
    r"(?:paper|work),?\s+)?)?(?P<rest>(?:[Ww]e|This paper|This work)\s+(?:\w+ly\s+)?"
    r"(?:propose|introduce|present|develop|study|investigate|identify|formali[sz]e|provide|"
    r"design|analy[sz]e|establish|prove|derive|characteri[sz]e)s?\b.*)"
)
_VAGUE = re.compile(
    r"\b(?:this|these|such) (?:question|problem|issue|gap|challenge|effect)s?\b"
    r"|^\S+ (?:\w+ly )?\w+ (?:their|its|this|these|them)\b"
)


def _sentences(text: str) -> Iterator[str]:
    """Split plain text into sentences, not at `et al.`, `e.g.` and the like."""
    start = 0
    for match in _SENTENCE_END.finditer(text):
        words = text[start : match.start()].rsplit(None, 1)
        last = words[-1].lower() if words else ""
        if last.strip("(").rstrip(".") in _ABBREVIATIONS or re.fullmatch(r"[A-Z]", last):
            continue
        yield text[start : match.end()].strip()
        start = match.end()
    rest = text[start:].strip()
    if rest:
        yield rest


def _clip(text: str, limit: int = MAX_TITLE_CHARS) -> str:
    """Cut `text` to `limit` characters on a word boundary, ending with an ellipsis."""
    text = text.strip()
    if len(text) <= limit:
        return text.rstrip(".")
    cut = text[: limit - 1]
    if " " in cut:
        cut = cut[: cut.rfind(" ")]
    cut = _STOP_TAIL.sub("", cut)
    return cut.rstrip(" ,;:—–-(") + "…"


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


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


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
    return _SUBJECT.search(head, max(sentence_start + 1, verb - 200), verb) is not None


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


def derive_title(abstract: str) -> str:
    """A headline for a clean abstract: the named contribution, else its key sentence, clipped."""
    named = _named_title(abstract)
    if named:
        return named
    sentences = list(_sentences(abstract[:4000]))
    for sentence in sentences:
        match = _CONTRIBUTION.match(sentence)
        if match and len(sentence.split()) >= 8 and not _VAGUE.search(match.group("rest")):
            return _clip(_capitalise(match.group("rest")))
    return _clip(sentences[0]) if sentences else ""


# ---------------------------------------------------------------------------------------------
# Readers: each yields (line, record dict) and raises CorpusError naming file and line
# ---------------------------------------------------------------------------------------------

Record = dict[str, object]


def _decode(path: Path) -> str:
    """The file's text (UTF-8, BOM tolerated, CRLF normalised); errors name the line."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CorpusError(path, None, f"cannot read file: {exc.strerror or exc}") from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise CorpusError(
            path, line, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})"
        ) from exc
    if not text.strip():
        raise CorpusError(path, 1, "empty file")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _is_header(paragraph: list[str]) -> bool:
    line = paragraph[0]
    return len(paragraph) == 1 and len(line) <= _MAX_HEADER_CHARS and line[-1] not in ".!?"


def _read_text(path: Path, text: str) -> Iterator[tuple[int, Record]]:
    paragraphs: list[tuple[int, list[str]]] = []
    current: list[str] = []
    start = 0
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.strip()
        if line:
            if not current:
                start = number
            current.append(line)
        elif current:
            paragraphs.append((start, current))
            current = []
    if current:
        paragraphs.append((start, current))
    if paragraphs and _is_header(paragraphs[0][1]):
        paragraphs = paragraphs[1:]
    if not paragraphs:
        raise CorpusError(path, 1, "no abstracts (only a header line)")
    for start, lines in paragraphs:
        yield start, {"abstract": " ".join(lines)}


def _read_jsonl(path: Path, text: str) -> Iterator[tuple[int, Record]]:
    seen = False
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CorpusError(path, number, f"malformed JSON: {exc.msg}") from exc
        seen = True
        yield number, _expect_object(path, number, record)
    if not seen:
        raise CorpusError(path, 1, "empty file")


def _read_json(path: Path, text: str) -> Iterator[tuple[int, Record]]:
    decoder = json.JSONDecoder()
    whitespace = re.compile(r"[ \t\n\r]*")

    def skip(pos: int) -> int:
        return whitespace.match(text, pos).end()  # type: ignore[union-attr]

    def line_at(pos: int) -> int:
        return text.count("\n", 0, pos) + 1

    pos = skip(0)
    if not text.startswith("[", pos):
        raise CorpusError(path, line_at(pos), "malformed JSON: expected an array of records")
    pos = skip(pos + 1)
    line, line_pos = 1, 0
    if text.startswith("]", pos):
        raise CorpusError(path, line_at(pos), "empty file: the array has no records")
    while True:
        line += text.count("\n", line_pos, pos)
        line_pos = pos
        try:
            record, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise CorpusError(path, exc.lineno, f"malformed JSON: {exc.msg}") from exc
        yield line, _expect_object(path, line, record)
        pos = skip(end)
        if text.startswith(",", pos):
            pos = skip(pos + 1)
        elif text.startswith("]", pos):
            break
        else:
            raise CorpusError(path, line_at(pos), "malformed JSON: expected ',' or ']'")
    if skip(pos + 1) != len(text):
        raise CorpusError(path, line_at(skip(pos + 1)), "malformed JSON: extra data after array")


def _expect_object(path: Path, line: int, record: object) -> Record:
    if not isinstance(record, dict):
        raise CorpusError(path, line, f"expected a JSON object, got {type(record).__name__}")
    return record


def _read_csv(path: Path, text: str) -> Iterator[tuple[int, Record]]:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        raise CorpusError(path, 1, "empty file") from None
    except csv.Error as exc:
        raise CorpusError(path, 1, f"malformed CSV: {exc}") from exc
    names = [name.strip().lower() for name in header]
    if "abstract" not in names:
        raise CorpusError(path, 1, "CSV header has no 'abstract' column")
    previous_end = reader.line_num
    seen = False
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise CorpusError(path, reader.line_num, f"malformed CSV: {exc}") from exc
        start, previous_end = previous_end + 1, reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(names):
            raise CorpusError(path, start, f"{len(row)} fields, header has {len(names)}")
        seen = True
        yield start, dict(zip(names, row, strict=False))
    if not seen:
        raise CorpusError(path, 1, "empty file: no records after the header")


_READERS = {
    ".txt": _read_text,
    ".md": _read_text,
    ".jsonl": _read_jsonl,
    ".json": _read_json,
    ".csv": _read_csv,
}


# ---------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Pending:
    """A record read and cleaned, waiting for its id."""

    source: str
    line: int
    source_id: str | None
    title: str
    abstract: str
    links: tuple[str, ...]
    authors: str
    url: str


def _field(path: Path, line: int, record: Record, name: str) -> str:
    value = record.get(name)
    if value is None:
        return ""
    if isinstance(value, list) and name == "authors":
        names = (" ".join(_sendable(str(item)).split()) for item in value)
        return ", ".join(name for name in names if name)
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise CorpusError(path, line, f"field {name!r} must be text, got {type(value).__name__}")
    text = str(value)
    if text.isprintable():  # no controls, no lone surrogates: the common case
        return text.strip()
    return " ".join(_sendable(text).split())  # one line, like the abstract


def _files(paths: Iterable[str | Path], skipped: list[str]) -> list[Path]:
    """Expand directories into their supported files; a missing path is an error."""
    files: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            for child in sorted(path.iterdir(), key=lambda p: p.name):
                if child.name.startswith("."):
                    continue
                if child.is_file() and child.suffix.lower() in EXTENSIONS:
                    files.append(child)
                else:
                    kind = "directory" if child.is_dir() else "unsupported file type"
                    skipped.append(f"{child}: {kind}, not read")
        elif path.is_file():
            if path.suffix.lower() not in EXTENSIONS:
                raise CorpusError(
                    path, None, f"unsupported file type (expected one of {', '.join(EXTENSIONS)})"
                )
            files.append(path)
        else:
            raise CorpusError(path, None, "no such file or directory")
    unique: dict[Path, Path] = {}
    for path in files:
        unique.setdefault(path.resolve(), path)
    return list(unique.values())


def _dedupe_key(abstract: str) -> bytes:
    if not abstract.isascii():
        abstract = unicodedata.normalize("NFKC", abstract)
    folded = " ".join(abstract.casefold().split())
    return hashlib.blake2b(folded.encode(), digest_size=16).digest()


def load_corpus(paths: Iterable[str | Path]) -> LoadReport:
    """Read every supported file under `paths` (files or directories) into papers."""
    skipped: list[str] = []
    files = _files(paths, skipped)
    if not files:
        raise CorpusError(", ".join(str(p) for p in paths) or ".", None, "no corpus files found")
    pending: list[_Pending] = []
    seen_abstracts: dict[bytes, _Pending] = {}
    source_ids: dict[str, _Pending] = {}
    for path in files:
        text = _decode(path)
        reader = _READERS[path.suffix.lower()]
        for line, record in reader(path, text):
            raw_abstract = record.get("abstract")
            if not isinstance(raw_abstract, str) or not raw_abstract.strip():
                raise CorpusError(path, line, "record has no 'abstract'")
            abstract, links = clean_abstract(raw_abstract)
            if not abstract:  # only control characters or markup: nothing to show or search
                raise CorpusError(path, line, "record has no 'abstract'")
            url = _field(path, line, record, "url")
            source_id = _field(path, line, record, "id") or None
            item = _Pending(
                source=str(path),
                line=line,
                source_id=source_id,
                title=clean_title(_field(path, line, record, "title")),
                abstract=abstract,
                links=links if not url or url in links else (url, *links),
                authors=_field(path, line, record, "authors"),
                url=url,
            )
            key = _dedupe_key(abstract)
            first = seen_abstracts.get(key)
            if first is not None:
                skipped.append(
                    f"{path}:{line}: duplicate abstract of {first.source}:{first.line}, skipped"
                )
                continue
            if source_id is not None:
                other = source_ids.get(source_id)
                if other is not None:
                    raise CorpusError(
                        path,
                        line,
                        f"duplicate id {source_id!r} (first at {other.source}:{other.line})",
                    )
                source_ids[source_id] = item
            seen_abstracts[key] = item
            pending.append(item)
    papers: list[Paper] = []
    number = 0
    for item in pending:
        paper_id = item.source_id
        if paper_id is None:
            number += 1
            while str(number) in source_ids:
                number += 1
            paper_id = str(number)
        papers.append(
            Paper(
                id=paper_id,
                title=item.title or derive_title(item.abstract),
                abstract=item.abstract,
                links=item.links,
                source=item.source,
                line=item.line,
                authors=item.authors,
                url=item.url,
            )
        )
    return LoadReport(
        papers=tuple(papers), sources=tuple(str(p) for p in files), skipped=tuple(skipped)
    )
