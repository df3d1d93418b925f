"""Where tailor runs out: the packet engine's memory per port, per queued packet and per
message in flight, and the estimate a run is refused by against it (docs/performance.md,
"Where tailor runs out").

Each run is `tailor-sim` (the engine alone, no Python) under `/usr/bin/time -v`, varying
one thing at a time on k-ary fat-trees at 100 Gbps with web-search sizes at 50 %
all-to-all load:
- the fabric: k = 16 to 64 carrying 20 small messages (all set-up);
- the state in flight: a k = 8 fat-tree with raw senders (every packet of a message
  queued at once) and DCTCP, for longer and longer arrivals;
- the issue's scenario scale (k = 16, DCTCP, 1 ms of arrivals) and a shorter k = 24 run.
Beside each peak RSS it prints the estimate (`tailor check`'s, `scenario::capacity`). The
peaks of the engine's own counters against the estimate come from
`cargo test --release -p tailor --test capacity -- --ignored --nocapture` (run last).

    python scripts/bench_capacity.py            # about 5 minutes on 2 cores
    python scripts/bench_capacity.py --quick    # the fabric and k = 8 runs only
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIM = ROOT / "target" / "release" / "tailor-sim"

FAT_TREE = """name = "capacity"
seed = 1
[topology]
kind = "fat_tree"
k = {k}
host_link = {{ rate = "100Gbps", delay = "1us" }}
fabric_link = {{ rate = "100Gbps", delay = "1us" }}
[switch]
ecn_threshold = "100KB"
buffer = "shared"
buffer_size = "16MB"
{switch}
[transport]
kind = "{transport}"
[[class]]
name = "c"
{sizes}
arrival = "poisson"
load = 0.5
pattern = "all_to_all"
{length}
"""


def scenario(k: int, transport: str, length: str, sizes: str = 'sizes = "websearch"') -> str:
    switch = 'scheduler = "priority"\npriority_levels = 8' if transport == "homa" else ""
    return FAT_TREE.format(k=k, transport=transport, length=length, sizes=sizes, switch=switch)


def estimate(path: Path) -> dict:
    from tailor import _core

    return _core.check(str(path))["memory"]


def peak_rss(path: Path) -> tuple[float, dict]:
    """Peak RSS (bytes) of tailor-sim on `path`, and its summary."""
    p = subprocess.run(["/usr/bin/time", "-v", str(SIM), str(path)], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{path}: {p.stderr.strip().splitlines()[-1]}")
    kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
    return kb * 1024.0, json.loads(p.stdout)


def row(label: str, text: str, tmp: Path) -> tuple[float, dict, dict]:
    path = tmp / "s.toml"
    path.write_text(text)
    rss, summary = peak_rss(path)
    e = estimate(path)
    print(
        f"{label:<34} {rss / 1e6:9.1f} MB  estimate {e['total_bytes'] / 1e6:9.1f} MB "
        f"(fabric {e['fabric_bytes'] / 1e6:.1f}, {e['active_messages']:.0f} active, {e['queued_packets']:.0f} queued)"
        f"  {summary['messages']['generated']} messages, {summary['wall_seconds']:.1f} s",
        flush=True,
    )
    return rss, summary, e


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the fabric and k = 8 runs only")
    args = ap.parse_args()
    subprocess.run(["cargo", "build", "--release", "-p", "tailor", "--bin", "tailor-sim"], check=True, cwd=ROOT)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        print("fabric (20 messages of 1 KB):")
        tiny = 'sizes_fixed = "1KB"'
        fabric = []
        for k in (16, 24, 32, 48, 64):
            rss, _, e = row(f"  k = {k}: {k**3 // 4} hosts", scenario(k, "raw", "messages = 20", tiny), tmp)
            fabric.append((1.5 * k**3, rss, e))
        (p0, r0, _), (p1, r1, _) = fabric[0], fabric[-1]
        print(f"  per port (k = 16 to 64): {(r1 - r0) / (p1 - p0):.0f} B of RSS")
        print("in flight (k = 8, 128 hosts):")
        base, _, _ = row("  raw, 10 us of arrivals", scenario(8, "raw", 'until = "10us"'), tmp)
        for t in ("raw", "dctcp", "homa"):
            for until in ("0.25ms", "1ms", "2ms"):
                row(f"  {t}, {until} of arrivals", scenario(8, t, f'until = "{until}"'), tmp)
        if not args.quick:
            print("the issue's scale:")
            row("  k = 16 dctcp, 1 ms", scenario(16, "dctcp", 'until = "1ms"'), tmp)
            row("  k = 24 dctcp, 0.1 ms", scenario(24, "dctcp", 'until = "0.1ms"'), tmp)
    print("the engine's counters at the peak against the estimate:", flush=True)
    subprocess.run(
        ["cargo", "test", "--release", "-p", "tailor", "--test", "capacity", "--", "--ignored", "--nocapture"],
        check=True,
        cwd=ROOT,
    )


if __name__ == "__main__":
    main()
