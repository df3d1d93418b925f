"""HULL Fig. 10 (§3.2, §6.2.1): the slowdown of 10 MB flows that bandwidth headroom costs,
theory against experiment.

The theory is eq. 3, the M/G/1 processor-sharing slowdown of giving away (1 − γ) of the
link at load ρ: SD = (1 − ρ) / (γ − ρ). As the paper, γ is the phantom queue's drain rate
less 8 % (DCTCP's rate fluctuations, §3.1): 0.72, 0.82 and 0.87 for 800, 900 and 950 Mbps.
The experiment is Table 4's workload (``testbed.dynamic_scenario``: S5 requests 1 KB and
10 MB files from nine servers over persistent connections, Poisson, at 20/40/60 % of its
link) with the phantom queue draining at 800, 900 or 950 Mbps, paced: the slowdown is its
mean 10 MB FCT over the lowest of Table 4's four schemes at that load ("compared to the
lowest achieved value (shown in red in Table 4)"). The paper's text gives PQ 950's: 17, 31
and 55 % longer at 20, 40 and 60 %; its 900 and 800 Mbps points are only in the figure.

A seed's runs share their requests (the arrivals are drawn from the seed, not from the
scheme), so each seed gives one slowdown, and the table gives their mean over ``--seeds``
seeds with its interval.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import polars as pl
import typer

from tailor.outdir import staged
from tailor.reproduce import cells
from tailor.reproduce.hull import runs
from tailor.reproduce.hull.dynamic import LARGE_FLOWS, _parse_loads, _point
from tailor.reproduce.hull.testbed import dynamic_scenario
from tailor.reproduce.registry import Out, Plan
from tailor.stats import Estimate

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COLUMNS", "DRAINS", "BASELINES", "PAPER", "theory", "options", "run", "render"]

#: The columns of fig10.csv, one row per drain rate, load and seed.
COLUMNS = ("drain_mbps", "load", "seed", "slowdown", "pq_fct_10mb_ms", "best_fct_10mb_ms", "best_scheme", "theory")
DRAINS = (800, 900, 950)
#: Table 4's other schemes, the candidates for the lowest 10 MB FCT beside PQ 950.
BASELINES = ("tcp-droptail", "dctcp-30k", "dctcp-6k-pacer")
#: §6.2.1: PQ 950's 10 MB FCT over the lowest, by load.
PAPER = {0.2: 1.17, 0.4: 1.31, 0.6: 1.55}
#: DCTCP's throughput loss to rate fluctuations (§3.1), taken off the drain rate for γ.
FLUCTUATION = 0.08


def theory(drain_mbps: int, load: float) -> float:
    """Eq. 3 with γ = drain / line rate − 8 %."""
    gamma = drain_mbps / 1000 - FLUCTUATION
    return (1 - load) / (gamma - load)


def _scheme(drain: int) -> str:
    return f"pq{drain}"


def _scenario(scheme: str, load: float, large: int) -> str:
    if scheme in BASELINES:
        return dynamic_scenario(scheme, load, large)
    drain = int(scheme.removeprefix("pq"))
    return dynamic_scenario("dctcp-pq950-pacer", load, large).replace(
        'phantom = { drain = "950Mbps", threshold = "1KB" }',
        f'phantom = {{ drain = "{drain}Mbps", threshold = "1KB" }}',
    )


def options(
    loads: Annotated[str, typer.Option(help="Loads, comma-separated (0.2, 0.4, 0.6).")] = "0.2,0.4,0.6",
    quick: Annotated[bool, typer.Option("--quick", help="10 large flows a point (seconds; not a result).")] = False,
    seeds: cells.Seeds = 3,
    out: Out = None,
) -> Plan:
    """HULL Fig. 10: the 10 MB flows' slowdown under a phantom queue at 800/900/950 Mbps,
    eq. 3's theory beside the experiment."""
    cells.check_seeds(seeds)
    xs = _parse_loads(loads)
    form = "quick" if quick else "full"
    n = LARGE_FLOWS[form]
    schemes = (*BASELINES, *(_scheme(d) for d in DRAINS))
    pts = [
        _point(f"{s}-{round(x * 100)}", seed, _scenario(s, x, n), x, n)
        for s in schemes
        for x in xs
        for seed in range(1, seeds + 1)
    ]
    default = Path("runs") / ("hull-fig10-quick" if quick else "hull-fig10")
    return Plan(out or default, lambda out, say: run(pts, form, out, say))


def run(points: list[runs.HullPoint], form: str, out: Path, say: Any) -> dict:
    """Runs the points into ``out`` (written whole once complete): scenarios, runs,
    fig10.csv and fig10.json."""
    with staged(out, "reproduction", name="hull-fig10") as work:
        dirs = runs.run(points, work, f"tailor reproduce hull-fig10, {form} form", say)
        fct: dict[tuple[str, float, int], dict[str, float]] = {}
        for p in points:
            scheme, pct = p.name.rsplit("-", 1)
            fct[(scheme, int(pct) / 100, p.seed)] = runs.fcts(dirs[p], "10MB")
        rows = []
        for (scheme, load, seed), f in sorted(fct.items()):
            if scheme in BASELINES:
                continue
            drain = int(scheme.removeprefix("pq"))
            # Table 4's lowest: its three other schemes and PQ 950, this seed's requests.
            table4 = {s: fct[(s, load, seed)]["avg"] for s in (*BASELINES, _scheme(950))}
            best = min(table4, key=table4.get)
            rows.append(
                {
                    "drain_mbps": drain,
                    "load": load,
                    "seed": seed,
                    "slowdown": f["avg"] / table4[best],
                    "pq_fct_10mb_ms": f["avg"] / 1e3,
                    "best_fct_10mb_ms": table4[best] / 1e3,
                    "best_scheme": best,
                    "theory": theory(drain, load),
                    "flows": f["count"],
                }
            )
        pl.DataFrame(rows).select(COLUMNS).write_csv(work / "fig10.csv")
        report = {"reproduction": "hull-fig10", "form": form, "rows": rows, "points": summarise(rows)}
        (work / "fig10.json").write_text(json.dumps(report, indent=1))
    return report


def summarise(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per drain rate and load across seeds: the slowdown as ``cells.columns`` (each seed's
    a ratio of two means over its 10 MB flows), with the theory and the paper's."""
    out = []
    for key in sorted({(r["drain_mbps"], r["load"]) for r in rows}):
        rs = [r for r in rows if (r["drain_mbps"], r["load"]) == key]
        e = Estimate.of_values([(r["slowdown"], r["flows"]) for r in rs])
        out.append(
            {
                "drain_mbps": key[0],
                "load": key[1],
                "theory": theory(*key),
                "paper": PAPER.get(key[1]) if key[0] == 950 else None,
                **cells.columns("slowdown", e),
            }
        )
    return out


def render(report: dict[str, Any], console: Console) -> None:
    from rich import box
    from rich.table import Table

    pts = report["points"]
    loads = sorted({p["load"] for p in pts})
    at = {(p["drain_mbps"], p["load"]): p for p in pts}
    t = Table(
        title=f"HULL Fig. 10: 10 MB flows' slowdown under a phantom queue, theory (eq. 3) / paper / tailor "
        f"({report['form']} form)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    t.add_column("PQ drain")
    for x in loads:
        t.add_column(f"{x:.0%} load", justify="right")
    for d in DRAINS:
        row = [f"{d} Mbps"]
        for x in loads:
            p = at[(d, x)]
            e = cells.restore("slowdown", p, None)
            ours = f"{e.value:.2f}" + ("" if e.ci is None else f" [{e.ci[0]:.2f}–{e.ci[1]:.2f}]")
            paper = "—" if p["paper"] is None else f"{p['paper']:.2f}"
            row.append(f"{p['theory']:.2f} / {paper} / {ours}")
        t.add_row(*row)
    console.print(t)
    console.print(
        "Slowdown: the phantom queue's mean 10 MB FCT over the lowest of Table 4's four schemes at that load, "
        "each seed's requests alike; ours the mean over seeds [95 % bootstrap interval across seeds]. Theory: "
        "(1 − ρ) / (γ − ρ), γ = drain − 8 %. The paper gives PQ 950's (§6.2.1); 900 and 800 only in its "
        "figure. docs/reproductions-hull.md.",
        highlight=False,
        markup=False,
    )
