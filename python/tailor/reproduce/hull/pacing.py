"""HULL Fig. 5 (§4.3) and Fig. 6 (§4.4): what pacing buys.

- ``hull-fig5``: two long DCTCP flows into S5 with a phantom queue on S5's port, its
  drain rate and marking threshold swept, with and without the pacer: the link's
  throughput and the switch latency (mean, p99). The paper: with pacing, throughput
  follows the drain rate nearly linearly and latency falls to its floor (5 µs mean, 21 µs
  p99); without, low thresholds cost throughput (spurious marks from bursts) and latency
  falls more slowly.
- ``hull-fig6``: the same with the PQ at 950 Mbps and 1 KB, β of eq. 4 swept from 2^0 to
  2^14: switch latency against the delay the pacer adds (the mean time a paced packet
  waits in its bucket; the paper pinged across the paced hosts). The paper: smaller β
  paces better (lower switch latency, throughput ~870 Mbps at 2^0 down to ~770 at 2^14)
  but delays more, sharply below 2^4.

The hosts are the testbed's (``testbed``): LSO and interrupt coalescing make them bursty.
Each point runs ``--seeds`` seeds (3 by default): the tables give means over seeds, p99 with
its 95 % interval across them, a dash where a seed had fewer than 100 probes; the CSVs have
one row per seed.
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
from tailor.reproduce.hull.testbed import pq_scenario
from tailor.reproduce.registry import Out, Plan
from tailor.result import Result
from tailor.stats import Estimate

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["FIG5_COLUMNS", "FIG6_COLUMNS", "fig5_options", "fig6_options", "render5", "render6"]

FIG5_COLUMNS = (
    "pacing",
    "drain_mbps",
    "threshold_kb",
    "seed",
    "throughput_mbps",
    "switch_latency_avg_us",
    "switch_latency_p99_us",
)
FIG6_COLUMNS = ("beta", "seed", "throughput_mbps", "switch_latency_avg_us", "switch_latency_p99_us", "pacer_delay_us")
#: (drain rates, thresholds, run length in ms) by form.
FIG5 = {
    "quick": ((800, 950), ("1KB", "30KB"), 150),
    "full": ((600, 700, 800, 900, 950), ("1KB", "3KB", "6KB", "15KB", "30KB"), 1000),
}
FIG6 = {"quick": ((1, 16, 16384), 150), "full": (tuple(2**k for k in range(15)), 1000)}
PROBE_MBPS = 12.0


def fig5_options(
    quick: Annotated[bool, typer.Option("--quick", help="Two drain rates and two thresholds, 150 ms runs.")] = False,
    seeds: cells.Seeds = 3,
    out: Out = None,
) -> Plan:
    """HULL Fig. 5: throughput and switch latency as the phantom queue's drain rate and
    threshold vary, with and without pacing."""
    cells.check_seeds(seeds)
    form = "quick" if quick else "full"
    drains, thresholds, length = FIG5[form]
    pts = [
        runs.HullPoint(
            f"{'paced' if paced else 'unpaced'}-{d}-{k}", seed, pq_scenario(d, k, paced, length), length * 1000
        )
        for paced in (True, False)
        for d in drains
        for k in thresholds
        for seed in range(1, seeds + 1)
    ]
    default = Path("runs") / ("hull-fig5-quick" if quick else "hull-fig5")
    return Plan(out or default, lambda out, say: _run5(pts, form, out, say))


def fig6_options(
    quick: Annotated[bool, typer.Option("--quick", help="β of 1, 16 and 16384, 150 ms runs.")] = False,
    seeds: cells.Seeds = 3,
    out: Out = None,
) -> Plan:
    """HULL Fig. 6: switch latency against the pacer's delay as β of eq. 4 varies."""
    cells.check_seeds(seeds)
    form = "quick" if quick else "full"
    betas, length = FIG6[form]
    pts = [
        runs.HullPoint(f"beta-{b}", seed, pq_scenario(950, "1KB", True, length, beta=b), length * 1000)
        for b in betas
        for seed in range(1, seeds + 1)
    ]
    default = Path("runs") / ("hull-fig6-quick" if quick else "hull-fig6")
    return Plan(out or default, lambda out, say: _run6(pts, form, out, say))


def _common(run_dir: Path) -> dict[str, float]:
    lat = runs.switch_latency(run_dir)
    return {
        "throughput_mbps": runs.throughput_mbps(run_dir) - PROBE_MBPS,
        "switch_latency_avg_us": lat["avg"],
        "switch_latency_p99_us": lat["p99"],
        "probes": lat["count"],
    }


#: Each statistic's percentile (None: a mean) and whether it rests on the run's probes.
_STATS = {
    "throughput_mbps": (None, False),
    "switch_latency_avg_us": (None, True),
    "switch_latency_p99_us": (99.0, True),
    "pacer_delay_us": (None, False),
}


def _points(rows: list[dict[str, Any]], keys: tuple[str, ...]) -> list[dict[str, Any]]:
    """Per point (the ``keys``' values) across its seeds: each statistic as ``cells.columns``."""
    out = []
    for key in dict.fromkeys(tuple(r[k] for k in keys) for r in rows):
        rs = [r for r in rows if tuple(r[k] for k in keys) == key]
        point: dict[str, Any] = dict(zip(keys, key, strict=True))
        for stat, (p, probes) in _STATS.items():
            if stat in rs[0]:
                point |= cells.columns(
                    stat, Estimate.of_values([(r[stat], r["probes"] if probes else 1) for r in rs], p)
                )
        out.append(point)
    return out


def _p99(r: dict[str, Any]) -> str:
    """p99 [interval across seeds], or a dash when a seed had too few probes."""
    e = cells.restore("switch_latency_p99_us", r, 99.0)
    if not e.judged:
        return f"— n={e.n}<100"
    return f"{e.value:.1f}" + ("" if e.ci is None else f" [{e.ci[0]:.1f}–{e.ci[1]:.1f}]")


def _run5(points: list[runs.HullPoint], form: str, out: Path, say: Any) -> dict:
    with staged(out, "reproduction", name="hull-fig5") as work:
        dirs = runs.run(points, work, f"tailor reproduce hull-fig5, {form} form", say)
        rows = []
        for p in points:
            pacing, drain, k = p.name.split("-")
            rows.append(
                {
                    "pacing": pacing == "paced",
                    "drain_mbps": int(drain),
                    "threshold_kb": float(k.removesuffix("KB")),
                    "seed": p.seed,
                    **_common(dirs[p]),
                }
            )
        pl.DataFrame(rows).select(FIG5_COLUMNS).write_csv(work / "fig5.csv")
        report = {
            "reproduction": "hull-fig5",
            "form": form,
            "length_ms": FIG5[form][2],
            "rows": rows,
            "points": _points(rows, ("pacing", "drain_mbps", "threshold_kb")),
        }
        (work / "fig5.json").write_text(json.dumps(report, indent=1))
    return report


def _run6(points: list[runs.HullPoint], form: str, out: Path, say: Any) -> dict:
    with staged(out, "reproduction", name="hull-fig6") as work:
        dirs = runs.run(points, work, f"tailor reproduce hull-fig6, {form} form", say)
        rows = []
        for p in points:
            pacer = Result(dirs[p]).network["pacer"]
            rows.append(
                {
                    "beta": int(p.name.removeprefix("beta-")),
                    "seed": p.seed,
                    "pacer_delay_us": pacer["mean_paced_wait_us"],
                    **_common(dirs[p]),
                }
            )
        pl.DataFrame(rows).select(FIG6_COLUMNS).write_csv(work / "fig6.csv")
        report = {
            "reproduction": "hull-fig6",
            "form": form,
            "length_ms": FIG6[form][1],
            "rows": rows,
            "points": _points(rows, ("beta",)),
        }
        (work / "fig6.json").write_text(json.dumps(report, indent=1))
    return report


def render5(report: dict[str, Any], console: Console) -> None:
    """One table per threshold: drain rates across, paced / unpaced."""
    from rich import box
    from rich.table import Table

    pts = report.get("points", report["rows"])
    at = {(r["pacing"], r["drain_mbps"], r["threshold_kb"]): r for r in pts}
    drains = sorted({r["drain_mbps"] for r in pts})
    ks = sorted({r["threshold_kb"] for r in pts})
    t = Table(
        title=f"HULL Fig. 5: two long DCTCP flows, phantom queue swept ({report['form']} form, "
        f"{report['length_ms']} ms runs): throughput Mbps; switch latency mean / p99 µs — paced | unpaced",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    t.add_column("PQ threshold")
    for d in drains:
        t.add_column(f"drain {d} Mbps", justify="right")
    for k in ks:
        for paced in (True, False):
            row = []
            for d in drains:
                r = at[(paced, d, k)]
                p99 = _p99(r) if "switch_latency_p99_us_n" in r else f"{r['switch_latency_p99_us']:.1f}"
                row.append(f"{r['throughput_mbps']:.0f}; {r['switch_latency_avg_us']:.1f} / {p99}")
            t.add_row(f"{k:g} KB {'paced' if paced else 'unpaced'}", *row)
    console.print(t)
    console.print(
        "paper: paced, throughput follows the drain rate nearly linearly and latency reaches its floor "
        "(5 µs mean, 21 µs p99); unpaced, low thresholds lose throughput and latency falls more slowly. "
        "Ours: means over seeds, p99 [its 95 % interval across seeds].",
        highlight=False,
        markup=False,
    )


def render6(report: dict[str, Any], console: Console) -> None:
    from rich import box
    from rich.table import Table

    t = Table(
        title=f"HULL Fig. 6: β of eq. 4 swept, PQ 950 Mbps / 1 KB ({report['form']} form, {report['length_ms']} ms runs)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for c in ("β", "throughput Mbps", "switch latency mean µs", "p99 µs", "pacer delay µs"):
        t.add_column(c, justify="right")
    for r in sorted(report.get("points", report["rows"]), key=lambda r: r["beta"]):
        p99 = _p99(r) if "switch_latency_p99_us_n" in r else f"{r['switch_latency_p99_us']:.1f}"
        t.add_row(
            f"2^{r['beta'].bit_length() - 1}",
            f"{r['throughput_mbps']:.0f}",
            f"{r['switch_latency_avg_us']:.1f}",
            p99,
            f"{r['pacer_delay_us']:.1f}",
        )
    console.print(t)
    console.print(
        "paper: smaller β paces better but delays more, sharply below 2^4 (hundreds of µs); throughput "
        "~870 Mbps at 2^0, ~770 Mbps at 2^14. Pacer delay here: the mean wait of a paced packet in its bucket. "
        "Ours: means over seeds, p99 [its 95 % interval across seeds].",
        highlight=False,
        markup=False,
    )
