"""`make bench`: tailor's packet engine against ns-3 on the same flows, timed here.

Runs the ns-3 anchors' handed-over workloads — the single bottleneck's 2,000 flows at 60 %
and the leaf-spine's 20,000 Hadoop flows — through ns-3 (built from the anchors, timed in
this script) and through `tailor-sim`, and prints wall time, events, events/s, peak RSS and
the ratio. Then checks that tailor's memory is flat as the flow count grows (2,000 vs
15,000 generated flows). Machines of this kind differ by up to 2.4x, so only ratios
measured in one script mean anything; without ns-3 the anchors' recorded times are used
and labelled as such.

With `--baseline REV` (`make bench BENCH_BASELINE=REV`), `tailor-sim` is also built at git
revision REV and both builds run each case, alternately, in this script: the rows and the
ratios new / old say whether a change made the engine slower or bigger.
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
    wall, _, rss, out = timed_cpu(cmd, cwd)
    return wall, rss, out


def timed_cpu(cmd: list[str], cwd: Path | None = None) -> tuple[float, float, int, str]:
    """`timed` with the process's CPU seconds (user + system) after the wall seconds: on
    a shared virtual machine the wall time also counts the time the process waited for a
    processor, the CPU time does not."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        p = subprocess.run(["/usr/bin/time", "-v", "-o", t.name, *cmd], cwd=cwd, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{cmd[0]} failed ({p.returncode}):\n{p.stderr[-2000:]}")
        report = t.read()
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", report).group(1)
    parts = [float(x) for x in wall.split(":")]
    seconds = sum(v * 60**i for i, v in enumerate(reversed(parts)))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", report).group(1))
    cpu = sum(float(re.search(rf"{k} time \(seconds\): (\S+)", report).group(1)) for k in ("User", "System"))
    return seconds, cpu, rss, p.stdout


def build_baseline(rev: str, work: Path) -> Path:
    """`tailor-sim` built at git revision `rev` (in a scratch worktree, its own target dir)."""
    tree = work / "baseline-src"
    subprocess.run(["git", "worktree", "add", "--detach", str(tree), rev], cwd=ROOT, check=True, capture_output=True)
    try:
        target = ROOT / "target" / "bench-baseline"
        print(f"building tailor-sim at {rev} ...", flush=True)
        subprocess.run(
            ["cargo", "build", "--release", "--quiet", "-p", "tailor", "--bin", "tailor-sim"],
            cwd=tree,
            check=True,
            env={**__import__("os").environ, "CARGO_TARGET_DIR": str(target)},
        )
        return target / "release" / "tailor-sim"
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=True, capture_output=True)


def run_pair(scenario: Path, repeat: int, baseline: Path) -> tuple[dict, dict]:
    """The current and the baseline build on `scenario`, alternately, `repeat` runs each."""
    new, old = [], []
    for _ in range(repeat):
        new.append(run_tailor(scenario, 1))
        old.append(run_tailor(scenario, 1, baseline))

    def pick(runs):
        return {**sorted(runs, key=lambda r: r["wall"])[len(runs) // 2], "walls": [r["wall"] for r in runs]}

    return pick(new), pick(old)


def run_tailor(scenario: Path, repeat: int, binary: Path = TAILOR_SIM) -> dict:
    runs = []
    for _ in range(repeat):
        wall, rss, out = timed([str(binary), str(scenario)])
        s = json.loads(out)
        runs.append(
            {
                "wall": wall,
                "rss_kb": rss,
                "events": s["events"],
                "engine_wall": s["wall_seconds"],
                "completed": s["messages"]["completed"],
            }
        )
    best = sorted(runs, key=lambda r: r["wall"])[len(runs) // 2]
    return {**best, "walls": [r["wall"] for r in runs]}


def run_ns3(anchor: str, run: str, flags: list[str], workload: Path, work: Path) -> dict | None:
    binary = ns3.build(anchor)
    if binary is None:
        return None
    out = work / f"ns3-{anchor}"
    out.mkdir(parents=True, exist_ok=True)
    cmd = [
        str(binary),
        f"--flowsIn={workload}",
        *flags,
        f"--out={out / 'flows.csv'}",
        f"--summary={out / 'summary.json'}",
    ]
    wall, rss, _ = timed(cmd, cwd=binary.parent.parent)
    s = json.loads((out / "summary.json").read_text())
    return {"wall": wall, "rss_kb": rss, "events": s["events"], "completed": s["flows"]["completed"], "measured": True}


def recorded_ns3(anchor: str, run: str) -> dict:
    s = json.loads((ns3.ANCHORS / anchor / "results" / run / "summary.json").read_text())
    return {
        "wall": s["total_wall_seconds"],
        "rss_kb": s["peak_rss_kb"],
        "events": s["events"],
        "completed": s["flows"]["completed"],
        "measured": False,
    }


def replay_scenario(anchor: str, run: str, work: Path) -> tuple[Path, Path]:
    import gzip
    import shutil

    from tailor.crosscheck import build_scenario  # the same scenario the crosscheck builds

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


# SWP Table 3: (ns-3 s, swp s, ratio) per workload, DCTCP.
PAPER_TABLE3 = {
    "websearch-30": (113.22, 1.68, 67.39),
    "websearch-60": (124.69, 2.35, 53.06),
    "google-30": (54.77, 0.67, 81.75),
    "google-60": (55.95, 0.80, 69.94),
}
MSS = 1448


def segments(sizes: list[int], mss: int = MSS) -> int:
    """Data segments of a list of messages: the sum of ceil(size / mss)."""
    return sum(-(-s // mss) for s in sizes)


def model_sizes(scenario: Path, work: Path) -> list[int]:
    """The message sizes of `scenario` (from a model run's messages.csv)."""
    import csv

    out = work / f"sizes-{scenario.stem}"
    subprocess.run(
        [str(TAILOR_SIM), "--engine", "model", str(scenario), "--out", str(out)], check=True, capture_output=True
    )
    with open(out / "messages.csv") as f:
        return [int(r["size_bytes"]) for r in csv.DictReader(f)]


def anchor_segments(anchor: str, run: str) -> int:
    import csv
    import gzip

    with gzip.open(ns3.ANCHORS / anchor / "results" / run / "workload.csv.gz", "rt") as f:
        return segments([int(r["size_bytes"]) for r in csv.DictReader(f)])


def run_engine(scenario: Path, engine: str, repeat: int) -> dict:
    """tailor-sim on `engine`, `repeat` runs: the medians of the engine time (summary.json's
    `wall_seconds`: from building the workload to the end of the run, without process start
    and scenario loading) and of the process wall time, and every run's figures."""
    import time

    runs = []
    for _ in range(repeat):
        # /usr/bin/time reports wall time in 10 ms steps: too coarse for the model's runs.
        started = time.perf_counter()
        _, rss, out = timed([str(TAILOR_SIM), "--engine", engine, str(scenario)])
        wall = time.perf_counter() - started
        s = json.loads(out)
        runs.append(
            {
                "wall": wall,
                "engine_wall": s["wall_seconds"],
                "rss_kb": rss,
                "events": s["events"],
                "completed": s["messages"]["completed"],
            }
        )
    engine = sorted(r["engine_wall"] for r in runs)
    runs.sort(key=lambda r: r["wall"])
    return {
        **runs[len(runs) // 2],
        "engine_wall": statistics.median(engine),
        "engine_walls": engine,
        "walls": [r["wall"] for r in runs],
    }


def spread(values: list[float]) -> str:
    """min–max of a list of times, in seconds."""
    digits = 3 if max(values) < 10 else 1
    return f"{min(values):.{digits}f}–{max(values):.{digits}f}"


def model_section(ns3_per_segment: float, ns3_label: str, work: Path, repeat: int, packet_repeat: int) -> list[dict]:
    """The model against the packet engine on SWP's Table 3 runs, by engine time (docs/model.md,
    "Speed"); ns-3 scaled by data segments beside them."""
    print(
        f"\nthe fast model (SWP Table 3 setup: 50,000 flows, 100 Gbps, 10 us RTT, DCTCP / SWP-D); "
        f"ns-3 {ns3_label}: {ns3_per_segment * 1e6:.2f} us per data segment, scaled by segments"
    )
    print(f"  engine times (summary.json wall_seconds), medians of {repeat} model and {packet_repeat} packet runs")
    head = (
        f"  {'scenario':<14} {'model s':>9} {'packet s':>9} {'pkt/model':>10} {'ns-3 s (scaled)':>16} "
        f"{'ns-3/model':>11} {'paper ns-3/swp':>15}"
    )
    print(head)
    rows = []
    for name in PAPER_TABLE3:
        scenario = ROOT / "scenarios" / "swp" / f"table3-{name}.toml"
        m = run_engine(scenario, "model", repeat)
        p = run_engine(scenario, "packet", packet_repeat)
        if m["completed"] != p["completed"]:
            raise RuntimeError(f"{scenario}: model completed {m['completed']} messages, packet {p['completed']}")
        seg = segments(model_sizes(scenario, work))
        ns3_s = ns3_per_segment * seg
        paper = PAPER_TABLE3[name]
        row = {
            "scenario": name,
            "model": m,
            "packet": p,
            "segments": seg,
            "ns3_scaled_s": ns3_s,
            "packet_over_model": p["engine_wall"] / m["engine_wall"],
            "ns3_over_model": ns3_s / m["engine_wall"],
            "process_packet_over_model": p["wall"] / m["wall"],
            "paper": {"ns3_s": paper[0], "swp_s": paper[1], "ratio": paper[2]},
        }
        print(
            f"  {name:<14} {m['engine_wall']:>9.3f} {p['engine_wall']:>9.2f} {row['packet_over_model']:>9.1f}x {ns3_s:>16.1f} "
            f"{row['ns3_over_model']:>10.0f}x {paper[2]:>14.1f}x",
            flush=True,
        )
        rows.append(row)
    print(
        "  spread (min–max, engine time): "
        + "; ".join(
            f"{r['scenario']} model {spread(r['model']['engine_walls'])} s, packet {spread(r['packet']['engine_walls'])} s"
            for r in rows
        )
    )
    print(
        "  process wall times (with process start and scenario loading), packet / model: "
        + ", ".join(f"{r['scenario']} {r['process_packet_over_model']:.1f}x" for r in rows)
    )
    print(
        "  note: scaling by segments ignores ns-3's per-flow costs (sockets, applications, handshakes), which "
        "dominate for Google's small flows (the paper's ns-3 took 55 s there), so the Google ratios are lower bounds."
    )
    return rows


#: The Homa paper's fabric (scenarios/homa): 50 ms of simulated time each.
HOMA_CASES = [
    ("Homa, W5 at 80 %", "bench-w5-80.toml"),
    ("Homa, W3 at 80 %", "bench-w3-80.toml"),
    ("DCTCP, W5, same bytes", "bench-w5-80-dctcp.toml"),
    ("pFabric, W5 at 80 %", "bench-w5-80-pfabric.toml"),
    ("NDP, W5, same bytes", "bench-w5-80-ndp.toml"),
]
#: The authors' OMNeT++ simulator on W5 at 80 %, 50 ms of simulated time, built on this
#: machine kind (anchors/homa-paper/README.md): RECORDED, not run here.
OMNETPP_W5_50MS_S = 392.0
#: The issue's target for Homa's W5 bench: engine time.
HOMA_TARGET_S = 8.0


def homa_section(repeat: int) -> list[dict]:
    """Homa on the paper's fabric: wall, events/s, messages/s, peak RSS; against the
    authors' simulator (recorded) and DCTCP on the same fabric and bytes (run here)."""
    print("\nHoma on the paper's 144-host fabric, 50 ms of simulated time (scenarios/homa/bench-*.toml)", flush=True)
    print(
        f"  {'':<24} {'wall':>11} {'events':>13} {'events/s':>12} {'peak RSS':>11} {'messages/s':>12} {'engine s':>9}"
    )
    rows = []
    for label, name in HOMA_CASES:
        r = run_tailor(ROOT / "scenarios" / "homa" / name, repeat)
        r["messages_per_s"] = r["completed"] / r["wall"]
        rows.append({"case": label, "scenario": name, **r})
        print(fmt_row(label, r) + f" {r['messages_per_s']:>12,.0f} {r['engine_wall']:>9.2f}", flush=True)
    w5, dctcp = rows[0], rows[2]

    def eps(r):
        return r["events"] / r["engine_wall"]

    print(
        f"  W5: engine {w5['engine_wall']:.2f} s against the target {HOMA_TARGET_S:.0f} s; the authors' OMNeT++ simulator took "
        f"{OMNETPP_W5_50MS_S:.0f} s (RECORDED on this machine kind, other run): {OMNETPP_W5_50MS_S / w5['wall']:.0f}x"
    )
    print(
        f"  per event, Homa / DCTCP on the same fabric and bytes: {eps(w5) / eps(dctcp):.3f}x the events/s "
        f"({eps(w5) / 1e6:.2f} M/s against {eps(dctcp) / 1e6:.2f} M/s)"
    )
    # The baselines' expensive paths (issue 13): pFabric's rank queues and evictions, NDP's
    # trimming, on the same W5 run.
    for r in rows[3:]:
        print(
            f"  per event, {r['case'].split(',')[0]} / Homa on W5 at 80 %: {eps(r) / eps(w5):.3f}x the events/s "
            f"({eps(r) / 1e6:.2f} M/s), {r['engine_wall'] / w5['engine_wall']:.2f}x Homa's engine time"
        )
    return rows


def hull_section(work: Path) -> list[dict]:
    """HULL §6.3 at full size (192 servers, 1,000,000 Pareto flows a scheme, the full form
    of `tailor reproduce hull-fattree`): DCTCP and HULL through `tailor-sim` (wall, events/s,
    flows/s, peak RSS; HULL's per-event cost against DCTCP's on the same flows), then the
    full reproduction itself timed end to end (both schemes in two threads, the tables)."""
    from tailor.reproduce.hull import fattree

    n = fattree.FLOWS["full"]
    print(
        f"\nHULL §6.3 fat-tree, 192 servers, {n:,} flows a scheme (tailor reproduce hull-fattree, full form)",
        flush=True,
    )
    print(f"  {'':<24} {'wall':>11} {'events':>13} {'events/s':>12} {'peak RSS':>11} {'flows/s':>12} {'engine s':>9}")
    rows = []
    for scheme in fattree.SCHEMES:
        path = work / f"fattree-{scheme}.toml"
        path.write_text(fattree.scenario(scheme, n))
        r = run_tailor(path, 1)
        r["flows_per_s"] = r["completed"] / r["wall"]
        rows.append({"case": scheme, **r})
        print(fmt_row(scheme.upper(), r) + f" {r['flows_per_s']:>12,.0f} {r['engine_wall']:>9.2f}", flush=True)

    def eps(r):
        return r["events"] / r["engine_wall"]

    dctcp, hull = rows
    print(
        f"  per event, HULL (phantom queues, pacers) / DCTCP on the same flows: {eps(hull) / eps(dctcp):.3f}x the events/s; "
        f"events {hull['events'] / dctcp['events']:.3f}x"
    )
    t0 = __import__("time").perf_counter()
    subprocess.run(
        [sys.executable, "-m", "tailor", "reproduce", "hull-fattree", "--out", str(work / "hull-fattree")],
        check=True,
        capture_output=True,
        cwd=ROOT,
    )
    wall = __import__("time").perf_counter() - t0
    print(f"  the full reproduction (both schemes, two threads, tables): {wall:.1f} s wall", flush=True)
    rows.append({"case": "reproduction", "wall": wall})
    return rows


def fmt_row(label: str, r: dict) -> str:
    return f"  {label:<24} {r['wall']:>9.2f} s {r['events']:>13,} {r['events'] / r['wall'] / 1e6:>8.2f} M/s {r['rss_kb'] / 1024:>8.1f} MB"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="tailor runs per case (the median is reported)")
    ap.add_argument("--no-ns3", action="store_true", help="use the anchors' recorded ns-3 times")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument(
        "--model-repeat", type=int, default=5, help="model runs per Table 3 scenario (the median is reported)"
    )
    ap.add_argument(
        "--packet-repeat", type=int, default=3, help="packet-engine runs per Table 3 scenario (the median is reported)"
    )
    ap.add_argument(
        "--model-only",
        action="store_true",
        help="only the model section (after timing ns-3 on the single-bottleneck anchor)",
    )
    ap.add_argument(
        "--baseline", metavar="REV", help="also build tailor-sim at git revision REV and compare it, case by case"
    )
    ap.add_argument("--homa-only", action="store_true", help="only the Homa section (the paper's fabric)")
    ap.add_argument("--hull-only", action="store_true", help="only the HULL section (§6.3's fat-tree)")
    args = ap.parse_args()
    results = {"cases": [], "memory": []}
    with tempfile.TemporaryDirectory(prefix="tailor-bench-") as tmp:
        work = Path(tmp)
        baseline = build_baseline(args.baseline, work) if args.baseline else None
        if args.hull_only:
            results["hull"] = hull_section(work)
            if args.json:
                args.json.write_text(json.dumps(results, indent=2))
            return 0
        if args.homa_only:
            results["homa"] = homa_section(args.repeat)
            if args.json:
                args.json.write_text(json.dumps(results, indent=2))
            return 0
        if args.model_only:
            label, anchor, run, flags = CASES[0]
            _, workload = replay_scenario(anchor, run, work)
            n = (None if args.no_ns3 else run_ns3(anchor, run, flags, workload, work)) or recorded_ns3(anchor, run)
            print(
                f"ns-3 on the {label}: {n['wall']:.2f} s" + ("" if n["measured"] else " (RECORDED, other run)"),
                flush=True,
            )
            per_seg = n["wall"] / anchor_segments(anchor, run)
            where = "measured in this script" if n["measured"] else "RECORDED (anchor run, other machine)"
            results["model"] = model_section(per_seg, where, work, args.model_repeat, args.packet_repeat)
            if args.json:
                args.json.write_text(json.dumps(results, indent=2))
            return 0
        for label, anchor, run, flags in CASES:
            print(f"\n{label}", flush=True)
            scenario, workload = replay_scenario(anchor, run, work)
            if baseline:
                t, old = run_pair(scenario, args.repeat, baseline)
            else:
                t, old = run_tailor(scenario, args.repeat), None
            n = None if args.no_ns3 else run_ns3(anchor, run, flags, workload, work)
            n = n or recorded_ns3(anchor, run)
            print(f"  {'':<24} {'wall':>11} {'events':>13} {'events/s':>12} {'peak RSS':>11}")
            print(fmt_row("tailor (tailor-sim)", t))
            if old:
                print(fmt_row(f"tailor at {args.baseline}", old))
            print(fmt_row("ns-3 3.37" + ("" if n["measured"] else " (RECORDED, other run)"), n))
            if old:

                def eps(r):
                    return r["events"] / r["wall"]

                print(
                    f"  this build / {args.baseline}: wall {t['wall'] / old['wall']:.3f}x, events/s {eps(t) / eps(old):.3f}x, "
                    f"peak RSS {t['rss_kb'] / old['rss_kb']:.3f}x, events {t['events'] / old['events']:.3f}x; "
                    f"runs (new | old): {', '.join(f'{w:.2f}' for w in t['walls'])} | {', '.join(f'{w:.2f}' for w in old['walls'])} s"
                )
            ratio = n["wall"] / t["wall"]
            print(
                f"  speed-up: {ratio:.1f}x wall ({'measured in this script' if n['measured'] else 'against a recorded time: machines differ by up to 2.4x'}); "
                f"tailor runs: {', '.join(f'{w:.2f}' for w in t['walls'])} s; events ratio ns-3/tailor {n['events'] / t['events']:.2f}"
            )
            results["cases"].append({"case": label, "tailor": t, "ns3": n, "speedup": ratio, "baseline": old})
        print("\nmemory as the flow count grows (web search 30 %, generated flows)")
        rows = memory_flatness(work)
        for r in rows:
            print(
                f"  {r['flows']:>6} flows: {r['wall']:.2f} s, {r['events']:,} events, peak RSS {r['rss_kb'] / 1024:.1f} MB"
            )
        growth = rows[1]["rss_kb"] / rows[0]["rss_kb"]
        print(f"  RSS ratio 15,000 / 2,000 flows: {growth:.2f} (flows ratio 7.5)")
        results["memory"] = rows
        first = results["cases"][0]
        per_seg = first["ns3"]["wall"] / anchor_segments(*CASES[0][1:3])
        label = "measured in this script" if first["ns3"]["measured"] else "RECORDED (anchor run, other machine)"
        results["model"] = model_section(per_seg, label, work, args.model_repeat, args.packet_repeat)
        results["homa"] = homa_section(args.repeat)
        results["hull"] = hull_section(work)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
