"""The fast model against the packet engine (SWP §5.1, Fig. 6-7): the accuracy table.

Runs `tailor compare` on the accuracy scenarios — web search (10,000 flows) and Google W3
(100,000 flows) at 30 % and 60 % load, DCTCP / SWP-D and HPCC / SWP-H — and prints, per size
bin, both engines' mean and p99 slowdown and the model's error, judged against the
targets (short flows: p99 within 10 %; long flows: mean within 10 %; bins of >= 100
flows). Called by `make validate` (scripts/validate.py); exit status 1 if a run misses.
About a minute (the packet engine takes ~11 s per web-search run).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNS = [
    "accuracy-websearch-30", "accuracy-websearch-60", "accuracy-google-30", "accuracy-google-60",
    # The same traffic over HPCC (eta 0.9), which the model runs as SWP-H.
    "accuracy-hpcc-websearch-30", "accuracy-hpcc-websearch-60", "accuracy-hpcc-google-30", "accuracy-hpcc-google-60",
]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, help="also write every comparison here")
    ap.add_argument("--out", type=Path, help="keep the runs here (one directory per scenario)")
    ap.add_argument("--form", choices=["calibrated", "paper"], default=None,
                    help="the model's form (default: each scenario's [model] form; docs/model.md)")
    ap.add_argument("runs", nargs="*", metavar="RUN", help=f"scenarios/swp/RUN.toml (default: {', '.join(RUNS)})")
    args = ap.parse_args(argv)
    unknown = [r for r in args.runs if r not in RUNS]
    if unknown:
        ap.error(f"unknown run {unknown[0]!r}; accepted: {', '.join(RUNS)}")
    from rich.console import Console

    from tailor.compare import compare, render
    from tailor.scenario import Scenario

    console = Console(width=150)
    reports = []
    for name in args.runs or RUNS:
        out = args.out / name if args.out else None
        sc = Scenario.load(ROOT / "scenarios" / "swp" / f"{name}.toml")
        if args.form is not None:
            sc = sc.with_({"model.form": args.form})
        report = compare(sc, out=out)
        render(report, console)
        reports.append(report)
    console.print("\n[b]model accuracy summary[/b]")
    for r in reports:
        worst = {}
        for b in next(iter(r["classes"].values()))["bins"]:
            for key, err in (("p99", b["p99_error"]), ("mean", b["mean_error"])):
                if key in b["judged"]:
                    worst[key] = max(worst.get(key, 0.0), abs(err))
        line = ", ".join(f"worst judged {k} {v:.1%}" for k, v in sorted(worst.items()))
        console.print(f"  {'PASS' if r['pass'] else 'FAIL'}  {r['scenario']}: {line}"
                      + ("" if r["pass"] else f"; misses: {'; '.join(r['misses'])}"), highlight=False)
    if args.json:
        args.json.write_text(json.dumps(reports, indent=2))
    return 0 if all(r["pass"] for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
