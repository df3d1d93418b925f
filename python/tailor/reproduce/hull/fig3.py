"""HULL Fig. 3 (§4.1, "The need for pacing"): two servers with 10 Gbps NICs, LSO and
interrupt coalescing on, MTU 1,500, one TCP flow whose window is capped so that it runs at
about 1 Gbps on average. The figure plots the data and ACK sequence numbers over 5 ms
against the "ideal slope" of a flow paced at 1 Gbps; the text reads it: "Each step,
occurring roughly every 0.5ms, corresponds to a back-to-back burst of data packets totaling
65KB … Every 0.5ms, 6 ACKs acknowledging 65KB in total are received within a 24–50µs
interval. Whereas, ideally, for a flow at 1Gbps, the ACKs for 65KB should be evenly spread
over 520µs."

tailor records no packet trace; what it measures is the sender NIC's queue, sampled every
1 µs (``[record] queues``): a burst is a stretch of samples with data waiting, its bytes the
stretch's length at line rate plus the packet on the wire (±1 packet: the sampling), its
start the first such sample. Per run: the average throughput (the flow's bytes over its
completion time), payload bytes and packets per burst (mean and p99 over the bursts), the
spacing of bursts (start to start), the share of time the NIC sends (the rest it is idle:
the instantaneous rate is the line rate or nothing), and the ACKs: the ACK ratio (bytes per
ACK, the transport's counters) and ACKs per burst (a burst's bytes over that ratio). The
spread of an ACK batch in time is not measured (no trace).

Two host models run, both on the paper's 10 Gbps link with the testbed's NIC settings
(LSO 64 KB, rx-frames 8 with rx-usecs 50 µs, delayed ACKs; ``testbed``):

- ``testbed``: the testbed's software delays (10 µs transmit, 15 µs receive), the window
  capped at 12 segments: of the caps tried (8 to 45), the one nearest 1 Gbps, the paper's
  procedure;
- ``slow-host``: the window capped at 45 segments, the paper's 65 KB burst (45 × 1,448 B),
  with the transmit delay raised to 200 µs so that this window runs at about 1 Gbps: a
  round trip of about 0.5 ms, as the paper's steps are.

docs/reproductions-hull.md says what each shows. The table of interrupt coalescing's CPU
cost under Fig. 3 (Table 2's CPU column) needs a CPU model tailor does not have, and is not
reproduced; Table 2's ACK ratios are checked by ``tests/hull.rs``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import polars as pl
import typer

from tailor.errors import DataError
from tailor.outdir import staged
from tailor.reproduce import cells
from tailor.reproduce.hull import runs
from tailor.reproduce.registry import Out, Plan
from tailor.result import Result
from tailor.stats import Estimate

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COLUMNS", "HOSTS", "FORMS", "PAPER", "scenario", "bursts", "options", "run", "render"]

LINE_BPS = 10e9
MSS = 1448
WIRE = 1502
TICK_NS = 1000
#: Samples before this are slow start, not the capped flow's steady bursts.
WARMUP_NS = 2_000_000
#: Host model: (window cap in segments, software transmit delay).
HOSTS = {"testbed": (12, "10us"), "slow-host": (45, "200us")}
#: The flow's size (bytes) by form: about 100 ms at 1 Gbps in full, 16 ms quick.
FORMS = {"quick": 2_000_000, "full": 12_000_000}
#: §4.1's reading of Fig. 3.
PAPER = {
    "throughput_gbps": 1.0,
    "burst_kb": 65.0,
    "burst_packets": 45.0,
    "spacing_us": 500.0,
    "acks_per_burst": 6.0,
    "ideal_spread_us": 520.0,
}
#: Each statistic: (percentile over bursts or None for their mean / a per-run value, per burst).
_STATS = {
    "throughput_gbps": (None, False),
    "burst_kb": (None, True),
    "burst_kb_p99": (99.0, True),
    "burst_packets": (None, True),
    "spacing_us": (None, True),
    "busy_pct": (None, False),
    "ack_ratio_kb": (None, False),
    "acks_per_burst": (None, False),
}
#: fig3.csv: one row per host model; each statistic with ``cells``' columns.
COLUMNS = (
    "hosts",
    "window_segments",
    "tx_delay",
    "bursts",
    *(f"{s}{x}" for s in _STATS for x in ("", "_lo", "_hi", "_n", "_seeds", "_judged")),
)


def scenario(hosts: str, size: int) -> str:
    """One TCP flow of ``size`` bytes from host 0 to host 1 at 10 Gbps with the host model
    ``hosts``, its NIC queue sampled every 1 µs."""
    window, tx_delay = HOSTS[hosts]
    return f"""# HULL Fig. 3 (§4.1): one window-capped TCP flow at 10 Gbps, {hosts} hosts (docs/reproductions-hull.md).
name = "hull-fig3-{hosts}"

[topology]
kind = "star"
hosts = 2
link = {{ rate = "10Gbps", delay = "1us" }}

[host]
tx_delay = "{tx_delay}"
rx_delay = "15us"
rx_frames = 8
rx_usecs = "50us"

[transport]
kind = "tcp"
lso = "64KB"
delayed_ack = true
min_rto = "200ms"
init_cwnd = {min(window, 10)}
max_cwnd = {window}

[record]
queues = "{TICK_NS}ns"
queue_ports = "host_nic"

[[class]]
name = "flow"
sizes_fixed = "{size}B"
arrival = "periodic"
rate = "8000Tbps"
pattern = "n_to_1"
senders = [0]
receiver = 1
messages = 1
"""


def options(
    quick: Annotated[bool, typer.Option("--quick", help="A 2 MB flow (16 ms) per host model.")] = False,
    seeds: cells.Seeds = 3,
    out: Out = None,
) -> Plan:
    """HULL Fig. 3: the bursts of one window-capped TCP flow at 10 Gbps with LSO and
    interrupt coalescing: bytes per burst, their spacing, the ACKs per burst."""
    cells.check_seeds(seeds)
    form = "quick" if quick else "full"
    size = FORMS[form]
    pts = [runs.HullPoint(h, seed, scenario(h, size), size * 8 // 1000) for h in HOSTS for seed in range(1, seeds + 1)]
    default = Path("runs") / ("hull-fig3-quick" if quick else "hull-fig3")
    return Plan(out or default, lambda out, say: run(pts, form, out, say))


def _read(run_dir: Path, name: str) -> pl.DataFrame:
    pq = run_dir / f"{name}.parquet"
    if pq.exists():
        return pl.read_parquet(pq)
    if (run_dir / f"{name}.csv").exists():
        return pl.read_csv(run_dir / f"{name}.csv")
    raise DataError(f"{run_dir}: no {name}.parquet or {name}.csv")


def bursts(time_ns: np.ndarray, queue_bytes: np.ndarray, tick_ns: float = TICK_NS) -> tuple[np.ndarray, np.ndarray]:
    """The bursts in a NIC queue sampled every ``tick_ns``: (start times in ns, wire bytes).
    A burst is a run of samples with bytes waiting; it lasted from about one tick before its
    first such sample to its last one, plus the packet on the wire when the queue read
    empty, all at line rate."""
    busy = queue_bytes > 0
    if not busy.any():
        return np.empty(0), np.empty(0)
    edge = np.diff(np.r_[0, busy.astype(np.int8), 0])
    first, past = np.flatnonzero(edge == 1), np.flatnonzero(edge == -1)
    seconds = (past - first) * tick_ns / 1e9 + WIRE * 8 / LINE_BPS
    return time_ns[first], seconds * LINE_BPS / 8


def _measure(run_dir: Path) -> dict[str, Any]:
    m = _read(run_dir, "messages")
    if m.height != 1:
        raise DataError(f"{run_dir}: the flow did not complete")
    start, finish, size = m["start_ns"][0], m["finish_ns"][0], m["size_bytes"][0]
    ports = pl.read_csv(run_dir / "ports.csv")
    sender = ports.filter((pl.col("node") == "host0") & (pl.col("role") == "host_nic"))["port"][0]
    q = _read(run_dir, "queues").filter(
        (pl.col("port") == sender) & (pl.col("time_ns") >= start + WARMUP_NS) & (pl.col("time_ns") <= finish)
    )
    t0, wire = bursts(q["time_ns"].to_numpy(), q["queue_bytes"].to_numpy())
    payload = wire / WIRE * MSS
    c = Result(run_dir).transport_counters
    ack_ratio = c["acked_bytes"] / c["acks"]
    span_ns = float(q["time_ns"][-1] - q["time_ns"][0]) if q.height > 1 else 0.0
    return {
        "throughput_gbps": size * 8 / (finish - start),
        "bursts": len(t0),
        "burst_kb": payload / 1e3,
        "burst_packets": wire / WIRE,
        "spacing_us": np.diff(t0) / 1e3,
        "busy_pct": 100 * wire.sum() * 8 / LINE_BPS * 1e9 / span_ns if span_ns else None,
        "ack_ratio_kb": ack_ratio / 1e3,
        "acks_per_burst": float(payload.mean() / ack_ratio) if len(t0) else None,
    }


def _row(hosts: str, vals: list[dict[str, Any]]) -> dict[str, Any]:
    window, tx_delay = HOSTS[hosts]
    row: dict[str, Any] = {
        "hosts": hosts,
        "window_segments": window,
        "tx_delay": tx_delay,
        "bursts": int(sum(v["bursts"] for v in vals)),
    }
    for stat, (p, per_burst) in _STATS.items():
        key = stat.removesuffix("_p99")
        if per_burst:
            e = Estimate.of_samples([v[key] for v in vals], p)
        else:
            e = Estimate.of_values([(v[key], 1) for v in vals], p)
        row |= cells.columns(stat, e)
    return row


def run(points: list[runs.HullPoint], form: str, out: Path, say: Any) -> dict:
    """Runs the points into ``out`` (written whole once complete): scenarios, runs,
    fig3.csv and fig3.json."""
    with staged(out, "reproduction", name="hull-fig3") as work:
        dirs = runs.run(points, work, f"tailor reproduce hull-fig3, {form} form", say)
        by: dict[str, list[dict]] = {}
        for p in points:
            by.setdefault(p.name, []).append(_measure(dirs[p]))
        rows = [_row(h, v) for h, v in by.items()]
        pl.DataFrame([{c: r[c] for c in COLUMNS} for r in rows]).write_csv(work / "fig3.csv")
        per_seed = {
            h: [
                {
                    k: (float(np.mean(x)) if isinstance(x, np.ndarray) and len(x) else x)
                    for k, x in v.items()
                    if not isinstance(x, np.ndarray) or len(x)
                }
                for v in vs
            ]
            for h, vs in by.items()
        }
        report = {
            "reproduction": "hull-fig3",
            "form": form,
            "flow_bytes": FORMS[form],
            "rows": rows,
            "per_seed": per_seed,
        }
        (work / "fig3.json").write_text(json.dumps(report, indent=1))
    return report


def render(report: dict[str, Any], console: Console) -> None:
    """One table: the paper's reading of Fig. 3 beside each host model's bursts."""
    from rich import box
    from rich.table import Table

    t = Table(
        title=f"HULL Fig. 3: one window-capped TCP flow at 10 Gbps, LSO and coalescing ({report['form']} form, "
        f"{report['flow_bytes'] / 1e6:g} MB flow): paper (§4.1's text) / ours",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    t.add_column("")
    t.add_column("paper", justify="right")
    rows = report["rows"]
    for r in rows:
        t.add_column(f"{r['hosts']}: window {r['window_segments']} seg, tx {r['tx_delay']}", justify="right")
    lines = (
        ("average throughput (Gbps)", "throughput_gbps", None, ".2f", f"~{PAPER['throughput_gbps']:g}"),
        ("payload per burst (KB), mean", "burst_kb", None, ".1f", f"{PAPER['burst_kb']:g}"),
        ("payload per burst (KB), p99", "burst_kb_p99", 99.0, ".1f", "—"),
        ("packets per burst, mean", "burst_packets", None, ".1f", f"~{PAPER['burst_packets']:g}"),
        ("burst spacing (µs), mean", "spacing_us", None, ".0f", f"~{PAPER['spacing_us']:g}"),
        ("NIC sending at 10 Gbps (% of time)", "busy_pct", None, ".1f", "~10"),
        ("ACK ratio (KB per ACK)", "ack_ratio_kb", None, ".1f", f"{PAPER['burst_kb'] / PAPER['acks_per_burst']:.1f}"),
        ("ACKs per burst", "acks_per_burst", None, ".1f", f"{PAPER['acks_per_burst']:g} (in 24–50 µs)"),
    )
    for label, key, p, spec, paper in lines:
        t.add_row(label, paper, *(cells.text(cells.restore(key, r, p), spec) for r in rows))
    console.print(t)
    console.print(
        "paper: each ~0.5 ms step is a back-to-back burst of 65 KB at line rate; ideally 65 KB at 1 Gbps is "
        f"spread over {PAPER['ideal_spread_us']:g} µs. Ours: a burst is a stretch of the sender NIC's queue "
        "sampled every 1 µs (±1 packet); the paper's 10 % is 1 Gbps of 10. Not reproduced: the CPU "
        "utilisation of interrupt coalescing (no CPU model). " + cells.legend((99,)) + ".",
        highlight=False,
        markup=False,
    )
