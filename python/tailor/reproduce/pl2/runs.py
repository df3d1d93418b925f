"""The PL2 reproductions' runs: a point is a scenario text (``rack``) and a seed, written
into the reproduction's directory (with the size table it reads, if any) so that every
number can be rerun with ``tailor run``; the points run in threads, one per core
(``homa.points.run_points``). Also what is read back: message latencies, the ports'
bytes, the run's summary.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from tailor.errors import DataError
from tailor.reproduce.homa.points import run_points, write_text

__all__ = ["Pl2Point", "run", "summary", "latencies_us", "ports", "spread", "across_seeds", "percentiles", "show"]

Say = Callable[[str], None]


@dataclass(frozen=True)
class Pl2Point:
    name: str
    seed: int
    #: The scenario's TOML text.
    text: str
    #: Simulated length (for ordering: the longest first), µs.
    until_us: int
    workload: str = ""
    #: Files the scenario reads (name -> text), written beside it.
    files: tuple[tuple[str, str], ...] = field(default_factory=tuple)


def run(points: Sequence[Pl2Point], work: Path, why: str, say: Say) -> dict[Pl2Point, Path]:
    """Runs the points into ``work/runs`` (scenarios in ``work/scenarios``)."""
    return run_points(points, work, why, say, write=write_text)


def summary(run_dir: Path) -> dict[str, Any]:
    return json.loads((run_dir / "summary.json").read_text())


def latencies_us(run_dirs: Sequence[Path], cls: str | None = None) -> pl.Series:
    """Completion times (µs) of the messages of ``run_dirs`` (of class ``cls``), sorted."""
    frames = [pl.read_parquet(d / "messages.parquet") for d in run_dirs]
    m = pl.concat(frames)
    if cls is not None:
        m = m.filter(pl.col("class") == cls)
    if m.height == 0:
        raise DataError(f"{', '.join(map(str, run_dirs))}: no message completed")
    return ((m["finish_ns"] - m["start_ns"]) / 1e3).sort()


def rank(sorted_us: pl.Series, q: float) -> float:
    """The nearest-rank q-quantile of sorted values."""
    n = len(sorted_us)
    return float(sorted_us[max(0, min(n - 1, int(-(-q * n // 1)) - 1))])


def ports(run_dir: Path) -> pl.DataFrame:
    return pl.read_csv(run_dir / "ports.csv")


def spread(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean, min and max across seeds."""
    return (sum(values) / len(values), min(values), max(values))


def across_seeds(values: Sequence[float]) -> dict[str, Any]:
    """A statistic over seeds, as tables print it: the mean of the per-seed values, a 95 %
    bootstrap interval of that mean (``tailor.stats``; None with one seed) and the values."""
    from tailor.stats import bootstrap_ci

    return {"mean": sum(values) / len(values), "ci": bootstrap_ci(list(values)), "values": list(values)}


def percentiles(per_seed: Sequence[pl.Series], qs: Sequence[float]) -> dict[str, Any]:
    """Per-seed nearest-rank percentiles of sorted latencies, across seeds
    (``across_seeds``), each None where a seed has fewer samples than it needs
    (``tailor.stats.samples_needed``: a p99 of fewer than 100 is just the largest seen)."""
    from tailor.stats import samples_needed

    least = min(len(s) for s in per_seed)
    out: dict[str, Any] = {"samples_per_seed": [len(s) for s in per_seed]}
    for q in qs:
        key = f"p{q * 100:g}".replace(".", "")
        out[key] = across_seeds([rank(s, q) for s in per_seed]) if least >= samples_needed(q * 100) else None
    return out


def show(stat: dict[str, Any] | None, fmt: str = "{:,.0f}") -> str:
    """'mean [lo–hi]' of ``across_seeds`` (the mean alone with one seed); '—' for None."""
    if stat is None:
        return "—"
    ci = stat["ci"]
    return fmt.format(stat["mean"]) + ("" if ci is None else f" [{fmt.format(ci[0])}–{fmt.format(ci[1])}]")
