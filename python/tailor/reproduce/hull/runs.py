"""The HULL reproductions' runs: a point is a scenario text (``testbed``) and a seed; its
file is written into the reproduction's directory so every number can be rerun with
``tailor run``, and the points run in threads, one per core (``tailor.reproduce.runner``).
Also what is read back from a run: the probe's waits at the port towards S5 (the switch
latency) and a class's completion times.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from tailor.errors import DataError
from tailor.reproduce.runner import run_points, write_text
from tailor.result import Result
from tailor.stats import percentile

__all__ = ["HullPoint", "run", "switch_latency", "fcts", "throughput_mbps", "spread"]

Say = Callable[[str], None]


@dataclass(frozen=True)
class HullPoint:
    name: str
    seed: int
    #: The scenario's TOML text.
    text: str
    #: Simulated length (for ordering: the longest first), µs.
    until_us: int
    workload: str = ""


def run(points: Sequence[HullPoint], work: Path, why: str, say: Say) -> dict[HullPoint, Path]:
    """Runs the points into ``work/runs`` (scenarios in ``work/scenarios``)."""
    return run_points(points, work, why, say, write=write_text)


def switch_latency(run_dir: Path, receiver_port_role: str = "to_host") -> dict[str, float]:
    """The probe's waits at the switch port towards S5 (the busiest port of
    ``receiver_port_role`` its packets crossed): count, mean, p90, p99 (µs)."""
    probes = [
        p
        for p in Result(run_dir).summary.get("probes", [])
        if p["class"] == "probe" and p["role"] == receiver_port_role
    ]
    if not probes:
        raise DataError(f"{run_dir}/summary.json has no probe waits at a {receiver_port_role} port")
    p = max(probes, key=lambda p: p["count"])
    return {"count": p["count"], "avg": p["mean_us"], "p90": p["p90_us"], "p99": p["p99_us"]}


def fcts(run_dir: Path, cls: str) -> dict[str, float]:
    """Completion times of class ``cls``'s messages (for an RPC class, request start to
    response end): count, mean, p90, p99, in µs. Percentiles are nearest rank."""
    m = pl.read_parquet(run_dir / "messages.parquet").filter(pl.col("class") == cls)
    if m.height == 0:
        raise DataError(f"{run_dir}: no message of class {cls} completed")
    us = ((m["finish_ns"] - m["start_ns"]) / 1e3).to_numpy()
    return {"count": m.height, "avg": float(us.mean()), "p90": percentile(us, 90), "p99": percentile(us, 99)}


def throughput_mbps(run_dir: Path, node: str = "switch0", role: str = "to_host") -> float:
    """The busiest ``role`` port's rate over the run, Mbps (the receiver's link)."""
    ports = pl.read_csv(run_dir / "ports.csv").filter((pl.col("role") == role) & (pl.col("node") == node))
    sim_s = Result(run_dir).sim_ns / 1e9
    return float(ports["sent_bytes"].max()) * 8 / sim_s / 1e6


def spread(values: Sequence[float]) -> tuple[float, float, float]:
    """(mean, lowest, highest) across seeds."""
    v = list(values)
    return sum(v) / len(v), min(v), max(v)
