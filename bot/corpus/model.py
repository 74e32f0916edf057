"""The corpus's data (`Paper`, `Presentation`, `LoadReport`, errors) and its id and tier rules."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from bot.corpus.zones import zone_info


class CorpusError(Exception):
    """A corpus file that cannot be read; names the file and the line."""

    def __init__(self, path: str | Path, line: int | None, reason: str) -> None:
        self.path = str(path)
        self.line = line
        self.reason = reason
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: {reason}")


class NotRecordsError(CorpusError):
    """A file holding no records (notes, other data): in a directory, skipped and named."""


class StrictCorpusError(CorpusError):
    """Strict loading refused bad records; `problems` lists every one as `file:line: reason`."""

    def __init__(self, problems: tuple[str, ...]) -> None:
        self.problems = problems
        shown = "\n".join(problems)
        super().__init__(
            problems[0].split(":", 1)[0] if problems else "corpus",
            None,
            f"{len(problems)} bad records (strict):\n{shown}",
        )


UNTIMED = datetime.max.replace(tzinfo=UTC)  # what an unknown time sorts as: last


def _aware(text: str, zone: str = "") -> datetime | None:
    """An ISO 8601 time with its UTC offset as an aware datetime on the clock of `zone` (the
    venue's; "" keeps the offset written); None if absent, naive or not a time."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None
    return moment.astimezone(zone_info(zone)) if zone else moment


_YEARS = range(1970, 2200)  # a presentation time outside these is a broken record
_MAX_OFFSET_HOURS = 14


def time_problem(start: str, end: str) -> str:
    """Why a presentation's `start`/`end` cannot be shown as a time; "" when fine or both absent."""
    if not start and not end:
        return ""
    moments = []
    for name, text in (("start", start), ("end", end)):
        if not text:
            if name == "start":
                return "an end without a start"
            continue
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            return f"{name} {text[:40]!r} is not a time"
        offset = moment.utcoffset()
        if offset is None:
            return f"{name} {text[:40]!r} has no UTC offset"
        if moment.year not in _YEARS:
            return f"{name} {text[:40]!r}: year {moment.year}"
        if abs(offset.total_seconds()) > _MAX_OFFSET_HOURS * 3600:
            return f"{name} {text[:40]!r}: an offset beyond ±14 hours"
        moments.append(moment)
    if len(moments) == 2 and moments[1] < moments[0]:
        return f"end {end[:40]!r} before start {start[:40]!r}"
    return ""


@dataclass(frozen=True, slots=True)
class Presentation:
    """One time and place a paper is presented."""

    kind: str
    """"poster" or "oral"."""
    session: str = ""
    start: str = ""
    """ISO 8601 with the venue's UTC offset, as the source gives it ("" unknown)."""
    end: str = ""
    room: str = ""
    position: str = ""
    """The poster board, "E-2308"."""
    event: str = ""
    """The source's event id ("41234"): a stable key (calendar UIDs)."""
    zone: str = ""
    """The venue's clock, set at load: an IANA name or "+09:00"; "" keeps `start`'s offset."""

    @property
    def starts_at(self) -> datetime | None:
        """The start as an aware datetime on the venue's clock, None if unknown."""
        return _aware(self.start, self.zone)

    @property
    def ends_at(self) -> datetime | None:
        return _aware(self.end, self.zone)

    @property
    def board(self) -> str:
        """The poster board with one "#" ("#1713", "#E-2308"), "" for none."""
        text = " ".join(self.position.split()).lstrip("#").strip()
        return f"#{text}" if text else ""

    @property
    def timed(self) -> bool:
        """True if the presentation has a start the bot can show."""
        return self.starts_at is not None

    @property
    def on_site(self) -> bool:
        """False for an accepted paper the feed gives no time, session or board: it was not
        presented at the venue (a room alone is the feed's default)."""
        return self.timed or bool(self.session or self.position)


@dataclass(frozen=True, slots=True)
class Paper:
    """One paper: clean text plus where it came from."""

    id: str
    """Stable, tappable id: the source's own in command form, else a content hash (README)."""
    title: str
    """The source's title, else a headline derived from the abstract."""
    abstract: str
    """Clean readable text: no LaTeX/Markdown markup ("" for a title-only paper)."""
    links: tuple[tuple[str, str], ...] = ()
    """(label, http(s) URL): Page, PDF, Code, arXiv, DOI, then URLs found in the abstract."""
    source: str = ""
    line: int = 0
    """1-based line in `source` where the record starts."""
    authors: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    venue: str = ""
    track: str = ""
    status: str = ""
    year: int | None = None
    source_id: str = ""
    """The source's own id as written (`2402.05678`), "" when it has none."""
    aliases: tuple[str, ...] = ()
    """Other ids `/paper` accepts (arXiv id, DOI, the ids of versions merged into it)."""
    marks: tuple[str, ...] = ()
    """Facts about the record itself, e.g. `TITLE_DERIVED`."""
    presentations: tuple[Presentation, ...] = ()
    """In time order (start, then kind)."""
    affiliations: tuple[str, ...] = ()
    """Each author's institution, aligned with `authors` ("" unknown), or () if none known."""
    topic: str = ""
    """The programme's topic ("Deep Learning->Theory")."""

    @property
    def title_derived(self) -> bool:
        return TITLE_DERIVED in self.marks

    @property
    def tier(self) -> str:
        """ "oral", "spotlight", "poster" or "": from `status`, else from `venue`'s last word."""
        return tier_of(self.status) or venue_tier(self.venue)[1]

    @property
    def institutions(self) -> tuple[str, ...]:
        """The authors' distinct institutions, in author order."""
        return tuple(dict.fromkeys(a for a in self.affiliations if a))


TITLE_DERIVED = "title-derived"  # a `Paper.marks` entry: the title is derived from the abstract
MERGED = ", merged"  # how a `LoadReport.skipped` line about a merged version ends
NOT_RECORDS = "; not read"  # how a line about a file of no records (notes, a sidecar) ends


@dataclass(frozen=True, slots=True)
class LoadReport:
    """What `load_corpus` loaded and what it skipped (nothing is dropped silently)."""

    papers: tuple[Paper, ...]
    sources: tuple[str, ...]
    skipped: tuple[str, ...] = field(default=())
    """Report lines naming file and line: bad records, other skips, then merged versions."""
    bad_records: int = 0

    @property
    def bad_lines(self) -> tuple[str, ...]:
        """`file:line: reason` for each bad record (what strict loading refuses)."""
        return self.skipped[: self.bad_records]

    def check_strict(self) -> None:
        if self.bad_records:
            raise StrictCorpusError(self.bad_lines)

    @property
    def merged(self) -> int:
        """How many records were versions of a paper already loaded."""
        return sum(line.endswith(MERGED) for line in self.skipped[self.bad_records :])

    @property
    def not_loaded(self) -> int:
        """How many skipped lines lost something: not merged versions, nor files of no records."""
        notes = sum(line.endswith(NOT_RECORDS) for line in self.skipped[self.bad_records :])
        return len(self.skipped) - self.merged - notes

    def summary(self) -> str:
        """One line: how many papers from how many files, how many merged and skipped."""
        merged = self.merged
        merges = f"{_counted(merged, 'version')} merged, " if merged else ""
        bad = f" ({_counted(self.bad_records, 'bad record')})" if self.bad_records else ""
        return (
            f"{_counted(len(self.papers), 'paper')} from {_counted(len(self.sources), 'file')}; "
            f"{merges}{self.not_loaded} skipped{bad}"
        )

    def notes(self, shown: int = 5) -> list[str]:
        """The summary and the first `shown` skipped lines, for a terminal ([] if none)."""
        if not self.skipped:
            return []
        more = len(self.skipped) - shown
        return [
            f"corpus: {self.summary()}",
            *(f"  {line}" for line in self.skipped[:shown]),
            *([f"  … and {more} more"] if more > 0 else []),
        ]


def _counted(count: int, noun: str) -> str:
    """A terminal's English count: "1 paper", "2 papers", "3,017 papers"."""
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


# --- the tier rule ------------------------------------------------------------------------------

TIERS = ("oral", "spotlight", "poster")  # most prominent first
_TIER_WORD = re.compile(r"\b(oral|spotlight|poster|regular)\b", re.IGNORECASE)
_VENUE_TIER = re.compile(
    r"^(?P<venue>.*?)[\s,(]+(?P<tier>oral|spotlight|poster)\)?$", re.IGNORECASE
)


def tier_of(decision: str) -> str:
    """The tier a decision or status names: "Accept (oral)" -> "oral", "Accept (spotlight
    poster)" -> "spotlight", "Accept (poster)" and "Accept (regular)" -> "poster", else ""."""
    found = {word.casefold() for word in _TIER_WORD.findall(decision)} if decision else set()
    if "regular" in found:
        found.add("poster")
    return next((tier for tier in TIERS if tier in found), "")


def venue_tier(venue: str) -> tuple[str, str]:
    """(venue, tier) of a venue that ends in its tier ("ICML 2026 oral" -> ("ICML 2026",
    "oral")); (venue, "") otherwise."""
    match = _VENUE_TIER.match(venue) if venue else None
    if match is None or not match["venue"].strip():
        return venue, ""
    return match["venue"].strip(), match["tier"].casefold()


# --- the paper-id rule -------------------------------------------------------------------------

MAX_COMMAND_CHARS = 32  # Bot API limit: BotCommand.command, [a-z0-9_]{1,32}
PAPER_COMMAND = "paper_"  # a paper opens with the tappable command `/paper_<id>`
MAX_TAPPABLE_ID_CHARS = MAX_COMMAND_CHARS - len(PAPER_COMMAND)  # 26

_TAPPABLE_ID = re.compile(rf"[A-Za-z0-9_]{{1,{MAX_TAPPABLE_ID_CHARS}}}")
PAPER_COMMAND_PATTERN = re.compile(
    rf"^/{PAPER_COMMAND}([A-Za-z0-9_]{{1,{MAX_TAPPABLE_ID_CHARS}}})(?:@([A-Za-z0-9_]{{1,64}}))?(?:\s|$)"
)
"""`/paper_<id>` or `/paper_<id>@bot` at the start of a message; groups: id, addressed bot."""


def is_tappable_id(paper_id: str) -> bool:
    """True if `/paper_<paper_id>` is a valid Telegram command (so a tap opens the paper)."""
    return _TAPPABLE_ID.fullmatch(paper_id) is not None


def parse_paper_command(text: str) -> tuple[str, str | None] | None:
    """(paper id, addressed bot or None) for a message starting `/paper_<id>`, else None."""
    match = PAPER_COMMAND_PATTERN.match(text)  # anchored and bounded: O(1) on any message
    return (match.group(1), match.group(2)) if match else None
