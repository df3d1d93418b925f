"""`make validate`: tailor against ns-3 on the same flows, for every anchor run.

Cross-checks (`tailor crosscheck ns3`) the runs handed over with the anchors in
anchors/, then runs that are not: made here with the anchors' own run.sh at other
loads, seeds, arrival processes, thresholds and flow counts (kept in target/ns3/ and
reused). Prints one line per run and the per-bin tables; exit status 1 if any run misses
the target (every bin of >= 100 flows: mean within 10 %, p99 within 15 %). Then the fast
model against the packet engine (scripts/model_accuracy.py; skip with --no-model).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ns3  # noqa: E402

HANDED_OVER = [
    ("ns3", "lognormal-0.6-2000-s1"),
    ("ns3-leafspine", "hadoop-0.5-20000-s1"),
    ("ns3-leafspine", "websearch-0.3-3000-s1"),
]

# Held-out runs made with the anchors' run.sh: (anchor, result name, run.sh arguments).
NEW = [
    ("ns3", "lognormal-0.3-2000-s2", ["--flows", "2000", "--load", "0.3", "--seed", "2"]),
    (
        "ns3",
        "poisson-0.6-1500-s3-K65000",
        ["--flows", "1500", "--load", "0.6", "--arrival", "poisson", "--seed", "3", "--", "--K=65000"],
    ),
    (
        "ns3",
        "lognormal-0.6-1500-s4-cwnd200",
        ["--flows", "1500", "--load", "0.6", "--seed", "4", "--", "--maxCwnd=200"],
    ),
    (
        "ns3-leafspine",
        "hadoop-0.5-4000-s2-K30000",
        [
            "--workload",
            "hadoop",
            "--flows",
            "4000",
            "--load",
            "0.5",
            "--seed",
            "2",
            "--",
            "--kHost=30000",
            "--kCore=120000",
        ],
    ),
]


def make_run(anchor: str, name: str, args: list[str]) -> Path | None:
    if ns3.build(anchor) is None:
        print(f"  skipped {anchor}/{name}: ns-3 (libns3-dev) is not installed", flush=True)
        return None
    d = ns3.BUILD / anchor
    out = d / "results" / name
    if (out / "summary.json").exists() and (out / "flows.csv.gz").exists():
        return out
    split = args.index("--") if "--" in args else len(args)
    cmd = ["bash", "run.sh", *args[:split], "--out", f"results/{name}", *args[split:]]
    print(f"  making {anchor}/{name} with ns-3: {' '.join(cmd[1:])}", flush=True)
    subprocess.run(cmd, cwd=d, check=True, capture_output=True)
    for f in ("flows.csv", "workload.csv"):
        subprocess.run(["gzip", "-f", str(out / f)], check=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--handed-over-only", action="store_true", help="skip the runs made here with ns-3")
    ap.add_argument("--json", type=Path, help="write every comparison here")
    ap.add_argument("--no-model", action="store_true", help="skip the model-vs-packet accuracy table")
    ap.add_argument(
        "--prr",
        default="ns3",
        choices=["ns3", "rfc6937"],
        help="DCTCP reduction pacing in tailor: as ns-3 does it (default) or tailor's RFC 6937 default",
    )
    args = ap.parse_args()
    from rich.console import Console
    from tailor.crosscheck import crosscheck_ns3, render

    console = Console(width=110)
    runs = [ns3.ANCHORS / a / "results" / r for a, r in HANDED_OVER]
    if not args.handed_over_only:
        runs += [p for p in (make_run(*n) for n in NEW) if p is not None]
    reports = []
    for run in runs:
        report = crosscheck_ns3(run, prr=args.prr)
        render(report, console)
        reports.append(report)
    console.print("\n[b]summary[/b]")
    for r in reports:
        worst_mean = max(abs(b["mean_ratio"] - 1) for b in r["bins"] if b["judged"])
        worst_p99 = max(abs(b["p99_ratio"] - 1) for b in r["bins"] if b["judged"])
        console.print(
            f"  {'PASS' if r['pass'] else 'FAIL'}  {r['run_dir']}: worst judged bin mean {worst_mean:.1%}, p99 {worst_p99:.1%}"
            + ("" if r["pass"] else f"; misses: {', '.join(r['misses'])}")
        )
    if args.json:
        args.json.write_text(json.dumps(reports, indent=2))
    ok = all(r["pass"] for r in reports)
    if not args.no_model:
        import model_accuracy

        console.print("\n[b]the fast model against the packet engine[/b]")
        ok = model_accuracy.main([]) == 0 and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
