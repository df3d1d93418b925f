"""Figures beside a reference, drawn with the conventions of :mod:`tailor.plot`:
``overlay`` puts our values beside a reference's (a paper's numbers, another simulator's),
``crosscheck_figure`` ns-3 beside tailor on the same flows.

Kept apart from the generic plots of runs and sweeps. A paper's own figures live with its
reproduction (``tailor.reproduce.swp.fig1.figure``, ``...capacity.figure``), drawn with
``overlay`` or the helpers of :mod:`tailor.plot`; neither ``plot.py`` nor this module
knows any paper.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from tailor.errors import DataError, OptionError
from tailor.plot_style import _BYTES, _LINESTYLES, _MARKERS, SIZE_LABEL, _color, _figure, needs_text
from tailor.stats import samples_needed

__all__ = ["overlay", "crosscheck_figure"]


def overlay(
    ours: Mapping[Any, float | None],
    paper: Mapping[Any, float | None],
    *,
    labels: tuple[str, str] = ("tailor", "paper"),
    kind: str = "bar",
    xlabel: str = "",
    ylabel: str = "",
    title: str = "",
    logx: bool = False,
) -> Figure:
    """Our values beside a reference's (a paper's, or another simulator's), per key.

    ``kind="bar"``: grouped bars, one group per key (keys are category names); a value
    that is missing (None or NaN) gets no bar and an "n/a" mark. ``kind="line"``: keys are
    numbers (an x axis), one line per side. ``labels`` names (ours, reference).
    """
    if kind not in ("bar", "line"):
        raise OptionError(f"kind: unknown value '{kind}'; accepted: bar, line")
    fig, (ax,) = _figure()
    _overlay(ax, ours, paper, labels=labels, kind=kind, logx=logx)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize="medium")
    return fig


def _missing(v: float | None) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _overlay(
    ax: Axes,
    ours: Mapping[Any, float | None],
    paper: Mapping[Any, float | None],
    *,
    labels: tuple[str, str],
    kind: str,
    logx: bool = False,
) -> None:
    keys = list(dict.fromkeys([*paper, *ours]))
    if not keys:
        raise DataError("overlay: nothing to draw (no keys)")
    if kind == "line":
        try:
            keys = sorted(keys, key=float)
        except (TypeError, ValueError):
            raise DataError("overlay: kind='line' needs numeric keys (an x axis)") from None
        for i, (side, vals) in enumerate(((labels[1], paper), (labels[0], ours))):
            pts = [(float(k), float(vals[k])) for k in keys if k in vals and not _missing(vals[k])]
            ax.plot(
                [p[0] for p in pts],
                [p[1] for p in pts],
                marker=_MARKERS[i],
                color=_color(i),
                label=side,
                linestyle=_LINESTYLES[i],
            )
        if logx:
            ax.set_xscale("log")
    else:
        width = 0.38
        for i, (side, vals) in enumerate(((labels[1], paper), (labels[0], ours))):
            xs = [j + (i - 0.5) * width for j in range(len(keys))]
            heights = [None if _missing(vals.get(k)) else float(vals[k]) for k in keys]  # type: ignore[arg-type]
            bars = ax.bar(
                [x for x, h in zip(xs, heights, strict=True) if h is not None],
                [h for h in heights if h is not None],
                width=width,
                color=_color(i),
                label=side,
            )
            ax.bar_label(bars, fmt="%.3g", fontsize="x-small", padding=2)
            for x, h in zip(xs, heights, strict=True):
                if h is None:
                    ax.text(x, 0, "n/a", ha="center", va="bottom", fontsize="x-small", color=_color(i))
        ax.set_xticks(range(len(keys)), [str(k) for k in keys], fontsize="small")
        ax.axhline(0, color="black", linewidth=0.6)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize="small")


def crosscheck_figure(report: Mapping[str, Any], table: str = "bins") -> Figure:
    """ns-3 beside tailor on the same flows: mean and p99 slowdown per size bin (the
    report of ``tailor.crosscheck.crosscheck_ns3``); x is each bin's upper edge."""
    if table not in report:
        raise DataError(f"not a crosscheck report with a '{table}' table")
    rows = [r for r in report[table] if r["count"] > 0]
    if not rows:
        raise DataError("crosscheck_figure: no bin has flows")
    fig, axes = _figure(width=11, height=4.4, ncols=2)
    for ax, stat in zip(axes, ("mean", "p99"), strict=True):
        # A p99 of fewer than 100 flows is the largest value seen: a hollow point off the
        # line, as the other plots draw it.
        need = samples_needed(99.0) if stat == "p99" else 1
        ok, few = [r for r in rows if r["count"] >= need], [r for r in rows if r["count"] < need]
        if ok:
            _overlay(
                ax,
                {r["upper_bytes"]: r[f"tailor_{stat}"] for r in ok},
                {r["upper_bytes"]: r[f"ns3_{stat}"] for r in ok},
                labels=("tailor", "ns-3"),
                kind="line",
                logx=True,
            )
        else:  # every bin hollow: the lines are empty, the legend still names them
            for i, side in enumerate(("ns-3", "tailor")):
                ax.plot([], [], marker=_MARKERS[i], color=_color(i), label=side, linestyle=_LINESTYLES[i])
            ax.set_xscale("log")
            ax.grid(True, axis="y", alpha=0.3)
            ax.legend(fontsize="small")
        for i, side in enumerate(("ns3", "tailor")):
            pts = [(r["upper_bytes"], r[f"{side}_{stat}"]) for r in few if not _missing(r[f"{side}_{stat}"])]
            ax.plot(
                [x for x, _ in pts],
                [y for _, y in pts],
                linestyle="none",
                marker=_MARKERS[i],
                markerfacecolor="none",
                color=_color(i),
                label=f"_too few: {side}",
            )
        if few:
            ax.plot(
                [],
                [],
                linestyle="none",
                marker="o",
                markerfacecolor="none",
                color="grey",
                label=f"hollow: too few flows in the bin ({needs_text([99.0])})",
            )
            ax.legend(fontsize="small")
        ax.xaxis.set_major_formatter(_BYTES)
        ax.set_xlabel(SIZE_LABEL)
        ax.set_ylabel(f"{stat} slowdown")
        ax.set_title(f"{stat} slowdown per size bin", fontsize="medium")
    fig.suptitle(f"{Path(str(report.get('run_dir', ''))).name}: ns-3 vs tailor, same flows", fontsize="medium")
    return fig
