"""``tailor crosscheck ns3 RUN_DIR``: the same flows through ns-3 and tailor, side by side.

A run directory of either ns-3 anchor (``anchors/ns3`` — one bottleneck — or
``anchors/ns3-leafspine``) holds every parameter in ``summary.json``, the offered
flows in ``workload.csv.gz`` and ns-3's per-flow results in ``flows.csv.gz``. This module
builds the same scenario for tailor from those parameters, replays exactly those flows,
and compares per size bin: count, mean and p99 slowdown (nearest rank, computed here from
the per-flow records of both simulators with the same code), plus port counters.

Both sides use ns-3's ideal for every flow (``ideal_ns`` of ``flows.csv``), so the ratios
compare the simulators, not the definitions; tailor's own ideal is reported next to it
(it is the same formula: the largest relative difference is printed).

The mean and p99 per bin are also drawn, ns-3 beside tailor, into the work directory
(``crosscheck.png`` and ``.svg``; their paths are the report's ``plots``).
"""

from __future__ import annotations

import gzip
import json
import math
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from tailor import fmt
from tailor.errors import ScenarioError
from tailor.outdir import staged
from tailor.run import run as run_scenario
from tailor.stats import bootstrap_ci, percentile

__all__ = ["crosscheck_ns3", "render", "build_scenario", "MEAN_TOLERANCE", "P99_TOLERANCE", "MIN_FLOWS"]

MEAN_TOLERANCE = 0.10
P99_TOLERANCE = 0.15
MIN_FLOWS = 100

# Parameters the comparison reads (the rest of ns-3's summary.json params are derived
# or informational and listed in _INFORMATIONAL; anything else is refused).
_INFORMATIONAL = {
    "flows",
    "load",
    "arrival",
    "sigma",
    "seed",
    "flows_in",
    "hosts",
    "base_rtt_longest_path_us",
    "bdp_bytes",
    "load_definition",
    "aggregate_arrival_rate_per_s",
    "cdf",
    "cdf_mean_bytes",
}


def _bad(run_dir: Path, key: str, message: str) -> ScenarioError:
    return ScenarioError(str(run_dir / "summary.json"), key, message)


def _transport(params: dict[str, Any], run_dir: Path, prr: str) -> str:
    if params.get("syn_window_cap"):
        raise _bad(run_dir, "params.syn_window_cap", "true is not supported: tailor models no receive window")
    delack = int(params["del_ack_count"])
    if delack not in (1, 2):
        raise _bad(run_dir, "params.del_ack_count", f"{delack} is not supported; accepted: 1, 2")
    lines = [
        "[transport]",
        'kind = "dctcp"',
        f'mss = "{int(params["mss_bytes"])}B"',
        f'header = "{int(params["header_bytes"])}B"',
        f"init_cwnd = {int(params['init_cwnd_segments'])}",
        f'min_rto = "{float(params["min_rto_us"]) * 1000:.0f}ns"',
        f"dctcp_g = {float(params['dctcp_g'])!r}",
        # ns-3 opens each connection before the flow unless preconnectUs = 0.
        f"handshake = {'true' if float(params['preconnect_us']) == 0 else 'false'}",
        f'prr = "{prr}"',
    ]
    if int(params["max_cwnd_segments"]) > 0:
        lines.append(f"max_cwnd = {int(params['max_cwnd_segments'])}")
    if delack == 2:
        # ns-3's DelAckCount = 2 with its default DelAckTimeout of 200 ms.
        lines += ["delayed_ack = true", 'delayed_ack_timeout = "200ms"']
    return "\n".join(lines)


def _ns(us: float) -> str:
    return f"{round(us * 1e6)}ps"


def _single(params: dict[str, Any], run_dir: Path) -> tuple[str, int | None]:
    n = int(params["senders"])
    rate = f'"{float(params["link_gbps"]) * 1000:.0f}Mbps"'
    delay = _ns(float(params["rtt_us"]) / 4)
    topo = f"""[topology]
kind = "star"
hosts = {n + 1}
link = {{ rate = {rate}, delay = "{delay}" }}

[switch]
ecn_threshold = "{int(params["K_bytes"])}B"
buffer = "per_port"
buffer_size = "{int(params["buffer_bytes"])}B"
"""
    return topo, n


def _leafspine(params: dict[str, Any], run_dir: Path) -> tuple[str, int | None]:
    host = f'"{float(params["host_link_gbps"]) * 1000:.0f}Mbps"'
    core = f'"{float(params["core_link_gbps"]) * 1000:.0f}Mbps"'
    delay = _ns(float(params["link_delay_us"]))
    topo = f"""[topology]
kind = "leaf_spine"
racks = {int(params["racks"])}
hosts_per_rack = {int(params["hosts_per_rack"])}
spines = {int(params.get("spines", 1))}
host_link = {{ rate = {host}, delay = "{delay}", ecn_threshold = "{int(params["K_host_port_bytes"])}B" }}
fabric_link = {{ rate = {core}, delay = "{delay}", ecn_threshold = "{int(params["K_core_port_bytes"])}B" }}

[switch]
buffer = "per_port"
buffer_size = "{int(params["buffer_bytes"])}B"
"""
    return topo, None


_SINGLE_KEYS = {"senders", "link_gbps", "rtt_us", "K_bytes"}
_LEAF_KEYS = {
    "racks",
    "hosts_per_rack",
    "spines",
    "host_link_gbps",
    "core_link_gbps",
    "link_delay_us",
    "K_host_port_bytes",
    "K_core_port_bytes",
}
_COMMON_KEYS = {
    "buffer_bytes",
    "init_cwnd_segments",
    "max_cwnd_segments",
    "mss_bytes",
    "header_bytes",
    "del_ack_count",
    "min_rto_us",
    "preconnect_us",
    "dctcp_g",
    "syn_window_cap",
}


def build_scenario(run_dir: Path, workload_csv: Path, prr: str = "ns3") -> tuple[str, str]:
    """The tailor scenario (TOML text) of an ns-3 anchor run, and the anchor's kind.

    ``prr = "ns3"`` (the default here) paces DCTCP's window reductions as ns-3 3.37 does,
    so that the comparison is of the simulators and not of two readings of RFC 6937;
    ``"rfc6937"`` is tailor's own default (docs/transport.md).
    """
    if prr not in ("ns3", "rfc6937"):
        raise ValueError(f"prr must be 'ns3' or 'rfc6937', got {prr!r}")
    summary = json.loads((run_dir / "summary.json").read_text())
    params = summary.get("params")
    if not isinstance(params, dict):
        raise _bad(run_dir, "params", "missing: not an ns-3 anchor run directory")
    kind = "leafspine" if "racks" in params else "single"
    known = _COMMON_KEYS | _INFORMATIONAL | (_LEAF_KEYS if kind == "leafspine" else _SINGLE_KEYS)
    for key in params:
        if key not in known:
            raise _bad(
                run_dir, f"params.{key}", f"unknown parameter; this crosscheck understands: {', '.join(sorted(known))}"
            )
    topo, receiver = (_leafspine if kind == "leafspine" else _single)(params, run_dir)
    edges = ", ".join(f'"{b["upper_bytes"]}B"' for b in summary["bins"])
    klass = f'[[class]]\nname = "ns3"\ntrace = "{workload_csv.name}"\n'
    if receiver is not None:
        klass += f"receiver = {receiver}\n"
    text = f"""# Built by `tailor crosscheck ns3` from {run_dir}/summary.json
name = "crosscheck-{run_dir.name}"
seed = {int(params.get("seed", 1))}

[run]
bins = [{edges}]

{topo}
{_transport(params, run_dir, prr)}

{klass}"""
    return text, kind


@dataclass
class BinRow:
    lower: int
    upper: int
    count: int
    ns3_mean: float
    ns3_p99: float
    tailor_mean: float
    tailor_p99: float

    @property
    def mean_ratio(self) -> float:
        return self.tailor_mean / self.ns3_mean if self.count else math.nan

    @property
    def p99_ratio(self) -> float:
        return self.tailor_p99 / self.ns3_p99 if self.count else math.nan

    @property
    def judged(self) -> bool:
        return self.count >= MIN_FLOWS

    @property
    def ok(self) -> bool:
        return (not self.judged) or (
            abs(self.mean_ratio - 1) <= MEAN_TOLERANCE and abs(self.p99_ratio - 1) <= P99_TOLERANCE
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "lower_bytes": self.lower,
            "upper_bytes": self.upper,
            "count": self.count,
            "ns3_mean": self.ns3_mean,
            "ns3_p99": self.ns3_p99,
            "tailor_mean": self.tailor_mean,
            "tailor_p99": self.tailor_p99,
            "mean_ratio": self.mean_ratio,
            "p99_ratio": self.p99_ratio,
            "judged": self.judged,
            "ok": self.ok,
        }


#: The interval printed beside a missed bin: 90 % of ns-3's own p99 over 2,000 resamples of its flows.
CI_CONFIDENCE, CI_RESAMPLES, CI_SEED = 0.90, 2000, 1


def _explain(joined: pl.DataFrame, table: list[dict[str, Any]]) -> None:
    """Adds ns-3's p99 bootstrap interval to every missed bin."""
    for r in table:
        if r["ok"]:
            continue
        part = joined.filter((pl.col("size_bytes") > r["lower_bytes"]) & (pl.col("size_bytes") <= r["upper_bytes"]))
        # A missed bin has MIN_FLOWS flows or more: an interval exists.
        lo, hi = bootstrap_ci(
            part["ns3_slowdown"].to_numpy(), CI_CONFIDENCE, percentile=99, resamples=CI_RESAMPLES, seed=CI_SEED
        )
        r["ns3_p99_ci90"] = [lo, hi]
        r["tailor_p99_in_ci90"] = lo <= r["tailor_p99"] <= hi


def _bins(joined: pl.DataFrame, edges: list[dict[str, Any]]) -> list[BinRow]:
    rows = []
    for b in edges:
        lo, hi = int(b["lower_bytes"]), int(b["upper_bytes"])
        part = joined.filter((pl.col("size_bytes") > lo) & (pl.col("size_bytes") <= hi))
        ns3 = part["ns3_slowdown"].to_list()
        tl = part["tailor_slowdown"].to_list()
        rows.append(
            BinRow(
                lo,
                hi,
                len(ns3),
                sum(ns3) / len(ns3) if ns3 else math.nan,
                percentile(ns3, 99),
                sum(tl) / len(tl) if tl else math.nan,
                percentile(tl, 99),
            )
        )
    return rows


def _ports(kind: str, ns3: dict[str, Any], tailor_dir: Path, tailor_summary: dict[str, Any]) -> list[dict[str, Any]]:
    net = ns3["network"]
    tnet = tailor_summary["network"]
    if kind == "single":
        return [
            {"counter": "ecn_marks", "ns3": net["ecn_marks"], "tailor": tnet["ecn_marks"]},
            {"counter": "drops", "ns3": net["drops"], "tailor": tnet["drops"]},
            {"counter": "bottleneck max_queue_bytes", "ns3": net["max_queue_bytes"], "tailor": tnet["max_queue_bytes"]},
            {
                "counter": "bottleneck mean_queue_bytes",
                "ns3": net["mean_queue_bytes"],
                "tailor": tnet["mean_queue_bytes"],
            },
            {"counter": "bottleneck utilization", "ns3": net["utilization"], "tailor": tnet["utilization"]},
            {
                "counter": "max_host_nic_queue_bytes",
                "ns3": net["max_host_nic_queue_bytes"],
                "tailor": tnet["max_host_nic_queue_bytes"],
            },
        ]
    ports = pl.read_csv(tailor_dir / "ports.csv")
    out = [{"counter": "ecn_marks (all ports)", "ns3": net["ecn_marks"], "tailor": tnet["ecn_marks"]}]
    for ns3_name, role in (("tor_down", "to_host"), ("tor_up", "up"), ("spine_down", "down")):
        n = net["ports"][ns3_name]
        t = ports.filter(pl.col("role") == role)
        out += [
            {"counter": f"{ns3_name} ecn_marks", "ns3": n["ecn_marks"], "tailor": int(t["ecn_marks"].sum())},
            {
                "counter": f"{ns3_name} max_queue_bytes",
                "ns3": n["max_queue_bytes"],
                "tailor": int(t["max_queue_bytes"].max()),
            },
            {
                "counter": f"{ns3_name} mean_queue_bytes",
                "ns3": n["mean_queue_bytes"],
                "tailor": float(t["mean_queue_bytes"].mean()),
            },
        ]
    return out


def _load_ns3_flows(run_dir: Path) -> pl.DataFrame:
    with gzip.open(run_dir / "flows.csv.gz", "rb") as f:
        return pl.read_csv(f.read())


def crosscheck_ns3(run_dir: str | Path, out: str | Path | None = None, prr: str = "ns3") -> dict[str, Any]:
    """Replays an ns-3 anchor run in tailor; returns the comparison (see module doc)."""
    run_dir = Path(run_dir)
    for f in ("summary.json", "workload.csv.gz", "flows.csv.gz"):
        if not (run_dir / f).is_file():
            what = "no such directory" if not run_dir.is_dir() else f"{f} is missing"
            raise ScenarioError(
                str(run_dir),
                "",
                f"{what}; accepted: an ns-3 anchor run directory (summary.json, workload.csv.gz, flows.csv.gz)",
            )
    out = Path(out) if out is not None else default_dir(run_dir)
    with staged(out, "crosscheck") as work:
        report = _replay(run_dir, work, prr)
        report["work_dir"] = str(out)
        from tailor.figures import crosscheck_figure
        from tailor.plot import save

        if any(r["count"] for r in report["bins"]):
            report["plots"] = [str(out / p.name) for p in save(crosscheck_figure(report), work / "crosscheck")]
    return report


def default_dir(run_dir: Path) -> Path:
    """``runs/crosscheck-<anchor run name>``, where a cross-check keeps its replay."""
    return Path("runs") / f"crosscheck-{run_dir.resolve().name}"


def _replay(run_dir: Path, work: Path, prr: str) -> dict[str, Any]:
    """Replays the anchor run in ``work`` and compares; the report without plots."""
    workload = work / "workload.csv"
    with gzip.open(run_dir / "workload.csv.gz", "rb") as src, open(workload, "wb") as dst:
        shutil.copyfileobj(src, dst)
    text, kind = build_scenario(run_dir, workload, prr)
    scenario = work / "scenario.toml"
    scenario.write_text(text)
    result = run_scenario(scenario, out=work / "tailor")
    ns3_summary = json.loads((run_dir / "summary.json").read_text())
    ns3 = _load_ns3_flows(run_dir).select(
        pl.col("flow_id"),
        pl.col("size_bytes"),
        pl.col("sender"),
        pl.col("ideal_ns").alias("ns3_ideal_ns"),
        pl.col("slowdown").alias("ns3_slowdown"),
    )
    # A replayed trace's message keeps its flow_id as its id (docs/results.md).
    tailor = result.messages.select(
        pl.col("id").cast(pl.Int64).alias("flow_id"),
        pl.col("src"),
        pl.col("size_bytes").alias("t_size"),
        (pl.col("finish_ns") - pl.col("start_ns")).alias("t_latency_ns"),
        pl.col("ideal_ns").alias("t_ideal_ns"),
    )
    joined = tailor.join(ns3.with_columns(pl.col("flow_id").cast(pl.Int64)), on="flow_id")
    mismatched = joined.filter((pl.col("t_size") != pl.col("size_bytes")) | (pl.col("src") != pl.col("sender")))
    if mismatched.height:
        raise RuntimeError(f"{mismatched.height} flows were replayed with another size or sender")
    joined = joined.with_columns((pl.col("t_latency_ns") / pl.col("ns3_ideal_ns")).alias("tailor_slowdown"))
    ideal_diff = float((joined["t_ideal_ns"] / joined["ns3_ideal_ns"] - 1).abs().max() or 0.0)
    tables = {"bins": [r.as_dict() for r in _bins(joined, ns3_summary["bins"])]}
    if "cdf_bins" in ns3_summary:
        tables["cdf_bins"] = [r.as_dict() for r in _bins(joined, ns3_summary["cdf_bins"])]
    for rows in tables.values():
        _explain(joined, rows)
    misses = [
        f"{name} ({r['lower_bytes']}, {r['upper_bytes']}]" for name, rows in tables.items() for r in rows if not r["ok"]
    ]
    report = {
        "anchor": kind,
        "run_dir": str(run_dir),
        "prr": prr,
        "flows": {
            "ns3": ns3.height,
            "tailor_completed": result.summary["messages"]["completed"],
            "compared": joined.height,
        },
        "max_ideal_difference": ideal_diff,
        "tolerance": {"mean": MEAN_TOLERANCE, "p99": P99_TOLERANCE, "min_flows": MIN_FLOWS},
        **tables,
        "ports": _ports(kind, ns3_summary, result.dir, result.summary),
        "speed": {
            "ns3_events": ns3_summary.get("events"),
            "ns3_wall_seconds": ns3_summary.get("run_wall_seconds"),
            "tailor_events": result.summary["events"],
            "tailor_wall_seconds": result.summary["wall_seconds"],
            "note": "ns-3 wall time as recorded in its run directory (another run, maybe another machine); use `make bench` for a same-machine ratio",
        },
        "misses": misses,
        "pass": not misses and joined.height == ns3.height,
    }
    return report


def render(report: dict[str, Any], console: Any) -> None:
    """Prints the comparison as rich tables."""
    from rich.table import Table

    for name in ("bins", "cdf_bins"):
        if name not in report:
            continue
        t = Table(title=f"{report['run_dir']}: slowdown per size bin ({name}), ns-3 vs tailor on the same flows")
        for col in ("size bin", "flows", "ns-3 mean", "tailor mean", "ratio", "ns-3 p99", "tailor p99", "ratio", ""):
            t.add_column(col, justify="left" if col == "size bin" else "right")
        for r in report[name]:
            if r["count"] == 0:
                continue
            verdict = ("ok" if r["ok"] else "[red]MISS[/red]") if r["judged"] else "[dim]< 100 flows[/dim]"
            t.add_row(
                fmt.size_bin(r["lower_bytes"], r["upper_bytes"]),
                f"{r['count']:,}",
                f"{r['ns3_mean']:.3f}",
                f"{r['tailor_mean']:.3f}",
                f"{r['mean_ratio']:.3f}",
                f"{r['ns3_p99']:.3f}",
                f"{r['tailor_p99']:.3f}",
                f"{r['p99_ratio']:.3f}",
                verdict,
            )
        console.print(t)
        for r in report[name]:
            if "ns3_p99_ci90" in r:
                lo, hi = r["ns3_p99_ci90"]
                inside = "inside" if r["tailor_p99_in_ci90"] else "outside"
                console.print(
                    f"  miss {fmt.size_bin(r['lower_bytes'], r['upper_bytes'])}: ns-3's own p99 of these "
                    f"{r['count']} flows has a 90 % bootstrap interval [{lo:.3f}, {hi:.3f}]; tailor's {r['tailor_p99']:.3f} is {inside} it"
                )
    p = Table(title="port counters")
    for col in ("counter", "ns-3", "tailor"):
        p.add_column(col, justify="left" if col == "counter" else "right")
    for row in report["ports"]:
        count = (lambda v: f"{v:,.4g}") if isinstance(row["ns3"], float) else (lambda v: f"{v:,}")
        p.add_row(row["counter"], count(row["ns3"]), count(row["tailor"]))
    console.print(p)
    f = report["flows"]
    console.print(
        f"flows: ns-3 {f['ns3']:,}, tailor completed {f['tailor_completed']:,}, compared {f['compared']:,}; "
        f"largest ideal difference {report['max_ideal_difference']:.2e}"
    )
    tol = report["tolerance"]
    verdict = "PASS" if report["pass"] else "FAIL (" + "; ".join(report["misses"]) + ")"
    console.print(
        f"target: mean within {tol['mean']:.0%}, p99 within {tol['p99']:.0%} in every bin of at least "
        f"{tol['min_flows']} flows -> {verdict}"
    )
    if report.get("plots"):
        console.print(f"plot, ns-3 beside tailor: {', '.join(report['plots'])}", highlight=False)
