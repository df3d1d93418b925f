"""The packet engine's speed by fabric size (issue 28): events/s and wall time per simulated ms.

Fat-trees of 16, 128, 1,024 and 4,096 hosts at 100 Gbps, DCTCP, web-search sizes at 50 %
all-to-all load, each cut from `scenarios/scale/fattree-1024.toml` (the 1,024-host row is
that file as shipped). The smaller fabrics get longer arrivals and the 4,096-host one
shorter, so that each run carries a few thousand messages: 16 hosts 20 ms, 128 hosts 3 ms,
1,024 hosts 1 ms, 4,096 hosts 0.25 ms. Each runs through `tailor-sim` to the end
(drained). Reported per run: engine time (summary.json's `wall_seconds`), events,
events/s, simulated time, wall time per simulated ms, CPU time (user + system) and peak
RSS (`/usr/bin/time -v`). The machine is shared and virtual: when it is loaded the wall
time also counts the time the run waited for a processor, and the CPU time is the steadier
of the two; both ratios are printed.

With `--baseline REV`, `tailor-sim` is also built at git revision REV (bench.py's
`build_baseline`) and both builds run each size, alternately: the ratios new / old.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402

ROOT = bench.ROOT
SCENARIO = ROOT / "scenarios" / "scale" / "fattree-1024.toml"

# (hosts, topology keys replacing `k = 16`, arrivals)
SIZES = [
    (16, "k = 4", "20ms"),
    (128, "k = 8", "3ms"),
    (1024, "k = 16", "1ms"),
    (4096, "pods = 16\ntors = 16\naggs = 16\ncores = 256\nhosts_per_tor = 16", "0.25ms"),
]


def scenario_for(hosts: int, topology: str, until: str, work: Path) -> Path:
    """The shipped scenario with its fat-tree and its arrivals replaced."""
    text = SCENARIO.read_text()
    text, n = re.subn(r"^k = 16$", topology, text, flags=re.M)
    text, m = re.subn(r'^until = "1ms"$', f'until = "{until}"', text, flags=re.M)
    if (n, m) != (1, 1):
        raise SystemExit(f'{SCENARIO}: expected one `k = 16` and one `until = "1ms"` line to replace')
    text = text.replace('name = "fattree-1024"', f'name = "fattree-{hosts}"')
    path = work / f"fattree-{hosts}.toml"
    path.write_text(text)
    return path


def run(binary: Path, scenario: Path) -> dict:
    _, cpu, rss, out = bench.timed_cpu([str(binary), str(scenario)])
    s = json.loads(out)
    wall, sim_ms = s["wall_seconds"], s["sim_ns"] / 1e6
    return {
        "wall": wall,
        "events": s["events"],
        "events_per_s": s["events"] / wall,
        "sim_ms": sim_ms,
        "wall_per_sim_ms": wall / sim_ms,
        "messages": s["messages"]["completed"],
        "rss_kb": rss,
        "cpu": cpu,
    }


def median_run(runs: list[dict]) -> dict:
    runs = sorted(runs, key=lambda r: r["wall"])
    return {**runs[len(runs) // 2], "walls": [r["wall"] for r in runs]}


def row(label: str, r: dict) -> str:
    return (
        f"  {label:<20} {r['wall']:>8.2f} s {r['events']:>13,} {r['events_per_s'] / 1e6:>7.2f} M/s "
        f"{r['sim_ms']:>8.2f} ms {r['wall_per_sim_ms']:>8.2f} s/ms {r['messages']:>7,} {r['rss_kb'] / 1024:>8.1f} MB "
        f"{r['cpu']:>8.2f} s"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs per size and build (the median is reported)")
    ap.add_argument("--baseline", metavar="REV", help="also build tailor-sim at git revision REV and compare")
    ap.add_argument("--hosts", type=int, nargs="*", help="only these sizes (16, 128, 1024, 4096)")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args()
    sizes = [s for s in SIZES if not args.hosts or s[0] in args.hosts]
    if args.hosts and len(sizes) != len(args.hosts):
        raise SystemExit(f"--hosts: accepted: {', '.join(str(s[0]) for s in SIZES)}")
    results = []
    with tempfile.TemporaryDirectory(prefix="tailor-bench-scale-") as tmp:
        work = Path(tmp)
        baseline = bench.build_baseline(args.baseline, work) if args.baseline else None
        print(
            f"fat-trees, 100 Gbps, DCTCP, web search 50 % all-to-all, drained; median of {args.repeat}\n"
            f"  {'':<20} {'engine':>10} {'events':>13} {'events/s':>11} {'simulated':>11} "
            f"{'wall/sim':>13} {'msgs':>7} {'peak RSS':>11} {'cpu':>10}",
            flush=True,
        )
        for hosts, topology, until in sizes:
            scenario = scenario_for(hosts, topology, until, work)
            new, old = [], []
            for _ in range(args.repeat):
                new.append(run(bench.TAILOR_SIM, scenario))
                if baseline:
                    old.append(run(baseline, scenario))
            t = median_run(new)
            print(f"{hosts:,} hosts ({until} of arrivals)")
            print(row("this build", t), flush=True)
            entry = {"hosts": hosts, "arrivals": until, "tailor": t}
            if baseline:
                o = median_run(old)
                print(row(f"at {args.baseline}", o))
                ratios = [a["wall"] / b["wall"] for a, b in zip(new, old, strict=True)]
                cpus = [a["cpu"] / b["cpu"] for a, b in zip(new, old, strict=True)]
                print(
                    f"  this build / {args.baseline}: engine time {t['wall'] / o['wall']:.3f}x "
                    f"(pairs {', '.join(f'{r:.3f}' for r in ratios)}; median {statistics.median(ratios):.3f}), "
                    f"cpu (pairs {', '.join(f'{r:.3f}' for r in cpus)}; median {statistics.median(cpus):.3f}), "
                    f"events {t['events'] / o['events']:.3f}x, peak RSS {t['rss_kb'] / o['rss_kb']:.3f}x",
                    flush=True,
                )
                entry["baseline"] = o
            results.append(entry)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
