"""HULL Fig. 11 (§6.2.1, "Pacing vs No Pacing"): Table 4's dynamic workload (1 KB and
10 MB requests from S5 to the other nine servers at 20/40/60 % load) run with and without
the pacer, for DCTCP marking at 6 KB on the switch port and for DCTCP with the phantom
queue at 950 Mbps. The figure plots the average switch latency (left) and the average
10 MB completion time (right); the text says: "In all cases, pacing lowers both the switch
latency and the FCT of large flows".

The paper prints no number for the unpaced bars. Its paced bars are the runs of Table 4
(DCTCP-6K-Pacer and DCTCP-PQ950-Pacer), so those are printed beside ours; for the unpaced
ones the check is the text's direction, read off the across-seed intervals.

Every value is the mean over seeds of the per-seed value, with its 95 % percentile
bootstrap interval over seeds (``tailor.stats.bootstrap_ci``), and the number of samples
(probes, 10 MB flows) it rests on. The p99 switch latency is printed only with at least
``samples_needed(99)`` probes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import polars as pl
import typer

from tailor.errors import OptionError
from tailor.outdir import staged
from tailor.reproduce.hull import runs
from tailor.reproduce.hull.dynamic import _parse_loads, _point
from tailor.reproduce.hull.paper import TABLE4
from tailor.reproduce.hull.testbed import dynamic_scenario
from tailor.reproduce.registry import Out, Plan
from tailor.stats import bootstrap_ci, samples_needed

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COLUMNS", "SCHEMES", "options", "render"]

#: Fig. 11's two schemes, each run paced and unpaced: name -> Table 4's paced scheme.
SCHEMES = {"dctcp-6k": "dctcp-6k-pacer", "dctcp-pq950": "dctcp-pq950-pacer"}
_LABELS = {"dctcp-6k": "DCTCP-6K", "dctcp-pq950": "DCTCP-PQ950"}
COLUMNS = (
    "scheme",
    "pacing",
    "load",
    "seeds",
    "probes",
    "switch_latency_avg_us",
    "switch_latency_avg_lo_us",
    "switch_latency_avg_hi_us",
    "switch_latency_p99_us",
    "flows_10mb",
    "fct_10mb_avg_ms",
    "fct_10mb_avg_lo_ms",
    "fct_10mb_avg_hi_ms",
    "paper_switch_latency_avg_us",
    "paper_fct_10mb_avg_ms",
    "pacing_change_switch_latency_avg_pct",
    "pacing_change_switch_latency_avg_lo_pct",
    "pacing_change_switch_latency_avg_hi_pct",
    "pacing_change_fct_10mb_avg_pct",
    "pacing_change_fct_10mb_avg_lo_pct",
    "pacing_change_fct_10mb_avg_hi_pct",
)
#: The two means Fig. 11 plots: (name, unit).
METRICS = (("switch_latency_avg", "us"), ("fct_10mb_avg", "ms"))
#: (10 MB requests per run, seeds) by form.
FORMS = {"quick": (10, 3), "full": (500, 5)}


def _scenario(scheme: str, paced: bool, load: float, large: int) -> str:
    text = dynamic_scenario(SCHEMES[scheme], load, large)
    return text if paced else text.replace('pacer = "testbed"\n', "")


def options(
    loads: Annotated[str, typer.Option(help="Loads, comma-separated (0.2, 0.4, 0.6).")] = "0.2,0.4,0.6",
    quick: Annotated[
        bool, typer.Option("--quick", help="10 large flows a run, 3 seeds (seconds; not a result).")
    ] = False,
    seeds: Annotated[int, typer.Option(help="Seeds per point (at least 3 for an interval; the paper: 10 trials).")] = 5,
    out: Out = None,
) -> Plan:
    """HULL Fig. 11: average switch latency and 10 MB FCT with and without pacing, for
    DCTCP-6K and DCTCP-PQ950 at 20/40/60 % load."""
    if not 3 <= seeds <= 20:
        raise OptionError(f"--seeds: {seeds}; accepted: 3 to 20 (an interval over seeds needs three)")
    xs = _parse_loads(loads)
    form = "quick" if quick else "full"
    n, default_seeds = FORMS[form]
    seeds = default_seeds if quick else seeds
    pts = [
        _point(f"{s}-{'paced' if paced else 'unpaced'}-{round(x * 100)}", seed, _scenario(s, paced, x, n), x, n)
        for s in SCHEMES
        for paced in (True, False)
        for x in xs
        for seed in range(1, seeds + 1)
    ]
    default = Path("runs") / ("hull-fig11-quick" if quick else "hull-fig11")
    return Plan(out or default, lambda out, say: _run(pts, form, out, say))


def _measure(run_dir: Path) -> dict[str, float]:
    lat = runs.switch_latency(run_dir)
    large = runs.fcts(run_dir, "10MB")
    return {
        "switch_latency_avg_us": lat["avg"],
        "switch_latency_p99_us": lat["p99"],
        "probes": lat["count"],
        "fct_10mb_avg_ms": large["avg"] / 1e3,
        "flows_10mb": large["count"],
    }


def _row(name: str, vals: list[dict[str, float]]) -> dict[str, Any]:
    scheme, pacing, pct = name.rsplit("-", 2)
    load = int(pct) / 100
    paper = TABLE4[load][SCHEMES[scheme]] if pacing == "paced" else None
    row: dict[str, Any] = {
        "scheme": scheme,
        "pacing": pacing == "paced",
        "load": load,
        "seeds": len(vals),
        "probes": int(sum(v["probes"] for v in vals)),
        "flows_10mb": int(sum(v["flows_10mb"] for v in vals)),
        "paper_switch_latency_avg_us": paper[0][0] if paper else None,
        "paper_fct_10mb_avg_ms": paper[2][0] if paper else None,
    }
    for key, unit in METRICS:
        xs = [v[f"{key}_{unit}"] for v in vals]
        ci = bootstrap_ci(xs)
        row[f"{key}_{unit}"] = sum(xs) / len(xs)
        row[f"{key}_lo_{unit}"], row[f"{key}_hi_{unit}"] = ci if ci else (None, None)
    # A p99 of the probes of every seed together would mix seeds; the mean of the per-seed
    # p99s is reported, and only when each seed had enough probes for one.
    enough = all(v["probes"] >= samples_needed(99) for v in vals)
    row["switch_latency_p99_us"] = sum(v["switch_latency_p99_us"] for v in vals) / len(vals) if enough else None
    return row


def _pair(rows: list[dict[str, Any]]) -> None:
    """Adds to both rows of each (scheme, load) pacing's change of each mean, in %: the
    mean over seeds of paced / unpaced - 1 and its bootstrap interval. A seed's paced and
    unpaced runs draw the same requests (the pacer takes no random numbers from the
    workload's streams), so the pairs cancel the workload's variation between seeds."""
    at = {(r["scheme"], r["pacing"], r["load"]): r for r in rows}
    for (scheme, paced, load), p in at.items():
        if not paced:
            continue
        u = at[(scheme, False, load)]
        for key, unit in METRICS:
            xs = [
                100 * (a[f"{key}_{unit}"] / b[f"{key}_{unit}"] - 1)
                for a, b in zip(p["per_seed"], u["per_seed"], strict=True)
            ]
            ci = bootstrap_ci(xs) or (None, None)
            change = {
                f"pacing_change_{key}_pct": sum(xs) / len(xs),
                f"pacing_change_{key}_lo_pct": ci[0],
                f"pacing_change_{key}_hi_pct": ci[1],
            }
            p.update(change)
            u.update(change)


def _run(points: list[runs.HullPoint], form: str, out: Path, say: Any) -> dict:
    """Runs the points into ``out`` (written whole once complete): scenarios, runs,
    fig11.csv (one row per scheme, pacing and load) and fig11.json (every seed too)."""
    with staged(out, "reproduction", name="hull-fig11") as work:
        dirs = runs.run(points, work, f"tailor reproduce hull-fig11, {form} form", say)
        by: dict[str, list[dict]] = {}
        for p in points:
            by.setdefault(p.name, []).append(_measure(dirs[p]))
        rows = [_row(name, vals) | {"per_seed": vals} for name, vals in by.items()]
        _pair(rows)
        pl.DataFrame([{c: r[c] for c in COLUMNS} for r in rows]).write_csv(work / "fig11.csv")
        report = {"reproduction": "hull-fig11", "form": form, "large_flows": FORMS[form][0], "rows": rows}
        (work / "fig11.json").write_text(json.dumps(report, indent=1))
    return report


def _cell(r: dict[str, Any], key: str, unit: str, fmt: str) -> str:
    lo, hi = r[f"{key}_lo_{unit}"], r[f"{key}_hi_{unit}"]
    ci = f" [{fmt.format(lo)}, {fmt.format(hi)}]" if lo is not None else ""
    return fmt.format(r[f"{key}_{unit}"]) + ci


def _change(r: dict[str, Any], key: str) -> str:
    """Pacing's change of the mean with its interval, and the verdict: "lower" or "higher"
    when the interval excludes 0, "~" (not resolved) when it does not."""
    x, lo, hi = r[f"pacing_change_{key}_pct"], r[f"pacing_change_{key}_lo_pct"], r[f"pacing_change_{key}_hi_pct"]
    if lo is None:
        return f"{x:+.1f} %"
    verdict = "lower" if hi < 0 else "higher" if lo > 0 else "~"
    return f"{x:+.1f} % [{lo:+.1f}, {hi:+.1f}] {verdict}"


def render(report: dict[str, Any], console: Console) -> None:
    """Two tables (switch latency, 10 MB FCT): per scheme and load, the paper's paced
    value, ours paced and unpaced with their intervals, whether pacing lowered the mean,
    and the samples behind each (paced / unpaced, all seeds)."""
    from rich import box
    from rich.table import Table

    at = {(r["scheme"], r["pacing"], r["load"]): r for r in report["rows"]}
    loads = sorted({r["load"] for r in report["rows"]})
    seeds = report["rows"][0]["seeds"]
    for title, key, unit, fmt, n in (
        ("average switch latency (µs)", "switch_latency_avg", "us", "{:.1f}", "probes"),
        ("average 10 MB FCT (ms)", "fct_10mb_avg", "ms", "{:.1f}", "flows_10mb"),
    ):
        t = Table(
            title=f"HULL Fig. 11, {title}: pacing vs none ({report['form']} form, {report['large_flows']} 10 MB "
            f"flows a run, mean of {seeds} seeds [95 % bootstrap interval over seeds])",
            title_justify="left",
            box=box.SIMPLE_HEAD,
        )
        for c in ("scheme", "load", "paper paced", "paced", "unpaced", "pacing's change (paired)", "samples"):
            t.add_column(c, justify="left" if c == "scheme" else "right")
        for s in SCHEMES:
            for x in loads:
                p, u = at[(s, True, x)], at[(s, False, x)]
                t.add_row(
                    _LABELS[s],
                    f"{x:.0%}",
                    fmt.format(p[f"paper_{key}_{unit}"]),
                    _cell(p, key, unit, fmt),
                    _cell(u, key, unit, fmt),
                    _change(p, key),
                    f"{p[n]:,} / {u[n]:,}",
                )
        console.print(t)
    console.print(
        "paper paced: Table 4's DCTCP-6K-Pacer and DCTCP-PQ950-Pacer (the same runs as Fig. 11's paced bars); "
        "the unpaced bars have no number in the text, which says 'in all cases, pacing lowers both the switch "
        "latency and the FCT of large flows'. pacing's change: mean over seeds of paced / unpaced - 1 (a seed's "
        "two runs draw the same requests), its interval, and lower / higher when that excludes 0, ~ when "
        "not. samples: probes or 10 MB flows, paced / unpaced.",
        highlight=False,
    )
