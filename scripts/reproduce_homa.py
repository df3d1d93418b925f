"""`make validate`, Homa part: the paper's Fig. 12/13 and Table 1 on its fabric, each printed
beside the paper's numbers, and Fig. 8/9 simulated on its 16-host cluster with §5.1's claims
checked (`tailor reproduce homa-fig12`, `homa-table1`, `homa-max-load` and `homa-cluster` run them one at a
time).

- Fig. 12/13: W1-W5 at 50 % and 80 % load, the full lengths (fig12.LENGTHS_MS), Homa,
  pFabric, PIAS, pHost, NDP and the SRPT oracle, beside the authors' data for W3 and W5 at
  80 % (shipped: paper.ANCHOR), with §5.2's claims at every point; a transport that cannot
  carry 80 % on a workload runs at the highest load Fig. 15 measured for it;
- Table 1: W1-W5 at 80 %, the full lengths (table1.LENGTHS_MS), beside the paper's 30 numbers;
- Fig. 15/16: W4's maximum sustainable load with 1, 2, 4 and 7 scheduled levels and the
  authors' split (maxload.LOADS, 200 ms a point), beside the paper's 63 % and 89 %;
- Fig. 15: the highest load Homa, pFabric, PIAS, pHost and NDP sustain, W1-W5 (fig15.LOADS
  and fig15.LENGTH_MS: the longest part of the script);
- Fig. 8/9: W3-W5 at 80 %, Homa, HomaP4/P2/P1 and Basic, the full lengths
  (cluster.LENGTHS_MS), with §5.1's claims (Homa's p99 2-3.5, Basic 5-15x, P4 ~ P8 > P2);
- Fig. 17-20: unscheduled levels (W1), cutoffs (W3), scheduled levels and blind bytes (W4),
  with §5.2's claims;
- Fig. 14: preemption lag against queueing for short messages near p99, W1-W5 at 80 %.
- Fig. 21: the bytes arriving per priority level, W3 at 50, 80 and 90 %, with §5.2's statements.

Writes everything under target/reproduce/homa/ (scenarios, runs, CSV, JSON, figures).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from rich.console import Console
from tailor.reproduce import REPRODUCTIONS
from tailor.reproduce.homa import paper

ROOT = Path(__file__).resolve().parents[1]
#: Fig. 12/13 and Fig. 15 with every transport the paper compared (issue 13), Fig. 12 beside
#: the authors' data for W3 and W5 at 80 %.
TRANSPORTS = "homa,pfabric,pias,phost,ndp"
#: Fig. 15 runs first: Fig. 12's 80 % panel runs each transport that cannot carry 80 % on a
#: workload at the highest load Fig. 15 measured for it (--sustainable), as the paper ran
#: pHost and NDP.
ORDER = (
    "homa-fig15",
    "homa-fig12",
    "homa-fig10",
    "homa-fig14",
    "homa-table1",
    "homa-max-load",
    "homa-cluster",
    "homa-sensitivity",
    "homa-fig21",
)


def extra(name: str, out: Path) -> dict:
    """The options beyond --quick and --out that ``name`` runs with."""
    if name == "homa-fig15":
        return {"transports": TRANSPORTS}
    if name == "homa-fig12":
        fig15 = out / "fig15" / "fig15.csv"
        return {
            "transports": TRANSPORTS + ",srpt-oracle",
            "compare": paper.ANCHOR,
            "sustainable": fig15 if fig15.is_file() else None,
        }
    return {}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "target" / "reproduce" / "homa")
    ap.add_argument("--quick", action="store_true", help="the --quick forms")
    args = ap.parse_args()
    console = Console(width=140)
    say = lambda m: console.print(f"  {m}", highlight=False)  # noqa: E731
    for name in ORDER:
        r = REPRODUCTIONS[name]
        t = time.perf_counter()
        plan = r.options(quick=args.quick, out=args.out / name.removeprefix("homa-"), **extra(name, args.out))
        report = plan.run(plan.out, say)
        r.render(report, console)
        console.print(f"{name}: {time.perf_counter() - t:.0f} s\n", highlight=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
