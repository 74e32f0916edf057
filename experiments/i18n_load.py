"""Catalogue loading cost at start-up: committed .mo files vs compiling the .po files in memory.

Each repeat runs a fresh Python process that first (untimed) imports what the bot imports
anyway (`telegram.ext`, `bot.render`), then times with `time.perf_counter` one way of
getting a ready translator for every language and one lookup in each:

- mo: `import bot.i18n` and `translator(lang)`: the standard library reads the committed
  bot.mo files (what the bot does);
- po: import babel, `read_po` + `write_mo` into memory per language, then the standard
  library reads those bytes (the alternative of compiling at start);
- import-only: `import bot.i18n` without loading a catalogue.

    UV_PYTHON_DOWNLOADS=never uv run python -m experiments.i18n_load            # 21 repeats
    UV_PYTHON_DOWNLOADS=never uv run python -m experiments.i18n_load --repeat 51

Prints the median and the interquartile range per way, in milliseconds, twice: with
Python as this environment runs it (PYTHONDONTWRITEBYTECODE=1: our modules are compiled
from source at every start) and with bytecode caches (a temporary PYTHONPYCACHEPREFIX,
filled by one untimed run).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

_WAYS = {
    "import-only": """
import bot.i18n
""",
    "mo": """
from bot.i18n import LANGUAGES, translator
for lang in LANGUAGES:
    translator(lang).gettext("hint.empty")
""",
    "po": """
import gettext, io
from babel.messages.mofile import write_mo
from bot.i18n import LANGUAGES
from bot.i18n.build import read_catalogue
for lang in LANGUAGES:
    mo = io.BytesIO()
    write_mo(mo, read_catalogue(lang))
    mo.seek(0)
    gettext.GNUTranslations(mo).gettext("hint.empty")
""",
}

_TIMED = """
import time
import telegram.ext, bot.render
start = time.perf_counter()
{body}
print((time.perf_counter() - start) * 1000)
"""


def time_once(way: str, env: dict[str, str]) -> float:
    """Milliseconds one fresh process spends on `way`."""
    code = _TIMED.format(body=_WAYS[way])
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True
    )
    return float(done.stdout.strip().splitlines()[-1])


def report(title: str, env: dict[str, str], repeat: int) -> None:
    """Time every way `repeat` times (interleaved) and print medians."""
    times: dict[str, list[float]] = {way: [] for way in _WAYS}
    for _ in range(repeat):
        for way in _WAYS:  # interleaved, so machine load drifts hit every way alike
            times[way].append(time_once(way, env))
    print(f"{title} ({repeat} processes each)")
    print(f"  {'way':<12} {'median ms':>10} {'IQR ms':>14}")
    for way, samples in times.items():
        q1, _, q3 = statistics.quantiles(samples, n=4)
        print(f"  {way:<12} {statistics.median(samples):>10.2f} {q1:>6.2f}–{q3:<6.2f}")


def main() -> int:
    """Both bytecode settings, every way."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=21, help="fresh processes per way (21)")
    args = parser.parse_args()
    report("as the environment runs Python", dict(os.environ), args.repeat)
    with tempfile.TemporaryDirectory() as prefix:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = prefix
        for way in _WAYS:
            time_once(way, env)  # fills the bytecode cache, untimed
        report("with bytecode caches", env, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
