"""``tailor.run``: one scenario, one seed, one result directory."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from tailor import _core
from tailor.result import Result, queue_schema
from tailor.scenario import Scenario

__all__ = ["run", "default_out"]

Progress = Callable[[dict[str, Any]], bool]


def default_out(scenario: Scenario, seed: int) -> Path:
    """``runs/<scenario name>-s<seed>`` under the current directory, with a short hash of
    the overrides before the seed when :meth:`Scenario.with_` changed keys (so two
    variants of one scenario do not meet in one directory)."""
    if not scenario.overrides:
        return Path("runs") / f"{scenario.name}-s{seed}"
    text = json.dumps([[k, v] for k, v in scenario.overrides], sort_keys=True, default=str)
    return Path("runs") / f"{scenario.name}-{hashlib.sha256(text.encode()).hexdigest()[:8]}-s{seed}"


def run(
    scenario: Scenario | str | os.PathLike[str],
    seed: int | None = None,
    out: str | os.PathLike[str] | None = None,
    csv: bool = False,
    progress: Progress | None = None,
    engine: str = "packet",
) -> Result:
    """Runs ``scenario`` with ``seed`` (default: the scenario's) into ``out``.

    The messages are converted to ``messages.parquet``, and the queue samples of a
    scenario with ``[record] queues`` to ``queues.parquet`` (the CSVs are kept with
    ``csv=True``). ``engine`` is "packet" (the packet simulator, default) or "model"
    (the SWP fast model, docs/model.md). ``progress(dict) -> bool`` is called about five times a second with
    {sim_ns, events, started, completed, active}; returning False cancels the run.

    Raises the exceptions of :mod:`tailor.errors`; a failed or cancelled run leaves no
    result directory.
    """
    sc = scenario if isinstance(scenario, Scenario) else Scenario.load(scenario)
    seed = sc.seed if seed is None else seed
    out = Path(out) if out is not None else default_out(sc, seed)
    _core.run(os.fspath(sc.path), os.fspath(out), seed, progress, engine, list(sc.overrides))
    _to_parquet(out / "messages.csv", keep_csv=csv, schema={"class": pl.Utf8})
    queues = out / "queues.csv"
    if queues.exists():
        _to_parquet(queues, keep_csv=csv, schema=queue_schema(queues))
    return Result(out)


def _to_parquet(csv: Path, keep_csv: bool, schema: dict[str, Any]) -> None:
    """Streams a record file into Parquet (it may not fit in memory); ``schema``
    overrides the inferred types of some columns."""
    parquet = csv.with_suffix(".parquet")
    tmp = csv.with_suffix(".parquet.partial")
    pl.scan_csv(csv, schema_overrides=schema).sink_parquet(tmp)
    tmp.replace(parquet)
    if not keep_csv:
        csv.unlink()
