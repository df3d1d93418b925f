"""HULL Table 1 and Fig. 8 (§3.1, §6.1): 2 to 8 long-lived flows from different servers
into S5 on the 1 Gbps testbed (``testbed``), for the four schemes: the receiver link's
throughput and the switch latency the probe sees (mean, p90, p99).

Throughput is the port towards S5 over the run, less the probe's 12 Mbps (§5.2's
footnote: the ping costs 1.2 % of the link). The paper draws Fig. 8 without tabulating
it; its text gives Table 1 (two flows, TCP and DCTCP-30K) and a few readings, printed
beside ours. Eq. 5 says the headroom the phantom queue needs grows with the number of
flows, so its latency should rise with them: the printed check compares 2 and 8 flows.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import polars as pl
import typer

from tailor.errors import OptionError
from tailor.outdir import staged
from tailor.reproduce import cells
from tailor.reproduce.hull import runs
from tailor.reproduce.hull.paper import FIG8_TEXT, TABLE1
from tailor.reproduce.hull.testbed import SCHEMES, SENDERS, scheme_label, static_scenario
from tailor.reproduce.registry import Out, Plan
from tailor.stats import Estimate

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COLUMNS", "options", "run", "render"]

#: The columns of fig8.csv.
COLUMNS = (
    "scheme",
    "flows",
    "throughput_mbps",
    "switch_latency_avg_us",
    "switch_latency_p90_us",
    "switch_latency_p99_us",
    "probes",
    "seeds",
)
#: Run length per form (ms) and the flow counts.
FORMS = {"quick": (200, (2, 8)), "full": (10_000, (2, 3, 4, 5, 6, 7, 8))}
PROBE_MBPS = 12.0


def options(
    quick: Annotated[bool, typer.Option("--quick", help="2 and 8 flows, 200 ms each (seconds in all).")] = False,
    seeds: Annotated[int, typer.Option(help="Seeds per point (the table gives their mean and interval).")] = 3,
    out: Out = None,
) -> Plan:
    """HULL Table 1 and Fig. 8: throughput and switch latency with 2 to 8 long flows, for
    TCP-DropTail, DCTCP-30K, DCTCP-6K-Pacer and DCTCP-PQ950-Pacer, beside the paper's."""
    if not 1 <= seeds <= 20:
        raise OptionError(f"--seeds: {seeds}; accepted: 1 to 20")
    form = "quick" if quick else "full"
    length, flows = FORMS[form]
    pts = [
        runs.HullPoint(f"{s}-{n}flows", seed, static_scenario(s, n, length), length * 1000)
        for s in SCHEMES
        for n in flows
        for seed in range(1, seeds + 1)
    ]
    default = Path("runs") / ("hull-fig8-quick" if quick else "hull-fig8")
    return Plan(out or default, lambda out, say: run(pts, form, out, say))


def run(points: list[runs.HullPoint], form: str, out: Path, say: Any) -> dict:
    """Runs the points into ``out`` (written whole once complete): scenarios, runs,
    fig8.csv and fig8.json."""
    with staged(out, "reproduction", name="hull-fig8") as work:
        dirs = runs.run(points, work, f"tailor reproduce hull-fig8, {form} form", say)
        by: dict[tuple[str, int], list[dict]] = {}
        for p in points:
            scheme, n = p.name.rsplit("-", 1)[0], int(p.name.rsplit("-", 1)[1].removesuffix("flows"))
            lat = runs.switch_latency(dirs[p])
            thr = runs.throughput_mbps(dirs[p]) - PROBE_MBPS
            by.setdefault((scheme, n), []).append({"throughput_mbps": thr, **lat})
        rows = []
        for (scheme, n), vals in by.items():
            row: dict[str, Any] = {
                "scheme": scheme,
                "flows": n,
                "probes": int(sum(v["count"] for v in vals)),
                "seeds": len(vals),
            }
            for key, stat, p in (
                ("throughput_mbps", "throughput_mbps", None),
                ("switch_latency_avg_us", "avg", None),
                ("switch_latency_p90_us", "p90", 90.0),
                ("switch_latency_p99_us", "p99", 99.0),
            ):
                # Throughput is read once a run; a latency rests on the run's probes.
                e = Estimate.of_values(
                    [(v[stat], 1 if p is None and stat.startswith("t") else v["count"]) for v in vals], p
                )
                row |= cells.columns(key, e)
            rows.append(row)
        pl.DataFrame([{c: r[c] for c in COLUMNS} for r in rows]).write_csv(work / "fig8.csv")
        report = {"reproduction": "hull-fig8", "form": form, "length_ms": FORMS[form][0], "rows": rows}
        (work / "fig8.json").write_text(json.dumps(report, indent=1))
    return report


def _cell(paper: float | None, row: dict[str, Any], key: str, p: float | None, fmt: str = "{:.1f}") -> str:
    """ "paper / ours [interval across seeds]", ours a dash when a seed had too few probes."""
    said = "—" if paper is None else fmt.format(paper)
    if f"{key}_n" not in row:  # a report written before issue 26: the mean alone
        return f"{said} / {fmt.format(row[key])}"
    e = cells.restore(key, row, p)
    if not e.judged:
        return f"{said} / — n={e.n}<{e.needed}"
    ci = "" if e.ci is None else f" [{fmt.format(e.ci[0])}–{fmt.format(e.ci[1])}]"
    return f"{said} / {fmt.format(e.value)}{ci}"


def render(report: dict[str, Any], console: Console) -> None:
    """Table 1 (two flows) and Fig. 8 (every flow count), paper / tailor."""
    from rich import box
    from rich.table import Table

    at = {(r["scheme"], r["flows"]): r for r in report["rows"]}
    t1 = Table(
        title=f"HULL Table 1: two long flows into one receiver, paper / tailor ({report['form']} form, "
        f"{report['length_ms']} ms runs)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for c in ("scheme", "throughput Mbps", "mean latency µs", "p99 latency µs"):
        t1.add_column(c, justify="left" if c == "scheme" else "right")
    for s, paper in TABLE1.items():
        r = at.get((s, 2))
        if r:
            t1.add_row(
                scheme_label(s),
                _cell(paper["throughput_mbps"], r, "throughput_mbps", None, "{:.0f}"),
                _cell(paper["latency_avg_us"], r, "switch_latency_avg_us", None),
                _cell(paper["latency_p99_us"], r, "switch_latency_p99_us", 99.0),
            )
    console.print(t1)
    flows = sorted({r["flows"] for r in report["rows"]})
    t8 = Table(
        title="HULL Fig. 8: switch latency mean / p99 (µs) and throughput (Mbps) by long flows; "
        "the paper's text beside (Fig. 8 is not tabulated)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    t8.add_column("scheme")
    t8.add_column("paper (text)", justify="right")
    for n in flows:
        t8.add_column(f"{n} flows", justify="right")
    for s in SCHEMES:
        p = FIG8_TEXT[s]
        said = ", ".join(f"{k.split('_')[0 if k.startswith('throughput') else 1]} ~{v:g}" for k, v in p.items() if v)
        cells = []
        for n in flows:
            r = at.get((s, n))
            cells.append(
                ""
                if r is None
                else f"{r['switch_latency_avg_us']:.1f} / {r['switch_latency_p99_us']:.1f}; {r['throughput_mbps']:.0f}"
            )
        t8.add_row(scheme_label(s), said or "—", *cells)
    console.print(t8)
    pq = [at.get(("dctcp-pq950-pacer", n)) for n in (flows[0], flows[-1])]
    if all(pq):
        grows = pq[1]["switch_latency_avg_us"] > pq[0]["switch_latency_avg_us"]
        console.print(
            f"Eq. 5 (headroom needed grows with flows): PQ mean latency {pq[0]['switch_latency_avg_us']:.1f} µs "
            f"with {flows[0]} flows, {pq[1]['switch_latency_avg_us']:.1f} µs with {flows[-1]}: "
            f"{'grows, as eq. 5 says' if grows else 'does NOT grow'}.",
            highlight=False,
        )
    console.print(
        f"Senders S2-S4, S6-S10 (hosts {', '.join(map(str, SENDERS))}) in that order; throughput is "
        f"the link into S5 less the probe's {PROBE_MBPS:g} Mbps. Hosts: docs/reproductions-hull.md.",
        highlight=False,
    )
    console.print(_spread(report["rows"]), highlight=False, markup=False)


def _spread(rows: list[dict[str, Any]]) -> str:
    """Fig. 8's cells are means over seeds; how far their intervals reach, in one line."""

    def widest(key: str) -> float:
        w = [
            max(r[key] - r[f"{key}_lo"], r[f"{key}_hi"] - r[key]) / r[key]
            for r in rows
            if r.get(f"{key}_lo") is not None and r[key]
        ]
        return 100 * max(w, default=0.0)

    seeds = rows[0]["seeds"] if rows else 0
    if seeds < 2 or "switch_latency_avg_us_lo" not in rows[0]:
        return f"Fig. 8's cells: {seeds} seed a point, no interval."
    return (
        f"Fig. 8's cells: means over {seeds} seeds; their 95 % bootstrap intervals reach at most ±"
        f"{widest('switch_latency_avg_us'):.0f} % (mean latency), ±{widest('switch_latency_p99_us'):.0f} % (p99), "
        f"±{widest('throughput_mbps'):.1f} % (throughput); fig8.json has each."
    )
