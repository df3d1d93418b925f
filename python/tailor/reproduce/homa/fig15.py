"""Homa Fig. 15 (§5.2): the highest network load each transport sustains, per workload,
with the part of it that is application data, on the paper's fabric (scenarios/homa/).

The paper ran each workload and protocol "at higher and higher network loads" open loop:
past a protocol's capacity "queues grow without bound". Each point here runs a transport's
shipped 80 % scenario for the workload at another load (``class[0].load``), generating
messages until the run stops (``class[0].until`` = ``run.stop``), and records its progress
(``[record] progress``, progress.csv: bytes generated and delivered over time). The
backlog, bytes generated but not yet delivered, waits wherever the transport keeps it (a
receiver-driven transport in its senders, where no switch queue shows it). What a point
measures is the **delivered ratio** over the second half of the run:

    delivered ratio = bytes delivered in (L/2, L] / bytes generated in (L/2, L]

Below capacity the network keeps up and the ratio is 1 up to noise; past it the deliveries
grow at the capacity's rate while the arrivals grow at the offered rate, and the ratio
falls to about capacity / load. **The highest sustainable load is where the mean ratio
in a seed falls below** ``SUSTAINED`` (0.95: the window's noise, from which large
messages happen to arrive in it, is a few percent), interpolated linearly between the loads
run; the table gives the mean of the seeds' maxima (``--seeds``, 3 by default) with its
interval across seeds, and how many seeds sustained every load run (their maximum lies
above the loads run; the mean is over the others). The same rule serves every transport: no counter of one transport's own is needed
(Homa's wasted-bandwidth criterion of Fig. 16 is ``homa-max-load``). A run must be long
against the largest messages for the backlog of a size-based scheduler to settle: the
lengths below are what the measurements in docs/reproductions-homa.md needed.

The bottom of each of the paper's bars, the application data at that load, is the
delivered goodput: message bytes completed in the second half over the hosts' link
capacity, interpolated at the maximum the same way.

The paper's bar heights are not in its text; what it says of them (§2, §5.2): Homa sustains
2-33 % more load than the others; pHost 58-73 % depending on the workload; NDP at most 73 %.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from statistics import mean
from typing import TYPE_CHECKING, Annotated, Any, Callable

import polars as pl
import typer

import tailor
from tailor import parse
from tailor.errors import OptionError
from tailor.outdir import staged
from tailor.reproduce import cells
from tailor.reproduce.homa.points import (
    check_transports,
    maximum_text,
    parse_transports,
    parse_workloads,
    run_points,
    scenario_file,
)
from tailor.reproduce.registry import Out, Plan
from tailor.result import Result
from tailor.stats import Estimate

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COLUMNS", "POINT_COLUMNS", "SUSTAINED", "options", "run", "render", "maximum", "measure"]

Say = Callable[[str], None]

#: Run length per point (generated traffic = run), in ms, by form and workload. A
#: window must be long against the largest message's time on a host link for its noise to
#: stay a few percent: W1's messages are at most 0.2 ms of it, W2's 1 ms, W3's 12 ms, W4's
#: 8 ms and W5's 24 ms (and a size-based scheduler defers them further under load: W3 at
#: 50 % over 10 ms read a ratio of 0.87, its largest messages still waiting, not lost).
#: The quick form is for W1 and W2; W3-W5 need the full form's lengths. W5 needs 1.2 s:
#: from empty, its backlog fills for longer than 600 ms near 80 % (Homa at 80 %, delivered
#: ratio per 300 ms: 0.82, 0.94, 0.98, 0.98, 0.99, 1.00 over 1.8 s, so 600 ms read 0.949 and
#: 1.2 s 0.98; W4 at 80 % had settled by 400 ms: 0.86, 0.97, 0.97, 1.00 per 100 ms).
LENGTH_MS = {
    "quick": {"W1": 4, "W2": 8, "W3": 20, "W4": 40, "W5": 40},
    "full": {"W1": 20, "W2": 40, "W3": 400, "W4": 400, "W5": 1200},
}
#: The loads run, by form.
LOADS = {"quick": (0.5, 0.7, 0.9), "full": (0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)}
#: The delivered ratio below which a load is not sustained.
SUSTAINED = 0.95
#: What the paper says of the bars (§2, §5.2): transport -> (lowest, highest) maximum load
#: over the workloads, where it gives one.
PAPER_RANGE = {"phost": (0.58, 0.73), "ndp": (None, 0.73)}

COLUMNS = (
    "transport",
    "workload",
    *cells.columns("max_load", Estimate.of_values([(0.0, 1)])),
    *cells.columns("goodput_load", Estimate.of_values([(0.0, 1)])),
    "seeds_above",
    "highest_load_run",
    "paper_range",
)
POINT_COLUMNS = (
    "transport",
    "workload",
    "load",
    "seed",
    "delivered_ratio",
    "goodput_percent",
    "backlog_bytes",
    "messages",
    "sim_ms",
)


@dataclass(frozen=True)
class Point:
    transport: str
    workload: str
    load: float
    seed: int
    #: Generated traffic and run length, in microseconds.
    until_us: int

    @property
    def name(self) -> str:
        return f"{self.transport}-{self.workload.lower()}-{round(self.load * 100)}"


def parse_loads(text: str) -> list[float]:
    """``--loads``: network loads in (0, 1), comma-separated."""
    out = parse.numbers("--loads", text, "numbers in (0, 1), comma-separated", lambda x: 0 < x < 1, "a network load")
    if len(out) < 2:
        raise OptionError("--loads: give two loads or more (the maximum is interpolated between them)")
    return sorted(set(out))


def options(
    transports: Annotated[
        str, typer.Option(help="Transports, comma-separated (those with scenarios on the paper's fabric).")
    ] = "homa",
    workloads: Annotated[str, typer.Option(help="Workloads, comma-separated (W1..W5).")] = "W1,W2,W3,W4,W5",
    loads: Annotated[
        str, typer.Option(help="Network loads to run, comma-separated (default: 0.5 to 0.95; --quick: 0.5, 0.7, 0.9).")
    ] = "",
    seeds: cells.Seeds = 3,
    quick: Annotated[bool, typer.Option("--quick", help="Short runs at three loads.")] = False,
    out: Out = None,
) -> Plan:
    """Homa Fig. 15: the highest network load each transport sustains, and its goodput."""
    cells.check_seeds(seeds)
    form = "quick" if quick else "full"
    ts, ws = parse_transports(transports), parse_workloads(workloads)
    check_transports(ts, ws, [0.8])
    xs = parse_loads(loads) if loads.strip() else list(LOADS[form])
    pts = [
        Point(t, w, x, s, LENGTH_MS[form][w] * 1000) for t in ts for w in ws for x in xs for s in range(1, seeds + 1)
    ]
    default = Path("runs") / ("homa-fig15-quick" if quick else "homa-fig15")
    return Plan(out or default, lambda out, say: run(pts, form, out, say))


def write_scenario(p: Point, dir: Path, why: str) -> Path:
    """The transport's 80 % scenario for the workload at the point's load, open loop."""
    src = scenario_file(p.transport, p.workload, 0.8)
    until = f"{p.until_us}us"
    every = f"{max(p.until_us // 20, 1)}us"
    # Network load counts every byte a transport puts on the wire, headers and control
    # packets included (Fig. 15's caption), whatever basis the file's own load uses (the
    # pHost files give Homa's message rate as a payload load).
    sc = tailor.Scenario.load(src).with_(
        {
            "class[0].load": p.load,
            "class[0].load_basis": "wire",
            "class[0].until": until,
            "run.stop": until,
            "record.progress": every,
        }
    )
    path = dir / f"{p.name}.toml"
    head = f"# {src.name} at load {p.load:g}, generating until the stop at {until} ({why}).\n"
    path.write_text(head + sc.resolve()["document"])
    return path


def measure(run_dir: Path, until_us: int, capacity_bps: float) -> dict[str, Any]:
    """The delivered ratio and goodput of one run over the second half of its length,
    from its progress.csv."""
    summary = Result(run_dir).summary
    prog = pl.read_csv(run_dir / "progress.csv")
    half_ns = until_us * 1000 / 2
    mid = prog.filter(pl.col("time_ns") <= half_ns).row(-1, named=True)
    end = prog.row(-1, named=True)
    generated = end["generated_bytes"] - mid["generated_bytes"]
    delivered = end["delivered_bytes"] - mid["delivered_bytes"]
    window_ns = end["time_ns"] - mid["time_ns"]
    return {
        "delivered_ratio": delivered / generated if generated else None,
        "goodput_percent": 100 * delivered * 8 / (capacity_bps * window_ns / 1e9) if window_ns else None,
        "backlog_bytes": end["generated_bytes"] - end["delivered_bytes"],
        "messages": summary["messages"]["completed"],
        "sim_ms": summary["sim_ns"] / 1e6,
    }


def maximum(rows: list[dict[str, Any]], key: str = "delivered_ratio") -> tuple[float | None, float | None]:
    """The load where the mean ``key`` across seeds falls below ``SUSTAINED``, and the
    goodput there, interpolated between the loads run; (None, None) when every load
    run is sustained (the maximum is above the highest). At the lowest load already
    unsustained, that load and its goodput (the maximum is at or below it)."""
    by_load: dict[float, list[dict]] = {}
    for r in rows:
        by_load.setdefault(r["load"], []).append(r)
    pts = [(x, mean(r[key] for r in rs), mean(r["goodput_percent"] for r in rs)) for x, rs in sorted(by_load.items())]
    if pts and pts[0][1] < SUSTAINED:
        return pts[0][0], pts[0][2]
    for (x0, r0, g0), (x1, r1, g1) in zip(pts, pts[1:], strict=False):
        if r0 >= SUSTAINED > r1:
            f = (r0 - SUSTAINED) / (r0 - r1)
            return x0 + f * (x1 - x0), g0 + f * (g1 - g0)
    return None, None


def across_seeds(transport: str, workload: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One row of fig15.csv: each seed's :func:`maximum`, the mean and interval of the
    maxima and goodputs over the seeds that have one, and how many seeds sustained every
    load run."""
    per_seed = [maximum([r for r in rows if r["seed"] == s]) for s in sorted({r["seed"] for r in rows})]
    top = Estimate.of_values([(x, 1) if x is not None else (None, 0) for x, _ in per_seed])
    good = Estimate.of_values([(g / 100, 1) if g is not None else (None, 0) for _, g in per_seed])
    rng = PAPER_RANGE.get(transport)
    return {
        "transport": transport,
        "workload": workload,
        **cells.columns("max_load", top),
        **cells.columns("goodput_load", good),
        "seeds_above": sum(x is None for x, _ in per_seed),
        "highest_load_run": max(r["load"] for r in rows),
        "paper_range": _range_text(rng) if rng else "",
    }


def run(points: list[Point], form: str, out: Path, say: Say) -> dict:
    """Runs ``points`` into ``out`` (written whole once complete): scenarios, runs,
    fig15-points.csv, fig15.csv, fig15.json, fig15.png/.svg."""
    with staged(out, "reproduction", name="homa-fig15") as work:
        dirs = run_points(points, work, f"tailor reproduce homa-fig15, {form} form", say, write=write_scenario)
        rows = []
        for p in points:
            info = tailor.Scenario.load(work / "scenarios" / f"{p.name}.toml").info
            m = measure(dirs[p], p.until_us, info["hosts"] * info["host_rate_bps"])
            rows.append({"transport": p.transport, "workload": p.workload, "load": p.load, "seed": p.seed, **m})
        pl.DataFrame(rows).select(POINT_COLUMNS).write_csv(work / "fig15-points.csv")
        maxima = [
            across_seeds(t, w, [r for r in rows if (r["transport"], r["workload"]) == (t, w)])
            for t, w in dict.fromkeys((r["transport"], r["workload"]) for r in rows)
        ]
        floats = {
            c: pl.Float64
            for c in COLUMNS
            if c.startswith(("max_load", "goodput_load")) and not c.endswith(("_n", "_seeds", "_judged"))
        }
        pl.DataFrame(maxima, schema_overrides=floats).select(COLUMNS).write_csv(work / "fig15.csv")
        report = {
            "reproduction": "homa-fig15",
            "form": form,
            "lengths_ms": LENGTH_MS[form],
            "sustained": SUSTAINED,
            "rows": rows,
            "maxima": maxima,
            "claims": claims(maxima),
        }
        report["plots"] = [str(out / p.name) for p in _figure(maxima, work)]
        (work / "fig15.json").write_text(json.dumps(report, indent=1))
    report["out"] = str(out)
    return report


def _range_text(rng: tuple[float | None, float | None]) -> str:
    lo, hi = rng
    return f"{lo:.0%}-{hi:.0%}" if lo is not None else f"<= {hi:.0%}"


def claims(maxima: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """§5.2's claims on the maxima measured: Homa above every other transport (by 2-33 %)
    on each workload, and each transport's range where the paper gives one."""
    out = []
    for w in dict.fromkeys(m["workload"] for m in maxima):
        mine = {m["transport"]: m for m in maxima if m["workload"] == w}
        homa = mine.get("homa")
        for t, m in mine.items():
            if t == "homa" or homa is None:
                continue
            h, o = homa["max_load"], m["max_load"]
            if h is None or o is None:
                # None: above the highest load run; the comparison is open only if both are.
                held = None if h is None and o is None else (h is None)
                text = (
                    f"Homa {'> ' if h is None else ''}{(h or homa['highest_load_run']):.0%} vs {t} "
                    f"{'> ' if o is None else ''}{(o or m['highest_load_run']):.0%}"
                )
            else:
                held, text = h > o, f"Homa {h:.0%} vs {t} {o:.0%} ({100 * (h - o) / o:+.0f} %)"
            out.append({"workload": w, "claim": f"Homa sustains more than {t}", "held": held, "measured": text})
    for m in maxima:
        rng = PAPER_RANGE.get(m["transport"])
        if rng and m["max_load"] is not None:
            lo, hi = rng
            held = (lo is None or m["max_load"] >= lo - 0.05) and m["max_load"] <= hi + 0.05
            out.append(
                {
                    "workload": m["workload"],
                    "claim": f"{m['transport']} within {_range_text(rng)} (+-5 %)",
                    "held": held,
                    "measured": f"{m['max_load']:.0%}",
                }
            )
    return out


def _figure(maxima: list[dict[str, Any]], work: Path) -> list[Path]:
    """fig15.png/.svg: bars per workload and transport, the goodput part filled."""
    from matplotlib.figure import Figure

    from tailor.plot import save

    ws = list(dict.fromkeys(m["workload"] for m in maxima))
    ts = list(dict.fromkeys(m["transport"] for m in maxima))
    fig = Figure(figsize=(1.6 + 1.2 * len(ws), 3.4))
    ax = fig.subplots()
    width = 0.8 / max(len(ts), 1)
    for i, t in enumerate(ts):
        for j, w in enumerate(ws):
            m = next((m for m in maxima if (m["transport"], m["workload"]) == (t, w)), None)
            if m is None:
                continue
            top = m["max_load"] if m["max_load"] is not None else m["highest_load_run"]
            x = j + (i - (len(ts) - 1) / 2) * width
            color = f"C{i}"
            ax.bar(
                x,
                100 * top,
                width,
                fill=False,
                edgecolor=color,
                hatch="" if m["max_load"] is not None else "//",
                label=t if j == 0 else None,
            )
            if m["goodput_load"] is not None:
                ax.bar(x, 100 * m["goodput_load"], width, color=color, alpha=0.6)
    ax.set_xticks(range(len(ws)), ws)
    ax.set_ylabel("network load sustained (%)")
    ax.set_ylim(0, 100)
    ax.set_title(
        "Highest sustainable load (outline), application data (filled); hatched: above the loads run", fontsize="small"
    )
    ax.legend(fontsize="x-small", ncol=len(ts))
    return save(fig, work / "fig15")


def render(report: dict[str, Any], console: Console) -> None:
    from rich import box
    from rich.table import Table

    t = Table(
        title=f"Homa Fig. 15: highest sustainable network load, {report['form']} form (delivered ratio "
        f">= {report['sustained']:g} over each run's second half)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for c in ("transport", "workload", "paper", "tailor", "application data"):
        t.add_column(c, justify="left" if c in ("transport", "workload") else "right")
    for m in report["maxima"]:
        data = f"{m['goodput_load']:.0%}" if m["goodput_load"] is not None else "-"
        t.add_row(m["transport"], m["workload"], m["paper_range"] or "-", maximum_text(m), data)
    console.print(t)
    seeds = max((m["max_load_seeds"] for m in report["maxima"]), default=0)
    console.print(
        f"tailor: mean over {seeds} seed(s) of each seed's maximum [95 % interval across seeds]; application "
        "data: mean goodput at those maxima.",
        highlight=False,
        markup=False,
    )
    for c in report["claims"]:
        mark = {True: "holds", False: "does NOT hold", None: "open"}[c["held"]]
        console.print(f"{c['workload']}: {c['claim']}: {mark} ({c['measured']})", highlight=False)
