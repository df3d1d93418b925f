"""HULL §6.3 (Fig. 12 and 13): the large-scale ns-2 simulation, 192 servers on a
three-tier fat-tree, standard TCP, DCTCP and HULL (DCTCP with phantom queues draining at
9.5 Gbps and the ns-2 pacer), flow completion times in the paper's four size classes:
< 10 KB and 10-100 KB (Fig. 12: mean, p99, p99.9), 100 KB-10 MB and > 10 MB (Fig. 13: mean).

The fabric is the paper's: 8 pods of 4 ToRs and 2 aggregation switches, 8 cores, 8-port
switches (a ToR: 6 servers and 2 up-links, 3:1 over-subscribed), 10 Gbps links of 200 ns,
1 µs more at each receiving host (the paper's 11.8 µs round trip across 6 hops for a
1,500 B packet and a 40 B ACK: mss 1,460 B, 40 B headers), 250 packets of buffer per port,
per-flow ECMP over permanent connections between every pair of servers: a pool of 16 per
pair, each flow taking an idle one (warm: no handshake, no slow start after the first),
so no flow waits behind another on a busy connection. One FIFO connection per pair was
tried first and is not what the paper ran: with Pareto sizes up to 1 GB, small flows
queued behind elephants on their pair's connection took milliseconds (every small flow
above 1 ms in a 1,000,000-flow run was such a case), where the paper's average is 20 µs. Flows arrive as a Poisson process between random pairs at 15 % of the
server links, sizes Pareto of shape 1.05 and mean 100 KB.

Choices the paper leaves open, stated (docs/reproductions-hull.md):

- the Pareto law is truncated at ``MAX_SIZE`` (1 GB): untruncated, its sample mean is far
  from 100 KB at any feasible count (the variance is infinite). Truncated, the mean is
  45.7 KB, so 15 % of the server links needs 2.2 times the flow rate the untruncated law
  would; the run reports the realized load (bytes delivered per second over the server
  links);
- DCTCP marks at 65 packets (97.5 KB), the DCTCP paper's 10 Gbps setting; HULL's phantom
  queue marks at 3 KB (Table 3's 1 KB at 1 Gbps, scaled up for the faster drain, §6: "the
  marking threshold must also be reduced with increasing drain rate" is about a fixed
  link; ns-2's threshold is not given) and physical marking is off where it is on;
- TCP starts with 10 segments and a 1 ms minimum RTO; hosts have neither LSO nor interrupt
  coalescing (ns-2 has neither); "standard TCP" is NewReno over drop-tail;
- every NIC holds 250 packets, drop-tail (``[host] buffer``), as ns-2's host link queue: a
  NewReno flow alone on its sender's link grows its window until that queue drops (tailor's
  NIC is otherwise unbounded);
- DCTCP's hosts mark at their NIC at 65 packets too (``[host] ecn_threshold``), as ns-2's
  host link is a queue like a switch port's. Without it, a large flow alone on its sender's
  link is never marked, its window grows without bound (tailor's NIC queue has no limit),
  the NIC holds tens of megabytes and small flows from that host wait behind them: at 0.2 %
  load 7 of 10,799 small flows took more than 1 ms (up to 48 ms; the NIC held 61 MB), and
  their mean was 29.6 µs against 16.0 µs with the marking (docs/reproductions-hull.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import polars as pl
import typer

from tailor.errors import OptionError
from tailor.outdir import staged
from tailor.reproduce import cells
from tailor.reproduce.hull import runs
from tailor.reproduce.registry import Out, Plan
from tailor.result import Result
from tailor.stats import Estimate, percentile

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["SCHEMES", "MAX_SIZE", "scenario", "SMALL", "LARGE", "SIZE_CLASSES", "COLUMNS", "options", "run", "render"]

#: Standard TCP (NewReno over drop-tail, the paper's "TCP"), DCTCP and HULL.
SCHEMES = ("tcp-droptail", "dctcp", "hull")
_LABELS = {"tcp-droptail": "TCP-DropTail", "dctcp": "DCTCP", "hull": "HULL"}
#: The truncation of the Pareto sizes.
MAX_SIZE = "1GB"
#: The size classes' bounds of Fig. 12 and 13: < 10 KB, 10-100 KB, 100 KB-10 MB, > 10 MB.
SMALL = 10_000
MEDIUM = 100_000
LARGE = 10_000_000
#: (name, label, lower bound inclusive, upper bound exclusive) of each size class.
SIZE_CLASSES = (
    ("small", "< 10 KB", 0, SMALL),
    ("medium", "10-100 KB", SMALL, MEDIUM),
    ("big", "100 KB-10 MB", MEDIUM, LARGE + 1),
    ("large", "> 10 MB", LARGE + 1, None),
)
#: ns-2's 250 packets of 1,500 B, at every switch port and NIC.
BUFFER = "375000B"


def _marking(scheme: str) -> str:
    if scheme == "tcp-droptail":
        return ""
    if scheme == "dctcp":
        return 'ecn_threshold = "97500B"\n'
    return 'phantom = { drain = 0.95, threshold = "3KB" }\n'


def scenario(scheme: str, flows: int, load: float = 0.15) -> str:
    """The §6.3 fat-tree with ``flows`` flows of Pareto sizes at ``load`` of the server
    links, under ``scheme`` (``tcp-droptail``, ``dctcp`` or ``hull``)."""
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {SCHEMES}")
    # HULL's hosts pace; DCTCP's mark at their NIC as at a switch port (ns-2's host link is
    # a queue like any other): without it a flow alone on its sender's link grows its window
    # unmarked and parks megabytes in the NIC (module doc).
    host = {"hull": 'pacer = "ns2"\n', "dctcp": 'ecn_threshold = "97500B"\n', "tcp-droptail": ""}[scheme]
    kind = "tcp" if scheme == "tcp-droptail" else "dctcp"
    return f"""# HULL §6.3 fat-tree: {_LABELS[scheme]}, {flows:,} flows at {load:.0%} (docs/reproductions-hull.md).
name = "hull-fattree-{scheme}"

[topology]
kind = "fat_tree"
pods = 8
tors = 4
aggs = 2
cores = 8
hosts_per_tor = 6
host_link = {{ rate = "10Gbps", delay = "200ns" }}
fabric_link = {{ rate = "10Gbps", delay = "200ns" }}

[switch]
buffer = "per_port"
buffer_size = "{BUFFER}"
{_marking(scheme)}
[host]
rx_delay = "1us"
buffer = "{BUFFER}"
{host}
[transport]
kind = "{kind}"
mss = "1460B"
header = "40B"
init_cwnd = 10
min_rto = "1ms"

[[class]]
name = "flows"
sizes_pareto = {{ shape = 1.05, mean = "100KB", max = "{MAX_SIZE}" }}
arrival = "poisson"
load = {load}
pattern = "all_to_all"
messages = {flows}
connections = 16
connection_choice = "idle"
bins = ["{SMALL}B", "{MEDIUM}B", "{LARGE}B"]
"""


#: The columns of fattree.csv.
COLUMNS = ("scheme", "size_class", "seed", "fct_avg_us", "fct_p99_us", "fct_p999_us", "flows")
#: Flows per scheme by form. The paper ran at least 5 million; --flows takes any count.
FLOWS = {"quick": 20_000, "full": 1_000_000}
#: The paper's §6.3 claims about them.
CLAIMS = (
    "small flows (< 10 KB): HULL's average FCT about 20 µs (the store-and-forward floor for their 6.8 KB mean is 16.2 µs)",
    "small flows: HULL's average more than 50 % below DCTCP's, p99 and p99.9 more than 80 % below",
    "large flows (> 10 MB): HULL up to 24 % slower than DCTCP",
)


def options(
    quick: Annotated[
        bool, typer.Option("--quick", help=f"{FLOWS['quick']:,} flows a scheme (seconds; not a result).")
    ] = False,
    flows: Annotated[
        Optional[int],
        typer.Option(
            help="Flows per scheme, 1,000 to 50,000,000 (default: 20,000 with --quick, 1,000,000 otherwise; the paper ran 5,000,000).",
            show_default=False,
        ),
    ] = None,
    seeds: cells.Seeds = 3,
    out: Out = None,
) -> Plan:
    """HULL §6.3: 192 servers on a fat-tree at 15 % load, flow completion times in four size
    classes under TCP, DCTCP and HULL, beside the paper's claims."""
    form = "quick" if quick else "full"
    n = FLOWS[form] if flows is None else flows
    if not 1_000 <= n <= 50_000_000:
        raise OptionError(f"--flows: {n} is out of range; accepted: 1000 to 50000000")
    cells.check_seeds(seeds)
    pts = [runs.HullPoint(f"fattree-{s}", seed, scenario(s, n), n) for s in SCHEMES for seed in range(1, seeds + 1)]
    default = Path("runs") / ("hull-fattree-quick" if quick else "hull-fattree")
    return Plan(out or default, lambda out, say: run(pts, form, n, out, say))


def _classes(run_dir: Path) -> tuple[list[dict], dict[str, float]]:
    """Per size class: FCT mean, p99, p99.9 (µs, nearest rank) and count; and the run's
    realized load and mean flow size."""
    m = pl.read_parquet(run_dir / "messages.parquet").with_columns(
        ((pl.col("finish_ns") - pl.col("start_ns")) / 1e3).alias("us")
    )
    rows = []
    for name, _, lo, hi in SIZE_CLASSES:
        sel = pl.col("size_bytes") >= lo if hi is None else pl.col("size_bytes").is_between(lo, hi, closed="left")
        us = m.filter(sel)["us"].to_numpy()
        n = len(us)
        rows.append(
            {
                "size_class": name,
                "fct_avg_us": float(us.mean()) if n else None,
                "fct_p99_us": percentile(us, 99) if n else None,
                "fct_p999_us": percentile(us, 99.9) if n else None,
                "flows": n,
            }
        )
    span_s = (m["start_ns"].max() - m["start_ns"].min()) / 1e9
    offered = float(m["size_bytes"].sum()) * 8 / span_s / (192 * 10e9)
    small_size = float(m.filter(pl.col("size_bytes") < SMALL)["size_bytes"].mean())
    return rows, {"realized_load": offered, "mean_size": float(m["size_bytes"].mean()), "small_mean_size": small_size}


def run(points: list[runs.HullPoint], form: str, flows: int, out: Path, say: Any) -> dict:
    """Runs the schemes into ``out`` (written whole once complete): scenarios, runs,
    fattree.csv and fattree.json."""
    with staged(out, "reproduction", name="hull-fattree") as work:
        dirs = runs.run(points, work, f"tailor reproduce hull-fattree, {form} form", say)
        rows, info = [], {}
        for p in points:
            scheme = p.name.removeprefix("fattree-")
            cls, seen = _classes(dirs[p])
            summary = Result(dirs[p]).summary
            if p.seed == 1 or scheme not in info:  # the workload's realized numbers: seed 1's
                info[scheme] = seen | {
                    "events": summary["events"],
                    "wall_s": summary.get("wall_s"),
                    "sim_ns": summary["sim_ns"],
                }
            rows += [{"scheme": scheme, "seed": p.seed, **c} for c in cls]
        pl.DataFrame(rows).select(COLUMNS).write_csv(work / "fattree.csv")
        report = {
            "reproduction": "hull-fattree",
            "form": form,
            "flows": flows,
            "max_size": MAX_SIZE,
            "rows": rows,
            "points": summarise(rows),
            "runs": info,
        }
        (work / "fattree.json").write_text(json.dumps(report, indent=1))
    return report


#: Each column's percentile (None: the mean).
_P = {"fct_avg_us": None, "fct_p99_us": 99.0, "fct_p999_us": 99.9}


def summarise(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per (scheme, size class) across seeds: the mean, p99 and p99.9 FCT as
    ``cells.columns`` (each seed's on its own flows), the fewest flows a seed had."""
    out = []
    for key in dict.fromkeys((r["scheme"], r["size_class"]) for r in rows):
        rs = [r for r in rows if (r["scheme"], r["size_class"]) == key]
        point: dict[str, Any] = {"scheme": key[0], "size_class": key[1], "flows": min(r["flows"] for r in rs)}
        for k, p in _P.items():
            point |= cells.columns(k, Estimate.of_values([(r[k], r["flows"]) for r in rs], p))
        out.append(point)
    return out


def _cell(r: dict[str, Any], key: str) -> str:
    if f"{key}_n" not in r:  # a report of before issue 26: one seed
        return f"{r[key]:,.1f}" + (
            " *" if r["flows"] < (100 if key == "fct_p99_us" else 1000) and key != "fct_avg_us" else ""
        )
    e = cells.restore(key, r, _P[key])
    if not e.judged:
        return f"— n={e.n:,}<{e.needed:,}"
    return f"{e.value:,.1f}" + ("" if e.ci is None else f" [{e.ci[0]:,.1f}–{e.ci[1]:,.1f}]")


def _cut(a: dict[str, Any], b: dict[str, Any], key: str) -> str:
    """How far below ``b`` ``a`` is, or "not judged" when either rests on too few flows."""
    if not (a.get(f"{key}_judged", True) and b.get(f"{key}_judged", True)):
        return "not judged"
    return f"{1 - a[key] / b[key]:.0%}"


def render(report: dict[str, Any], console: Console) -> None:
    """Fig. 12/13's numbers for small and large flows, and the paper's claims judged."""
    from rich import box
    from rich.table import Table

    pts = report.get("points", report["rows"])
    at = {(r["scheme"], r["size_class"]): r for r in pts}
    t = Table(
        title=f"HULL §6.3 fat-tree, {report['flows']:,} flows a scheme ({report['form']} form; the paper ran "
        "≥ 5,000,000): flow completion time, µs",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for c in ("size class", "scheme", "flows", "avg", "p99", "p99.9"):
        t.add_column(c, justify="left" if c in ("size class", "scheme") else "right")
    for cls, label, _, _ in SIZE_CLASSES:
        for s in SCHEMES:
            r = at.get((s, cls))
            if r is None:  # a report of before the TCP baseline and the four classes
                continue
            t.add_row(
                label,
                _LABELS[s],
                f"{r['flows']:,}",
                _cell(r, "fct_avg_us"),
                _cell(r, "fct_p99_us"),
                _cell(r, "fct_p999_us"),
            )
    console.print(t)
    small = {s: at[(s, "small")] for s in ("dctcp", "hull")}
    large = {s: at[(s, "large")] for s in ("dctcp", "hull")}
    slower = large["hull"]["fct_avg_us"] / large["dctcp"]["fct_avg_us"] - 1
    info = report["runs"]
    seeds = pts[0].get("fct_avg_us_seeds", 1)
    console.print(
        f"paper: {CLAIMS[0]}; tailor: {small['hull']['fct_avg_us']:.1f} µs (their mean size "
        f"{info['hull']['small_mean_size'] / 1e3:.1f} KB).\n"
        f"paper: {CLAIMS[1]}; tailor: {_cut(small['hull'], small['dctcp'], 'fct_avg_us')} below at the average, "
        f"{_cut(small['hull'], small['dctcp'], 'fct_p99_us')} at p99, "
        f"{_cut(small['hull'], small['dctcp'], 'fct_p999_us')} at p99.9.\n"
        f"paper: {CLAIMS[2]}; tailor: {slower:+.0%} ({large['hull']['flows']} flows > 10 MB a seed).\n"
        "TCP (NewReno over 250-packet drop-tail queues) is Fig. 12 and 13's third scheme; its bars are in the figures "
        "only, the text states no number for it.\n"
        f"sizes: Pareto shape 1.05, mean 100 KB before truncation at {report['max_size']} (mean "
        f"{info['hull']['mean_size'] / 1e3:.1f} KB after); realized load {info['hull']['realized_load']:.1%} of the "
        f"server links (the paper's 15 %). Ours: means over {seeds} seed(s) [95 % bootstrap interval across seeds]; "
        "a percentile some seed has too few flows for is a dash (p99: 100, p99.9: 1,000).",
        highlight=False,
        markup=False,
    )
