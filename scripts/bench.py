"""`make bench`: tailor's packet engine against ns-3 on the same flows, timed here.

Runs the ns-3 anchors' handed-over workloads — the single bottleneck's 2,000 flows at 60 %
and the leaf-spine's 20,000 Hadoop flows — through ns-3 (built from the anchors, timed in
this script) and through `tailor-sim`, and prints wall time, events, events/s, peak RSS and
the ratio. Then checks that tailor's memory is flat as the flow count grows (2,000 vs
15,000 generated flows). Machines of this kind differ by up to 2.4x, so only ratios
measured in one script mean anything; without ns-3 the anchors' recorded times are used
and labelled as such.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ns3  # noqa: E402

ROOT = ns3.ROOT
TAILOR_SIM = ROOT / "target" / "release" / "tailor-sim"

CASES = [
    # (label, anchor, run dir, ns-3 simulator flags for the replay)
    ("single bottleneck, web search 60 %, 2,000 flows", "ns3", "lognormal-0.6-2000-s1", ["--cdf=websearch_cdf.txt"]),
    ("leaf-spine, Hadoop 50 %, 20,000 flows", "ns3-leafspine", "hadoop-0.5-20000-s1", ["--cdf=hpcc_fb_hadoop.cdf"]),
]


def timed(cmd: list[str], cwd: Path | None = None) -> tuple[float, int, str]:
    """Runs `cmd` under /usr/bin/time -v: (wall seconds, peak RSS in kB, stdout)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        p = subprocess.run(["/usr/bin/time", "-v", "-o", t.name, *cmd], cwd=cwd, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{cmd[0]} failed ({p.returncode}):\n{p.stderr[-2000:]}")
        report = t.read()
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", report).group(1)
    parts = [float(x) for x in wall.split(":")]
    seconds = sum(v * 60 ** i for i, v in enumerate(reversed(parts)))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", report).group(1))
    return seconds, rss, p.stdout


def run_tailor(scenario: Path, repeat: int) -> dict:
    runs = []
    for _ in range(repeat):
        wall, rss, out = timed([str(TAILOR_SIM), str(scenario)])
        s = json.loads(out)
        runs.append({"wall": wall, "rss_kb": rss, "events": s["events"], "engine_wall": s["wall_seconds"],
                     "completed": s["messages"]["completed"]})
    best = sorted(runs, key=lambda r: r["wall"])[len(runs) // 2]
    return {**best, "walls": [r["wall"] for r in runs]}


def run_ns3(anchor: str, run: str, flags: list[str], workload: Path, work: Path) -> dict | None:
    binary = ns3.build(anchor)
    if binary is None:
        return None
    out = work / f"ns3-{anchor}"
    out.mkdir(parents=True, exist_ok=True)
    cmd = [str(binary), f"--flowsIn={workload}", *flags, f"--out={out / 'flows.csv'}", f"--summary={out / 'summary.json'}"]
    wall, rss, _ = timed(cmd, cwd=binary.parent.parent)
    s = json.loads((out / "summary.json").read_text())
    return {"wall": wall, "rss_kb": rss, "events": s["events"], "completed": s["flows"]["completed"], "measured": True}


def recorded_ns3(anchor: str, run: str) -> dict:
    s = json.loads((ns3.ANCHORS / anchor / "results" / run / "summary.json").read_text())
    return {"wall": s["total_wall_seconds"], "rss_kb": s["peak_rss_kb"], "events": s["events"],
            "completed": s["flows"]["completed"], "measured": False}


def replay_scenario(anchor: str, run: str, work: Path) -> tuple[Path, Path]:
    from tailor.crosscheck import build_scenario  # the same scenario the crosscheck builds
    import gzip
    import shutil
    run_dir = ns3.ANCHORS / anchor / "results" / run
    d = work / f"tailor-{anchor}"
    d.mkdir(parents=True, exist_ok=True)
    workload = d / "workload.csv"
    with gzip.open(run_dir / "workload.csv.gz", "rb") as src, open(workload, "wb") as dst:
        shutil.copyfileobj(src, dst)
    text, _ = build_scenario(run_dir, workload)
    (d / "scenario.toml").write_text(text)
    return d / "scenario.toml", workload


def memory_flatness(work: Path) -> list[dict]:
    base = (ROOT / "scenarios" / "swp" / "websearch-30.toml").read_text()
    rows = []
    for n in (2000, 15000):
        sc = work / f"flat-{n}.toml"
        sc.write_text(re.sub(r"messages = \d+", f"messages = {n}", base))
        r = run_tailor(sc, 1)
        rows.append({"flows": n, **r})
    return rows


def fmt_row(label: str, r: dict) -> str:
    return f"  {label:<24} {r['wall']:>9.2f} s {r['events']:>13,} {r['events'] / r['wall'] / 1e6:>8.2f} M/s {r['rss_kb'] / 1024:>8.1f} MB"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="tailor runs per case (the median is reported)")
    ap.add_argument("--no-ns3", action="store_true", help="use the anchors' recorded ns-3 times")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args()
    results = {"cases": [], "memory": []}
    with tempfile.TemporaryDirectory(prefix="tailor-bench-") as tmp:
        work = Path(tmp)
        for label, anchor, run, flags in CASES:
            print(f"\n{label}", flush=True)
            scenario, workload = replay_scenario(anchor, run, work)
            t = run_tailor(scenario, args.repeat)
            n = None if args.no_ns3 else run_ns3(anchor, run, flags, workload, work)
            n = n or recorded_ns3(anchor, run)
            print(f"  {'':<24} {'wall':>11} {'events':>13} {'events/s':>12} {'peak RSS':>11}")
            print(fmt_row("tailor (tailor-sim)", t))
            print(fmt_row("ns-3 3.37" + ("" if n["measured"] else " (RECORDED, other run)"), n))
            ratio = n["wall"] / t["wall"]
            print(f"  speed-up: {ratio:.1f}x wall ({'measured in this script' if n['measured'] else 'against a recorded time: machines differ by up to 2.4x'}); "
                  f"tailor runs: {', '.join(f'{w:.2f}' for w in t['walls'])} s; events ratio ns-3/tailor {n['events'] / t['events']:.2f}")
            results["cases"].append({"case": label, "tailor": t, "ns3": n, "speedup": ratio})
        print("\nmemory as the flow count grows (web search 30 %, generated flows)")
        rows = memory_flatness(work)
        for r in rows:
            print(f"  {r['flows']:>6} flows: {r['wall']:.2f} s, {r['events']:,} events, peak RSS {r['rss_kb'] / 1024:.1f} MB")
        growth = rows[1]["rss_kb"] / rows[0]["rss_kb"]
        print(f"  RSS ratio 15,000 / 2,000 flows: {growth:.2f} (flows ratio 7.5)")
        results["memory"] = rows
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
