"""`make bench`: how topology set-up grows with the number of hosts.

Times `tailor-sim` on a star, a leaf-spine and a fat-tree of 4,096 to 131,072 hosts
carrying 20 one-kilobyte messages, so the run is all set-up (building ports, links and
routing). Prints the wall time, the peak RSS and the growth ratio per doubling of the
hosts: about 2 for set-up linear in hosts, about 4 for quadratic (an all-pairs routing
table filled by a search from every host took 1.2 s / 60 s at 4,096 / 16,384 hosts).
Ratios are measured in this one script; absolute times depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import TAILOR_SIM, timed  # noqa: E402

SIZES = [4096, 8192, 16384, 32768, 65536, 131072]
#: Below this a run takes tens of milliseconds, mostly process start: too noisy to time.
FROM = 16384

LINK = '{ rate = "100Gbps", delay = "1us" }'


def topology(kind: str, hosts: int) -> str:
    """The [topology] table of `kind` with `hosts` hosts (racks or pods double with it)."""
    if kind == "star":
        return f'kind = "star"\nhosts = {hosts}\nlink = {LINK}'
    if kind == "leaf_spine":
        return (
            f'kind = "leaf_spine"\nracks = {hosts // 32}\nhosts_per_rack = 32\nspines = 8\n'
            f"host_link = {LINK}\nfabric_link = {LINK}"
        )
    return (
        f'kind = "fat_tree"\npods = {hosts // 256}\ntors = 16\naggs = 16\nhosts_per_tor = 16\ncores = 256\n'
        f"host_link = {LINK}\nfabric_link = {LINK}"
    )


def scenario(kind: str, hosts: int) -> str:
    return f"""name = "setup-{kind}-{hosts}"
[topology]
{topology(kind, hosts)}
[transport]
kind = "raw"
[[class]]
name = "kb"
sizes_fixed = "1KB"
arrival = "poisson"
load = 0.1
pattern = "n_to_1"
receiver = 0
messages = 20
"""


def measure(path: Path, repeat: int) -> dict:
    """The medians of `repeat` runs of tailor-sim on `path`: the engine's own wall time
    (summary.json's `wall_seconds`: from building the network to the end of the run,
    without starting the process, reading the scenario or freeing memory at exit) and
    the process's (perf_counter: /usr/bin/time counts in 10 ms steps); the peak RSS."""
    walls, process, rss = [], [], 0
    for _ in range(repeat):
        started = time.perf_counter()
        _, kb, out = timed([str(TAILOR_SIM), str(path)])
        process.append(time.perf_counter() - started)
        walls.append(json.loads(out)["wall_seconds"])
        rss = max(rss, kb)
    return {"wall": statistics.median(walls), "process_wall": statistics.median(process), "rss_kb": rss}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs per size (the median is reported)")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args()
    results: dict[str, list[dict]] = {}
    print("topology set-up (tailor-sim, 20 messages: the run is the set-up; the engine's own time, and the process's)")
    print(f"  {'topology':<11} {'hosts':>7} {'set-up':>9} {'process':>9} {'peak RSS':>10} {'x per doubling':>15}")
    with tempfile.TemporaryDirectory(prefix="tailor-bench-setup-") as tmp:
        for kind in ("star", "leaf_spine", "fat_tree"):
            rows = []
            for hosts in SIZES:
                path = Path(tmp) / f"{kind}-{hosts}.toml"
                path.write_text(scenario(kind, hosts))
                r = {"hosts": hosts, **measure(path, args.repeat)}
                step = f"{r['wall'] / rows[-1]['wall']:.2f}" if rows else ""
                print(
                    f"  {kind:<11} {hosts:>7,} {r['wall']:>8.3f}s {r['process_wall']:>8.3f}s {r['rss_kb'] / 1024:>8.1f} MB "
                    f"{step:>15}",
                    flush=True,
                )
                rows.append(r)
            first = next(r for r in rows if r["hosts"] == FROM)
            per = (rows[-1]["wall"] / first["wall"]) ** (1 / math.log2(rows[-1]["hosts"] / FROM))
            print(
                f"  {kind}: {per:.2f}x per doubling from {FROM:,} to {rows[-1]['hosts']:,} hosts "
                f"(2 = linear, 4 = quadratic)"
            )
            results[kind] = rows
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
