"""The fast model against the packet engine (SWP §5.1, Fig. 6-7): the accuracy table.

Runs `tailor compare` on a set of scenarios and prints, per size bin, both engines' mean
and p99 slowdown and the model's error, judged against the targets (short flows: p99
within 10 %; long flows: mean within 10 %; bins of >= 100 flows), then a score per run
and for the set (docs/model.md, "Recalibration (issue 25)"). Exit status 1 if a run misses.

Sets (`--set`):
- `accuracy` (default; `make validate`, scripts/validate.py): web search (10,000 flows)
  and Google W3 (100,000 flows) at 30 % and 60 % load, DCTCP / SWP-D and HPCC / SWP-H.
  About a minute (the packet engine takes ~11 s per web-search run).
- `heldout`: the runs the recalibration of issue 25 scores on and never fits on — the
  four DCTCP accuracy runs and two high-utilization slow-link Hadoop runs.
- `calibration`: the runs it fits on (scenarios/swp/calibration/: varied load, link rate,
  workload, K, senders, and the reproduction's multi-class draws).

`--packet-cache DIR` keeps each packet run in DIR/RUN and reuses it while the scenario
file and seed are unchanged, so a model form is scored in seconds.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "scenarios" / "swp"
SETS = {
    "accuracy": [
        "accuracy-websearch-30",
        "accuracy-websearch-60",
        "accuracy-google-30",
        "accuracy-google-60",
        # The same traffic over HPCC (eta 0.9), which the model runs as SWP-H.
        "accuracy-hpcc-websearch-30",
        "accuracy-hpcc-websearch-60",
        "accuracy-hpcc-google-30",
        "accuracy-hpcc-google-60",
    ],
    "heldout": [
        "accuracy-websearch-30",
        "accuracy-websearch-60",
        "accuracy-google-30",
        "accuracy-google-60",
        "accuracy-hadoop-25g-85",
        "accuracy-hadoop-25g-85-k25",
    ],
    "calibration": sorted(f"calibration/{p.stem}" for p in (SCENARIOS / "calibration").glob("*.toml")),
}
#: The error a judged bin may have (compare.py's targets), for the score's "within".
TOLERANCE = 0.10


def packet_result(sc, name: str, cache: Path | None):
    """The packet engine's run of ``sc``: from ``cache`` when its key (the scenario file's
    bytes and the seed) matches, else run (and stored there)."""
    from tailor.result import Result
    from tailor.run import run as run_scenario

    if cache is None:
        return None
    key = hashlib.sha256(Path(sc.path).read_bytes() + f"/seed {sc.seed}".encode()).hexdigest()
    where, stamp = cache / name, cache / f"{name}.key"
    if where.is_dir() and stamp.exists() and stamp.read_text() == key:
        return Result(where)
    if where.exists():
        shutil.rmtree(where)
    where.parent.mkdir(parents=True, exist_ok=True)
    result = run_scenario(sc, out=where, engine="packet")
    stamp.write_text(key)
    return result


def compare_cached(sc, name: str, cache: Path | None, out: Path | None):
    """`tailor compare` of ``sc``, the packet run from the cache when there is one."""
    import tempfile

    from tailor.compare import compare, compare_results
    from tailor.run import run as run_scenario

    packet = packet_result(sc, name, cache)
    if packet is None:
        report = compare(sc, out=out)
        report["queues"] = None
        return report
    work = out if out is not None else Path(tempfile.mkdtemp(prefix="tailor-accuracy-"))
    try:
        model = run_scenario(sc, out=work / "model", engine="model")
        report = compare_results(packet, model)
        report["queues"] = {
            e: r.summary["network"]["mean_queue_bytes"] for e, r in (("packet", packet), ("model", model))
        }
        return report
    finally:
        if out is None:
            shutil.rmtree(work, ignore_errors=True)


def score(report: dict) -> dict:
    """A run's score over its judged bins (every class; not the "all" of several): how
    many judged errors are within 10 %, the short bins' p99 errors, the mean |error|, and
    the mean bottleneck queue's error."""
    errors, short = [], []
    for name, c in report["classes"].items():
        if name == "all":
            continue
        for b in c["bins"]:
            for key in b["judged"]:
                err = b[f"{key}_error"]
                errors.append(err)
                if key == "p99":
                    short.append(err)
    queue = report["queues"] or {"packet": 0.0, "model": 0.0}
    return {
        "judged": len(errors),
        "within": sum(abs(e) <= TOLERANCE for e in errors),
        "mean_abs": statistics.fmean(abs(e) for e in errors) if errors else None,
        "short_p99": (min(short), max(short)) if short else None,
        "worst_short_p99": max((abs(e) for e in short), default=None),
        "queue_error": queue["model"] / queue["packet"] - 1 if queue["packet"] else None,
        "queue_kb": (queue["packet"] / 1e3, queue["model"] / 1e3),
    }


def print_scores(reports: list[dict], console) -> None:
    """One line per run and one for the set (the tables of docs/model.md)."""
    console.print(
        "\n[b]score[/b] (judged errors within 10 % | short-bin p99 error range | mean |error| | mean queue packet → model)"
    )
    judged = within = 0
    abs_sum, worst = 0.0, 0.0
    for r in reports:
        s = r["score"]
        judged, within = judged + s["judged"], within + s["within"]
        abs_sum += (s["mean_abs"] or 0.0) * s["judged"]
        worst = max(worst, s["worst_short_p99"] or 0.0)
        lo_hi = f"{s['short_p99'][0]:+.1%}..{s['short_p99'][1]:+.1%}" if s["short_p99"] else "–"
        mean_abs = f"{s['mean_abs']:.1%}" if s["mean_abs"] is not None else "–"
        q = s["queue_kb"]
        queue = f"{q[0]:.1f} → {q[1]:.1f} KB ({s['queue_error']:+.0%})" if s["queue_error"] is not None else "–"
        console.print(f"  {r['run']}: {s['within']}/{s['judged']} | {lo_hi} | {mean_abs} | {queue}", highlight=False)
    if judged:
        console.print(
            f"  [b]set[/b]: {within}/{judged} within 10 %, worst short-bin p99 error {worst:.1%}, "
            f"mean |error| {abs_sum / judged:.1%}",
            highlight=False,
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, help="also write every comparison here")
    ap.add_argument("--out", type=Path, help="keep the runs here (one directory per scenario)")
    ap.add_argument(
        "--form",
        choices=["calibrated", "paper"],
        default=None,
        help="the model's form (default: each scenario's [model] form; docs/model.md)",
    )
    ap.add_argument(
        "--set",
        choices=sorted(SETS),
        default="accuracy",
        dest="set_",
        help="which runs (default: accuracy; heldout and calibration: docs/model.md, 'Recalibration')",
    )
    ap.add_argument("--packet-cache", type=Path, help="keep and reuse the packet runs here")
    ap.add_argument("--brief", action="store_true", help="print only the scores, not the per-bin tables")
    ap.add_argument("runs", nargs="*", metavar="RUN", help="scenarios/swp/RUN.toml of the set (default: all of it)")
    args = ap.parse_args(argv)
    known = SETS[args.set_]
    unknown = [r for r in args.runs if r not in known]
    if unknown:
        ap.error(f"unknown run {unknown[0]!r} in set {args.set_}; accepted: {', '.join(known)}")
    from rich.console import Console
    from tailor.compare import render
    from tailor.scenario import Scenario

    console = Console(width=150)
    reports = []
    for name in args.runs or known:
        out = args.out / name if args.out else None
        sc = Scenario.load(SCENARIOS / f"{name}.toml")
        if args.form is not None:
            sc = sc.with_({"model.form": args.form})
        report = compare_cached(sc, name, args.packet_cache, out)
        report["run"] = name
        if not args.brief:
            render(report, console)
        reports.append(report)
    for r in reports:
        r["score"] = score(r)
    console.print("\n[b]model accuracy summary[/b]")
    for r in reports:
        worst = {}
        for name, c in r["classes"].items():
            if name == "all":
                continue
            for b in c["bins"]:
                for key, err in (("p99", b["p99_error"]), ("mean", b["mean_error"])):
                    if key in b["judged"]:
                        worst[key] = max(worst.get(key, 0.0), abs(err))
        line = ", ".join(f"worst judged {k} {v:.1%}" for k, v in sorted(worst.items()))
        console.print(
            f"  {'PASS' if r['pass'] else 'FAIL'}  {r['scenario']}: {line}"
            + ("" if r["pass"] else f"; misses: {'; '.join(r['misses'])}"),
            highlight=False,
        )
    print_scores(reports, console)
    if args.json:
        args.json.write_text(json.dumps(reports, indent=2))
    return 0 if all(r["pass"] for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
