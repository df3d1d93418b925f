"""What the PL2 parameter sweeps (``ksweep``: K, §D.3; ``tsweep``: t and T, §D.4) share:
the workload both run, a 3-way incast of W4 over raw Ethernet over PL2 at 85 % of the
receiver's link (§F.3, Fig. 10b: the workload whose goodput the text gives, 86 Gbps), and
how a run of it is read.

The scenario is ``pl2-traces``' W4 point (three servers into a fourth, Poisson arrivals,
11 sending threads per server), built here from ``rack`` so that K, t and T can change.
Goodput is the message bytes completed per second of the arrivals' window (a message has
20 % more time to finish); latency is one-way (§F.1), of all messages and of the one-packet
ones (at most 1,500 B, 60 % of W4's), whose wait behind other hosts' bursts is the
head-of-line blocking §D.3 says a large K causes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from tailor.reproduce import cells
from tailor.reproduce.pl2 import rack
from tailor.result import Result
from tailor.stats import Estimate

__all__ = ["W4_LOAD", "SMALL", "THREADS", "w4_scenario", "measure_w4", "estimates", "LATENCY"]

#: §F.3: W4's load, of the receiver's link.
W4_LOAD = 0.85
#: A one-packet message of raw Ethernet.
SMALL = 1_500
THREADS = 11
RECEIVER = 3
#: (column, percentile, which messages): the latencies a sweep prints.
LATENCY = (("p50_us", 50, "all"), ("p99_us", 99, "all"), ("small_p99_us", 99, "small"))


def w4_scenario(length_ms: float, seed: int, threads: int = THREADS, **pl2: int) -> str:
    """W4 from hosts 0-2 into host 3 at 85 %, raw Ethernet over PL2 with ``threads``
    sending threads per server and K, t or T as given (``rack.scenario``'s keywords)."""
    cls = f"""[[class]]
name = "w4"
sizes = "w4"
arrival = "poisson"
load = {W4_LOAD}
pattern = "n_to_1"
senders = [0, 1, 2]
receiver = {RECEIVER}
until = "{length_ms:g}ms"
"""
    return rack.scenario("pl2", cls, stop=f"{length_ms * 1.2:g}ms", threads=threads, seed=seed, **pl2)


def measure_w4(run_dir: Path, length_ms: float) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """One seed's row (goodput, drops, unfinished, largest queue, the ToR's and hosts'
    PL2 counters) and its latencies (µs) for the estimates: all messages and the small."""
    s = Result(run_dir).summary
    m = pl.read_parquet(run_dir / "messages.parquet")
    lat = ((m["finish_ns"] - m["start_ns"]) / 1e3).to_numpy()
    small = lat[(m["size_bytes"] <= SMALL).to_numpy()]
    tors = s["network"].get("pl2", {})
    counters = s.get("transport_counters", {})
    bursts = counters.get("pl2_bursts", 0)
    row = {
        "goodput_gbps": float(m["size_bytes"].sum()) * 8 / (length_ms / 1e3) / 1e9,
        "messages": len(lat),
        "small_messages": len(small),
        "incomplete": s["messages"]["incomplete"],
        "drops": s["network"]["drops"],
        "unsolicited_drops": tors.get("unsolicited_drops", 0),
        "unsolicited_fraction": counters.get("pl2_unsolicited_bursts", 0) / bursts if bursts else 0.0,
        "resent_bursts": counters.get("pl2_resent_bursts", 0),
        # Eq. 2's wait for the chosen timeslot, per burst: what the bursts booked ahead cost.
        "wait_per_burst_us": counters.get("pl2_wait_ns", 0) / bursts / 1e3 if bursts else 0.0,
        "max_queue_bytes": s["network"]["max_queue_bytes"],
        "max_reservation": tors.get("max_reservation", 0),
    }
    return row, {"all": lat, "small": small}


def estimates(rows: list[dict[str, Any]], lats: list[dict[str, np.ndarray]], means: tuple[str, ...]) -> dict[str, Any]:
    """The CSV-and-table columns across one point's seeds: each latency of
    :data:`LATENCY` (a percentile per seed, then the mean over seeds and its interval) and
    the mean over seeds of each of ``means``; with ``drops`` the most in a seed."""
    out: dict[str, Any] = {}
    for col, p, which in LATENCY:
        out |= cells.columns(col, Estimate.of_samples([x[which] for x in lats], p))
    for k in means:
        out |= cells.columns(k, Estimate.of_values([(r[k], 1) for r in rows]))
    out["drops_most"] = max(r["drops"] for r in rows)
    out["drops_total"] = sum(r["drops"] for r in rows)
    return out
