"""Homa Fig. 12 and 13 (§5.2): p99 and median slowdown per message-size bucket, W1-W5 at
50 % and 80 % network load, on the paper's fabric (scenarios/homa/).

Each point runs its shipped scenario with the generation length of its workload (below),
bins the messages into the authors' buckets (``buckets.py``) and writes ``fig12.csv``
(``bins.COLUMNS``). The printed tables set the authors' Homa numbers (their data for W3
and W5 at 80 %, ``data/``) beside ours at the bucket holding each 10 % of messages, with
the worst ratio over the judged buckets, and check §5.2's claim (p99 of the shortest 50 %
of messages at most 2.2 at 80 % load) at every point. ``--compare FILE`` sets any other
Fig. 12 table beside ours, bucket by bucket. ``--sustainable FIG15_CSV`` runs each transport
the table names at no more than its highest sustainable load, as the paper ran pHost and
NDP (``sustainable.py``).

Lengths (generated traffic at 80 %; 1.6 times as long at 50 %, so that a point has as many
messages at both loads). The full form gives W1-W3 about 2 million messages a point, so
every bucket holding at least 0.01 % of a workload's messages averages 200 or more (100
with near certainty), and W4 and W5, whose every bucket holds at least 0.58 % of their
messages, about 35,000 and 31,000. ``--quick`` runs W1-W3 a quarter as long or less and
judges fewer buckets of W4 and W5.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Annotated, Any, Callable, Optional

import polars as pl
import typer

from tailor.errors import DataError, OptionError
from tailor.outdir import staged
from tailor.reproduce.homa import claims, judge, paper
from tailor.reproduce.homa import sustainable as sustainable_loads
from tailor.reproduce.homa.bins import combine, frame, read_runs
from tailor.reproduce.homa.buckets import BUCKETS
from tailor.reproduce.homa.points import (
    Point,
    check_transports,
    length_us,
    parse_loads,
    parse_transports,
    parse_workloads,
    run_points,
    scenario_file,
)
from tailor.reproduce.homa.tables import render
from tailor.reproduce.registry import Out, Plan

__all__ = ["LENGTHS_MS", "options", "plan_points", "run", "render", "figures"]

Say = Callable[[str], None]

#: Generated traffic per point at 80 % load, in ms, by form and workload.
LENGTHS_MS = {
    "quick": {"W1": 1, "W2": 2, "W3": 20, "W4": 20, "W5": 200},
    "full": {"W1": 4, "W2": 8, "W3": 45, "W4": 35, "W5": 600},
}


def options(
    workloads: Annotated[str, typer.Option(help="Workloads, comma-separated (W1..W5).")] = "W1,W2,W3,W4,W5",
    loads: Annotated[str, typer.Option(help="Network loads, comma-separated (0.5, 0.8).")] = "0.5,0.8",
    transports: Annotated[
        str,
        typer.Option(
            help="Transports, comma-separated (those with scenarios on the "
            "paper's fabric, scenarios/homa/<transport>-w<N>-<load>.toml)."
        ),
    ] = "homa",
    seeds: Annotated[int, typer.Option(help="Seeds per point (1..N); two or more give intervals.", min=1)] = 3,
    quick: Annotated[
        bool, typer.Option("--quick", help="Shorter runs (about 1 minute a point at most); fewer buckets judged.")
    ] = False,
    compare: Annotated[
        Optional[Path],
        typer.Option(
            help="A Fig. 12 table (fig12.csv's columns, or the authors' data's) to set beside ours, bucket by bucket."
        ),
    ] = None,
    sustainable: Annotated[
        Optional[Path],
        typer.Option(
            help="A homa-fig15 result (fig15.csv): a transport it names "
            "runs each point at the smaller of the point's load and "
            "its measured maximum, on the wire basis, as the paper "
            "ran pHost and NDP."
        ),
    ] = None,
    out: Out = None,
) -> Plan:
    """Homa Fig. 12/13: p99 and median slowdown per message-size bucket, W1-W5 at 50 and
    80 % load, beside the authors' numbers."""
    ws, xs, ts = parse_workloads(workloads), parse_loads(loads), parse_transports(transports)
    check_transports(ts, ws, xs)
    ref = _compare_table(compare, [(t, w, x) for t in ts for w in ws for x in xs])
    form = "quick" if quick else "full"
    pts = plan_points(ts, ws, xs, seeds, form, sustainable_loads.read(sustainable))
    default = Path("runs") / ("homa-fig12-quick" if quick else "homa-fig12")
    return Plan(out or default, lambda out, say: run(pts, form, out, say, compare=(compare, ref)))


def plan_points(
    transports: list[str],
    workloads: list[str],
    loads: list[float],
    seeds: int,
    form: str,
    maxima: dict[tuple[str, str], Optional[float]],
) -> list[Point]:
    """Every (transport, workload, load, seed); a transport ``maxima`` (``sustainable.read``)
    names runs at the load ``sustainable.cap`` gives, its length scaled to the load it runs
    at (``length_us``)."""
    pts = []
    for t in transports:
        for w in workloads:
            for x in loads:
                at = sustainable_loads.cap(maxima, t, w, x, _basis(scenario_file(t, w, x))) if maxima else None
                pts += [Point(t, w, x, s, length_us(LENGTHS_MS[form], w, at or x), at) for s in range(1, seeds + 1)]
    return pts


def _basis(path: Path) -> str:
    """The load basis of a shipped scenario's first class (the engine's default: payload)."""
    with path.open("rb") as f:
        return tomllib.load(f)["class"][0].get("load_basis", "payload")


def _compare_table(path: Optional[Path], keys: list[tuple[str, str, float]]) -> Optional[pl.DataFrame]:
    """``--compare``'s table, refused (exit 2) when it holds none of the points to run."""
    if path is None:
        return None
    try:
        ref = paper.read_table(path)
    except DataError as e:
        raise OptionError(f"--compare: {e}") from None
    held = set(ref.select(judge.KEYS).unique().iter_rows())
    if not held & set(keys):
        raise OptionError(
            f"--compare: {path}: nothing overlaps: it holds {_keys_text(held)}; this run computes {_keys_text(keys)}"
        )
    return ref


def _keys_text(keys: Any) -> str:
    return ", ".join(f"{t} {w} {x:g}" for t, w, x in sorted(keys)) or "no rows"


def run(
    points: list[Point],
    form: str,
    out: Path,
    say: Say,
    compare: tuple[Optional[Path], Optional[pl.DataFrame]] = (None, None),
) -> dict:
    """Runs ``points`` into ``out`` (written whole once complete): scenarios, runs,
    fig12.csv (and fig12-seeds.csv with several seeds), fig12.json, the figures."""
    with staged(out, "reproduction", name="homa-fig12") as work:
        dirs = run_points(points, work, f"tailor reproduce homa-fig12, {form} form", say)
        report = analyse(points, dirs, form)
        theirs = own_buckets(points, dirs)
        report["paper"] = judge.join(report["rows"] + theirs, paper.anchor(all_transports=True))
        report["transport_claims"] = claims.check(report["rows"])
        report["paper_claims"] = {w: judge.claim(judge.of(_anchor_rows(), ("homa", w, 0.8))) for w in ("W3", "W5")}
        if compare[1] is not None:
            report["compare"] = {"file": str(compare[0]), "rows": judge.join(report["rows"] + theirs, compare[1])}
        frame(report["rows"]).write_csv(work / "fig12.csv")
        if report["seed_rows"]:
            pl.DataFrame(report["seed_rows"]).write_csv(work / "fig12-seeds.csv")
        report["plots"] = [str(out / p.name) for p in figures(report, work)]
        (work / "fig12.json").write_text(json.dumps(report, indent=1))
    report["out"] = str(out)
    return report


def _key(r: dict) -> tuple[str, str, float]:
    return r["transport"], r["workload"], r["load"]


def _anchor_rows() -> list[dict]:
    return paper.anchor(all_transports=True).to_dicts()


def analyse(points: list[Point], dirs: dict[Point, Path], form: str) -> dict:
    """Each point's buckets across its seeds (``bins.combine``), and what was run."""
    rows, info, seed_rows = [], [], []
    for key in dict.fromkeys((p.transport, p.workload, p.load) for p in points):
        keys = dict(zip(judge.KEYS, key, strict=True))
        runs = [p for p in points if (p.transport, p.workload, p.load) == key]
        per_seed, totals, beyond, sims = read_runs(runs, dirs)
        seed_rows += [{**keys, "seed": p.seed, **x} for p, r in zip(runs, per_seed, strict=True) for x in r]
        rows += [{**keys, **row} for row in combine(per_seed, totals)]
        info.append(
            {
                **keys,
                "until": runs[0].until,
                "seeds": [p.seed for p in runs],
                "messages": sum(totals),
                "beyond_last_bucket": beyond,
                "sim_ms": sims,
                "offered_load": runs[0].offered,
            }
        )
    return {
        "reproduction": "homa-fig12",
        "form": form,
        "lengths_ms_at_80": LENGTHS_MS[form],
        "points": info,
        "rows": rows,
        "seed_rows": seed_rows if len(points) > len(info) else [],
    }


def own_buckets(points: list[Point], dirs: dict[Point, Path]) -> list[dict]:
    """The points the authors' data bins in buckets sharing none of the workload's (their
    NDP simulator's: multiples of its 1,500-byte packets), binned in those, to be set
    beside them (not written to fig12.csv, whose buckets are the workload's)."""
    ref = paper.anchor(all_transports=True)
    out = []
    for key in dict.fromkeys((p.transport, p.workload, p.load) for p in points):
        theirs = ref.filter(
            (pl.col("transport") == key[0]) & (pl.col("workload") == key[1]) & (pl.col("load") == key[2])
        )
        bounds = sorted(theirs["size_upper_bytes"].to_list())
        # Their pFabric and pHost W5 rows add one bound (100 MB) to W5's: those are W5's
        # buckets; only a table sharing no bound with W5's is another simulator's.
        if not bounds or set(bounds) & set(BUCKETS[key[1]]):
            continue
        runs = [p for p in points if (p.transport, p.workload, p.load) == key]
        per_seed, totals, _, _ = read_runs(runs, dirs, bounds)
        out += [{**dict(zip(judge.KEYS, key, strict=True)), **row} for row in combine(per_seed, totals)]
    return out


def figures(report: dict, work: Path) -> list[Path]:
    """fig12-<W>.png/.svg per workload, every transport run on it (beside the authors'
    curves of the same transports and loads where they have them), and compare-<W>.png/.svg
    per workload ``--compare`` overlaps."""
    from tailor.plot import save
    from tailor.reproduce.homa.figure import figure

    written = []
    anchor = _anchor_rows()
    for w in dict.fromkeys(r["workload"] for r in report["rows"]):
        ours = [r for r in report["rows"] if r["workload"] == w]
        run = {_key(r) for r in ours}
        ref = [r for r in anchor if r["workload"] == w and _key(r) in run]
        fig = figure(w, ours, ref, "authors", "slowdown per message size, tailor beside the authors' data")
        written += save(fig, work / f"fig12-{w}")
    cmp = report.get("compare")
    if cmp:
        both = set(judge.points(cmp["rows"]))
        ref = [r for r in paper.read_table(cmp["file"]).to_dicts() if _key(r) in both]
        for w in dict.fromkeys(r["workload"] for r in cmp["rows"]):
            ours = [r for r in report["rows"] if _key(r) in both and r["workload"] == w]
            theirs = [r for r in ref if r["workload"] == w]
            fig = figure(w, ours, theirs, Path(cmp["file"]).name, "tailor beside --compare")
            written += save(fig, work / f"compare-{w}")
    return written
