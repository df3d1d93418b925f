"""Queue plots (tailor.plot): a run's queue samples (``queues.parquet``) read and drawn
over time, per port."""

from __future__ import annotations

import os
from collections.abc import Sequence

import polars as pl
from matplotlib.figure import Figure

from tailor.errors import DataError, NotRecordedError, OptionError
from tailor.plot_style import (
    _check_columns,
    _color,
    _figure,
    open_result,
)
from tailor.result import Result

#: Columns of a run's queue samples (``queues.parquet``).
QUEUE_COLUMNS = ("time_ns", "port", "queue_bytes")
#: The scenario key that makes a run record its queues.
QUEUES_HINT = '[record] queues = "10us"'


def read_queues(source: Result | str | os.PathLike[str]) -> pl.DataFrame:
    """A run's queue samples (``queues.parquet``, or ``queues.csv``).

    Raises :class:`~tailor.errors.NotRecordedError` when the run did not record them."""
    r = source if isinstance(source, Result) else open_result(source)
    for ext in ("parquet", "csv"):
        f = r.dir / f"queues.{ext}"
        if f.exists():
            df = pl.read_parquet(f) if ext == "parquet" else pl.read_csv(f)
            _check_columns(df, QUEUE_COLUMNS, str(f))
            return df
    raise NotRecordedError(
        f"{r.dir}: the run did not record queues (no queues.parquet); "
        f"add `{QUEUES_HINT}` to the scenario to sample every port's queue, and run it again",
        what="queues",
        hint=QUEUES_HINT,
    )


def queue_over_time(
    queues_df: pl.DataFrame | Result | str | os.PathLike[str],
    ports: Sequence[int] | None = None,
    *,
    top: int = 6,
    title: str | None = None,
) -> Figure:
    """Queue occupancy (KB) over time, one step line per port.

    ``queues_df``: the samples (columns ``time_ns, port, queue_bytes``), or a run (its
    ``queues.parquet``; :class:`~tailor.errors.NotRecordedError` when the run did not
    record queues). ``ports``: the ports to draw (default: the ``top`` ports with the
    largest peak queue).
    """
    r: Result | None = None
    if isinstance(queues_df, pl.DataFrame):
        df = queues_df
        _check_columns(df, QUEUE_COLUMNS, "the queue samples")
    else:
        r = queues_df if isinstance(queues_df, Result) else open_result(queues_df)
        df = read_queues(r)
    if df.height == 0:
        raise DataError("queue_over_time: the queue samples are empty")
    # The fast model's samples have no port (it has one bottleneck, not ports): null.
    present = sorted(df["port"].unique().to_list(), key=lambda p: (p is not None, p or 0))
    peaks = (
        df.group_by("port")
        .agg(pl.col("queue_bytes").max().alias("peak"))
        .sort(["peak", "port"], descending=[True, False])
    )
    # A port whose queue stayed at 0 B is no "fullest port": it is left out of the default.
    held = peaks.filter(pl.col("peak") > 0)["port"].to_list()
    if ports is None:
        if top < 1:
            raise OptionError(f"top: {top} is out of range; accepted: 1 or more")
        if not held:
            raise DataError(
                f"queue_over_time: no port held a queue: the {len(present)} ports sampled stayed at 0 B; "
                "name ports to draw them anyway"
            )
        chosen = held[:top]
        note = (f"\nthe {len(chosen)} largest peaks; " if len(chosen) < len(held) else "\n") + (
            f"{len(held)} of {len(present)} ports sampled held a queue"
        )
    else:
        chosen = list(ports)
        unknown = [p for p in chosen if p not in set(present)]
        if unknown:
            shown = ", ".join(map(str, present[:20])) + (", ..." if len(present) > 20 else "")
            raise OptionError(f"ports: no samples of port {', '.join(map(str, unknown))}; ports sampled: {shown}")
        note = ""
    span = float(df["time_ns"].max() - df["time_ns"].min())
    unit, scale = ("ms", 1e6) if span >= 1e7 else ("µs", 1e3) if span >= 1e4 else ("ns", 1.0)
    names = _port_names(r)
    fig, (ax,) = _figure()
    for i, port in enumerate(chosen):
        part = df.filter(pl.col("port").eq_missing(port)).sort("time_ns")
        label = "the model's bottleneck" if port is None else names.get(port, f"port {port}")
        if port not in held:
            label += " (never queued)"
        ax.plot(
            (part["time_ns"] / scale).to_list(),
            (part["queue_bytes"] / 1e3).to_list(),
            drawstyle="steps-post",
            color=_color(i),
            label=label,
        )
    ax.set_xlabel(f"time ({unit})")
    ax.set_ylabel("queue (KB)")
    ax.set_ylim(bottom=0)
    base = (
        f"{r.summary.get('scenario', '?')} (seed {r.summary.get('seed', '?')}): queues"
        if r is not None
        else "queue occupancy"
    )
    ax.set_title(title or base + note, fontsize="medium")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def _port_names(r: Result | None) -> dict[int, str]:
    if r is None or not any((r.dir / f"ports.{e}").exists() for e in ("parquet", "csv")):
        return {}
    ports = r.ports
    if not {"port", "node", "role"} <= set(ports.columns):
        return {}
    return {int(p): f"port {p} ({n} {role})" for p, n, role in ports.select("port", "node", "role").iter_rows()}
