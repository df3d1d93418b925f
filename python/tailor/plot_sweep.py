"""Sweep plots (tailor.plot): a sweep summary's statistic against load, and slowdown by
size bin with its interval across seeds."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from tailor import fmt
from tailor.errors import DataError, OptionError
from tailor.plot_style import (
    _BYTES,
    _LINESTYLES,
    _MARKERS,
    SIZE_LABEL,
    _check_columns,
    _color,
    _figure,
    _load_label,
    needs_text,
)
from tailor.stats import samples_needed

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
