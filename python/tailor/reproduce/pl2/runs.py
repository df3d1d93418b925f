"""The PL2 reproductions' runs: a point is a scenario text (``rack``) and a seed, written
into the reproduction's directory (with the size table it reads, if any) so that every
number can be rerun with ``tailor run``; the points run in threads, one per core
(``tailor.reproduce.runner``). Also what is read back: message latencies, the ports'
bytes (a run's summary is ``tailor.Result(dir).summary``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from tailor.errors import DataError
from tailor.reproduce.runner import run_points, write_text

__all__ = ["Pl2Point", "run", "latencies_us", "ports", "spread"]

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


def latencies_us(run_dirs: Sequence[Path], cls: str | None = None) -> pl.Series:
    """Completion times (µs) of the messages of ``run_dirs`` (of class ``cls``), sorted."""
    frames = [pl.read_parquet(d / "messages.parquet") for d in run_dirs]
    m = pl.concat(frames)
    if cls is not None:
        m = m.filter(pl.col("class") == cls)
    if m.height == 0:
        raise DataError(f"{', '.join(map(str, run_dirs))}: no message completed")
    return ((m["finish_ns"] - m["start_ns"]) / 1e3).sort()


def ports(run_dir: Path) -> pl.DataFrame:
    return pl.read_csv(run_dir / "ports.csv")


def spread(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean, min and max across seeds."""
    return (sum(values) / len(values), min(values), max(values))
