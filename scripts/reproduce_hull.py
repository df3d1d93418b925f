"""`make validate`, HULL part: the paper's testbed experiments and its ns-2 fat-tree, each
printed beside the paper's numbers (`tailor reproduce hull-*` run them one at a time).

- Table 1 / Fig. 8: 2-8 long flows into one receiver, four schemes, 10 s each;
- Fig. 2: TCP-ECN and DCTCP under a phantom queue at 600-950 Mbps, paced and unpaced;
- Fig. 3: one window-capped TCP flow at 10 Gbps, its LSO and coalescing bursts;
- Fig. 5 / Fig. 6: the phantom queue's drain and threshold with and without pacing; β;
- Table 4: 1 KB and 10 MB requests at 20/40/60 %, four schemes, 500 10 MB flows a point,
  5 seeds;
- Fig. 11: Table 4's workload for DCTCP-6K and DCTCP-PQ950, paced and unpaced, 5 seeds;
- Table 5: HULL against two priorities, large and small buffers;
- §6.3: 192 servers on a fat-tree, 1,000,000 Pareto flows a scheme, DCTCP against HULL.

Writes everything under target/reproduce/hull/ (scenarios, runs, CSV, JSON).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from rich.console import Console
from tailor.reproduce import REPRODUCTIONS

ROOT = Path(__file__).resolve().parents[1]
ORDER = (
    "hull-fig8",
    "hull-fig2",
    "hull-fig3",
    "hull-fig5",
    "hull-fig6",
    "hull-fig9",
    "hull-table4",
    "hull-fig10",
    "hull-fig11",
    "hull-table5",
    "hull-fattree",
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "target" / "reproduce" / "hull")
    ap.add_argument("--quick", action="store_true", help="the --quick forms")
    args = ap.parse_args()
    console = Console(width=160)
    say = lambda m: console.print(f"  {m}", highlight=False)  # noqa: E731
    for name in ORDER:
        r = REPRODUCTIONS[name]
        t = time.perf_counter()
        plan = r.options(quick=args.quick, out=args.out / name.removeprefix("hull-"))
        report = plan.run(plan.out, say)
        r.render(report, console)
        console.print(f"{name}: {time.perf_counter() - t:.0f} s\n", highlight=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
