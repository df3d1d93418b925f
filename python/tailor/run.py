"""``tailor.run``: one scenario, one seed, one result directory."""

from __future__ import annotations

import hashlib
import io
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from tailor import _core, outdir
from tailor.errors import OptionError
from tailor.scenario import Scenario

if TYPE_CHECKING:  # polars and the Result's modules load when a run needs them, not with the CLI
    import polars as pl

    from tailor.result import Result

__all__ = ["run", "default_out", "ENGINES", "SEED_MAX"]

Progress = Callable[[dict[str, Any]], bool]

#: The engines a scenario runs on.
ENGINES = ("packet", "model", "oracle", "decomposed")
#: The largest seed: 2^63 - 1, what a scenario file (a TOML integer) holds (docs/scenario.md, "Seeds").
SEED_MAX = 2**63 - 1


def default_out(scenario: Scenario, seed: int, engine: str = "packet") -> Path:
    """``runs/<scenario name>-<engine>-s<seed>`` under the current directory, with a
    short hash of the overrides before the seed when :meth:`Scenario.with_` changed keys
    (so two engines, or two variants of one scenario, do not meet in one directory)."""
    if not scenario.overrides:
        return Path("runs") / f"{scenario.name}-{engine}-s{seed}"
    text = json.dumps([[k, v] for k, v in scenario.overrides], sort_keys=True, default=str)
    return Path("runs") / f"{scenario.name}-{engine}-{hashlib.sha256(text.encode()).hexdigest()[:8]}-s{seed}"


def check_options(seed: Any, engine: Any) -> None:
    """Raises OptionError for a seed or engine tailor does not accept, naming it."""
    if engine not in ENGINES:
        raise OptionError(f"engine: unknown value {engine!r}; accepted: {', '.join(ENGINES)}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX):
        raise OptionError(
            f"seed: {seed!r} is not a seed; accepted: an integer from 0 to 2^63 - 1 ({SEED_MAX}, what a scenario file holds)"
        )


def run(
    scenario: Scenario | str | os.PathLike[str],
    seed: int | None = None,
    out: str | os.PathLike[str] | None = None,
    csv: bool = False,
    progress: Progress | None = None,
    engine: str = "packet",
    ray: str | bool | None = None,
    ray_workers: int | None = None,
) -> Result:
    """Runs ``scenario`` with ``seed`` (default: the scenario's) into the directory ``out``
    (default: ``runs/<scenario name>-<engine>-s<seed>``, see :func:`default_out`).

    ``out`` must be new, empty, or a run directory tailor wrote (it holds the ``.tailor``
    marker): then only the files tailor wrote there are replaced, and a line on stderr
    says so; anything else in it is kept. Any other existing directory is refused with
    :class:`tailor.errors.OutputError` (docs/results.md, "Output directories").

    The engine writes the messages to ``messages.parquet`` as they complete (and to
    ``messages.csv`` too with ``csv=True``); the queue samples of a scenario with
    ``[record] queues`` are converted to ``queues.parquet`` (the CSV kept with
    ``csv=True``). ``engine`` is "packet" (the packet simulator, default), "model"
    (the SWP fast model, docs/model.md), "oracle" (the SRPT oracle, the lower bound of
    the Homa paper's Fig. 12, docs/oracle.md) or "decomposed" (estimates by per-link
    simulations, docs/decomposed.md). ``progress(dict) -> bool`` is called about five times a second with
    {phase, built, ports, sim_ns, events, started, completed, active} (``phase`` is
    "building" while the topology is built, ``built`` of ``ports`` ports, then
    "running"); returning False cancels the run. ``ray`` (decomposed engine only): run
    the link simulations as Ray tasks, ``"local"`` (start Ray here), ``"auto"`` (the
    running cluster) or ``"ray://host:10001"``, as ``tailor sweep --ray`` (docs/decomposed.md);
    ``ray_workers``: at most that many tasks at once (a local Ray starts with that many CPUs).

    Raises the exceptions of :mod:`tailor.errors` (a bad seed or engine:
    :class:`~tailor.errors.OptionError`); a failed or cancelled run leaves ``out`` as it
    was.
    """
    from tailor.result import Result, queue_schema

    check_options(seed, engine)
    if ray and engine != "decomposed":
        raise OptionError(
            f"ray: runs the decomposed engine's link simulations; accepted: no ray with engine {engine!r}"
        )
    from tailor.decomposed import check_workers

    check_workers(ray_workers, ray)
    sc = scenario if isinstance(scenario, Scenario) else Scenario.load(scenario)
    seed = sc.seed if seed is None else seed
    out = Path(out) if out is not None else default_out(sc, seed, engine)
    with outdir.staged(out, "run") as stage:
        # The engine writes messages.parquet itself, as messages complete: converting a
        # CSV afterwards cost memory that grew with the run (docs/performance.md).
        if ray:
            from tailor.decomposed import run_on_ray

            run_on_ray(sc.path, stage, seed, list(sc.overrides), csv, ray, progress, ray_workers)
        else:
            _core.run(os.fspath(sc.path), os.fspath(stage), seed, progress, engine, list(sc.overrides), csv)
        queues = stage / "queues.csv"
        if queues.exists():
            _to_parquet(queues, keep_csv=csv, schema=queue_schema(queues))
    return Result(out)


#: Bytes of a record file parsed at a time when it is converted to Parquet: the conversion
#: holds about this much, and a row group, whatever the run's length.
CHUNK_BYTES = 1 << 18
#: Rows per Parquet row group.
ROW_GROUP = 16_384


def _to_parquet(csv: Path, keep_csv: bool, schema: dict[str, Any]) -> None:
    """Streams a record file into Parquet in chunks of :data:`CHUNK_BYTES`, so memory
    hardly grows with its length (polars' ``scan_csv`` + ``sink_parquet`` took 180 MB for
    2,000,000 messages); ``schema`` overrides the inferred types of some columns."""
    parquet = csv.with_suffix(".parquet")
    tmp = csv.with_suffix(".parquet.partial")
    _scan_chunked(csv, schema).sink_parquet(tmp, row_group_size=ROW_GROUP)
    tmp.replace(parquet)
    if not keep_csv:
        csv.unlink()


def _scan_chunked(csv: Path, overrides: dict[str, Any]) -> pl.LazyFrame:
    """``csv`` as a LazyFrame read in chunks of whole lines; the types are inferred from
    the first chunk (as ``scan_csv`` infers them from the first rows), then fixed."""
    import polars as pl
    from polars.io.plugins import register_io_source

    with open(csv, "rb") as f:
        header = f.readline()
        first = _read_chunk(f)
    frame = pl.read_csv(io.BytesIO(header + first), schema_overrides=overrides)
    schema = frame.schema

    def chunks(*_: Any) -> Iterator[pl.DataFrame]:
        with open(csv, "rb") as f:
            f.readline()
            while chunk := _read_chunk(f):
                yield pl.read_csv(io.BytesIO(header + chunk), schema=schema)

    return register_io_source(io_source=chunks, schema=schema)


def _read_chunk(f: BinaryIO) -> bytes:
    """About :data:`CHUNK_BYTES` of whole lines from ``f`` (empty at its end)."""
    chunk = f.read(CHUNK_BYTES)
    if chunk and not chunk.endswith(b"\n"):
        chunk += f.readline()
    return chunk
