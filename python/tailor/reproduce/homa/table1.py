"""Homa Table 1 (§5.2): mean and maximum queue lengths at the switches' egress ports per
tier, W1-W5 at 80 % network load, on the paper's fabric (scenarios/homa/).

Per tier (TOR->Aggr: ports.csv role ``up``; Aggr->TOR: ``down``; TOR->host: ``to_host``)
from each port's queue as arriving packets found it (the packet on the wire not counted,
as the paper's caption says): the mean over every arrival at the tier (each port's
``arrival_mean_queue_bytes`` weighted by its ``sent_packets``: nothing is dropped, so every
arrival is sent) and the maximum over its ports of ``arrival_max_queue_bytes``, in KB of
1,024 B, as the authors' analysis aggregated them.

Beside it, the same with the authors' simulator's accounting, computed by the engine
(``arrival_mean_queue_wire_bytes``, ``arrival_max_queue_wire_bytes``): each arrival's sample
adds the untransmitted rest of the frame on the wire (HomaSimulation ``DropTailQueue::enqueue``
emits ``queue.getByteLength()`` plus the remaining bits of the frame being sent), though the
paper's caption says partially transmitted packets are not counted.

Queues grow with the run as heavy-tailed backlogs build up, and the authors' runs lasted
1.2-3.75 s of simulated time; ours are shorter (``LENGTHS_MS``), so the printed output
states both.

Each workload runs ``--seeds`` seeds (3 by default): a cell is the mean over seeds of each
seed's own mean (or maximum) with its bootstrap interval across seeds
(``tailor.reproduce.cells``); the mean rests on the tier's arrivals in the seed with fewest,
the maximum on one reading a seed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Callable

import polars as pl
import typer

from tailor.errors import DataError
from tailor.outdir import staged
from tailor.reproduce import cells
from tailor.reproduce.homa.buckets import WORKLOADS
from tailor.reproduce.homa.paper import RUN_SECONDS, TABLE1, TIERS
from tailor.reproduce.homa.points import Point, length_us, parse_workloads, run_points
from tailor.reproduce.registry import Out, Plan
from tailor.result import Result
from tailor.stats import Estimate

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["LENGTHS_MS", "COLUMNS", "options", "run", "render", "tiers"]

Say = Callable[[str], None]

#: Generated traffic per workload at 80 % load, in ms, by form.
LENGTHS_MS = {
    "quick": {"W1": 1, "W2": 2, "W3": 5, "W4": 20, "W5": 50},
    "full": {"W1": 20, "W2": 40, "W3": 200, "W4": 400, "W5": 500},
}
#: The statistics of a tier, each a mean over seeds with its interval (``cells.columns``).
STATS = ("mean_kb", "max_kb", "authors_mean_kb", "authors_max_kb")
#: The columns of table1.csv.
COLUMNS = (
    "workload",
    "tier",
    "paper_mean_kb",
    "paper_max_kb",
    *(c for s in STATS for c in cells.columns(s, Estimate.of_values([(0.0, 1)]))),
)
_PORT_COLUMNS = ("role", "sent_packets", "arrival_mean_queue_bytes", "arrival_max_queue_bytes")
#: The authors' accounting: the frame on the wire counted too.
WIRE = "_wire"


def options(
    workloads: Annotated[str, typer.Option(help="Workloads, comma-separated (W1..W5).")] = "W1,W2,W3,W4,W5",
    quick: Annotated[bool, typer.Option("--quick", help="Short runs (seconds); queues read lower.")] = False,
    seeds: cells.Seeds = 3,
    out: Out = None,
) -> Plan:
    """Homa Table 1: mean and max queue length per switch tier at 80 % load, beside the
    paper's."""
    ws = parse_workloads(workloads)
    cells.check_seeds(seeds)
    form = "quick" if quick else "full"
    pts = [Point("homa", w, 0.8, s, length_us(LENGTHS_MS[form], w, 0.8)) for w in ws for s in range(1, seeds + 1)]
    default = Path("runs") / ("homa-table1-quick" if quick else "homa-table1")
    return Plan(out or default, lambda out, say: run(pts, form, out, say))


def tiers(ports: pl.DataFrame, accounting: str = "") -> dict[str, tuple[float, float]]:
    """(mean, max) queue in KB per tier of one run's ports.csv; ``accounting=WIRE``: with
    the rest of the frame on the wire counted (the authors' simulator)."""
    return {t: (m, x) for t, (m, x, _) in _tiers(ports, accounting).items()}


def _tiers(ports: pl.DataFrame, accounting: str = "") -> dict[str, tuple[float, float, int]]:
    """:func:`tiers` with the arrivals behind each tier's mean."""
    cols = [c.replace("_queue_bytes", f"_queue{accounting}_bytes") for c in _PORT_COLUMNS]
    missing = [c for c in cols if c not in ports.columns]
    if missing:
        raise DataError(f"ports.csv has no column {', '.join(missing)}: an engine older than Table 1's queue counters")
    out = {}
    for tier, role in TIERS:
        p = ports.filter(pl.col("role") == role)
        sent = p["sent_packets"].sum()
        mean = (p[cols[2]] * p["sent_packets"]).sum() / sent if sent else 0.0
        out[tier] = (mean / 1024, (p[cols[3]].max() or 0) / 1024, int(sent))
    return out


def run(points: list[Point], form: str, out: Path, say: Say) -> dict:
    """Runs ``points`` into ``out`` (written whole once complete): scenarios, runs,
    table1.csv and table1.json."""
    with staged(out, "reproduction", name="homa-table1") as work:
        dirs = run_points(points, work, f"tailor reproduce homa-table1, {form} form", say)
        rows, sims = [], {}
        for w in dict.fromkeys(p.workload for p in points):
            mine = [p for p in points if p.workload == w]
            ports = [pl.read_csv(dirs[p] / "ports.csv") for p in mine]
            per_seed = [(_tiers(x), _tiers(x, WIRE)) for x in ports]
            sims[w] = max(Result(dirs[p]).sim_ns / 1e6 for p in mine)
            rows += [_row(w, t, per_seed) for t, _ in TIERS]
        pl.DataFrame(rows).select(COLUMNS).write_csv(work / "table1.csv")
        report = {
            "reproduction": "homa-table1",
            "form": form,
            "rows": rows,
            "sim_ms": sims,
            "seeds": len({p.seed for p in points}),
            "until": {p.workload: p.until_us / 1000 for p in points},
        }
        (work / "table1.json").write_text(json.dumps(report, indent=1))
    return report


def _row(workload: str, tier: str, per_seed: list[tuple[dict, dict]]) -> dict[str, Any]:
    """One row of table1.csv: the paper's two numbers and each statistic across seeds."""
    i = WORKLOADS.index(workload)
    row: dict[str, Any] = {
        "workload": workload,
        "tier": tier,
        "paper_mean_kb": TABLE1[tier]["mean"][i],
        "paper_max_kb": TABLE1[tier]["max"][i],
    }
    for prefix, k in (("", 0), ("authors_", 1)):
        seeds = [s[k][tier] for s in per_seed]
        row |= cells.columns(f"{prefix}mean_kb", Estimate.of_values([(m, n) for m, _, n in seeds]))
        row |= cells.columns(f"{prefix}max_kb", Estimate.of_values([(x, 1) for _, x, _ in seeds], p=100))
    return row


def render(report: dict[str, Any], console: Console) -> None:
    """Table 1 as the paper lays it out, each cell "paper / ours / ours counted as the
    authors' simulator counts"."""
    from rich import box
    from rich.table import Table

    ws = list(dict.fromkeys(r["workload"] for r in report["rows"]))
    at = {(r["workload"], r["tier"]): r for r in report["rows"]}
    t = Table(
        title=f"Homa Table 1: queue length at switch egress ports, KB (1,024 B), 80 % load, paper / tailor "
        f"/ tailor with the frame on the wire counted, as the authors' simulator counts "
        f"({report['form']} form)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for c in ("queue", "", *ws):
        t.add_column(c, justify="right" if c.startswith("W") else "left")
    for tier, _ in TIERS:
        for stat in ("mean", "max"):
            t.add_row(
                tier.replace("->", "→") if stat == "mean" else "", stat, *(_cell(at[(w, tier)], stat) for w in ws)
            )
    console.print(t)
    console.print(
        f"tailor: mean over {report['seeds']} seed(s) [95 % interval across seeds]; a mean rests on "
        "every arrival at the tier, a maximum on one reading a seed.",
        highlight=False,
    )
    lengths = ", ".join(f"{w} {report['until'][w]:g} ms (drained at {report['sim_ms'][w]:.1f} ms)" for w in ws)
    authors = ", ".join(f"{w} {RUN_SECONDS[w]:g} s" for w in ws)
    console.print(
        f"run length (generated traffic): {lengths}. The authors' runs lasted 1.2-3.75 s of simulated time "
        f"({authors}). Queues grow as heavy-tailed backlogs build up (W3's TOR→host mean, measured: 10.4 KB after "
        "200 ms; the paper's 12.8 KB after 3.75 s), so shorter runs read lower "
        "(docs/reproductions-homa.md).",
        highlight=False,
    )


def _cell(row: dict[str, Any], stat: str) -> str:
    """``paper / ours [lo–hi] / authors' accounting``, the n left to the caption."""
    p = 100 if stat == "max" else None

    def one(prefix: str) -> str:
        e = cells.restore(f"{prefix}{stat}_kb", row, p)
        return cells.text(e).split(" n=")[0]

    return f"{row[f'paper_{stat}_kb']:.1f} / {one('')} / {one('authors_')}"
