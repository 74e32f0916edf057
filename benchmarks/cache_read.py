"""Reading the index cache three ways: what making it safe from `cp` costs at start-up.

Issue 22: a memory-mapped cache file truncated under the bot (`cp` over it) killed it with
SIGBUS, and bytes changed in place changed answers. The options, each in a fresh process
on the same cache file (medians of `--repeat` runs, interleaved):

- `shared-map`: the old read: checksum by reads, then map the file itself (the reference);
- `private-copy`: what `read_state` does now: copy into an unlinked file beside the cache
  (`copy_file_range`), checksum and map the copy (`bot/search/storage/private_copy.py`);
- `private-memory`: read the whole file into the process's memory, checksum it there.

Reported: seconds to a checked, mapped state and the process's resident memory after it.

    UV_PYTHON_DOWNLOADS=never uv run python benchmarks/cache_read.py --papers 100000
"""

from __future__ import annotations

import argparse
import json
import mmap
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
for path in (str(REPO), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

WAYS = ("shared-map", "private-copy", "private-memory")


def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _worker(way: str, cache: Path) -> dict[str, float]:
    import numpy as np

    from bot.search.storage import cache_file

    with open(cache, "rb") as data:
        data.read(len(cache_file.MAGIC))
        header = json.loads(data.read(int.from_bytes(data.read(8), "little")))
    before = _rss_mb()
    started = time.perf_counter()
    if way == "private-copy":
        state = cache_file.read_state(
            cache, key=header["key"], analyzer=header["analyzer"], version=header["format"]
        )
        assert state
    elif way == "shared-map":
        with open(cache, "rb") as data:
            crc, buffer = 0, bytearray(1 << 20)
            view = memoryview(buffer)
            while n := data.readinto(view):
                crc = zlib.crc32(view[:n], crc)
            mapped = mmap.mmap(data.fileno(), 0, access=mmap.ACCESS_READ)
            assert np.frombuffer(mapped, dtype=np.uint8).size
    else:
        memory = bytearray(cache.stat().st_size)
        with open(cache, "rb") as data:
            data.readinto(memory)
        zlib.crc32(memory)
        assert np.frombuffer(memory, dtype=np.uint8).size
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "rss_mb": _rss_mb() - before}


def _cache_for(papers: int, directory: Path) -> Path:
    from scale import corpus_file

    from bot.loading import load_index

    load_index([corpus_file(papers)], directory)
    return next(directory.glob("index-*.idx"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cache-dir", type=Path, help="keep (and reuse) the cache here")
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(_worker(args.worker[0], Path(args.worker[1]))))
        return
    directory = args.cache_dir or Path(tempfile.mkdtemp(prefix="cache-read-"))
    found = sorted(directory.glob("index-*.idx"))
    cache = found[0] if found else _cache_for(args.papers, directory)
    runs: dict[str, list[dict[str, float]]] = {way: [] for way in WAYS}
    for _ in range(args.repeat):
        for way in WAYS:
            out = subprocess.run(
                [sys.executable, __file__, "--worker", way, str(cache)],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            runs[way].append(json.loads(out.splitlines()[-1]))
    reference = statistics.median(r["seconds"] for r in runs["shared-map"])
    print(f"cache file {cache.stat().st_size / 1e6:.0f} MB, {args.repeat} runs each")
    print("| way | median s | × shared-map | runs s | RSS after, MB |")
    print("|---|---:|---:|---|---:|")
    for way in WAYS:
        seconds = [r["seconds"] for r in runs[way]]
        median = statistics.median(seconds)
        rss = statistics.median(r["rss_mb"] for r in runs[way])
        shown = ", ".join(f"{s:.2f}" for s in seconds)
        print(f"| {way} | {median:.2f} | {median / reference:.2f} | {shown} | {rss:.0f} |")


if __name__ == "__main__":
    main()
