"""Plots of runs and sweeps, as matplotlib Figures (figures beside a paper or another
simulator: :mod:`tailor.figures`).

Every function returns a :class:`matplotlib.figure.Figure` built without pyplot (no
global figure registry, no backend switch): nothing leaks between calls, and the
figures render with Agg in any process, headless or not. ``save(fig, stem)`` writes
``stem.png`` and ``stem.svg``.

    >>> import tailor, tailor.plot as tp
    >>> r = tailor.Result("runs/q")
    >>> tp.save(tp.slowdown_vs_size(r), "runs/q/slowdown")          # runs/q/slowdown.png, .svg
    >>> tp.save(tp.slowdown_vs_size({"dctcp": r, "hpcc": tailor.Result("runs/h")}), "both")

Percentiles here are nearest-rank (tailor.stats.percentile: the smallest value with at
least that fraction of the values at or below it), computed exactly from the message
records; ``summary.json`` keeps them to 0.1 % (docs/results.md), so the two can differ in
the last digit.

Conventions shared by every plot (and the report's tables):

- a size bin (lower, upper] is drawn at its upper edge (``SIZE_LABEL``): the one point
  every bin has, also the first bin's (its lower edge is 0, off a log axis), and the
  number the tables and ``summary.json`` give;
- a percentile of a bin with fewer messages than it needs (``samples_needed``: p99 needs
  100, p99.9 1,000) is not a result: its point is drawn hollow, off the line, and the
  legend says why;
- a load on x is a fraction of link capacity, as the scenario's ``load`` is.

Bad arguments raise :class:`~tailor.errors.OptionError` whose message starts with the
parameter's name (``percentiles: 120 is out of range; accepted: ...``); data that cannot be
drawn raises :class:`~tailor.errors.DataError` (a run without queue samples:
:class:`~tailor.errors.NotRecordedError`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Union

import polars as pl
from matplotlib import colormaps, rc_context
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from tailor import fmt
from tailor.errors import DataError, NotRecordedError, OptionError
from tailor.result import Result
from tailor.stats import percentile, samples_needed

__all__ = [
    "slowdown_vs_size",
    "latency_cdf",
    "p99_vs_load",
    "slowdown_vs_size_across_seeds",
    "seed_bins",
    "queue_over_time",
    "read_queues",
    "save",
    "samples_needed",
    "FORMATS",
    "SIZE_LABEL",
    "SUMMARY_VALUE_COLUMNS",
    "QUEUE_COLUMNS",
    "QUEUES_HINT",
]

#: Formats ``save`` writes.
FORMATS = ("png", "svg", "pdf")
#: Columns of a sweep summary (``Sweep.summary()``) that are not sweep axes.
SUMMARY_VALUE_COLUMNS = (
    "engine",
    "class",
    "size",
    "lower_bytes",
    "upper_bytes",
    "stat",
    "mean",
    "ci_low",
    "ci_high",
    "n_seeds",
    "messages",
)
#: The percentile of each percentile statistic of a sweep summary.
STAT_PERCENTILES = {"p50": 50.0, "p90": 90.0, "p99": 99.0, "p999": 99.9}
#: Columns of a run's queue samples (``queues.parquet``).
QUEUE_COLUMNS = ("time_ns", "port", "queue_bytes")
#: The scenario key that makes a run record its queues.
QUEUES_HINT = '[record] queues = "10us"'
#: The x label of every plot of size bins: where a bin is drawn.
SIZE_LABEL = "message size (bytes; each bin at its upper edge)"

Source = Union[Result, pl.DataFrame, str, "os.PathLike[str]"]
Runs = Union[Source, Mapping[str, Source], Sequence[Source]]

#: Log-scale tick labels in decimal byte units (1 KB, 10 MB).
_BYTES = FuncFormatter(lambda v, _pos: fmt.size(v) if v > 0 else "0")
_LINESTYLES = ("-", "--", ":", "-.")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


# ---------------------------------------------------------------------------- helpers


def _figure(width: float = 7.5, height: float = 4.6, ncols: int = 1) -> tuple[Figure, list[Axes]]:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    axes = [fig.add_subplot(1, ncols, i + 1) for i in range(ncols)]
    return fig, axes


def _color(i: int) -> Any:
    return colormaps["tab10"](i % 10)


def needs_text(percentiles: Sequence[float]) -> str:
    """``p50: 2, p99: 100, p99.9: 1,000``: the rule, for a legend or a note."""
    return ", ".join(f"{_plabel(p)}: {samples_needed(p):,}" for p in percentiles if p < 100)


def _load_label(x: str) -> str:
    """The x label of a sweep axis: a load says what it is a fraction of."""
    return f"{x} (fraction of link capacity)" if x == "load" or x.endswith(".load") else x


def _check_percentiles(percentiles: Sequence[float]) -> tuple[float, ...]:
    if isinstance(percentiles, (int, float)):
        percentiles = (percentiles,)
    ps = tuple(float(p) for p in percentiles)
    if not ps:
        raise OptionError("percentiles: none given; accepted: numbers in (0, 100], e.g. 50, 99, 99.9")
    for p in ps:
        if not 0 < p <= 100:
            raise OptionError(f"percentiles: {p:g} is out of range; accepted: numbers in (0, 100], e.g. 50, 99, 99.9")
    return ps


def _plabel(p: float) -> str:
    return f"p{p:g}"


def _check_columns(df: pl.DataFrame, needed: Sequence[str], what: str) -> None:
    missing = [c for c in needed if c not in df.columns]
    if missing:
        raise DataError(
            f"{what} lacks column{'s' if len(missing) > 1 else ''} {', '.join(missing)}; "
            f"it has: {', '.join(df.columns) or 'no columns'}"
        )


def _open(source: Source) -> tuple[pl.DataFrame, Result | None]:
    """The summarised messages of a run (warm-up excluded) and the run, or a bare frame."""
    if isinstance(source, pl.DataFrame):
        _check_columns(source, ("class", "size_bytes", "start_ns", "finish_ns", "slowdown"), "the messages table")
        return source, None
    r = source if isinstance(source, Result) else open_result(source)
    if not any((r.dir / f"messages.{ext}").exists() for ext in ("parquet", "csv")):
        raise DataError(f"{r.dir}: no messages.parquet or messages.csv; the plot needs the message records")
    try:
        return r.summarised(), r
    except (pl.exceptions.PolarsError, OSError) as e:
        raise DataError(f"{r.dir}: cannot read the message records ({type(e).__name__}: {e})") from None


def open_result(path: str | os.PathLike[str]) -> Result:
    """``Result(path)``, or a :class:`DataError` saying why ``path`` is not a run directory."""
    p = Path(path)
    if not p.is_dir():
        raise DataError(f"{p}: no such directory; expected a run directory (with summary.json)")
    if not (p / "summary.json").is_file():
        raise DataError(f"{p}: not a run directory (no summary.json)")
    try:
        return Result(p)
    except ValueError as e:  # json.JSONDecodeError
        raise DataError(f"{p / 'summary.json'}: not valid JSON ({e})") from None


def _runs(runs: Runs) -> list[tuple[str | None, pl.DataFrame, Result | None]]:
    """(label, messages, run) per run; the label is None for a single run."""
    if isinstance(runs, Mapping):
        if not runs:
            raise DataError("no runs given")
        return [(str(k), *_open(v)) for k, v in runs.items()]
    if isinstance(runs, (list, tuple)):
        if not runs:
            raise DataError("no runs given")
        opened = [_open(v) for v in runs]
        labels = [_label(r, i) for i, (_, r) in enumerate(opened)]
        if len(set(labels)) < len(labels):
            labels = [f"{lab} #{i + 1}" for i, lab in enumerate(labels)]
        return [(lab, df, r) for lab, (df, r) in zip(labels, opened, strict=True)]
    return [(None, *_open(runs))]  # type: ignore[arg-type]


def _label(r: Result | None, i: int) -> str:
    if r is None:
        return f"run {i + 1}"
    return f"{r.summary.get('scenario', r.dir.name)} s{r.summary.get('seed', '?')}"


def _classes(df: pl.DataFrame, r: Result | None, classes: Sequence[str] | str | None) -> list[str]:
    present = r.classes if r is not None else sorted(df["class"].unique().to_list())
    if classes is None:
        return present
    wanted = [classes] if isinstance(classes, str) else list(classes)
    for c in wanted:
        if c != "all" and c not in present:
            raise OptionError(f"classes: unknown class '{c}'; accepted: {', '.join(present + ['all'])}")
    return wanted


def _of_class(df: pl.DataFrame, cls: str) -> pl.DataFrame:
    return df if cls == "all" else df.filter(pl.col("class") == cls)


def _edges(df: pl.DataFrame, r: Result | None, cls: str, bins: Sequence[float] | None) -> list[tuple[float, float]]:
    """Size bins (lower, upper]: given, else the run's for this class, else ~10 of equal count."""
    if bins is not None:
        e = [float(b) for b in bins]
        if len(e) < 2 or any(b <= a for a, b in zip(e, e[1:], strict=False)):
            raise OptionError("bins: need at least two increasing edges in bytes, e.g. [0, 10000, 100000, 1e6]")
        return list(zip(e, e[1:], strict=False))
    if r is not None:
        report = r.summary["overall"] if cls == "all" else r.summary["classes"][cls]
        return [
            (float(b["lower_bytes"]), math.inf if b["upper_bytes"] is None else float(b["upper_bytes"]))
            for b in report["bins"]
        ]
    sizes = _of_class(df, cls)["size_bytes"].sort().to_list()
    if not sizes:
        return []
    uppers = sorted({percentile(sizes, 10 * k) for k in range(1, 11)})
    return list(zip([0.0] + uppers[:-1], uppers, strict=True))


def _binned(df: pl.DataFrame, edges: list[tuple[float, float]], percentiles: tuple[float, ...], x: str) -> list[dict]:
    rows = []
    for lo, hi in edges:
        size = pl.col("size_bytes")
        part = df.filter((size > lo) & (size <= hi)) if math.isfinite(hi) else df.filter(size > lo)
        if part.height == 0:
            continue
        sizes = part["size_bytes"]
        # An open last bin has no upper edge: its largest message stands in.
        xv = percentile(sizes, 50) if x == "median" else (hi if math.isfinite(hi) else float(sizes.max()))
        row = {"lower": lo, "upper": hi, "count": part.height, "x": xv}
        for p in percentiles:
            row[p] = percentile(part["slowdown"], p)
        rows.append(row)
    return rows


# ---------------------------------------------------------------------------- run plots


def slowdown_vs_size(
    result_or_frames: Runs,
    percentiles: Sequence[float] = (50, 99),
    *,
    classes: Sequence[str] | str | None = None,
    bins: Sequence[float] | None = None,
    x: str = "upper",
    logy: bool = False,
    title: str | None = None,
) -> Figure:
    """Slowdown percentiles per message-size bin against message size (log x), one line
    per run, class and percentile (Homa Fig. 8 / pFabric style). A bin with fewer messages
    than a percentile needs (``samples_needed``) gets a hollow point off that line.

    ``result_or_frames``: a :class:`~tailor.result.Result`, a run directory, a messages
    DataFrame, or several of them as a list or a ``{label: run}`` dict to overlay.
    ``classes``: the classes to draw (default: every class of the run; ``"all"`` is all
    classes together). ``bins``: size edges in bytes (default: the run's own bins per
    class, or ten of equal count for a bare DataFrame). ``x``: ``"upper"`` (the bin's
    upper edge, as every plot and table of tailor) or ``"median"`` (the median message
    size in the bin). Warm-up messages are left out, as in the run's summary.
    """
    ps = _check_percentiles(percentiles)
    if x not in ("median", "upper"):
        raise OptionError(f"x: unknown value '{x}'; accepted: median, upper")
    runs = _runs(result_or_frames)
    fig, (ax,) = _figure()
    n = 0
    hollow = False
    for label, df, r in runs:
        for cls in _classes(df, r, classes):
            rows = _binned(_of_class(df, cls), _edges(df, r, cls, bins), ps, x)
            color = _color(n)
            n += 1
            for j, p in enumerate(ps):
                name = f"{cls} {_plabel(p)}" if label is None else f"{label}: {cls} {_plabel(p)}"
                style = {"color": color, "marker": _MARKERS[j % len(_MARKERS)], "markersize": 4}
                hollow |= _percentile_line(ax, rows, p, name, _LINESTYLES[j % len(_LINESTYLES)], style)
    if hollow:
        ax.plot(
            [],
            [],
            linestyle="none",
            marker="o",
            markersize=4,
            markerfacecolor="none",
            color="grey",
            label=f"hollow: too few messages in the bin ({needs_text(ps)})",
        )
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(_BYTES)
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(SIZE_LABEL if x == "upper" else "message size (bytes; each bin at its median message)")
    ax.set_ylabel("slowdown (latency / ideal)")
    ax.set_title(title or _title(runs, "slowdown by message size"))
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def _percentile_line(ax: Axes, rows: list[dict], p: float, name: str, linestyle: str, style: dict) -> bool:
    """Draws one percentile across the bins: the bins with enough messages as the line
    ``name``, the others as hollow points beside it (``_too few: name``, out of the legend).
    Returns whether any point is hollow."""
    need = samples_needed(p)
    ok = [row for row in rows if row["count"] >= need]
    few = [row for row in rows if row["count"] < need]
    ax.plot([row["x"] for row in ok], [row[p] for row in ok], linestyle=linestyle, label=name, **style)
    if few:
        ax.plot(
            [row["x"] for row in few],
            [row[p] for row in few],
            linestyle="none",
            markerfacecolor="none",
            label=f"_too few: {name}",
            **style,
        )
    return bool(few)


def _title(runs: list[tuple[str | None, pl.DataFrame, Result | None]], what: str) -> str:
    if len(runs) == 1 and runs[0][2] is not None:
        s = runs[0][2].summary
        return f"{s.get('scenario', '?')} (seed {s.get('seed', '?')}, {s.get('transport', '?')}): {what}"
    return what


def latency_cdf(
    result: Runs, *, classes: Sequence[str] | str | None = None, title: str | None = None, ccdf: bool = False
) -> Figure:
    """The CDF of message latency (finish - start, in microseconds, log x), one line per
    run and class. Warm-up messages are left out, as in the run's summary.

    ``ccdf=True`` draws the tail instead: the fraction of messages at least as slow as x,
    on a log y axis, so that p99 and p99.9 (0.01 and 0.001) are as far apart as p50 and p90."""
    runs = _runs(result)
    fig, (ax,) = _figure()
    n, most = 0, 0
    for label, df, r in runs:
        for cls in _classes(df, r, classes):
            lat = _of_class(df, cls).select(((pl.col("finish_ns") - pl.col("start_ns")) / 1e3).alias("us"))["us"].sort()
            if lat.len() == 0:
                continue
            k = lat.len()
            # CCDF: between two latencies, the share of messages at least as slow as the next one.
            y = [(k - i) / k for i in range(k)] if ccdf else [(i + 1) / k for i in range(k)]
            ax.plot(
                lat.to_list(),
                y,
                drawstyle="steps-pre" if ccdf else "steps-post",
                color=_color(n),
                label=cls if label is None else f"{label}: {cls}",
            )
            most = max(most, k)
            n += 1
    if n == 0:
        raise DataError("latency_cdf: no messages to plot")
    ax.set_xscale("log")
    ax.set_xlabel("latency (µs)")
    if ccdf:
        ax.set_yscale("log")
        ax.set_ylim(0.5 / most, 1.5)
        ax.set_ylabel("fraction of messages at least this slow")
    else:
        ax.set_ylim(0, 1.02)
        ax.set_ylabel("fraction of messages")
    ax.set_title(title or _title(runs, "latency CCDF (the tail, log y)" if ccdf else "latency CDF"))
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize="small", loc="lower left" if ccdf else "lower right")
    return fig


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


# ---------------------------------------------------------------------------- sweeps


def p99_vs_load(
    summary_df: pl.DataFrame,
    x: str = "load",
    y: str = "p99",
    by: str | Sequence[str] | None = None,
    *,
    where: Mapping[str, Any] | None = None,
    logy: bool = False,
    title: str | None = None,
) -> Figure:
    """A sweep's statistic against one axis, one line per value of ``by``, with the 95 %
    interval across seeds as error bars.

    ``summary_df`` is ``Sweep.summary()``: one column per sweep axis (``load``,
    ``switch.scheduler``, ...) and ``engine, class, size, stat, mean, ci_low, ci_high,
    n_seeds``. ``y`` is the ``stat`` to draw (``mean``, ``p50``, ``p99``, ``p999``).
    ``by`` names one or more columns (an axis, ``engine``, ``class``) whose values get a
    line each; ``where`` fixes other columns (``{"class": "websearch"}``). ``class`` and
    ``size`` default to ``"all"``. Every other column must then have a single value.
    """
    _check_columns(summary_df, ("stat", "mean", "ci_low", "ci_high", "n_seeds"), "the sweep summary")
    by_cols = [] if by is None else [by] if isinstance(by, str) else list(by)
    where = dict(where or {})
    for param, col in [("x", x), *(("by", c) for c in by_cols), *(("where", c) for c in where)]:
        if col not in summary_df.columns:
            axes = [c for c in summary_df.columns if c not in SUMMARY_VALUE_COLUMNS]
            raise OptionError(
                f"{param}: '{col}' is not a column of the sweep summary; "
                f"accepted: {', '.join(axes + ['engine', 'class', 'size'])}"
            )
    stats = summary_df["stat"].unique().sort().to_list()
    if y not in stats:
        raise OptionError(f"y: no stat '{y}' in the sweep summary; accepted: {', '.join(stats)}")
    df = summary_df.filter(pl.col("stat") == y)
    for col in ("class", "size"):
        if col in df.columns and col not in where and col not in by_cols and col != x and "all" in df[col].to_list():
            where[col] = "all"
    for col, val in where.items():
        df = df.filter(pl.col(col) == val)
        if df.height == 0:
            raise OptionError(
                f"where: no rows with {col} = {val!r}; values: {', '.join(map(str, summary_df[col].unique().sort().to_list()))}"
            )
    # lower_bytes / upper_bytes follow the size label; they are not conditions of their own.
    skip = {x, "stat", "mean", "ci_low", "ci_high", "n_seeds", "lower_bytes", "upper_bytes", "messages", *by_cols}
    fixed = [c for c in df.columns if c not in skip]
    for col in fixed:
        vals = df[col].unique().sort().to_list()
        if len(vals) > 1:
            raise DataError(
                f"the sweep summary has several values of '{col}' ({', '.join(map(str, vals))}) for one {x}; "
                f"draw a line per value or pick one: --by {col} or --where {col}=VALUE (tailor plot), "
                f"by='{col}' or where={{'{col}': VALUE}} (Python)"
            )
    numeric = df[x].dtype.is_numeric()
    xs_all = df[x].unique().sort().to_list() if numeric else fmt.in_order(df[x].unique().to_list())
    pos = {v: (float(v) if numeric else float(i)) for i, v in enumerate(xs_all)}
    groups = df.partition_by(by_cols, maintain_order=True, as_dict=True) if by_cols else {(): df}
    # With the fewest messages of a seed per row (tailor.report adds them), a percentile
    # of too few messages is a hollow point off the line, as in slowdown_vs_size.
    need = samples_needed(STAT_PERCENTILES[y]) if y in STAT_PERCENTILES and "messages" in df.columns else 0
    fig, (ax,) = _figure()
    hollow = False
    for i, (key, part) in enumerate(sorted(groups.items(), key=lambda kv: tuple(map(str, kv[0])))):
        part = part.sort(pl.col(x).replace_strict(pos, return_dtype=pl.Float64))
        label = ", ".join(f"{c}={v}" for c, v in zip(by_cols, key, strict=True)) if by_cols else y
        style = {"color": _color(i), "marker": _MARKERS[i % len(_MARKERS)], "markersize": 4}
        too_few = pl.col("messages").fill_null(need) < need  # a row without a count is not judged
        few = part.filter(too_few) if need else part.clear()
        ok = part.filter(~too_few) if need else part
        _errorbars(ax, ok, x, pos, label, style)
        if few.height:
            hollow = True
            ax.plot(
                [pos[v] for v in few[x].to_list()],
                _means(few),
                linestyle="none",
                markerfacecolor="none",
                label=f"_too few: {label}",
                **style,
            )
    if hollow:
        ax.plot(
            [],
            [],
            linestyle="none",
            marker="o",
            markersize=4,
            markerfacecolor="none",
            color="grey",
            label=f"hollow: a seed had too few messages ({needs_text([STAT_PERCENTILES[y]])})",
        )
    if not numeric:
        ax.set_xticks([pos[v] for v in xs_all], [str(v) for v in xs_all])
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(_load_label(x))
    seeds = sorted(set(df["n_seeds"].to_list()))
    ax.set_ylabel(f"{y} slowdown" if y != "mean" else "mean slowdown")
    fixed_text = ", ".join(f"{c}={df[c][0]}" for c in fixed if c in df.columns)
    ax.set_title(
        title
        or f"{y} slowdown vs {x}"
        + (f" ({fixed_text})" if fixed_text else "")
        + f"\nmean over {'/'.join(map(str, seeds))} seeds, bars: 95 % interval",
        fontsize="medium",
    )
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def _means(part: pl.DataFrame) -> list[float]:
    """The rows' means; a statistic of no samples is null: NaN, a gap in the line, not 0."""
    return [math.nan if m is None else float(m) for m in part["mean"].to_list()]


def _errorbars(ax: Axes, part: pl.DataFrame, x: str, pos: dict, label: str, style: dict) -> None:
    """The rows' means against x with their 95 % intervals as error bars."""
    mean = _means(part)
    lo = [
        m - v if v is not None and not math.isnan(v) and not math.isnan(m) else 0.0
        for m, v in zip(mean, part["ci_low"].to_list(), strict=True)
    ]
    hi = [
        v - m if v is not None and not math.isnan(v) and not math.isnan(m) else 0.0
        for m, v in zip(mean, part["ci_high"].to_list(), strict=True)
    ]
    ax.errorbar([pos[v] for v in part[x].to_list()], mean, yerr=[lo, hi], capsize=3, label=label, **style)


def seed_bins(summary_df: pl.DataFrame, stat: str) -> tuple[pl.DataFrame, int]:
    """The size bins of a sweep summary that are a result for ``stat`` in every seed, and
    how many bins are left out: a bin is kept when every seed of its configuration had a
    message in it and, with a ``messages`` column (the fewest of any seed), as many as the
    percentile needs (``samples_needed``; 1 for the mean). The bins are each class's (the
    class "all" only when it is the only one); the "all sizes" rows are not bins."""
    _check_columns(summary_df, ("class", "size", "upper_bytes", "stat", "mean", "n_seeds"), "the sweep summary")
    classes = set(summary_df["class"].to_list()) - {"all"} or {"all"}
    df = summary_df.filter((pl.col("stat") == stat) & pl.col("class").is_in(list(classes)))
    groups = [c for c in df.columns if c not in SUMMARY_VALUE_COLUMNS or c in ("engine", "class")]
    seeds = df.filter(pl.col("size") == "all").group_by(groups).agg(pl.col("n_seeds").max().alias("_seeds"))
    bins = df.filter(pl.col("size") != "all").join(seeds, on=groups, how="left", nulls_equal=True)
    need = samples_needed(STAT_PERCENTILES.get(stat, 100.0))
    enough = (pl.col("n_seeds") == pl.col("_seeds")) & pl.col("upper_bytes").is_not_null()
    if "messages" in bins.columns:
        enough &= pl.col("messages") >= need
    kept = bins.filter(enough).drop("_seeds")
    return kept, bins.height - kept.height


def slowdown_vs_size_across_seeds(
    summary_df: pl.DataFrame,
    stats: Sequence[str] = ("p50", "p99"),
    *,
    logy: bool = False,
    title: str | None = None,
) -> Figure:
    """A sweep summary's slowdown per message-size bin against message size (log x, each
    bin at its upper edge), one line per class (and engine, when several) and statistic:
    the mean over seeds of each seed's value in the bin, with the 95 % interval across
    seeds as error bars. For a sweep whose only axis is the seed.

    ``summary_df`` is ``Sweep.summary()`` (with its size bins), with one value per axis.
    Bins that are not a result in every seed (:func:`seed_bins`) are left out, not drawn
    hollow: the title says how many. The "all" class is drawn only when it is the only one.
    """
    _check_columns(
        summary_df,
        ("class", "size", "upper_bytes", "stat", "mean", "ci_low", "ci_high", "n_seeds"),
        "the sweep summary",
    )
    present = summary_df["stat"].unique().to_list()
    for s in stats:
        if s not in present:
            raise OptionError(f"stats: no stat '{s}' in the sweep summary; accepted: {', '.join(sorted(present))}")
    classes = sorted(set(summary_df["class"].to_list()) - {"all"}) or ["all"]
    engines = summary_df["engine"].unique().sort().to_list() if "engine" in summary_df.columns else [None]
    fig, (ax,) = _figure()
    left_out, drawn = {}, 0
    for s_i, stat in enumerate(stats):
        kept, left = seed_bins(summary_df, stat)
        left_out[stat] = (left, kept.height + left)
        for c_i, (cls, engine) in enumerate((c, e) for c in classes for e in engines):
            part = kept.filter(pl.col("class") == cls)
            if engine is not None:
                part = part.filter(pl.col("engine") == engine)
            part = part.sort("upper_bytes").with_columns(pl.col("upper_bytes").alias("_x"))
            if part.height == 0:
                continue
            label = f"{cls} {stat}" + (f" ({engine})" if len(engines) > 1 else "")
            style = {
                "color": _color(c_i),
                "marker": _MARKERS[s_i % len(_MARKERS)],
                "markersize": 4,
                "linestyle": _LINESTYLES[s_i % len(_LINESTYLES)],
            }
            _errorbars(ax, part, "_x", {v: float(v) for v in part["_x"].to_list()}, label, style)
            drawn += part.height
    if drawn == 0:
        raise DataError(
            "slowdown_vs_size_across_seeds: no size bin is a result in every seed "
            f"({needs_text([STAT_PERCENTILES[s] for s in stats if s in STAT_PERCENTILES])} messages needed)"
        )
    seeds = sorted(set(summary_df["n_seeds"].to_list()))
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(_BYTES)
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(SIZE_LABEL)
    ax.set_ylabel("slowdown (latency / ideal)")
    over = f"mean over {seeds[-1]} seeds, bars: 95 % interval" if seeds[-1] > 1 else "one seed, no interval"
    out = ", ".join(f"{s} {k} of {n}" for s, (k, n) in left_out.items() if k)
    ax.set_title(
        title
        or f"slowdown by message size, {over}"
        + (f"\nbins left out (too few messages in a seed): {out}" if out else ""),
        fontsize="medium",
    )
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize="small")
    return fig


# ---------------------------------------------------------------------------- files


def save(
    fig: Figure, path_stem: str | os.PathLike[str], formats: Sequence[str] = ("png", "svg"), dpi: int = 150
) -> list[Path]:
    """Writes ``fig`` as ``path_stem.<format>`` for each format (png, svg, pdf); returns the paths.

    A stem that already ends in one of the formats' suffixes (``plot.png``) loses it."""
    formats = [formats] if isinstance(formats, str) else list(formats)
    if not formats:
        raise OptionError(f"formats: none given; accepted: {', '.join(FORMATS)}")
    for f in formats:
        if f not in FORMATS:
            raise OptionError(f"formats: unknown format '{f}'; accepted: {', '.join(FORMATS)}")
    stem = Path(path_stem)
    if stem.suffix.lstrip(".").lower() in FORMATS:
        stem = stem.with_suffix("")
    from tailor import __version__
    from tailor.outdir import SIGNATURE, check_file, write_file

    # The signature lets a later save replace the file (and only a file tailor wrote);
    # no dates in the files: the same figure gives the same bytes.
    sign = f"{SIGNATURE} {__version__}"
    metas = {
        "png": {"Software": sign},
        "svg": {"Date": None, "Creator": sign},
        "pdf": {"CreationDate": None, "Creator": sign},
    }
    paths = [stem.parent / f"{stem.name}.{f}" for f in formats]
    for path in paths:  # all, before any is written
        check_file(path)
    out = []
    for f in formats:

        def draw(tmp: Path, f: str = f) -> None:
            # A fixed salt for the SVG's element ids (random otherwise), for this call only.
            with rc_context({"svg.hashsalt": "tailor"}):
                fig.savefig(tmp, format=f, dpi=dpi, metadata=metas[f])

        out.append(write_file(stem.parent / f"{stem.name}.{f}", draw))
    return out
