"""PL2 §D.3: the packet-burst size K, swept. The paper says only that "K = 4 works best for
our 100G testbed prototype and in our simulation for all the workloads we tested, based on
a parameter sweep", and names the trade-off: a small K lets the RSV-GRT exchanges dominate
("lowering throughput"), a large K reserves a run of timeslots for one host and blocks
others behind it (head-of-line blocking). tailor runs K = 1, 2, 4, 8, 16 (t = 15, T = 512)
on three workloads, raw Ethernet over PL2 on the paper's rack (``rack``):

- ``alone``: one 1 MB message from one server, nothing else: a message is sent by one
  thread, K packets per exchange, so this is the rate one message can reach;
- ``stream``: §F.4's one server at line rate, 12 flows of 6,000 B messages (Fig. 11a at
  n = 1): the rate a server reaches through its 12 threads' exchanges;
- ``w4``: §F.3's 3-way incast of W4 at 85 % (``sweep``): goodput, loss, and latency of all
  messages and of one-packet messages (the head-of-line blocking).

Each point runs several seeds; the table prints the mean over seeds with its bootstrap
interval, and a percentile only where every seed has the messages it needs
(``tailor.reproduce.cells``). ``control_fraction`` is the RSV and GRT bytes (64 B each,
§E) per message byte delivered.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import polars as pl
import typer

from tailor import parse
from tailor.errors import OptionError
from tailor.outdir import staged
from tailor.reproduce import cells
from tailor.reproduce.pl2 import incast, rack, runs, sweep
from tailor.reproduce.registry import Out, Plan
from tailor.result import Result
from tailor.stats import Estimate

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COLUMNS", "WORKLOADS", "KS", "options", "run", "render"]

WORKLOADS = ("alone", "stream", "w4")
KS = (1, 2, 4, 8, 16)
#: The mean-over-seeds columns, each with cells.columns' interval and counts.
_MEANS = ("goodput_gbps", "incomplete", "max_queue_bytes", "control_fraction", "wait_per_burst_us")
#: The columns of k_sweep.csv: one row per workload and K, estimates across the seeds.
COLUMNS = (
    "workload",
    "burst",
    "seeds",
    "messages",
    "drops_most",
    *(
        c
        for k in (*_MEANS, *(x[0] for x in sweep.LATENCY))
        for c in (k, f"{k}_lo", f"{k}_hi", f"{k}_n", f"{k}_seeds", f"{k}_judged")
    ),
)
ALONE_BYTES = 1_000_000
#: (W4's ms of arrivals, the stream's µs, seeds) by form.
FORMS = {"quick": (3, 500, 3), "full": (20, 5_000, 5)}


def _alone(k: int, seed: int) -> str:
    cls = f"""[[class]]
name = "alone"
sizes_fixed = "{ALONE_BYTES}B"
arrival = "periodic"
rate = "1000Gbps"
pattern = "n_to_1"
senders = [0]
receiver = 5
messages = 1
"""
    return rack.scenario("pl2", cls, stop="2ms", seed=seed, burst=k)


def options(
    quick: Annotated[
        bool, typer.Option("--quick", help="W4 for 3 ms, the stream for 0.5 ms, 3 seeds (seconds).")
    ] = False,
    ks: Annotated[str, typer.Option(help="The K values, comma-separated (1 to 64).")] = ",".join(map(str, KS)),
    seeds: Annotated[
        int | None,
        typer.Option(
            help="Seeds per point (default: 3 quick, 5 full); the table gives "
            "the mean over seeds and its bootstrap interval."
        ),
    ] = None,
    w4_threads: Annotated[int, typer.Option(help="W4's sending threads per server (§F.3: 11).")] = sweep.THREADS,
    out: Out = None,
) -> Plan:
    """PL2 §D.3: K = 1 to 16 on one message alone, one server's stream (§F.4) and a 3-way
    incast of W4 (§F.3): throughput, loss and latency, beside the paper's K = 4."""
    values = parse.integers("--ks", ks, 1, 64)
    if seeds is not None:
        cells.check_seeds(seeds)
    if not 1 <= w4_threads <= 256:
        raise OptionError(f"--w4-threads: {w4_threads}; accepted: 1 to 256")
    form = "quick" if quick else "full"
    w4_ms, stream_us, default_seeds = FORMS[form]
    pts = []
    for k in values:
        for seed in range(1, (seeds or default_seeds) + 1):
            pts += [
                runs.Pl2Point(f"alone-{k}", seed, _alone(k, seed), 1_000),
                runs.Pl2Point(
                    f"stream-{k}", seed, incast.scenario("pl2", "incast", 1, stream_us, seed=seed, burst=k), stream_us
                ),
                runs.Pl2Point(f"w4-{k}", seed, sweep.w4_scenario(w4_ms, seed, w4_threads, burst=k), w4_ms * 1_200),
            ]
    default = Path("runs") / ("pl2-k-sweep-quick" if quick else "pl2-k-sweep")
    return Plan(out or default, lambda out, say: run(pts, form, out, say, w4_threads))


def _control(run_dir: Path, delivered: float) -> float:
    rsv = Result(run_dir).summary["network"].get("pl2", {}).get("rsv", 0)
    return 2 * 64 * rsv / delivered if delivered else 0.0


def _seed(workload: str, run_dir: Path, form: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """One seed's row and latencies (µs) of a point."""
    w4_ms, stream_us, _ = FORMS[form]
    if workload == "w4":
        row, lat = sweep.measure_w4(run_dir, w4_ms)
        row["control_fraction"] = _control(run_dir, row["goodput_gbps"] * 1e9 / 8 * w4_ms / 1e3)
        return row, lat
    m = pl.read_parquet(run_dir / "messages.parquet")
    s = Result(run_dir).summary
    lat = ((m["finish_ns"] - m["start_ns"]) / 1e3).to_numpy()
    if workload == "alone":
        # The message's own rate: its bytes over its completion time.
        gbps = ALONE_BYTES * 8 / (lat[0] * 1e3) if len(lat) else 0.0
        delivered = float(ALONE_BYTES)
    else:
        io = incast._measure(run_dir, "incast", 1, stream_us)
        gbps = io["throughput_gbps"]
        delivered = gbps * 1e9 / 8 * s["sim_ns"] / 1e9
    c = s.get("transport_counters", {})
    bursts = c.get("pl2_bursts", 0)
    row = {
        "goodput_gbps": gbps,
        "messages": len(lat),
        "incomplete": s["messages"]["incomplete"],
        "wait_per_burst_us": c.get("pl2_wait_ns", 0) / bursts / 1e3 if bursts else 0.0,
        "drops": s["network"]["drops"],
        "max_queue_bytes": s["network"]["max_queue_bytes"],
        "control_fraction": _control(run_dir, delivered),
    }
    return row, {"all": lat, "small": lat[:0]}


def run(points: list[runs.Pl2Point], form: str, out: Path, say: Any, w4_threads: int = sweep.THREADS) -> dict:
    """Runs the points into ``out`` (written whole once complete): scenarios, runs,
    k_sweep.csv (one row per workload and K) and k_sweep.json (every seed too)."""
    with staged(out, "reproduction", name="pl2-k-sweep") as work:
        dirs = runs.run(points, work, f"tailor reproduce pl2-k-sweep, {form} form", say)
        rows, seed_rows = [], []
        for name in dict.fromkeys(p.name for p in points):
            workload, k = name.rsplit("-", 1)
            pairs = [(p.seed, *_seed(workload, dirs[p], form)) for p in points if p.name == name]
            seed_rows += [{"workload": workload, "burst": int(k), "seed": seed, **r} for seed, r, _ in pairs]
            rows.append(
                {
                    "workload": workload,
                    "burst": int(k),
                    "seeds": len(pairs),
                    "messages": sum(r["messages"] for _, r, _ in pairs),
                    **sweep.estimates([r for _, r, _ in pairs], [x for _, _, x in pairs], _MEANS),
                }
            )
        pl.DataFrame([{c: r[c] for c in COLUMNS} for r in rows]).write_csv(work / "k_sweep.csv")
        report = {
            "reproduction": "pl2-k-sweep",
            "form": form,
            "w4_ms": FORMS[form][0],
            "stream_us": FORMS[form][1],
            "w4_threads": w4_threads,
            "rows": rows,
            "seed_rows": seed_rows,
        }
        (work / "k_sweep.json").write_text(json.dumps(report, indent=1))
    return report


def _est(row: dict[str, Any], k: str, p: float | None = None) -> Estimate:
    return cells.restore(k, row, p)


def render(report: dict[str, Any], console: Console) -> None:
    """Two tables by K, means over seeds [95 % interval]: the rates (what a small K costs)
    and W4's latencies (what a large K costs)."""
    from rich import box
    from rich.table import Table

    at = {(r["workload"], r["burst"]): r for r in report["rows"]}
    ks = [k for k in sorted({r["burst"] for r in report["rows"]}) if all((w, k) in at for w in WORKLOADS)]
    seeds = report["rows"][0]["seeds"]
    head = f"({report['form']} form, {seeds} seeds; t = 15, T = 512)"
    rates = Table(
        title=f"PL2 §D.3: K swept, raw Ethernet over PL2: rates {head}", title_justify="left", box=box.SIMPLE_HEAD
    )
    for c in (
        "K (paper: 4 best)",
        "1 MB alone Gbps",
        f"stream Gbps (§F.4, n = 1, {report['stream_us']} µs)",
        "W4 goodput Gbps",
        "RSV+GRT per byte (paper: ≥ 2 % at K = 4)",
        "drops",
    ):
        rates.add_column(c, justify="left" if c.startswith("K") else "right")
    lats = Table(
        title=f"PL2 §D.3: K swept: W4 3-way incast at 85 %, {report['w4_ms']} ms of arrivals, "
        f"{report.get('w4_threads', sweep.THREADS)} threads per server {head}",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for c in (
        "K",
        "p50 µs",
        "p99 µs",
        "p99 of ≤ 1,500 B µs",
        "wait per burst µs (eq. 2)",
        "largest queue KB",
        "unfinished",
    ):
        lats.add_column(c, justify="left" if c == "K" else "right")
    for k in ks:
        a, s, w = (at[(x, k)] for x in WORKLOADS)
        label = f"{k}" + (" (paper's)" if k == 4 else "")
        rates.add_row(
            label,
            cells.text(_est(a, "goodput_gbps"), ".1f"),
            cells.text(_est(s, "goodput_gbps"), ".1f"),
            cells.text(_est(w, "goodput_gbps"), ".1f"),
            f"{w['control_fraction']:.2%}",
            f"{max(a['drops_most'], s['drops_most'], w['drops_most']):,}",
        )
        lats.add_row(
            label,
            cells.text(_est(w, "p50_us", 50), ",.1f"),
            cells.text(_est(w, "p99_us", 99), ",.0f"),
            cells.text(_est(w, "small_p99_us", 99), ",.1f"),
            cells.text(_est(w, "wait_per_burst_us"), ".2f"),
            f"{w['max_queue_bytes'] / 1e3:,.1f}",
            f"{w['incomplete']:.1f}",
        )
    console.print(rates)
    console.print(lats)
    console.print(
        "The paper gives no figure for its sweep, only that K = 4 was best (§D.3) and that K = 4 costs "
        "at least 2 % in RSV and GRT bytes (§G). '1 MB alone': one message's rate (one thread, K packets "
        "per exchange); 'stream': one server, 12 flows of 6,000 B messages at line rate; W4: 3-way incast at "
        "85 % (§F.3). Drops: the most in a seed of any workload; largest queue and unfinished: means over "
        f"seeds. docs/reproductions-pl2.md.\n{cells.legend()}",
        highlight=False,
    )
