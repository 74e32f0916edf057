"""`python -m bot fetch` against the stand-in site (`testkit.programme_server`), each run a
fresh process: its exit code, wall time and peak memory, and its last lines on stderr.

Peak memory is GNU time's `%M` (max RSS) of the fetch: not `os.wait4`'s, which on Linux
also counts this process's own high-water mark (the child is vforked from it before exec).

- `real`: the real ICML 2026 feed (`shared/icml2026/`, 6,796 events, 10.4 MB, and its 8.8 MB
  abstracts sidecar) served in pages of 1,000.
- the hostile servers: `bomb` (a 2 MB gzip body inflating to 2 GB), `endless` (a chunked body
  that never ends), `drip` (one byte every 20 s, or every `--drip` s), `pages` (`count`
  1,000,000,000, `next` for ever), `next` (the real `count`, `next` for ever).

`--tree DIR` runs another checkout's `fetch` (e.g. `git archive 7a7ae0c | tar -x -C DIR`);
the server is always this tree's.

    uv run python -m benchmarks.fetch real --repeat 5
    uv run python -m benchmarks.fetch real --repeat 5 --tree /tmp/main-7a7ae0c
    uv run python -m benchmarks.fetch bomb endless pages next
    uv run python -m benchmarks.fetch drip --timeout 30 [--drip 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

from testkit.botenv import REPO_ROOT, bot_env
from testkit.devset import ICML2026
from testkit.programme_server import Fault, ProgrammeServer

CASES = ("real", "bomb", "endless", "drip", "pages", "next")
TIME = "/usr/bin/time"  # GNU time (Debian: apt-get install time)


def _serve(server: ProgrammeServer, case: str, drip: float) -> str:
    """`case`'s feed URL, its faults scripted."""
    feed = orjson.loads((ICML2026 / "icml-2026-orals-posters.json").read_bytes())
    sidecar = orjson.loads((ICML2026 / "icml-2026-abstracts.json").read_bytes())
    events = feed["results"]
    options: dict[str, object] = {"page_size": 1000, "sidecar": sidecar}
    if case == "pages":
        options |= {"count": 1_000_000_000, "endless": True}
    if case == "next":
        options |= {"endless": True}
    url = server.add_feed(events, **options)  # type: ignore[arg-type]
    faults = {"bomb": Fault.bomb(2_000_000_000), "endless": Fault.endless(),
              "drip": Fault.drip(drip)}  # fmt: skip
    if case in faults:
        server.fail(server.feed_path(), faults[case], times=100, page="2")
    return url


def _run(tree: Path, argv: list[str], stderr_path: Path) -> tuple[int, float, float]:
    """(exit code, wall s, peak MB) of `python -m bot fetch ARGV` run from `tree`."""
    env = bot_env(PYTHONPATH=str(tree))
    peak = stderr_path.with_suffix(".rss")
    command = [TIME, "-o", str(peak), "-f", "%M", sys.executable, "-m", "bot", "fetch", *argv]
    with open(stderr_path, "wb") as stderr:
        started = time.perf_counter()
        done = subprocess.run(command, cwd=tree, env=env, stdout=subprocess.DEVNULL,
                              stderr=stderr, check=False)  # fmt: skip
        wall = time.perf_counter() - started
    return done.returncode, wall, int(peak.read_text().split()[-1]) / 1024


def _case(case: str, tree: Path, extra: list[str], repeat: int, scratch: Path, drip: float) -> None:
    runs = []
    with ProgrammeServer() as server:
        url = _serve(server, case, drip)
        for n in range(repeat):
            out = scratch / f"{case}-{n}"
            out.mkdir()
            (out / "icml-2026-orals-posters.json").write_bytes(b'{"previous": "download"}')
            before = {p.name: p.read_bytes() for p in out.iterdir()}
            log = scratch / f"{case}-{n}.err"
            runs.append(_run(tree, [url, "--out", str(out), *extra], log))
            kept = {p.name: p.read_bytes() for p in out.iterdir()} == before
            last = log.read_text("utf-8").strip().splitlines()[-2:]
            code, wall, peak = runs[-1]
            print(f"  {case} run {n + 1}: exit {code}, {wall:.2f} s, {peak:.0f} MB, "
                  f"previous copy {'kept' if kept else 'replaced'}", flush=True)  # fmt: skip
            print("    " + "\n    ".join(last), flush=True)
    walls, peaks = [r[1] for r in runs], [r[2] for r in runs]
    print(f"{case}: median {statistics.median(walls):.2f} s (max {max(walls):.2f}), peak "
          f"memory median {statistics.median(peaks):.0f} MB (max {max(peaks):.0f})")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Run each case `--repeat` times; print each run and the medians."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="+", choices=CASES)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--drip", type=float, default=20.0, help="seconds between drips")
    parser.add_argument("--tree", type=Path, default=REPO_ROOT, help="the checkout to run")
    args, extra = parser.parse_known_args(argv)  # the rest are fetch's own options
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
          f"fetch from {args.tree}", flush=True)  # fmt: skip
    with tempfile.TemporaryDirectory() as scratch:
        for case in args.cases:
            _case(case, args.tree.resolve(), extra, args.repeat, Path(scratch), args.drip)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
