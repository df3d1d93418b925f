"""Homa Fig. 15 and 16 (§5.2): the highest network load Homa sustains, and the receiver
bandwidth wasted by overcommitment's limit, on the paper's fabric (scenarios/homa/).

Each point runs a workload's shipped 80 % scenario at another load, open loop: messages
are generated until the run stops (``class[0].until`` = ``run.stop`` = the point's length),
so nothing drains. The engine's Homa counters give the wasted bandwidth as the authors'
simulator defined it (docs/homa.md, "Overcommitment"): the time a receiver had more senders
waiting for grants than it granted to, less the time the bytes that arrived meanwhile took
on its link, summed over the hosts, over hosts x run time. Bandwidth can be wasted only out
of the surplus (1 - load); **the maximum sustainable load is where the wasted share of
bandwidth reaches the surplus** (Fig. 16's "the point where each curve intersects the
diagonal"), interpolated linearly between the loads run. The backlog (bytes of the messages
still active at the stop) is reported beside it: a load beyond the maximum leaves a
backlog that grows with the run.

Fig. 16 is W4 with 1, 2, 4 and 7 scheduled levels (``transport.scheduled_levels``; the
overcommitment follows them); Fig. 15's Homa bars are every workload with the authors'
split. The paper's numbers in its text: W4 with one scheduled level about 63 %, with seven
about 89 %.

Each point runs ``--seeds`` seeds (3 by default). The maximum is found in each seed's own
curve; the table gives the mean of those maxima with its interval across seeds, and says in
how many seeds the curve never reached the surplus at the loads run (their maximum is above
the highest load; the mean is then over the others).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Callable

import polars as pl
import typer

import tailor
from tailor import parse
from tailor.outdir import staged
from tailor.reproduce import cells
from tailor.reproduce.homa.points import maximum_text, parse_workloads, scenario_file
from tailor.reproduce.registry import Out, Plan
from tailor.reproduce.runner import reporting
from tailor.stats import Estimate

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COLUMNS", "MAX_COLUMNS", "options", "run", "render", "crossing"]

Say = Callable[[str], None]

#: Run length per point (generated traffic = run), in ms, by form.
LENGTH_MS = {"quick": 20, "full": 200}
#: The loads run, by form.
LOADS = {"quick": (0.6, 0.7, 0.8, 0.9), "full": (0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)}
#: The paper's maxima in its text (§5.2, Fig. 16): (workload, scheduled levels) -> load.
PAPER = {("W4", 1): 0.63, ("W4", 7): 0.89}
#: The host link rate of the paper's fabric, bits per ns.
LINK_BITS_PER_NS = 10.0
HOSTS = 144
COLUMNS = (
    "workload",
    "scheduled_levels",
    "load",
    "seed",
    "wasted_percent",
    "surplus_percent",
    "backlog_bytes",
    "messages",
    "sim_ms",
)
MAX_COLUMNS = (
    "workload",
    "scheduled_levels",
    *cells.columns("max_load", Estimate.of_values([(0.0, 1)])),
    "seeds_above",
    "highest_load_run",
    "paper_max_load",
)


@dataclass(frozen=True)
class Point:
    workload: str
    levels: int | None
    load: float
    seed: int = 1

    @property
    def name(self) -> str:
        lv = f"s{self.levels}" if self.levels else "authors"
        return f"{self.workload.lower()}-{lv}-{round(self.load * 100)}-s{self.seed}"


def parse_levels(text: str) -> list[int]:
    """``--scheduled-levels``: scheduled levels 1..7, comma-separated."""
    return sorted(parse.integers("--scheduled-levels", text, 1, 7))


def options(
    workloads: Annotated[str, typer.Option(help="Workloads for Fig. 15, comma-separated (W1..W5).")] = "W4",
    scheduled_levels: Annotated[
        str, typer.Option(help="Fig. 16: scheduled levels of W4, comma-separated (1..7); empty for none.")
    ] = "1,2,4,7",
    quick: Annotated[bool, typer.Option("--quick", help="Short runs at four loads.")] = False,
    seeds: cells.Seeds = 3,
    out: Out = None,
) -> Plan:
    """Homa Fig. 15/16: maximum sustainable load and wasted bandwidth by load."""
    cells.check_seeds(seeds)
    form = "quick" if quick else "full"
    ss = range(1, seeds + 1)
    pts = [Point(w, None, x, s) for w in parse_workloads(workloads) for x in LOADS[form] for s in ss]
    levels = parse_levels(scheduled_levels) if scheduled_levels.strip() else []
    pts += [Point("W4", lv, x, s) for lv in levels for x in LOADS[form] for s in ss]
    default = Path("runs") / ("homa-max-load-quick" if quick else "homa-max-load")
    return Plan(out or default, lambda out, say: run(pts, form, out, say))


def scenario(p: Point, ms: int) -> tailor.Scenario:
    keys: dict[str, Any] = {"class[0].load": p.load, "class[0].until": f"{ms}ms", "run.stop": f"{ms}ms"}
    if p.levels:
        keys["transport.unscheduled_levels"] = 1
        keys["transport.scheduled_levels"] = p.levels
    return tailor.Scenario.load(scenario_file("homa", p.workload, 0.8)).with_(keys)


def measure(summary: dict[str, Any]) -> dict[str, float]:
    """The wasted share of the hosts' receive bandwidth, from Homa's counters."""
    c = summary["transport_counters"]
    span = HOSTS * summary["sim_ns"]
    wasted = c["oversubscribed_ns"] - c["oversubscribed_wire_bytes"] * 8 / LINK_BITS_PER_NS
    return {
        "wasted_percent": 100 * max(wasted, 0.0) / span,
        "backlog_bytes": summary["messages"].get("incomplete_bytes", 0),
        "messages": summary["messages"]["completed"],
        "sim_ms": summary["sim_ns"] / 1e6,
    }


def crossing(rows: list[dict[str, Any]]) -> float | None:
    """The load where the wasted share reaches the surplus, interpolated; None if it
    never does at the loads run (the maximum is above the highest)."""
    pts = sorted((r["load"], r["wasted_percent"] - r["surplus_percent"]) for r in rows)
    if pts and pts[0][1] >= 0:
        return pts[0][0]
    for (x0, d0), (x1, d1) in zip(pts, pts[1:], strict=False):
        if d0 < 0 <= d1:
            return x0 + (x1 - x0) * (-d0) / (d1 - d0)
    return None


def maximum(key: tuple[str, int], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One row of max_load.csv: each seed's crossing, their mean and interval over the
    seeds where the curve reached the surplus, and how many seeds it did not."""
    per_seed = [crossing([r for r in rows if r["seed"] == s]) for s in sorted({r["seed"] for r in rows})]
    est = Estimate.of_values([(x, 1) if x is not None else (None, 0) for x in per_seed])
    return {
        "workload": key[0],
        "scheduled_levels": key[1],
        **cells.columns("max_load", est),
        "seeds_above": sum(x is None for x in per_seed),
        "highest_load_run": max(r["load"] for r in rows),
        "paper_max_load": PAPER.get(key),
    }


def run(points: list[Point], form: str, out: Path, say: Say) -> dict:
    """Runs ``points`` one after another into ``out`` (written whole once complete)."""
    ms = LENGTH_MS[form]
    with staged(out, "reproduction", name="homa-max-load") as work:
        (work / "scenarios").mkdir()
        rows = []
        for p in points:
            sc = scenario(p, ms)
            path = work / "scenarios" / f"{p.name}.toml"
            path.write_text(f"# {p.name}: tailor reproduce homa-max-load, {form} form.\n" + sc.resolve()["document"])
            r = tailor.run(path, seed=p.seed, out=work / "runs" / p.name, progress=reporting(p.name, ms * 1e6, say))
            m = measure(r.summary)
            rows.append(
                {
                    "workload": p.workload,
                    "scheduled_levels": p.levels or 0,
                    "load": p.load,
                    "seed": p.seed,
                    "surplus_percent": 100 * (1 - p.load),
                    **m,
                }
            )
            say(
                f"{p.name}: wasted {m['wasted_percent']:.1f} % of 100 - {100 * p.load:.0f} % surplus, "
                f"backlog {m['backlog_bytes'] / 1e6:.0f} MB"
            )
        pl.DataFrame(rows).select(COLUMNS).write_csv(work / "maxload.csv")
        maxima = [
            maximum(key, [r for r in rows if (r["workload"], r["scheduled_levels"]) == key])
            for key in dict.fromkeys((r["workload"], r["scheduled_levels"]) for r in rows)
        ]
        pl.DataFrame(
            maxima, schema_overrides={c: pl.Float64 for c in ("max_load", "max_load_lo", "max_load_hi")}
        ).select(MAX_COLUMNS).write_csv(work / "max_load.csv")
        report = {"reproduction": "homa-max-load", "form": form, "length_ms": ms, "rows": rows, "maxima": maxima}
        (work / "maxload.json").write_text(json.dumps(report, indent=1))
    return report


def render(report: dict[str, Any], console: Console) -> None:
    from rich import box
    from rich.table import Table

    t = Table(
        title=f"Homa Fig. 15/16: maximum sustainable load, {report['form']} form ({report['length_ms']} ms a point)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for c in ("workload", "scheduled levels", "paper", "tailor"):
        t.add_column(c, justify="left" if c == "workload" else "right")
    for m in report["maxima"]:
        paper = f"{m['paper_max_load']:.0%}" if m["paper_max_load"] else "-"
        t.add_row(m["workload"], str(m["scheduled_levels"] or "authors'"), paper, maximum_text(m))
    console.print(t)
    seeds = max(m["max_load_seeds"] for m in report["maxima"])
    wasted: dict[tuple, list[float]] = {}
    for r in report["rows"]:
        wasted.setdefault((r["workload"], r["scheduled_levels"], r["load"]), []).append(r["wasted_percent"])
    console.print(
        f"tailor: mean over {seeds} seed(s) of each seed's maximum [95 % interval across seeds]. Wasted "
        "receiver bandwidth by load (Fig. 16), % of hosts x run time, mean over seeds: "
        + "; ".join(f"{w} s{lv or 'A'} {x:.0%}: {sum(v) / len(v):.1f}" for (w, lv, x), v in wasted.items()),
        highlight=False,
        markup=False,
    )
