"""A load filter on a multi-GB arXiv snapshot: peak memory and time, against references.

Writes a deterministic synthetic arXiv-metadata-snapshot-shaped JSON Lines file (the real
snapshot's fields: id, submitter, authors, title, comments, journal-ref, doi, categories,
abstract, versions, update_date, authors_parsed; under its real `.json` name) of
`--gigabytes` into /tmp, where about 1% of the records are cs.LG papers updated in 2025,
and a small file of just those records. Then, each in a fresh process (`nice -n 5`):

- baseline: `import bot.corpus` and nothing else (the RSS every load starts from);
- scan: read the snapshot line by line, nothing parsed (the I/O floor of any load);
- filtered: `load_corpus([snapshot], keep=LoadFilter.parse("categories:cs.LG year:2025"))`;
- slice: `load_corpus([the small file])`: the same papers without the gigabytes around them.

Memory is bounded by what is kept when filtered's peak RSS is close to slice's. Both files
are deleted afterwards (`--keep-files` keeps them for another run).

    UV_PYTHON_DOWNLOADS=never uv run python -m benchmarks.corpus_filter
    ... -m benchmarks.corpus_filter --gigabytes 0.2 --repeat 3      # a quick look
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FILTER = "categories:cs.LG year:2025"
WORDS = ("model", "learning", "network", "data", "training", "graph", "optimal", "bound",
         "sample", "kernel", "policy", "reward", "attention", "sparse", "robust", "noise",
         "gradient", "convex", "transformer", "language", "vision", "causal", "inference",
         "estimator", "regret", "diffusion", "latent", "prior", "posterior", "variance",
         "benchmark", "token", "retrieval", "memory", "agent", "theorem", "proof", "we",
         "show", "propose", "method", "results", "improves", "the", "of", "and", "a", "in",
         "for", "on", "with", "that", "is", "are", "our", "this")  # fmt: skip
OTHER_CATEGORIES = ("cs.CV", "cs.CL", "cs.AI", "stat.ML", "math.OC", "cs.IR", "cs.NE",
                    "cs.RO", "quant-ph", "hep-th", "math.PR", "cs.CR", "cs.DS",
                    "physics.comp-ph")  # fmt: skip
P_LG, P_2025 = 0.2, 0.05  # independent: 1% of the records match
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

CHILD = {
    "baseline": "import bot.corpus",
    "scan": "n = sum(1 for _ in open(PATH, 'rb'))",
    "filtered": "from bot.corpus import LoadFilter, load_corpus\n"
    "n = len(load_corpus([PATH], keep=LoadFilter.parse(FILTER), progress=lambda _: None).papers)",
    "slice": "from bot.corpus import load_corpus\nn = len(load_corpus([PATH]).papers)",
}
_RUN = """
import json, sys, time
PATH, FILTER = sys.argv[1], sys.argv[2]
started = time.perf_counter()
n = 0
{body}
seconds = time.perf_counter() - started
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the forking parent across execve.
hwm = next(l for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(json.dumps({{"seconds": seconds, "n": n, "rss_mb": int(hwm.split()[1]) / 1024}}))
"""


def _record(rng: random.Random, number: int) -> tuple[dict[str, object], bool]:
    """One snapshot-shaped record, and whether it matches FILTER."""
    lg = rng.random() < P_LG
    year = 2025 if rng.random() < P_2025 else rng.randint(2008, 2024)
    categories = rng.sample(OTHER_CATEGORIES, rng.randint(1, 3))
    if lg:
        categories.insert(rng.randint(0, len(categories)), "cs.LG")
    surnames = [f"Author{rng.randint(1, 50_000)}" for _ in range(rng.randint(1, 6))]
    abstract = " ".join(rng.choices(WORDS, k=rng.randint(120, 220)))
    created = year - rng.randint(0, 2)
    block = number // 100_000  # a "month" of 100,000 submissions: ids never repeat
    record = {
        "id": f"{7 + block // 12:02d}{block % 12 + 1:02d}.{number % 100_000:05d}",  # unique
        "submitter": f"Submitter {surnames[0]}",
        "authors": ", ".join(f"{chr(65 + i % 26)}. {s}" for i, s in enumerate(surnames)),
        "title": " ".join(rng.choices(WORDS, k=rng.randint(6, 14))).capitalize(),
        "comments": f"{rng.randint(5, 40)} pages, {rng.randint(1, 12)} figures",
        "journal-ref": None,
        "doi": None,
        "report-no": None,
        "categories": " ".join(categories),
        "license": "http://arxiv.org/licenses/nonexclusive-distrib/1.0/",
        "abstract": "  " + abstract + ".\n",
        "versions": [
            {
                "version": "v1",
                "created": f"Mon, {rng.randint(1, 28)} {rng.choice(MONTHS)} {created} 10:00:00 GMT",
            }
        ],
        "update_date": f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        "authors_parsed": [[s, chr(65 + i % 26) + ".", ""] for i, s in enumerate(surnames)],
    }
    return record, lg and year == 2025


def generate(snapshot: Path, kept: Path, gigabytes: float) -> tuple[int, int]:
    """Write both files (deterministic); (records, matching records)."""
    rng = random.Random(19)
    target = int(gigabytes * 1e9)
    written = records = matching = 0
    with snapshot.open("w", encoding="utf-8") as out, kept.open("w", encoding="utf-8") as small:
        while written < target:
            chunk = []
            for _ in range(10_000):
                record, match = _record(rng, records)
                line = json.dumps(record) + "\n"
                chunk.append(line)
                records += 1
                if match:
                    matching += 1
                    small.write(line)
            text = "".join(chunk)
            out.write(text)
            written += len(text)
    return records, matching


def run(kind: str, path: Path) -> dict[str, float]:
    """One measurement in a fresh, niced process."""
    code = _RUN.format(body=CHILD[kind])
    done = subprocess.run(
        ["nice", "-n", "5", sys.executable, "-c", code, str(path), FILTER],
        cwd=REPO, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--gigabytes", type=float, default=2.0)
    parser.add_argument("--repeat", type=int, default=1, help="runs of each (medians)")
    parser.add_argument("--dir", type=Path, default=Path("/tmp"))
    parser.add_argument("--keep-files", action="store_true")
    args = parser.parse_args(argv)
    snapshot = args.dir / f"arxiv-metadata-oai-snapshot-synthetic-{args.gigabytes:g}g.json"
    kept = snapshot.with_name(snapshot.stem + "-slice.jsonl")
    try:
        started = time.perf_counter()
        if not (args.keep_files and snapshot.exists() and kept.exists()):
            records, matching = generate(snapshot, kept, args.gigabytes)
        else:
            records = sum(1 for _ in snapshot.open("rb"))
            matching = sum(1 for _ in kept.open("rb"))
        size = snapshot.stat().st_size
        print(f"snapshot: {size / 1e9:.2f} GB, {records:,} records, {matching:,} match "
              f"{FILTER!r} ({100 * matching / records:.2f}%); written in "
              f"{time.perf_counter() - started:.0f} s")  # fmt: skip
        results: dict[str, list[dict[str, float]]] = {k: [] for k in CHILD}
        for _ in range(args.repeat):
            for kind in CHILD:
                results[kind].append(run(kind, kept if kind == "slice" else snapshot))
        counts = {r["n"] for r in results["filtered"] + results["slice"]}
        if counts != {matching}:  # every matching record, once: nothing lost, nothing merged
            raise SystemExit(f"loaded {sorted(counts)} papers, expected {matching:,}")
        median = {k: {m: statistics.median(r[m] for r in v) for m in ("seconds", "rss_mb")}
                  for k, v in results.items()}  # fmt: skip
        base = median["baseline"]["rss_mb"]
        print(f"\n| run (median of {args.repeat}) | time s | peak RSS MB | RSS over import MB |")
        print("|---|---|---|---|")
        for kind, m in median.items():
            print(f"| {kind} | {m['seconds']:.1f} | {m['rss_mb']:.0f} | {m['rss_mb'] - base:.0f} |")
        f, s = median["filtered"], median["scan"]
        print(f"\nfiltered / scan time: {f['seconds'] / s['seconds']:.2f}x; "
              f"{size / 1e6 / f['seconds']:.0f} MB/s; filtered RSS over import "
              f"{f['rss_mb'] - base:.0f} MB vs the slice alone "
              f"{median['slice']['rss_mb'] - base:.0f} MB")  # fmt: skip
    finally:
        if not args.keep_files:
            snapshot.unlink(missing_ok=True)
            kept.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
