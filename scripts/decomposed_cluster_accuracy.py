"""What link clustering costs the decomposition (docs/decomposed.md, "Clustering").

Runs the decomposed estimator on the same scenario and seed with `[decomposed] cluster`
off and at a tolerance, through `tailor-sim`, and prints for every size bin of the
scenario's summary the p99 slowdown of each, their difference, and the links simulated and
wall time of each. Cases: the k = 8 fat-tree of scripts/decomposed_accuracy.py under its
workloads and loads, or a scenario file (`--scenario`; its own `[decomposed]` table is
replaced). Bins of fewer than 100 messages are marked: a p99 of fewer is not a result.

    python scripts/decomposed_cluster_accuracy.py --until 10ms --cluster 0.2
    python scripts/decomposed_cluster_accuracy.py --scenario scenarios/scale/fattree-1024.toml --cluster 0.2
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from decomposed_accuracy import MIN_SAMPLES, ROOT, SCENARIO  # noqa: E402


def decomposed(sim: Path, text: str, cluster: str, work: Path) -> tuple[dict, float]:
    """The decomposed summary of scenario `text` with `cluster`, and its wall time (s)."""
    text = re.sub(r"(?ms)^\[decomposed\]\n.*?(?=^\[|\Z)", "", text)
    path = work / f"c{cluster}.toml"
    path.write_text(f"{text.rstrip()}\n\n[decomposed]\ncluster = {cluster}\n")
    t = time.monotonic()
    out = subprocess.run(
        [str(sim), str(path), "--engine", "decomposed"], capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out), time.monotonic() - t


def label(b: int) -> str:
    for unit, d in (("M", 1_000_000), ("K", 1_000)):
        if b >= d:
            return f"{b / d:g} {unit}"
    return str(b)


def table(name: str, off: tuple[dict, float], on: tuple[dict, float]) -> None:
    (a, ta), (b, tb) = off, on
    da, db = a["decomposed"], b["decomposed"]
    print(f"\n{name}: unclustered {da['links']:,} links simulated, {a['events']:,} events, {ta:.1f} s;", end=" ")
    print(f"clustered {db['links']:,} simulated + {db['clustered']:,} clustered, {b['events']:,} events, {tb:.1f} s")
    print("| bin (bytes) | messages | unclustered p99 | clustered p99 | difference |")
    print("|---|---:|---:|---:|---:|")
    for x, y in zip(a["overall"]["bins"], b["overall"]["bins"], strict=True):
        if x["count"] == 0:
            continue
        few = "" if x["count"] >= MIN_SAMPLES else " (fewer than 100: not a result)"
        diff = 100 * (y["p99"] / x["p99"] - 1)
        print(f"| {label(x['lower_bytes'])}–{label(x['upper_bytes'])} | {x['count']:,}{few} | ", end="")
        print(f"{x['p99']:.3f} | {y['p99']:.3f} | {diff:+.1f} % |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sim", type=Path, default=ROOT / "target" / "release" / "tailor-sim")
    ap.add_argument("--cluster", default="0.2", help="the tolerance compared with no clustering")
    ap.add_argument("--scenario", type=Path, help="a scenario file instead of the k = 8 cases")
    ap.add_argument("--k", type=int, default=8)
    ap.add_argument("--workloads", nargs="+", default=["websearch", "hadoop"])
    ap.add_argument("--loads", nargs="+", type=float, default=[0.3, 0.6])
    ap.add_argument("--until", default="10ms", help="arrivals end (each class's until)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.scenario is not None:
        cases = {args.scenario.name: args.scenario.read_text()}
    else:
        cases = {
            f"k = {args.k}, {w} {load:.0%}": SCENARIO.format(
                name=f"{w}-{load}", seed=args.seed, k=args.k, workload=w, load=load, until=args.until
            )
            for w in args.workloads
            for load in args.loads
        }
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in cases.items():
            off = decomposed(args.sim, text, '"off"', Path(tmp))
            on = decomposed(args.sim, text, args.cluster, Path(tmp))
            table(name, off, on)
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
