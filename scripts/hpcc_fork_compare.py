"""Per-size-bin slowdown of two FCT files of the HPCC ns-3 programs' format side by side:
theirs (a run of their simulator) and tailor's (`tailor run --fct-out`), binned as their
`analysis/fct_analysis.py` bins (docs/rdma.md, "Cross-check"): slowdown = fct /
standalone_fct floored at 1; rows sorted by size, the last one left out as their script
leaves it; equal-count bins; a percentile is sorted[int(n·p)].

usage: python scripts/hpcc_fork_compare.py THEIRS TAILOR [--bins 10] [--csv OUT]

THEIRS and TAILOR may each be a comma-separated list of FCT files (runs of several flow
files, in the same order): their flows are pooled before binning, and the last flow of
the pool is left out once.
"""

from __future__ import annotations

import argparse
import csv
import sys


def rows(paths: str) -> list[tuple[float, int]]:
    out = []
    for path in paths.split(","):
        with open(path) as f:
            for line in f:
                p = line.split()
                if len(p) < 8 or int(p[3]) != 100:
                    continue
                slow = int(p[6]) / int(p[7])
                out.append((max(1.0, float(f"{slow:.6g}")), int(p[4])))
    out.sort(key=lambda r: r[1])
    return out[:-1]


def bins(data: list[tuple[float, int]], n_bins: int) -> list[tuple[int, int, float, float]]:
    n, step = len(data), 100 // n_bins
    out = []
    for i in range(0, 100, step):
        part = data[i * n // 100 : (i + step) * n // 100]
        s = sorted(x[0] for x in part)
        out.append((part[-1][1], len(part), s[int(len(s) * 0.5)], s[int(len(s) * 0.99)]))
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("theirs")
    ap.add_argument("tailor")
    ap.add_argument("--bins", type=int, default=10)
    ap.add_argument("--csv")
    a = ap.parse_args()
    t, o = rows(a.theirs), rows(a.tailor)
    if len(t) != len(o):
        print(f"error: {len(t)} flows in {a.theirs}, {len(o)} in {a.tailor}", file=sys.stderr)
        return 2
    table = []
    print(
        f"{'bin':>3} {'max_size':>10} {'n':>4} {'p50 ns3':>8} {'p50 tailor':>10} {'p99 ns3':>8} {'p99 tailor':>10} {'p99 err':>8}"
    )
    for i, (x, y) in enumerate(zip(bins(t, a.bins), bins(o, a.bins), strict=True)):
        err = (y[3] - x[3]) / x[3]
        table.append((i, x[0], x[1], x[2], y[2], x[3], y[3], err))
        print(f"{i:>3} {x[0]:>10} {x[1]:>4} {x[2]:>8.3f} {y[2]:>10.3f} {x[3]:>8.3f} {y[3]:>10.3f} {100 * err:>7.1f}%")
    worst = max(abs(r[7]) for r in table)
    mean = sum(abs(r[7]) for r in table) / len(table)
    print(f"p99 error: mean |err| {100 * mean:.1f} %, worst {100 * worst:.1f} %")
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["bin", "max_size", "count", "p50_ns3", "p50_tailor", "p99_ns3", "p99_tailor", "p99_rel_err"])
            w.writerows(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
