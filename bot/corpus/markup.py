"""LaTeX, Markdown and HTML markup to clean readable text, and the links an abstract carries."""

from __future__ import annotations

import html
import re

from bot.textutil import sendable

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
_SUPERSCRIPTS = str.maketrans("0123456789+-=()n*", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ*")
_SUBSCRIPTS = str.maketrans("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ")
_SCRIPT_OK = frozenset("0123456789+-=()")  # Unicode has all of these; letters only partly

# Private-use placeholders keep protected spans (URLs, escaped braces) out of later passes.
_PH_OPEN, _PH_CLOSE = "\ue000", "\ue001"
_LBRACE, _RBRACE, _DOLLAR = "\ue002", "\ue003", "\ue004"
_ESCAPES = {"$": _DOLLAR, "{": _LBRACE, "}": _RBRACE, **{char: char for char in "%&_#~"}}

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
_SPACE_AFTER_OPEN = re.compile(r"([(\[])\s+")
_PLACEHOLDER = re.compile(_PH_OPEN + r"(\d+)" + _PH_CLOSE)
_BLOCK = (r"p|br|div|li|ul|ol|h[1-6]|blockquote|pre|table|tr|td|th|thead|tbody|hr|dl|dt|dd|"
          r"section|article|header|footer|figure|figcaption")  # fmt: skip
_INLINE = r"a|b|i|u|s|em|strong|sub|sup|span|code|small|big|font|mark|abbr|cite|q|tt|del|ins"
_BLOCK_TAG = re.compile(rf"</?(?:{_BLOCK})\b[^<>]*>", re.IGNORECASE)
_INLINE_TAG = re.compile(rf"</?(?:{_INLINE})\b[^<>]*>", re.IGNORECASE)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_HTML_SCRIPT = re.compile(r"<(script|style)\b[^<>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)


def _needs_cleaning(text: str) -> bool:
    """False for plain text (most of a big corpus), which skips every markup pass."""
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
        if set(text) <= _SCRIPT_OK:
            return text.translate(_SUPERSCRIPTS)
    elif set(text) <= _SCRIPT_OK or (len(text) == 1 and text.translate(_SUBSCRIPTS) != text):
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
                return _ESCAPES[other]
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
        if name == "textsuperscript":
            return _script(arg, "^")
        if name == "textsubscript":
            return _script(arg, "_")
        return arg if name in _STYLE_COMMANDS else match.group(0)

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


def _protect_links(text: str) -> tuple[str, list[str], list[str]]:
    """`text` with its URLs as placeholders, the URLs it links to, and the placeholders' URLs."""
    links: list[str] = []
    protected: list[str] = []

    def protect(url: str) -> str:
        url = _strip_url(url)
        if url not in links:
            links.append(url)
        protected.append(url)
        return f"{_PH_OPEN}{len(protected) - 1}{_PH_CLOSE}"

    def labelled(url: str, label: str) -> str:
        """A link's label stays in the text (protected if a URL itself); its target is kept."""
        url = _strip_url(url.strip())
        if url and url not in links:
            links.append(url)
        label = label.strip()
        return protect(label) if _URL.fullmatch(label) else label

    def bare(match: re.Match[str]) -> str:
        url = match.group(0)
        kept = _strip_url(url)
        return protect(kept) + url[len(kept) :]

    text = _HREF.sub(lambda m: labelled(m[1], m[2]), text) if "\\href" in text else text
    text = _URL_CMD.sub(lambda m: protect(m.group(1).strip()), text) if "\\url" in text else text
    text = _MD_LINK.sub(lambda m: labelled(m[2], m[1]), text) if "](" in text else text
    return _URL.sub(bare, text), links, protected


def clean_abstract(raw: str) -> tuple[str, tuple[str, ...]]:
    """Plain readable text of `raw` (LaTeX/Markdown removed) and the URLs it links to."""
    # str.split knows Unicode spaces and is faster than a regex; controls become spaces first.
    text = " ".join(sendable(raw, controls="space").split())
    if not _needs_cleaning(text):
        return text, ()
    links: list[str] = []
    protected: list[str] = []
    if "http" in text:
        text, links, protected = _protect_links(text)
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
    return clean_abstract(raw)[0]


def html_to_text(raw: str) -> str:
    """`raw` without HTML tags (a block tag becomes a space), its entities decoded. Only real
    tag names are tags: `$x<y$ and $y>z$` in a LaTeX abstract is text."""
    if "<" in raw:
        raw = _HTML_SCRIPT.sub(" ", _COMMENT.sub(" ", raw))
        raw = _INLINE_TAG.sub("", _BLOCK_TAG.sub(" ", raw))
    return html.unescape(raw) if "&" in raw else raw
