"""`make validate`, SWP part: the paper's headline experiments, each printed beside the
paper's numbers (`tailor reproduce swp-*` runs them one at a time).

- Fig. 1 on the fast model, and on the packet engine, with each of the paper's claims;
- Fig. 8 / 9: least capacity per discipline over random Table 4 scenarios (3 and 5
  classes, 150 each), on every variant this build's advisor has (model calibrated /
  paper-literal, host links scaled / fixed; the packet engine on a subset), spread over
  the cores (tailor reproduce swp-capacity, full form).

Writes everything under target/reproduce/ (scenarios, runs, JSON, CDF data).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from rich.console import Console
from tailor.reproduce.swp import capacity as swp_capacity
from tailor.reproduce.swp import fig1 as swp_fig1

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--n",
        type=int,
        default=swp_capacity.FORMS["full"].n,
        help="random scenarios per capacity experiment (the paper: 150)",
    )
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
    t = time.perf_counter()
    plan = swp_capacity.options(n=args.n, out=args.out / "capacity")
    r = plan.run(plan.out, say)
    swp_capacity.render(r, console)
    console.print(f"capacity searches (Fig. 8 and 9): {time.perf_counter() - t:.1f} s\n", highlight=False)
    results["capacity"] = {
        "summary": [{k: v for k, v in s.items() if k != "values"} for s in r["summary"]],
        "cost": r["cost"],
        "slos": r["slos"],
    }
    (args.out / "swp.json").write_text(json.dumps(results, indent=2))
    failed = [c["claim"] for k in ("fig1_model", "fig1_packet") for c in results[k]["claims"] if not c["holds"]]
    if failed:
        console.print("Fig. 1 claims that do not hold: " + "; ".join(failed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
