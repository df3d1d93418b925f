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
from typing import Union

import polars as pl
from matplotlib import rc_context
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from tailor.errors import DataError, OptionError
from tailor.plot_queues import QUEUE_COLUMNS, QUEUES_HINT, queue_over_time, read_queues
from tailor.plot_style import (
    _BYTES,
    _LINESTYLES,
    _MARKERS,
    SIZE_LABEL,
    _check_columns,
    _check_percentiles,
    _color,
    _figure,
    _plabel,
    needs_text,
    open_result,
)
from tailor.plot_sweep import (
    STAT_PERCENTILES,
    SUMMARY_VALUE_COLUMNS,
    p99_vs_load,
    seed_bins,
    slowdown_vs_size_across_seeds,
)
from tailor.result import Result
from tailor.stats import percentile, samples_needed

__all__ = [
    "STAT_PERCENTILES",
    "needs_text",
    "open_result",
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

Source = Union[Result, pl.DataFrame, str, "os.PathLike[str]"]
Runs = Union[Source, Mapping[str, Source], Sequence[Source]]


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
