"""The decomposed estimator against the exact packet engine (docs/decomposed.md, "Accuracy").

Runs each case — a fat-tree (k = 8: 128 hosts, 100 Gbps, DCTCP) under a workload at a load,
all-to-all — through `tailor-sim --engine packet` and `tailor-sim --engine decomposed` on the
same scenario and seed, and prints, for every size bin of the scenario's summary, the p99
slowdown of each and the decomposition's error. Bins with fewer than 100 messages are
printed but marked: a p99 of fewer samples is not a result. Writes every row to a CSV.

    python scripts/decomposed_accuracy.py --until 20ms --csv runs/decomposed_accuracy.csv
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MIN_SAMPLES = 100

SCENARIO = """name = "{name}"
seed = {seed}

[topology]
kind = "fat_tree"
k = {k}
host_link = {{ rate = "100Gbps", delay = "1us" }}
fabric_link = {{ rate = "100Gbps", delay = "1us" }}

[switch]
ecn_threshold = "100KB"
buffer = "shared"
buffer_size = "16MB"
alpha = 1.0

{transport}
[[class]]
name = "{workload}"
sizes = "{workload}"
arrival = "poisson"
load = {load}
pattern = "all_to_all"
until = "{until}"
"""


# The transports measured. Homa runs with FIFO switch ports, the decomposition's scope, so with
# one priority level (the scenario refuses levels that ports would ignore; its grants and
# overcommitment still work), and
# RTTbytes of the fat-tree's round trip at 100 Gbps (about 10 us: 125 KB, rounded down).
TRANSPORTS = {
    "dctcp": """[transport]
kind = "dctcp"
mss = "1448B"
header = "54B"
init_cwnd = 10
""",
    "homa": """[host]
nic_depth = 0

[transport]
kind = "homa"
priority_levels = 1
rtt_bytes = "100000B"
resend_timeout = "off"
""",
}


def run(sim: Path, scenario: Path, engine: str, out: Path) -> tuple[dict, float]:
    """One engine's summary of `scenario` and its wall time (s)."""
    t = time.monotonic()
    subprocess.run(
        [str(sim), str(scenario), "--engine", engine, "--out", str(out)], check=True, stdout=subprocess.DEVNULL
    )
    wall = time.monotonic() - t
    return json.loads((out / "summary.json").read_text()), wall


def exact_run(args: argparse.Namespace, sc: Path, tmp: Path) -> tuple[dict, float]:
    """The packet engine's summary of `sc` and its wall time, from `--exact-dir` when it holds
    a run of the same scenario text."""
    if args.exact_dir is None:
        return run(args.sim, sc, "packet", tmp / f"{sc.stem}-packet")
    keep = args.exact_dir / sc.stem
    if keep.joinpath("scenario.toml").exists() and keep.joinpath("scenario.toml").read_text() == sc.read_text():
        meta = json.loads(keep.joinpath("wall.json").read_text())
        return json.loads((keep / "summary.json").read_text()), meta["seconds"]
    summary, wall = run(args.sim, sc, "packet", keep)
    keep.joinpath("scenario.toml").write_text(sc.read_text())
    keep.joinpath("wall.json").write_text(json.dumps({"seconds": wall}))
    return summary, wall


def rows(case: dict, exact: dict, est: dict) -> list[dict]:
    """One row per size bin of the overall summary."""
    out = []
    for e, d in zip(exact["overall"]["bins"], est["overall"]["bins"], strict=True):
        assert (e["lower_bytes"], e["upper_bytes"]) == (d["lower_bytes"], d["upper_bytes"])
        err = (d["p99"] - e["p99"]) / e["p99"] if e["count"] else float("nan")
        out.append(
            {
                **case,
                "lower_bytes": e["lower_bytes"],
                "upper_bytes": e["upper_bytes"],
                "count": e["count"],
                "exact_p99": e["p99"],
                "decomposed_p99": d["p99"],
                "error": err,
                "enough": e["count"] >= MIN_SAMPLES,
            }
        )
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sim", type=Path, default=ROOT / "target" / "release" / "tailor-sim")
    ap.add_argument("--k", type=int, default=8)
    ap.add_argument("--workloads", nargs="+", default=["websearch", "hadoop"])
    ap.add_argument("--loads", nargs="+", type=float, default=[0.3, 0.6])
    ap.add_argument("--until", default="20ms", help="arrivals end (each class's until)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--transport", choices=sorted(TRANSPORTS), default="dctcp")
    ap.add_argument("--csv", type=Path, default=Path("decomposed_accuracy.csv"))
    ap.add_argument(
        "--exact-dir",
        type=Path,
        help="keep the packet engine's runs here and reuse one whose scenario is byte-identical "
        "(the packet engine's result depends on the scenario and the build only)",
    )
    ap.add_argument("--only", choices=["packet", "decomposed"], help="run one engine only (with --exact-dir)")
    args = ap.parse_args()
    if not args.sim.exists():
        print(f"error: {args.sim}: no tailor-sim (cargo build --release -p tailor)", file=sys.stderr)
        return 2
    table: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        for workload in args.workloads:
            for load in args.loads:
                tag = "" if args.transport == "dctcp" else f"-{args.transport}"
                name = f"ft{args.k}{tag}-{workload}-{int(load * 100)}"
                sc = Path(tmp) / f"{name}.toml"
                sc.write_text(
                    SCENARIO.format(
                        name=name,
                        seed=args.seed,
                        k=args.k,
                        workload=workload,
                        load=load,
                        until=args.until,
                        transport=TRANSPORTS[args.transport],
                    )
                )
                exact, t_exact = exact_run(args, sc, Path(tmp))
                if args.only == "packet":
                    continue
                est, t_est = run(args.sim, sc, "decomposed", Path(tmp) / f"{name}-decomposed")
                case = {"transport": args.transport, "workload": workload, "load": load, "hosts": args.k**3 // 4}
                print(
                    f"\n{name}: {exact['messages']['generated']} messages; packet {t_exact:.1f} s, "
                    f"decomposed {t_est:.1f} s ({est['decomposed']['links']} links)"
                )
                print(f"{'bin (bytes)':>22} {'n':>6} {'exact p99':>10} {'decomp p99':>11} {'error':>8}")
                for r in rows(case, exact, est):
                    table.append({**r, "packet_seconds": t_exact, "decomposed_seconds": t_est})
                    mark = "" if r["enough"] else "  (< 100 samples)"
                    print(
                        f"{r['lower_bytes']:>10}-{r['upper_bytes']:<11} {r['count']:>6} {r['exact_p99']:>10.3f} "
                        f"{r['decomposed_p99']:>11.3f} {r['error']:>+8.1%}{mark}"
                    )
    if not table:
        return 0
    args.csv.parent.mkdir(parents=True, exist_ok=True)
    with args.csv.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(table[0]))
        w.writeheader()
        w.writerows(table)
    print(f"\nwrote {args.csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
