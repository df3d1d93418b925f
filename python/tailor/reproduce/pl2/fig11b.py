"""PL2 §F.4, Fig. 11b: the switch's queueing delay in Fig. 11a's incast. n hosts (1 to 5)
send 6,000 B messages at line rate each to one receiver, over raw Ethernet alone and over
PL2 with 12 sending threads per host: the scenarios of ``incast`` (``pl2-incast-outcast``),
with the receiver's switch port recorded. The paper's figure is not tabulated; its text:
"raw Ethernet has uncontrolled queue lengths, whereas PL2 over Ethernet achieves stable
queuing with low variance", and §B bounds PL2's buffer occupancy at 200 KiB.

Per seed, from the receiver's port (``[record] sojourn``: every packet's wait from joining
the queue to starting on the link, docs/results.md): the mean, p50, p99 and largest wait,
over the packets of the whole run; and from the queue sampled every µs (``[record]
queues``) after the first 10 % of the run (raw Ethernet's queue fills in its first
~120 µs): the queue's mean and standard deviation over time. The table prints the mean
over seeds with its bootstrap interval and the packets behind each percentile.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import polars as pl
import typer

from tailor.outdir import staged
from tailor.reproduce import cells
from tailor.reproduce.pl2 import incast, rack, runs
from tailor.reproduce.pl2.paper import FIG11B
from tailor.reproduce.registry import Out, Plan
from tailor.result import Result
from tailor.stats import Estimate

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COLUMNS", "SCHEMES", "options", "run", "render"]

SCHEMES = ("raw", "pl2")
RECEIVER = 5
#: The switch port towards the receiver (a star's port 2h + 1, docs/scenario.md).
PORT = 2 * RECEIVER + 1
#: The queue's sampling interval, and the share of the run left out of its statistics.
SAMPLE = "1us"
WARMUP = 0.1
#: (estimate, its percentile: None for a mean, 100 for the largest).
_STATS = (
    ("sojourn_mean_us", None),
    ("sojourn_p50_us", 50),
    ("sojourn_p99_us", 99),
    ("sojourn_max_us", 100),
    ("queue_mean_bytes", None),
    ("queue_sd_bytes", None),
)
#: The columns of fig11b.csv: one row per scheme and n, estimates across the seeds.
COLUMNS = (
    "scheme",
    "senders",
    "seeds",
    "drops_most",
    *(c for k, _ in _STATS for c in (k, f"{k}_lo", f"{k}_hi", f"{k}_n", f"{k}_seeds", f"{k}_judged")),
)
#: Simulated µs per point, the n, and the seeds: Fig. 11a's (``incast.FORMS``).
FORMS = incast.FORMS


def scenario(scheme: str, n: int, length_us: int, seed: int) -> str:
    """Fig. 11a's incast with the receiver's port recorded."""
    record = f'[record]\nsojourn = [{PORT}]\nqueues = "{SAMPLE}"\nqueue_ports = [{PORT}]\n'
    return incast.scenario(scheme, "incast", n, length_us, seed=seed, record=record)


def options(
    quick: Annotated[
        bool, typer.Option("--quick", help="n = 1, 3, 5 for 0.5 ms each, 3 seeds (seconds in all).")
    ] = False,
    out: Out = None,
) -> Plan:
    """PL2 Fig. 11b: the switch's queueing delay at the receiver under Fig. 11a's incast of
    6,000 B messages from 1 to 5 hosts, raw Ethernet against raw Ethernet over PL2."""
    form = "quick" if quick else "full"
    length, ns, seeds = FORMS[form]
    pts = [
        runs.Pl2Point(f"{s}-{n}", seed, scenario(s, n, length, seed), length)
        for s in SCHEMES
        for n in ns
        for seed in range(1, seeds + 1)
    ]
    default = Path("runs") / ("pl2-fig11b-quick" if quick else "pl2-fig11b")
    return Plan(out or default, lambda out, say: run(pts, form, out, say))


def _measure(run_dir: Path, length_us: int) -> dict[str, Any]:
    port = runs.ports(run_dir).filter(pl.col("port") == PORT).row(0, named=True)
    q = pl.read_parquet(run_dir / "queues.parquet").filter(pl.col("port") == PORT)
    q = q.filter(pl.col("time_ns") >= WARMUP * length_us * 1e3)["queue_bytes"]
    return {
        "packets": port["sojourn_packets"],
        "samples": q.len(),
        **{k: port[k] for k, _ in _STATS if k.startswith("sojourn")},
        "queue_mean_bytes": float(q.mean()),
        "queue_sd_bytes": float(q.std()),
        "drops": Result(run_dir).summary["network"]["drops"],
    }


def run(points: list[runs.Pl2Point], form: str, out: Path, say: Any) -> dict:
    """Runs the points into ``out`` (written whole once complete): scenarios, runs,
    fig11b.csv (one row per scheme and n) and fig11b.json (every seed too)."""
    length = FORMS[form][0]
    with staged(out, "reproduction", name="pl2-fig11b") as work:
        dirs = runs.run(points, work, f"tailor reproduce pl2-fig11b, {form} form", say)
        rows, seed_rows = [], []
        for name in dict.fromkeys(p.name for p in points):
            scheme, n = name.split("-")
            mine = [
                {"scheme": scheme, "senders": int(n), "seed": p.seed, **_measure(dirs[p], length)}
                for p in points
                if p.name == name
            ]
            seed_rows += mine
            row: dict[str, Any] = {
                "scheme": scheme,
                "senders": int(n),
                "seeds": len(mine),
                "drops_most": max(r["drops"] for r in mine),
            }
            for k, p in _STATS:
                count = "samples" if k.startswith("queue") else "packets"
                row |= cells.columns(k, Estimate.of_values([(r[k], r[count]) for r in mine], p))
            rows.append(row)
        pl.DataFrame([{c: r[c] for c in COLUMNS} for r in rows]).write_csv(work / "fig11b.csv")
        report = {"reproduction": "pl2-fig11b", "form": form, "length_us": length, "rows": rows, "seed_rows": seed_rows}
        (work / "fig11b.json").write_text(json.dumps(report, indent=1))
    return report


def render(report: dict[str, Any], console: Console) -> None:
    """Fig. 11b, paper / tailor: a row per scheme and n, means over seeds [95 % interval]."""
    from rich import box
    from rich.table import Table

    t = Table(
        title=f"PL2 Fig. 11b: queueing delay at the receiver's switch port, n-way incast of 6,000 B messages "
        f"at line rate ({report['form']} form, {report['length_us']} µs, {report['rows'][0]['seeds']} "
        f"seeds; queue sampled every {SAMPLE} after the first {WARMUP:.0%})",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for c in (
        "scheme",
        "n",
        "paper",
        "mean µs",
        "p50 µs",
        "p99 µs",
        "largest µs",
        "queue mean KB",
        "queue sd KB",
        "drops",
    ):
        t.add_column(c, justify="left" if c in ("scheme", "paper") else "right")
    for r in report["rows"]:
        e = {k: cells.restore(k, r, p) for k, p in _STATS}
        kb = {
            k: Estimate(
                None if e[k].value is None else e[k].value / 1e3,
                None if e[k].ci is None else (e[k].ci[0] / 1e3, e[k].ci[1] / 1e3),
                e[k].n,
                e[k].total,
                e[k].seeds,
                None,
            )
            for k in ("queue_mean_bytes", "queue_sd_bytes")
        }
        t.add_row(
            rack.scheme_label(r["scheme"]),
            str(r["senders"]),
            FIG11B[r["scheme"]],
            cells.text(e["sojourn_mean_us"], ".2f"),
            cells.text(e["sojourn_p50_us"], ".2f"),
            cells.text(e["sojourn_p99_us"], ".2f"),
            cells.text(e["sojourn_max_us"], ".2f"),
            cells.text(kb["queue_mean_bytes"], ",.1f"),
            cells.text(kb["queue_sd_bytes"], ",.1f"),
            f"{r['drops_most']:,}",
        )
    console.print(t)
    console.print(
        "The paper's figure is not tabulated: its text says raw Ethernet's queue is uncontrolled and PL2's "
        "stable with low variance (§F.4), PL2's buffer at most 200 KiB (§B). Delays: every packet's wait at "
        "the port over the whole run (n = packets); queue: samples after the warm-up (n = samples); "
        f"drops: the most in a seed. docs/reproductions-pl2.md.\n{cells.legend()}",
        highlight=False,
    )
