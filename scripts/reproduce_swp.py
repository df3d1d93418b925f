"""`make validate`, SWP part: the paper's headline experiments, each printed beside the
paper's numbers (`tailor reproduce swp-*` runs them one at a time).

- Fig. 1 on the fast model, and on the packet engine, with each of the paper's claims;
- Fig. 8 / 9: least capacity per discipline over random Table 4 scenarios (3 and 5
  classes), with a packet-engine re-check of a sample of the answers.

Writes everything under target/reproduce/ (scenarios, runs, JSON, CDF data).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from rich.console import Console

from tailor.reproduce.swp import capacity as swp_capacity, fig1 as swp_fig1

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10, help="random scenarios per capacity experiment (the paper: 150)")
    ap.add_argument("--out", type=Path, default=ROOT / "target" / "reproduce")
    args = ap.parse_args()
    console = Console(width=140)
    say = lambda m: console.print(f"  {m}", highlight=False)  # noqa: E731
    results = {}
    for engine in ("model", "packet"):
        t = time.perf_counter()
        r = swp_fig1.run(args.out / f"fig1-{engine}", swp_fig1.Setup(engine=engine), say=say)
        swp_fig1.render(r, console)
        console.print(f"Fig. 1 on the {engine} engine: {time.perf_counter() - t:.1f} s\n", highlight=False)
        results[f"fig1_{engine}"] = r
    for classes in (3, 5):
        t = time.perf_counter()
        r = swp_capacity.run(n=args.n, n_classes=classes, recheck=3, out=args.out / f"capacity-{classes}c", say=say)
        swp_capacity.render(r, console)
        console.print(f"{classes}-class capacity search: {time.perf_counter() - t:.1f} s\n", highlight=False)
        results[f"capacity_{classes}"] = r["summary"]
    (args.out / "swp.json").write_text(json.dumps(results, indent=2))
    failed = [c["claim"] for k in ("fig1_model", "fig1_packet") for c in results[k]["claims"] if not c["holds"]]
    if failed:
        console.print("Fig. 1 claims that do not hold: " + "; ".join(failed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
