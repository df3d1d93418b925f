"""PL2 §F.3, Fig. 10: the Homa workloads W1-W5 in a 3-way incast on the rack: three
servers send to a fourth with Poisson arrivals, 11 sending threads per server. The load
is what the paper's 33 generator threads reached: below 5 Gbps for W1 and W2 (§F.3.1),
"40-90 Gbps" for W3-W5, of which the text gives W4's 86 Gbps and W3's 81 (TCP over PL2):
tailor offers 5 % of the receiver's link for W1 and W2, 80 % for W3 and 85 % for W4, W5.

Schemes: raw Ethernet, UDP and TCP (congestion control off) over PL2; TCP Cubic and RDS
without it; and the paper's "raw Ethernet (optimal)": the same load from one server to
another over raw Ethernet, its NIC shared by its messages as 33 threads would share it
(`[host] nic = "round_robin"`), no contention anywhere. TCP schemes keep 11 persistent
connections per sender, one per worker thread, and hand each message to the first
available worker, the message waiting at its sender while none is, as the paper's
generator does (§F.3; `connection_choice = "available"`). TCP coalesces the messages
queued on a connection into shared segments (Nagle's rule, the default `coalesce`).

Latency is one-way, from a message's start to its last byte (§F.1: "the time from message
arrival at the sending thread to the time when the message is delivered at the receiving
thread"). TCP completes a message when its receiver has its last byte in order
(`completion = "delivery"`), not at the sender's last ACK (ns-3's FCT, TCP's default
elsewhere); on a connection whose messages share segments the receiver finds where each
message ends from the stream's framing. Throughput is the
message bytes completed per second of the arrivals' window (a message that arrived in it
has 20 % more time to complete). Each point runs ``--seeds`` seeds (3 by default): the table
gives the means over seeds, p99 with its interval across them, and a dash for a percentile
some seed rests on fewer messages than it needs (W5's 200 a seed are enough for a p99).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import polars as pl
import typer

from tailor import parse, stats
from tailor.outdir import staged
from tailor.reproduce import cells
from tailor.reproduce.pl2 import rack, runs
from tailor.reproduce.pl2.paper import TRACES
from tailor.reproduce.registry import Out, Plan
from tailor.result import Result
from tailor.stats import Estimate

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COLUMNS", "SCHEMES", "WORKLOADS", "options", "run", "render"]

#: The columns of traces.csv.
COLUMNS = ("workload", "scheme", "seed", "throughput_gbps", "p50_us", "p99_us", "messages", "incomplete", "drops")
SCHEMES = ("pl2", "pl2-udp", "pl2-tcp", "raw-optimal", "cubic", "rds")
WORKLOADS = ("W1", "W2", "W3", "W4", "W5")
LOADS = {"W1": 0.05, "W2": 0.05, "W3": 0.80, "W4": 0.85, "W5": 0.85}
RECEIVER = 3
THREADS = 11
#: Simulated ms per point, and the workloads.
FORMS = {"quick": (5, ("W3", "W4")), "full": (50, WORKLOADS)}


def scenario(workload: str, scheme: str, length_ms: int) -> str:
    senders = "[0]" if scheme == "raw-optimal" else "[0, 1, 2]"
    tcp = scheme in ("pl2-tcp", "cubic")
    # One connection per worker thread; a message goes to an available worker (§F.3).
    workers = f'connections = {THREADS}\nconnection_choice = "available"'
    cls = f"""[[class]]
name = "{workload.lower()}"
sizes = "{workload.lower()}"
arrival = "poisson"
load = {LOADS[workload]}
pattern = "n_to_1"
senders = {senders}
receiver = {RECEIVER}
until = "{length_ms}ms"
{workers if tcp else ""}
"""
    base = "raw" if scheme == "raw-optimal" else scheme
    nic = "round_robin" if scheme == "raw-optimal" else "priority"
    # Messages in flight at the end get 20 % more time to finish.
    # TCP completes a message at its delivery: PL2's one-way latency (§F.1).
    return rack.scenario(
        base, cls, stop=f"{length_ms * 6 // 5}ms", threads=THREADS, nic=nic, completion="delivery" if tcp else "ack"
    )


def options(
    quick: Annotated[bool, typer.Option("--quick", help="W3 and W4, 5 ms each (seconds in all).")] = False,
    workloads: Annotated[str, typer.Option(help="Comma-separated, of W1-W5.")] = ",".join(WORKLOADS),
    seeds: cells.Seeds = 3,
    out: Out = None,
) -> Plan:
    """PL2 Fig. 10: W1-W5 in a 3-way incast, raw Ethernet, UDP and TCP over PL2 against
    TCP Cubic, RDS and raw Ethernet alone between two servers, beside the paper's."""
    form = "quick" if quick else "full"
    length, default_w = FORMS[form]
    given = parse.choices("--workloads", workloads, WORKLOADS, "workload", case=str.upper)
    chosen = tuple(given) if workloads != ",".join(WORKLOADS) else default_w
    cells.check_seeds(seeds)
    # The scenario's text is the same for every seed: the run takes its seed from the point.
    pts = [
        runs.Pl2Point(f"{w}-{s}", seed, scenario(w, s, length), length * 1000, workload=w)
        for w in chosen
        for s in SCHEMES
        for seed in range(1, seeds + 1)
    ]
    default = Path("runs") / ("pl2-traces-quick" if quick else "pl2-traces")
    return Plan(out or default, lambda out, say: run(pts, form, out, say))


def _measure(run_dir: Path, length_ms: int) -> dict[str, Any]:
    s = Result(run_dir).summary
    m = pl.read_parquet(run_dir / "messages.parquet")
    lat = ((m["finish_ns"] - m["start_ns"]) / 1e3).to_numpy()
    n = len(lat)
    return {
        # Over the arrivals' window: what completed of what arrived in it, per second of it.
        "throughput_gbps": float(m["size_bytes"].sum()) * 8 / (length_ms / 1e3) / 1e9,
        "latencies_us": lat,
        "p50_us": stats.percentile(lat, 50) if n >= stats.samples_needed(50) else None,
        "p99_us": stats.percentile(lat, 99) if n >= stats.samples_needed(99) else None,
        "messages": n,
        "incomplete": s["messages"]["incomplete"],
        "drops": s["network"]["drops"],
    }


def run(points: list[runs.Pl2Point], form: str, out: Path, say: Any) -> dict:
    """Runs the points into ``out`` (written whole once complete): scenarios, runs,
    traces.csv and traces.json."""
    length = FORMS[form][0]
    with staged(out, "reproduction", name="pl2-traces") as work:
        dirs = runs.run(points, work, f"tailor reproduce pl2-traces, {form} form", say)
        rows = [
            {"workload": p.workload, "scheme": p.name.split("-", 1)[1], "seed": p.seed, **_measure(dirs[p], length)}
            for p in points
        ]
        pl.DataFrame([{c: r[c] for c in COLUMNS} for r in rows]).write_csv(work / "traces.csv")
        report = {
            "reproduction": "pl2-traces",
            "form": form,
            "length_ms": length,
            "loads": LOADS,
            "rows": [{c: r[c] for c in COLUMNS} for r in rows],
            "points": summarise(rows),
        }
        (work / "traces.json").write_text(json.dumps(report, indent=1))
    return report


def summarise(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per (workload, scheme) across seeds: throughput, p50 and p99 as ``cells.columns``
    (each seed's percentiles from its own messages), unfinished messages summed."""
    out = []
    for key in dict.fromkeys((r["workload"], r["scheme"]) for r in rows):
        rs = [r for r in rows if (r["workload"], r["scheme"]) == key]
        est = {
            "throughput_gbps": Estimate.of_values([(r["throughput_gbps"], 1) for r in rs]),
            "p50_us": Estimate.of_samples([r["latencies_us"] for r in rs], 50),
            "p99_us": Estimate.of_samples([r["latencies_us"] for r in rs], 99),
        }
        out.append(
            {
                "workload": key[0],
                "scheme": key[1],
                "incomplete": sum(r["incomplete"] for r in rs),
                **{c: v for k, e in est.items() for c, v in cells.columns(k, e).items()},
            }
        )
    return out


def _cell(r: dict[str, Any]) -> str:
    if "p99_us_n" not in r:  # a report of before issue 26: one seed, no interval
        p99 = "—" if r["p99_us"] is None else f"{r['p99_us']:.0f}"
        p50 = "—" if r["p50_us"] is None else f"{r['p50_us']:.1f}"
        lost = f"; {r['incomplete']:,} lost" if r["incomplete"] else ""
        return f"{r['throughput_gbps']:.0f} Gbps, {p50} / {p99} µs{lost}"
    p50, p99 = cells.restore("p50_us", r, 50), cells.restore("p99_us", r, 99)
    p50_s = f"{p50.value:.1f}" if p50.judged else "—"
    p99_s = cells.text(p99, ".0f").split(" n=")[0] if p99.judged else f"— n={p99.n}<100"
    lost = f"; {r['incomplete']:,} lost ({r['p99_us_seeds']} seeds)" if r["incomplete"] else ""
    return f"{r['throughput_gbps']:.0f} Gbps, {p50_s} / {p99_s} µs{lost}"


def render(report: dict[str, Any], console: Console) -> None:
    """Fig. 10's reading: goodput and p50 / p99 latency per workload and scheme, the
    paper's where its text gives them."""
    from rich import box
    from rich.table import Table

    pts = report.get("points", report["rows"])
    ws = [w for w in WORKLOADS if any(r["workload"] == w for r in pts)]
    at = {(r["workload"], r["scheme"]): r for r in pts}
    loads = ", ".join(f"{w} {report['loads'][w]:.0%}" for w in ws)
    t = Table(
        title=f"PL2 Fig. 10: W1-W5, 3-way incast ({loads} of the receiver's link); goodput, "
        f"p50 / p99 one-way latency; paper / tailor ({report['form']} form, {report['length_ms']} ms)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    t.add_column("scheme")
    for w in ws:
        t.add_column(w, justify="right")
    for s in SCHEMES:
        cells = []
        for w in ws:
            r = at.get((w, s))
            paper = TRACES.get((w, s))
            cells.append("" if r is None else f"{paper or '—'} / {_cell(r)}")
        t.add_row("raw Ethernet (optimal)" if s == "raw-optimal" else rack.scheme_label(s), *cells)
    console.print(t)
    console.print(
        "The paper's figure is not tabulated: its text gives W4's goodput over PL2 and optimal (86, 89 Gbps) "
        "and W3's for TCP over PL2 and Cubic (81, 43 Gbps). Ours: means over seeds, p99 [its 95 % interval "
        "across seeds]; a percentile some seed has too few messages for is a dash. docs/reproductions-pl2.md.",
        highlight=False,
        markup=False,
    )
