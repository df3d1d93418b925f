"""PL2 beyond the paper: two racks of the paper's kind on a leaf-spine (4 hosts per ToR,
2 spines, 100 Gbps everywhere), PL2's agent in both ToRs. What the paper claims is a
rack: its §G says traffic entering a PL2 rack "will not be co-ordinated" and would need
static bandwidth reservations. tailor runs what that means.

Inside rack 0, hosts 0-2 send W4 to host 3 at 60 % of its link over raw Ethernet, over
PL2 or not. From rack 1, hosts 4-6 send W4 to the same host 3 over raw Ethernet at 0 %,
10 % or 30 % of its link: that traffic crosses the spines and enters rack 0 without a
reservation (a host reserves only within its own rack, and the ToR schedules only its
own ports), so PL2's schedule for host 3's port does not count it.

Per point: the intra-rack class's p50 and p99 latency, the inter-rack class's p99, drops
and the largest switch queue, each the mean over ``--seeds`` seeds (3 by default) with its
interval across them (``tailor.reproduce.cells``); leafspine.csv has one row per seed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import polars as pl
import typer

from tailor.outdir import staged
from tailor.reproduce import cells
from tailor.reproduce.pl2 import rack, runs
from tailor.reproduce.registry import Out, Plan
from tailor.result import Result
from tailor.stats import Estimate

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COLUMNS", "SCHEMES", "options", "run", "render", "summarise"]

#: The columns of leafspine.csv, one row per seed (a percentile of fewer messages than it
#: needs is empty).
COLUMNS = (
    "scheme",
    "inter_rack_load",
    "seed",
    "intra_p50_us",
    "intra_p99_us",
    "inter_p99_us",
    "intra_messages",
    "inter_messages",
    "drops",
    "max_queue_bytes",
)
SCHEMES = ("pl2", "raw")
INTRA_LOAD = 0.6
#: Simulated ms per point, and the inter-rack loads.
FORMS = {"quick": (10, (0.0, 0.3)), "full": (100, (0.0, 0.1, 0.3))}


def scenario(scheme: str, inter: float, length_ms: int) -> str:
    intra_t = rack.transport(scheme, threads=11).strip().replace("\n", ", ")
    inter_cls = (
        ""
        if inter == 0
        else f"""
[[class]]
name = "inter"
sizes = "w4"
arrival = "poisson"
load = {inter}
pattern = "n_to_1"
senders = [4, 5, 6]
receiver = 3
until = "{length_ms}ms"
transport = {{ kind = "raw", mss = "1500B", header = "38B" }}
"""
    )
    intra_cls = f"""[[class]]
name = "intra"
sizes = "w4"
arrival = "poisson"
load = {INTRA_LOAD}
pattern = "n_to_1"
senders = [0, 1, 2]
receiver = 3
until = "{length_ms}ms"
transport = {{ {intra_t} }}
"""
    topology = (
        f'kind = "leaf_spine"\nracks = 2\nhosts_per_rack = 4\nspines = 2\n'
        f"host_link = {rack.LINK}\nfabric_link = {rack.LINK}"
    )
    # The default transport is raw Ethernet; the intra-rack class names its own.
    return rack.scenario(
        "raw",
        intra_cls + inter_cls,
        stop=f"{length_ms * 3 // 2}ms",
        topology=topology,
        pl2_switch=rack.over_pl2(scheme),
    )


def options(
    quick: Annotated[bool, typer.Option("--quick", help="0 and 30 % inter-rack load, 10 ms each.")] = False,
    seeds: cells.Seeds = 3,
    out: Out = None,
) -> Plan:
    """PL2 on a leaf-spine (beyond the paper): a rack's incast over PL2 while traffic from
    another rack enters without reservations, against raw Ethernet alone."""
    cells.check_seeds(seeds)
    form = "quick" if quick else "full"
    length, loads = FORMS[form]
    # The scenario's text is the same for every seed: the run takes its seed from the point.
    pts = [
        runs.Pl2Point(f"{s}-{round(x * 100)}", seed, scenario(s, x, length), length * 1000)
        for s in SCHEMES
        for x in loads
        for seed in range(1, seeds + 1)
    ]
    default = Path("runs") / ("pl2-leafspine-quick" if quick else "pl2-leafspine")
    return Plan(out or default, lambda out, say: run(pts, form, out, say))


def _measure(run_dir: Path) -> dict[str, Any]:
    s = Result(run_dir).summary
    m = pl.read_parquet(run_dir / "messages.parquet")

    def lat(cls: str) -> pl.Series:
        x = m.filter(pl.col("class") == cls)
        return ((x["finish_ns"] - x["start_ns"]) / 1e3).sort()

    intra, inter = lat("intra"), lat("inter")
    one = lambda x, p: Estimate.of_samples([x.to_numpy()], p)  # noqa: E731
    got = lambda e: e.value if e.judged else None  # noqa: E731
    return {
        "intra": intra.to_list(),
        "inter": inter.to_list(),
        "intra_p50_us": got(one(intra, 50)),
        "intra_p99_us": got(one(intra, 99)),
        "inter_p99_us": got(one(inter, 99)),
        "intra_messages": len(intra),
        "inter_messages": len(inter),
        "incomplete": s["messages"]["incomplete"],
        "drops": s["network"]["drops"],
        "max_queue_bytes": s["network"]["max_queue_bytes"],
    }


def run(points: list[runs.Pl2Point], form: str, out: Path, say: Any) -> dict:
    """Runs the points into ``out`` (written whole once complete): scenarios, runs,
    leafspine.csv and leafspine.json."""
    with staged(out, "reproduction", name="pl2-leafspine") as work:
        dirs = runs.run(points, work, f"tailor reproduce pl2-leafspine, {form} form", say)
        rows = []
        for p in points:
            scheme, pct = p.name.rsplit("-", 1)
            rows.append({"scheme": scheme, "inter_rack_load": int(pct) / 100, "seed": p.seed, **_measure(dirs[p])})
        pl.DataFrame([{c: r[c] for c in COLUMNS} for r in rows]).write_csv(work / "leafspine.csv")
        report = {
            "reproduction": "pl2-leafspine",
            "form": form,
            "length_ms": FORMS[form][0],
            "rows": [{c: r[c] for c in (*COLUMNS, "incomplete")} for r in rows],
            "points": summarise(rows),
        }
        (work / "leafspine.json").write_text(json.dumps(report, indent=1))
    return report


def summarise(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per scheme and inter-rack load, across seeds: each statistic as ``cells.columns``
    (latencies from each seed's messages, drops and queues from each seed's counters)."""
    out = []
    for key in dict.fromkeys((r["scheme"], r["inter_rack_load"]) for r in rows):
        rs = [r for r in rows if (r["scheme"], r["inter_rack_load"]) == key]
        est = {
            "intra_p50_us": Estimate.of_samples([r["intra"] for r in rs], 50),
            "intra_p99_us": Estimate.of_samples([r["intra"] for r in rs], 99),
            "inter_p99_us": Estimate.of_samples([r["inter"] for r in rs], 99),
            "drops": Estimate.of_values([(r["drops"], 1) for r in rs]),
            "max_queue_kib": Estimate.of_values([(r["max_queue_bytes"] / 1024, 1) for r in rs]),
        }
        out.append(
            {
                "scheme": key[0],
                "inter_rack_load": key[1],
                "incomplete": sum(r["incomplete"] for r in rs),
                **{c: v for k, e in est.items() for c, v in cells.columns(k, e).items()},
            }
        )
    return out


_P = {"intra_p50_us": 50, "intra_p99_us": 99, "inter_p99_us": 99, "drops": None, "max_queue_kib": None}


def render(report: dict[str, Any], console: Console) -> None:
    """Intra-rack latency, inter-rack p99, drops and queue by inter-rack load."""
    from rich import box
    from rich.table import Table

    t = Table(
        title=f"PL2 on a leaf-spine (beyond the paper): rack 0's 3-way W4 incast at {INTRA_LOAD:.0%}, plus W4 "
        f"from rack 1 into the same host ({report['form']} form, {report['length_ms']} ms)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for c in (
        "intra-rack",
        "inter-rack load",
        "intra p50 µs",
        "intra p99 µs",
        "inter p99 µs",
        "drops",
        "max queue KiB",
        "unfinished (all seeds)",
    ):
        t.add_column(c, justify="left" if c == "intra-rack" else "right")
    for r in report["points"]:
        cell = lambda k, r=r: cells.text(cells.restore(k, r, _P[k]), ".0f")  # noqa: E731
        t.add_row(
            rack.scheme_label(r["scheme"]),
            f"{r['inter_rack_load']:.0%}",
            cell("intra_p50_us"),
            cell("intra_p99_us"),
            cell("inter_p99_us"),
            cell("drops"),
            cell("max_queue_kib"),
            f"{r['incomplete']:,}",
        )
    console.print(t)
    console.print(
        "The paper claims a rack: traffic entering it is not co-ordinated (§G). Inter-rack traffic here "
        "has no reservation, so PL2's schedule for the port it shares does not count it. "
        f"docs/reproductions-pl2.md.\n{cells.legend()}",
        highlight=False,
    )
