"""Slowdown per size bucket: the rows of ``fig12.csv``, from one run and across seeds.

A run's messages go to the authors' buckets (``buckets.py``: the first bound at or above
the size); per bucket: its share of the run's messages, the mean slowdown, and the exact
nearest-rank median and p99 (``tailor.stats.percentile``; the authors' came from
histograms). A bucket is *judged* when it has at least 100 messages (p99 needs 100 to be
more than the largest value seen: ``samples_needed``) in every seed; others are written
with their count and shown, not judged. With several seeds a statistic is the mean of the
per-seed values, as ``tailor sweep`` summarises seeds, with a 95 % bootstrap interval
across seeds (``tailor.stats.bootstrap_ci``); ``messages`` is the total and
``count_percent`` the share of all seeds' messages.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl

from tailor.reproduce.homa.buckets import BUCKETS, bucket_index
from tailor.result import Result
from tailor.stats import bootstrap_ci, percentile, samples_needed

__all__ = ["COLUMNS", "JUDGED", "STATS", "run_rows", "combine"]

#: The columns of fig12.csv, in order.
COLUMNS = (
    "transport",
    "load",
    "workload",
    "size_upper_bytes",
    "count_percent",
    "mean_slowdown",
    "median_slowdown",
    "p99_slowdown",
    "messages",
)
#: Messages a bucket needs in every seed to be judged.
JUDGED = samples_needed(99)
#: The statistics of a bucket.
STATS = ("mean_slowdown", "median_slowdown", "p99_slowdown")


def _none(x: float) -> float | None:
    return None if math.isnan(x) else x


def _bucket(upper: int, v: np.ndarray, total: int) -> dict:
    """One bucket of one run: ``v`` its slowdowns."""
    return {
        "size_upper_bytes": upper,
        "count_percent": 100.0 * len(v) / total if total else 0.0,
        "mean_slowdown": float(v.mean()) if len(v) else None,
        "median_slowdown": _none(percentile(v, 50)),
        "p99_slowdown": _none(percentile(v, 99)),
        "messages": len(v),
    }


def run_rows(messages: pl.DataFrame, workload: str, bounds: Sequence[int] | None = None) -> tuple[list[dict], int]:
    """Every bucket of ``workload`` (or of ``bounds``, increasing upper bounds: another
    simulator's buckets) for one run's ``messages`` (size_bytes, slowdown), and how many
    messages lie above the last bound (the simulator's "Huge", not reported)."""
    sizes = messages["size_bytes"].to_numpy()
    slow = messages["slowdown"].to_numpy()
    if bounds is None:
        bounds = BUCKETS[workload]
        idx = bucket_index(sizes, workload)
    else:
        idx = np.searchsorted(np.asarray(bounds), sizes, side="left")
    order = np.lexsort((slow, idx))
    idx, slow = idx[order], slow[order]
    edges = np.searchsorted(idx, np.arange(len(bounds) + 1), side="left")
    rows = [_bucket(b, slow[edges[k] : edges[k + 1]], len(sizes)) for k, b in enumerate(bounds)]
    return rows, int(len(sizes) - edges[-1])


def combine(per_seed: Sequence[list[dict]], totals: Sequence[int]) -> list[dict]:
    """One point's buckets across its seeds (each seed's rows in bucket order, and its
    total messages): the fig12.csv values, plus ``judged`` and, with two seeds or more,
    ``<stat>_ci`` (the interval across seeds, or None)."""
    out = []
    for k, first in enumerate(per_seed[0]):
        rows = [seed[k] for seed in per_seed]
        n = sum(r["messages"] for r in rows)
        row = {
            "size_upper_bytes": first["size_upper_bytes"],
            "count_percent": 100.0 * n / max(sum(totals), 1),
            "messages": n,
            "judged": min(r["messages"] for r in rows) >= JUDGED,
        }
        for stat in STATS:
            values = [r[stat] for r in rows if r[stat] is not None]
            row[stat] = float(np.mean(values)) if values else None
            if len(per_seed) > 1:
                row[f"{stat}_ci"] = bootstrap_ci(values) if len(values) == len(rows) else None
        out.append(row)
    return out


def read_runs(
    runs: Sequence, dirs: dict, bounds: Sequence[int] | None = None
) -> tuple[list[list[dict]], list[int], int, list[float]]:
    """The seeds of one point, each run's result directory in ``dirs``: per seed its bucket
    rows (the workload's buckets, or ``bounds``), its message count; the messages above the
    last bound; each run's simulated ms."""

    per_seed, totals, beyond = [], [], 0
    for p in runs:
        msgs = pl.read_parquet(dirs[p] / "messages.parquet", columns=["size_bytes", "slowdown"])
        r, b = run_rows(msgs, p.workload, bounds)
        per_seed.append(r)
        totals.append(msgs.height)
        beyond += b
    sims = [Result(dirs[p]).sim_ns / 1e6 for p in runs]
    return per_seed, totals, beyond, sims


def frame(rows: Sequence[dict]) -> pl.DataFrame:
    """Rows (with transport, load, workload) as fig12.csv's table: its columns, in order."""
    schema = {
        "transport": pl.String,
        "load": pl.Float64,
        "workload": pl.String,
        "size_upper_bytes": pl.Int64,
        "count_percent": pl.Float64,
        "mean_slowdown": pl.Float64,
        "median_slowdown": pl.Float64,
        "p99_slowdown": pl.Float64,
        "messages": pl.Int64,
    }
    return pl.DataFrame([{c: r[c] for c in COLUMNS} for r in rows], schema=schema)
