"""`make validate`, PL2 part: the paper's rack experiments, each printed beside the
numbers the paper's text gives (`tailor reproduce pl2-*` run them one at a time).

- Fig. 3: 5-way microbursts (87 Gbps in all, fitted), RDS against raw Ethernet over PL2, with
  fixed sizes and the optimum, 200 ms, 5 seeds;
- Fig. 11a / 12: incast and outcast of 6,000 B messages from 1 to 5 hosts at line rate, 3 seeds,
  raw Ethernet against raw Ethernet over PL2, 5 ms each, with the hosts' exchanges as
  tailor's rack gives them and as the prototype measured them (`prototype_sw`);
- Fig. 11b: the switch's queueing delay at the receiver in the same incast, 5 ms, 3 seeds;
- Fig. 11c: TCP over PL2 against TCP Cubic in the incast (6,000 B and 5,792 B messages), 20 ms,
  3 seeds;
- §D.3 and §D.4: K = 1 to 16, and t from 0 to 509 at T = 512 and 64, on one message alone, one
  server's stream, W4's 3-way incast and the 5-way incast, 5 seeds;
- Fig. 5-8: memcached (closed loop, one GET outstanding) under TCP or UDP background
  incast from 0 to 4 hosts, with and without PL2, 50 ms each, 5 seeds;
- Fig. 10: W1-W5 in a 3-way incast, six schemes, 50 ms each;
- Fig. 9: VGG16's gradients from 4 workers to 2 parameter servers, 100 iterations a scheme;
- beyond the paper: two PL2 racks on a leaf-spine, traffic entering a rack unreserved.

Writes everything under target/reproduce/pl2/ (scenarios, runs, CSV, JSON).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from rich.console import Console
from tailor.reproduce import REPRODUCTIONS

ROOT = Path(__file__).resolve().parents[1]
#: (reproduction, its options beyond --quick and --out, the directory it writes).
RUNS = (
    ("pl2-microburst", {}, "microburst"),
    ("pl2-incast-outcast", {}, "incast-outcast"),
    ("pl2-incast-outcast", {"host_delay": "prototype_sw"}, "incast-outcast-prototype-sw"),
    ("pl2-fig11b", {}, "fig11b"),
    ("pl2-fig11c", {}, "fig11c"),
    ("pl2-k-sweep", {}, "k-sweep"),
    ("pl2-t-sweep", {}, "t-sweep"),
    ("pl2-memcached", {}, "memcached"),
    ("pl2-traces", {}, "traces"),
    ("pl2-vgg16", {}, "vgg16"),
    ("pl2-leafspine", {}, "leafspine"),
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "target" / "reproduce" / "pl2")
    ap.add_argument("--quick", action="store_true", help="the --quick forms")
    args = ap.parse_args()
    console = Console(width=160)
    say = lambda m: console.print(f"  {m}", highlight=False)  # noqa: E731
    for name, extra, dir in RUNS:
        r = REPRODUCTIONS[name]
        t = time.perf_counter()
        plan = r.options(quick=args.quick, out=args.out / dir, **extra)
        report = plan.run(plan.out, say)
        r.render(report, console)
        console.print(f"{name} {extra or ''}: {time.perf_counter() - t:.0f} s\n", highlight=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
