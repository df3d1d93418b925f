"""Homa Fig. 8 and 9 (§5.1), simulated: p99 and median slowdown of echo RPCs per size
bucket on the paper's 16-host RAMCloud cluster, W3, W4 and W5 at 80 % network load, for
Homa and the paper's variants: HomaP4, HomaP2, HomaP1 (Homa's eight levels collapsed onto
4, 2 or 1 switch levels, the degree of overcommitment with them: §3.5's "the number of
scheduled priority levels"), HomaP1 as the authors' benchmark script ran it (one level,
``degreeOC=7`` on W4 and W5, 4 on W3: RAMCloud ``benchmarks/homa/scripts/run_workload.sh``,
commit 952b503f, "code used in the SIGCOMM'18 paper") and Basic (RAMCloud's Basic
transport: one level, no limit on overcommitment).

Each point runs ``scenarios/homa/cluster-w<N>-80.toml`` (16 hosts on one switch, hosts 0-7
echo RPCs to 8-15; one record per RPC, its size the echo's, its slowdown the RPC time over
the request's and the response's ideals added) with the variant's overrides and the
generation length of its workload (below), bins the RPCs into the authors' buckets
(``bins``, as ``fig12``) and writes ``cluster.csv`` (``COLUMNS``). The printed tables set the
variants' p99 side by side at the bucket holding each 10 % of RPCs and check §5.1's three
claims (``claims``).

The simulated cluster models the network only: the hosts' delays are fixed (calibrated so
that a 100-byte echo takes the paper's 4.7 us unloaded: the scenarios' comments), and
RAMCloud's CPU and software queueing (a packet waiting while the core handles an earlier
one), its polling dispatch thread and the NIC's own queue are not modelled; the paper says
these make the cluster's slowdowns higher than its simulations' (§5.2).

Lengths (generated traffic, per variant): the full form gives W3 about 960,000 RPCs (its
smallest buckets hold 0.01 % of RPCs), W4 about 56,000 and W5 about 20,000 (their every
bucket holds at least 0.58 %, so about 100 or more); ``--quick`` about 121,000, 28,000 and 5,800.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Callable, Optional

import polars as pl
import typer

import tailor
from tailor import fmt, parse
from tailor.errors import OptionError
from tailor.outdir import staged
from tailor.reproduce.homa import judge, tables
from tailor.reproduce.homa.bins import combine, read_runs
from tailor.reproduce.homa.points import parse_workloads, run_points, scenario_dir
from tailor.reproduce.registry import Out, Plan

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["VARIANTS", "WORKLOADS", "LENGTHS_MS", "COLUMNS", "options", "run", "render", "claims"]

Say = Callable[[str], None]

#: The variants of Fig. 8/9: option name -> (the paper's name, the scenario overrides).
VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "homa": ("Homa", {}),
    "p4": ("HomaP4", {"transport.priority_levels": 4}),
    "p2": ("HomaP2", {"transport.priority_levels": 2}),
    "p1": ("HomaP1", {"transport.priority_levels": 1}),
    "p1-authors": ("HomaP1 (degreeOC)", {"transport.priority_levels": 1}),
    "basic": ("Basic", {"transport.priority_levels": 1, "transport.overcommitment": "unlimited"}),
}
#: The degree of overcommitment the authors' script gave every HomaPx (``degreeOC``), by
#: workload: the ``-authors`` variants set it.
AUTHORS_DEGREE = {"W3": 4, "W4": 7, "W5": 7}
#: Other names ``--variants`` accepts.
ALIASES = {"p8": "homa"}
#: The workloads of Fig. 8/9 (W1 and W2 too many small RPCs for RAMCloud at 80 %).
WORKLOADS = ("W3", "W4", "W5")
#: Generated traffic per point, in ms, by form and workload.
LENGTHS_MS = {
    "quick": {"W3": 50, "W4": 500, "W5": 2000},
    "full": {"W3": 400, "W4": 1000, "W5": 7000},
}
#: The columns of cluster.csv, in order.
COLUMNS = (
    "variant",
    "workload",
    "size_upper_bytes",
    "count_percent",
    "mean_slowdown",
    "median_slowdown",
    "p99_slowdown",
    "messages",
)

#: §5.1's claims: Homa's p99 "in the range of 2-3.5 across a broad range of RPC sizes"
#: (judged over the buckets wholly within the shortest 99 % of RPCs); Basic's tail "5-15x higher"; "almost as good
#: with 4 priority levels as with 8, but ... increases noticeably when there are only 2"
#: (read as: the median ratio P4/Homa below 1.25, P2/Homa at least 1.25 and above P4's).
HOMA_RANGE = (2.0, 3.5)
HOMA_SHARE = 99.0
BASIC_RANGE = (5.0, 15.0)
ALMOST = 1.25


@dataclass(frozen=True)
class ClusterPoint:
    variant: str
    workload: str
    seed: int
    until_us: int

    @property
    def name(self) -> str:
        return f"{self.variant}-cluster-{self.workload.lower()}-80"

    @property
    def until(self) -> str:
        return f"{self.until_us}us"


def scenario_file(workload: str) -> Path:
    return scenario_dir() / f"cluster-{workload.lower()}-80.toml"


def parse_variants(text: str) -> list[str]:
    """``--variants``: a comma-separated list of homa, p4, p2, p1, p1-authors, basic (p8 = homa)."""
    return parse.choices(
        "--variants",
        text,
        VARIANTS,
        "variant",
        aliases=ALIASES,
        accepted=f"{', '.join(VARIANTS)} (p8 = homa; comma-separated)",
    )


def _workloads(text: str) -> list[str]:
    ws = parse_workloads(text)
    for w in ws:
        if w not in WORKLOADS:
            raise OptionError(
                f"--workloads: '{w}' has no cluster scenario (Fig. 8/9 show W3-W5); "
                f"accepted: {', '.join(WORKLOADS)} (comma-separated)"
            )
    return ws


def options(
    workloads: Annotated[str, typer.Option(help="Workloads, comma-separated (W3, W4, W5).")] = "W3,W4,W5",
    variants: Annotated[
        str,
        typer.Option(
            help="Variants, comma-separated: homa (= p8), p4, p2, p1 (Homa on "
            "4/2/1 switch levels, overcommitment as many), p1-authors (1 level, "
            "the authors' degreeOC: 7 on W4/W5, 4 on W3), basic (1 level, "
            "unlimited overcommitment)."
        ),
    ] = "homa,p4,p2,p1,p1-authors,basic",
    seeds: Annotated[int, typer.Option(help="Seeds per point (1..N); two or more give intervals.", min=1)] = 3,
    quick: Annotated[
        bool, typer.Option("--quick", help="Shorter runs (about 1.5 minutes for all 15 points); fewer buckets judged.")
    ] = False,
    out: Out = None,
) -> Plan:
    """Homa Fig. 8/9 (§5.1), simulated: p99 and median RPC slowdown per size on the 16-host
    cluster, W3-W5 at 80 % load, Homa beside HomaP4/P2/P1 and Basic."""
    ws, vs = _workloads(workloads), parse_variants(variants)
    form = "quick" if quick else "full"
    pts = [ClusterPoint(v, w, s, LENGTHS_MS[form][w] * 1000) for v in vs for w in ws for s in range(1, seeds + 1)]
    default = Path("runs") / ("homa-cluster-quick" if quick else "homa-cluster")
    return Plan(out or default, lambda out, say: run(pts, form, out, say))


def write_scenario(point: ClusterPoint, dir: Path, why: str) -> Path:
    """The point's scenario: the cluster's, with the variant's overrides and the length."""
    src = scenario_file(point.workload)
    over = {**VARIANTS[point.variant][1], "class[0].until": point.until}
    if point.variant.endswith("-authors"):
        over["transport.overcommitment"] = AUTHORS_DEGREE[point.workload]
    sc = tailor.Scenario.load(src).with_(over)
    path = dir / f"{point.name}.toml"
    said = ", ".join(f"{k} = {json.dumps(v)}" for k, v in over.items())
    path.write_text(f"# {src.name} with {said} ({VARIANTS[point.variant][0]}; {why}).\n" + sc.resolve()["document"])
    return path


def run(points: list[ClusterPoint], form: str, out: Path, say: Say) -> dict:
    """Runs ``points`` into ``out`` (written whole once complete): scenarios, runs,
    cluster.csv, cluster.json, the figures."""
    with staged(out, "reproduction", name="homa-cluster") as work:
        dirs = run_points(points, work, f"tailor reproduce homa-cluster, {form} form", say, write=write_scenario)
        report = analyse(points, dirs, form)
        report["claims"] = {w: claims(report["rows"], w) for w in dict.fromkeys(p.workload for p in points)}
        frame(report["rows"]).write_csv(work / "cluster.csv")
        report["plots"] = [str(out / p.name) for p in figures(report, work)]
        (work / "cluster.json").write_text(json.dumps(report, indent=1))
    report["out"] = str(out)
    return report


def analyse(points: list[ClusterPoint], dirs: dict[Any, Path], form: str) -> dict:
    """Each (variant, workload)'s buckets across its seeds (``bins.combine``)."""
    rows, info = [], []
    for key in dict.fromkeys((p.variant, p.workload) for p in points):
        runs = [p for p in points if (p.variant, p.workload) == key]
        per_seed, totals, beyond, sims = read_runs(runs, dirs)
        rows += [{"variant": key[0], "workload": key[1], **row} for row in combine(per_seed, totals)]
        info.append(
            {
                "variant": key[0],
                "workload": key[1],
                "until": runs[0].until,
                "seeds": [p.seed for p in runs],
                "messages": sum(totals),
                "beyond_last_bucket": beyond,
                "sim_ms": sims,
            }
        )
    return {"reproduction": "homa-cluster", "form": form, "lengths_ms": LENGTHS_MS[form], "points": info, "rows": rows}


def frame(rows: list[dict]) -> pl.DataFrame:
    schema = {
        "variant": pl.String,
        "workload": pl.String,
        "size_upper_bytes": pl.Int64,
        "count_percent": pl.Float64,
        "mean_slowdown": pl.Float64,
        "median_slowdown": pl.Float64,
        "p99_slowdown": pl.Float64,
        "messages": pl.Int64,
    }
    return pl.DataFrame([{c: r[c] for c in COLUMNS} for r in rows], schema=schema)


def _of(rows: list[dict], variant: str, workload: str) -> list[dict]:
    return sorted(
        (r for r in rows if r["variant"] == variant and r["workload"] == workload), key=lambda r: r["size_upper_bytes"]
    )


def ratios(rows: list[dict], variant: str, workload: str, stat: str = "p99_slowdown") -> Optional[dict]:
    """``variant`` / Homa of ``stat`` over the buckets judged in both: the median, the
    range and how many; None when either is missing or no bucket is judged in both."""
    homa = {r["size_upper_bytes"]: r for r in _of(rows, "homa", workload)}
    xs = [
        r[stat] / homa[r["size_upper_bytes"]][stat]
        for r in _of(rows, variant, workload)
        if r["judged"]
        and r[stat]
        and homa.get(r["size_upper_bytes"], {}).get("judged")
        and homa[r["size_upper_bytes"]][stat]
    ]
    if not xs:
        return None
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "buckets": len(xs)}


def homa_range(rows: list[dict], workload: str) -> Optional[dict]:
    """Homa's p99 over the judged buckets wholly within the shortest 99 % of RPCs."""
    cum, found = 0.0, []
    for r in _of(rows, "homa", workload):
        cum += r["count_percent"]
        if cum <= HOMA_SHARE + 1e-9 and r["judged"] and r["p99_slowdown"] is not None:
            found.append(r)
    if not found:
        return None
    lo, hi = min(found, key=lambda r: r["p99_slowdown"]), max(found, key=lambda r: r["p99_slowdown"])
    return {
        "min": lo["p99_slowdown"],
        "min_at": lo["size_upper_bytes"],
        "max": hi["p99_slowdown"],
        "max_at": hi["size_upper_bytes"],
        "buckets": len(found),
        "holds": round(lo["p99_slowdown"], 1) >= HOMA_RANGE[0] and round(hi["p99_slowdown"], 1) <= HOMA_RANGE[1],
    }


def claims(rows: list[dict], workload: str) -> dict:
    """§5.1's claims on one workload's rows (those whose variants were run)."""
    out: dict[str, Any] = {"homa_range": homa_range(rows, workload)}
    for v in ("basic", "p4", "p2", "p1", "p1-authors"):
        out[v] = ratios(rows, v, workload)
        out[f"{v}_median_slowdown"] = ratios(rows, v, workload, "median_slowdown")
    b = out["basic"]
    out["basic_holds"] = None if b is None else BASIC_RANGE[0] <= round(b["median"], 1) <= BASIC_RANGE[1]
    p4, p2 = out["p4"], out["p2"]
    out["levels_holds"] = (
        None
        if p4 is None or p2 is None
        else p4["median"] < ALMOST and p2["median"] >= ALMOST and p2["median"] > p4["median"]
    )
    return out


# ---------------------------------------------------------------------------- printing


def _verdict(holds: Optional[bool]) -> str:
    return "holds" if holds else "[bold]DOES NOT HOLD[/bold]"


def _ratio_text(r: Optional[dict]) -> str:
    if r is None:
        return fmt.NONE
    return f"median {r['median']:.2f}x, range {r['min']:.2f}-{r['max']:.2f}x over {r['buckets']} judged buckets"


def _claim_lines(c: dict) -> list[str]:
    lines = []
    h = c["homa_range"]
    if h is None:
        lines.append("Homa's p99 2-3.5 across RPC sizes: Homa not run, or no judged bucket")
    else:
        where = "in" if h["holds"] else "below" if round(h["max"], 1) <= HOMA_RANGE[1] else "not in"
        lines.append(
            f'Homa\'s p99 "2-3.5 across RPC sizes" (judged buckets wholly within the shortest 99 % of RPCs): '
            f"{h['min']:.2f} (≤ {fmt.size(h['min_at'])}) to {h['max']:.2f} (≤ {fmt.size(h['max_at'])}), "
            f"{where} 2-3.5: {_verdict(h['holds'])}"
            + (" (lower than the cluster's: host software queueing is not modelled)" if where == "below" else "")
        )
    if c["basic"] is not None:
        lines.append(
            f'"Basic 5-15x worse tail than Homa": p99 Basic / Homa {_ratio_text(c["basic"])}: '
            f"{_verdict(c['basic_holds'])}"
        )
    if c["p4"] is not None or c["p2"] is not None:
        text = f"p99 HomaP4 / Homa {_ratio_text(c['p4'])}; HomaP2 / Homa {_ratio_text(c['p2'])}"
        if c["levels_holds"] is not None:
            text = (
                f'"4 levels almost as good as 8, 2 noticeably worse" (median ratio P4 < {ALMOST}, '
                f"P2 ≥ {ALMOST}): {text}: {_verdict(c['levels_holds'])}"
            )
        lines.append(text)
    for v in ("p1", "p1-authors"):
        if c.get(v) is not None:
            lines.append(
                f"p99 {VARIANTS[v][0]} / Homa {_ratio_text(c[v])}"
                + (
                    f" (Basic / {VARIANTS[v][0]} median {c['basic']['median'] / c[v]['median']:.2f}x: §5.1 says HomaP1 is "
                    '"still significantly better than Basic")'
                    if c["basic"] is not None
                    else ""
                )
            )
    return lines


def render(report: dict[str, Any], console: Console) -> None:
    """Per workload: each variant's p99 at the bucket holding each 10 % of RPCs, the claims."""
    from rich import box
    from rich.table import Table

    ws = list(dict.fromkeys(p["workload"] for p in report["points"]))
    vs = list(dict.fromkeys(p["variant"] for p in report["points"]))
    lengths = ", ".join(f"{w} {report['lengths_ms'][w]:g} ms" for w in ws)
    console.print(
        f"Homa Fig. 8/9 (§5.1) simulated on the 16-host cluster, {report['form']} form: echo RPCs at 80 % load, "
        f"generated traffic per point {lengths}. Slowdown = RPC time / (request ideal + response ideal); a 100-byte "
        "echo takes 4.7 us unloaded, as the paper's. Not modelled of RAMCloud's hosts: CPU and software queueing, "
        "polling, the NIC's queue (the paper's cluster slowdowns include them: §5.2). A bucket is judged with ≥ 100 "
        "RPCs in every seed; (dim) otherwise. With two seeds or more each p99 is their mean, in brackets its "
        "95 % bootstrap interval across seeds.\n",
        highlight=False,
    )
    for w in ws:
        present = [v for v in vs if _of(report["rows"], v, w)]
        base = _of(report["rows"], present[0], w)
        n = {v: sum(r["messages"] for r in _of(report["rows"], v, w)) for v in present}
        t = Table(title=f"{w} at 80 % load: p99 slowdown per RPC size", title_justify="left", box=box.SIMPLE_HEAD)
        for c in ("share of RPCs", "bucket", *(VARIANTS[v][0] for v in present)):
            t.add_column(c, justify="left" if c == "share of RPCs" else "right")
        by = {v: {r["size_upper_bytes"]: r for r in _of(report["rows"], v, w)} for v in present}
        for shares, r in judge.deciles(base):
            cells = [", ".join(f"{s:g} %" for s in shares), f"≤ {fmt.size(r['size_upper_bytes'])}"]
            for v in present:
                x = by[v][r["size_upper_bytes"]]
                cells.append(tables._cell(x["p99_slowdown"], x["judged"], x.get("p99_slowdown_ci")))
            t.add_row(*cells)
        console.print(t)
        console.print("  RPCs: " + ", ".join(f"{VARIANTS[v][0]} {n[v]:,}" for v in present), highlight=False)
        for line in _claim_lines(report["claims"][w]):
            console.print(f"  {line}", highlight=False)
        for p in (p for p in report["points"] if p["workload"] == w):
            if p["beyond_last_bucket"]:
                console.print(
                    f"  {VARIANTS[p['variant']][0]}: {p['beyond_last_bucket']:,} RPCs above the last bucket "
                    "(not reported)",
                    highlight=False,
                )
        sims = ", ".join(
            f"{VARIANTS[p['variant']][0]} {max(p['sim_ms']):.0f}" for p in report["points"] if p["workload"] == w
        )
        console.print(f"  drained at (ms): {sims}\n", highlight=False)
    if report.get("plots"):
        console.print(f"plots: {', '.join(report['plots'])}", highlight=False)


def figures(report: dict, work: Path) -> list[Path]:
    """cluster-<W>.png/.svg per workload: p99 (Fig. 8) and median (Fig. 9) per variant."""
    from tailor.plot import save
    from tailor.reproduce.homa.figure import figure

    written = []
    for w in dict.fromkeys(r["workload"] for r in report["rows"]):
        ours = [
            {**r, "transport": VARIANTS[r["variant"]][0], "load": 0.8} for r in report["rows"] if r["workload"] == w
        ]
        fig = figure(w, ours, [], "", "Fig. 8 (p99) and 9 (median) simulated: echo RPCs on the 16-host cluster")
        for ax in fig.axes:
            ax.set_ylabel(ax.get_ylabel().replace("Fig. 12", "Fig. 8").replace("Fig. 13", "Fig. 9"))
        written += save(fig, work / f"cluster-{w}")
    return written
