"""Settings from the environment and an optional `.env` file (the environment wins)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
# Served when CORPUS is unset and nothing was fetched: a dated copy of the official ICML 2026
# feed and its abstracts, as `fetch icml 2026` saves them.
DEFAULT_CORPUS = REPO_ROOT / "corpus" / "icml-2026"
DEFAULT_RESULTS_PER_PAGE = 5
MIN_RESULTS_PER_PAGE = 1
MAX_RESULTS_PER_PAGE = 10  # one page must fit one message (render budgets per result)
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
DEFAULT_LOG_LEVEL = "INFO"
DEFAULT_WEBHOOK_LISTEN = "127.0.0.1"  # only a reverse proxy on this machine reaches it
DEFAULT_WEBHOOK_PORT = 8443  # one of the ports Telegram posts webhooks to
DEFAULT_QUESTIONS_PER_MINUTE = 20  # per user, over a sliding minute
APP_NAME = "icml-papers-bot"  # the folder under the user's data directory
PROGRAMME_FOLDER = "programme"  # under DATA_DIR, where `fetch` saves (`default_corpus`)
MAX_QUESTIONS_PER_MINUTE = 10_000
MAX_CORPUS_NAME_CHARS = 80  # a name ("ICML 2026"), not a sentence

# Tokens look like `123456789:AAH...`; checked only for shape, Telegram decides validity.
_TOKEN_SHAPE = re.compile(r"^\d{1,20}:[A-Za-z0-9_-]{1,200}$")
_DOTENV_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$")


def user_data_dir() -> Path:
    """DATA_DIR's default, outside the checkout so `git clean -xdf` keeps reading lists:
    `$XDG_DATA_HOME/<app>` (from the process environment, not `.env`), else `~/.local/share`."""
    # The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
    xdg = os.environ.get("XDG_DATA_HOME", "").strip()
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "share"
    return base / APP_NAME


class ConfigError(Exception):
    """A setting with an unusable value; names the setting, never echoes secrets."""

    def __init__(self, setting: str, reason: str) -> None:
        self.setting = setting
        self.reason = reason
        super().__init__(f"{setting}: {reason}")


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the bot reads from its environment, most fields from the setting of their name
    in upper case (docs/operations.md lists them); secrets are left out of the repr."""

    token: str | None = field(default=None, repr=False)
    """TELEGRAM_BOT_TOKEN; None when unset (the console needs none)."""
    api_base_url: str | None = None
    """TELEGRAM_API_BASE_URL, PTB's `base_url` (the token and `/method` are appended)."""
    corpus: tuple[Path, ...] = (DEFAULT_CORPUS,)
    results_per_page: int = DEFAULT_RESULTS_PER_PAGE
    log_level: str = DEFAULT_LOG_LEVEL
    webhook_url: str | None = None
    webhook_listen: str = DEFAULT_WEBHOOK_LISTEN
    webhook_port: int = DEFAULT_WEBHOOK_PORT
    webhook_secret: str | None = field(default=None, repr=False)
    admin_user_ids: frozenset[int] = frozenset()
    allowed_chat_ids: frozenset[int] = frozenset()  # chats (and inline users) served; empty: all
    questions_per_minute: int = DEFAULT_QUESTIONS_PER_MINUTE
    index_cache_dir: Path | None = None  # None: `.cache/` in the repository
    data_dir: Path = field(default_factory=user_data_dir)
    database_url: str | None = field(default=None, repr=False)  # PostgreSQL; None: SQLite
    corpus_strict: bool = False
    corpus_filter: str = ""
    semantic: bool = False
    """SEMANTIC: auto and on read as True; a `Settings` built in code is BM25 alone."""
    corpus_name: str = ""  # what to call papers whose venues do not name them ("ICML 2026")
    venue_timezone: str = ""
    """The clock of the programme's times ("Asia/Seoul"); "": from the table of known
    conferences, else the feed's own offset."""


def parse_dotenv(text: str) -> dict[str, str]:
    """Simple `KEY=VALUE` lines: comments, blank lines, `export`, single/double quotes."""
    values: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _DOTENV_LINE.match(line)
        if not match:
            continue
        key, value = match.group(1), match.group(2)
        if value[:1] in ("'", '"'):
            quote = value[0]
            end = value.find(quote, 1)
            value = value[1:end] if end != -1 else value[1:]
            if quote == '"':
                value = value.replace("\\n", "\n")
        else:
            # An unquoted value ends at ` #` (an inline comment).
            value = re.split(r"\s+#", value, maxsplit=1)[0].strip()
        values[key] = value
    return values


def read_dotenv(path: Path) -> dict[str, str]:
    """The `.env` file at `path` parsed; nothing when it does not exist."""
    try:
        return parse_dotenv(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(".env", f"cannot read {path}: {exc}") from exc


def load_settings(
    environ: Mapping[str, str] | None = None, *, env_file: Path | None = Path(".env")
) -> Settings:
    """Settings from `environ` (default `os.environ`) over `env_file`; raises ConfigError."""
    merged: dict[str, str] = dict(read_dotenv(env_file)) if env_file is not None else {}
    merged.update(os.environ if environ is None else environ)

    def get(name: str) -> str | None:
        value = merged.get(name)
        if value is None or not value.strip():
            return None
        return value.strip()

    data_dir = _directory("DATA_DIR", get("DATA_DIR")) or user_data_dir()
    return Settings(
        token=_token(get("TELEGRAM_BOT_TOKEN")),
        api_base_url=_base_url(get("TELEGRAM_API_BASE_URL")),
        corpus=_corpus(get("CORPUS")) or default_corpus(data_dir),
        results_per_page=_number("RESULTS_PER_PAGE", get("RESULTS_PER_PAGE")),
        log_level=_log_level(get("LOG_LEVEL")),
        webhook_url=_url("WEBHOOK_URL", get("WEBHOOK_URL")),
        webhook_listen=get("WEBHOOK_LISTEN") or DEFAULT_WEBHOOK_LISTEN,
        webhook_port=_number("WEBHOOK_PORT", get("WEBHOOK_PORT")),
        webhook_secret=_webhook_secret(merged.get("WEBHOOK_SECRET")),
        admin_user_ids=_ids("ADMIN_USER_IDS", get("ADMIN_USER_IDS")),
        allowed_chat_ids=_ids("ALLOWED_CHAT_IDS", get("ALLOWED_CHAT_IDS")),
        questions_per_minute=_number("QUESTIONS_PER_MINUTE", get("QUESTIONS_PER_MINUTE")),
        index_cache_dir=_directory("INDEX_CACHE_DIR", get("INDEX_CACHE_DIR")),
        data_dir=data_dir,
        database_url=get("DATABASE_URL"),
        corpus_strict=_flag("CORPUS_STRICT", get("CORPUS_STRICT")),
        corpus_filter=_corpus_filter(get("CORPUS_FILTER")),
        semantic=_semantic(get("SEMANTIC")),
        corpus_name=" ".join((get("CORPUS_NAME") or "").split())[:MAX_CORPUS_NAME_CHARS],
        venue_timezone=_venue_timezone(get("VENUE_TIMEZONE")),
    )


def _venue_timezone(value: str | None) -> str:
    """An IANA zone name (or a UTC offset), checked now: a typo fails at start-up."""
    from bot.corpus import ZoneError, parse_zone

    if not (value or "").strip():
        return ""
    try:
        return parse_zone(value or "")
    except ZoneError as error:
        raise ConfigError("VENUE_TIMEZONE", f"{error}, e.g. Asia/Seoul or Europe/Vienna") from error


def _corpus_filter(value: str | None) -> str:
    """A load filter, checked now so a typo fails at start-up, not mid-load."""
    from bot.corpus import LoadFilter

    try:
        LoadFilter.parse(value or "")
    except ValueError as error:
        raise ConfigError("CORPUS_FILTER", str(error)) from error
    return " ".join((value or "").split())


_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def _flag(setting: str, value: str | None) -> bool:
    """A yes/no setting: 1/true/yes/on or 0/false/no/off (any case); unset is no."""
    if value is None:
        return False
    folded = value.casefold()
    if folded not in _TRUE | _FALSE:
        raise ConfigError(setting, f"expected true or false (1/0, yes/no, on/off), got {value!r}")
    return folded in _TRUE


SEMANTIC_CHOICES = ("auto", "on", "off")


def _semantic(value: str | None) -> bool:
    choice = (value or "auto").lower()
    if choice not in SEMANTIC_CHOICES:
        raise ConfigError("SEMANTIC", f"must be auto, on or off, got {value!r}")
    return choice != "off"  # auto is on: the model's packages are dependencies


def _token(value: str | None) -> str | None:
    if value is None:
        return None
    if not _TOKEN_SHAPE.match(value):
        # The value itself is not repeated: it may be a real secret pasted wrongly.
        raise ConfigError(
            "TELEGRAM_BOT_TOKEN",
            "does not look like a bot token (expected digits, a colon, then letters, "
            "digits, _ or -, as @BotFather gives it)",
        )
    return value


# URL settings: (the shape a value must have, what the error says it must be).
_URLS = {
    "TELEGRAM_API_BASE_URL": (
        r"^https?://[^\s/]+",
        "an http:// or https:// URL such as https://api.telegram.org/bot",
    ),
    "WEBHOOK_URL": (
        r"^https://[^\s/?#]+(/[^\s?#]*)?$",
        "a public https:// URL without query, such as https://bot.example.org/telegram",
    ),
}


def _url(setting: str, value: str | None) -> str | None:
    """`value` if it has the setting's shape (None when unset); else ConfigError."""
    shape, expected = _URLS[setting]
    if value is not None and not re.match(shape, value):
        raise ConfigError(setting, f"must be {expected}, got {value!r}")
    return value


def _base_url(value: str | None) -> str | None:
    url = _url("TELEGRAM_API_BASE_URL", value)
    return url.rstrip("/") if url else None


def default_corpus(data_dir: Path) -> tuple[Path, ...]:
    """What an unset CORPUS serves: what `fetch` saved in DATA_DIR, else the bundled copy."""
    folder = data_dir / PROGRAMME_FOLDER
    try:
        fetched = any(not f.name.startswith(".") and f.is_file() for f in folder.iterdir())
    except OSError:  # no such folder (nothing fetched), or unreadable: the bundled copy
        fetched = False
    return (folder,) if fetched else (DEFAULT_CORPUS,)


def _corpus(value: str | None) -> tuple[Path, ...]:
    """CORPUS's paths; () when unset (then `default_corpus`)."""
    if value is None:
        return ()
    paths = tuple(Path(part).expanduser() for part in value.split(os.pathsep) if part.strip())
    for path in paths:
        if not path.exists():
            raise ConfigError("CORPUS", f"{path}: no such file or directory")
    return paths


# Whole-number settings: (default when unset, lowest, highest).
_NUMBERS = {
    "RESULTS_PER_PAGE": (DEFAULT_RESULTS_PER_PAGE, MIN_RESULTS_PER_PAGE, MAX_RESULTS_PER_PAGE),
    "WEBHOOK_PORT": (DEFAULT_WEBHOOK_PORT, 1, 65535),
    "QUESTIONS_PER_MINUTE": (DEFAULT_QUESTIONS_PER_MINUTE, 1, MAX_QUESTIONS_PER_MINUTE),
}


def _number(setting: str, value: str | None) -> int:
    """`value` as a whole number in the setting's range (its default when unset)."""
    default, low, high = _NUMBERS[setting]
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        number = None
    if number is None or not low <= number <= high:
        kind = "a port number" if setting == "WEBHOOK_PORT" else "a whole number"
        raise ConfigError(setting, f"must be {kind} from {low} to {high}, got {value!r}")
    return number


def _log_level(value: str | None) -> str:
    if value is None:
        return DEFAULT_LOG_LEVEL
    level = value.upper()
    if level not in LOG_LEVELS:
        raise ConfigError("LOG_LEVEL", f"must be one of {', '.join(LOG_LEVELS)}, got {value!r}")
    return level


# Telegram's rule for setWebhook's secret_token.
_WEBHOOK_SECRET_SHAPE = re.compile(r"^[A-Za-z0-9_-]{1,256}$")


def _webhook_secret(value: str | None) -> str | None:
    if value is None or value == "":
        return None
    if not _WEBHOOK_SECRET_SHAPE.match(value):
        # Never echoed: it is a secret.
        raise ConfigError("WEBHOOK_SECRET", "must be 1 to 256 characters of A-Z, a-z, 0-9, _ and -")
    return value


def _ids(setting: str, value: str | None) -> frozenset[int]:
    if value is None:
        return frozenset()
    ids: set[int] = set()
    for part in value.split(","):
        part = part.strip()
        if not part:
            continue
        if not re.match(r"^-?\d{1,20}$", part):
            raise ConfigError(
                setting, f"must be Telegram ids separated by commas, got {part!r} in the list"
            )
        ids.add(int(part))
    return frozenset(ids)


def _directory(setting: str, value: str | None) -> Path | None:
    if value is None:
        return None
    path = Path(value).expanduser()
    if path.exists() and not path.is_dir():
        raise ConfigError(setting, f"not a directory: {path}")
    return path
