"""The Homa paper's Fig. 12 and 13 for one workload, ours beside a reference's.

As the paper draws them: slowdown (log scale) against message size with the x axis linear in the
number of messages (a tick at each 10 % of messages, labelled with the size there), one
point per size bucket at the middle of the share of messages it holds; the p99 (Fig. 12)
and the median (Fig. 13) side by side. Our buckets that are not judged (fewer than 100
messages in a seed) are hollow points off the line, as in every tailor plot.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tailor import fmt
from tailor.reproduce.homa.judge import of, points

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["figure"]

PANELS = (("p99_slowdown", "99th-percentile slowdown (Fig. 12)"), ("median_slowdown", "median slowdown (Fig. 13)"))


def _xs(rows: Sequence[dict]) -> list[float]:
    """Each bucket at the middle of its share of messages (%)."""
    xs, cum = [], 0.0
    for r in rows:
        xs.append(cum + r["count_percent"] / 2)
        cum += r["count_percent"]
    return xs


def _series(ax: Axes, rows: Sequence[dict], stat: str, label: str, style: dict) -> bool:
    """One curve: judged buckets on the line, the others hollow beside it; returns
    whether any is hollow."""
    pts = [(x, r) for x, r in zip(_xs(rows), rows, strict=True) if r["messages"] != 0 and r[stat] is not None]
    ok = [(x, r[stat]) for x, r in pts if r.get("judged", True)]
    few = [(x, r[stat]) for x, r in pts if not r.get("judged", True)]
    ax.plot([x for x, _ in ok], [y for _, y in ok], label=label, markersize=3, **style)
    if few:
        ax.plot(
            [x for x, _ in few],
            [y for _, y in few],
            linestyle="none",
            markerfacecolor="none",
            markersize=3,
            label=f"_few: {label}",
            **{k: v for k, v in style.items() if k != "linestyle"},
        )
    return bool(few)


def _ticks(ax: Axes, rows: Sequence[dict]) -> None:
    """A tick at each 10 % of messages, labelled with the size of the bucket there."""
    labels, cum, i = ["0"], 0.0, 1
    for r in rows:
        cum += r["count_percent"]
        while i <= 10 and 10 * i <= cum + 1e-9:
            labels.append(fmt.size(r["size_upper_bytes"]))
            i += 1
    labels += [labels[-1]] * (11 - len(labels))
    ax.set_xticks(range(0, 101, 10), labels, fontsize="x-small", rotation=45)
    ax.set_xlim(0, 100)


def _log_y(ax: Axes) -> None:
    """Slowdown on a log axis from 1, as the paper's, with plain tick labels (1, 2, 5, 10)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.set_yscale("log")
    ax.set_ylim(bottom=1.0)
    ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def _label(side: str, point: tuple[str, str, float]) -> str:
    return f"{side}: {point[0]}, {point[2]:.0%} load"


def figure(workload: str, ours: Sequence[dict], ref: Sequence[dict], ref_label: str, title: str) -> Figure:
    """Fig. 12 and 13 of ``workload``: our rows (any transports and loads) as solid lines,
    the reference's (``ref_label``) dashed."""
    from tailor.plot_style import _color, _figure

    fig, axes = _figure(width=12, height=4.6, ncols=2)
    mine, theirs = points(ours), points(ref)
    # One colour per transport and load, shared by our curve and the reference's.
    keys = list(dict.fromkeys((p[0], p[2]) for p in [*mine, *theirs]))
    color = {k: _color(i) for i, k in enumerate(keys)}
    for ax, (stat, name) in zip(axes, PANELS, strict=True):
        hollow = False
        for p in mine:
            hollow |= _series(ax, of(ours, p), stat, _label("tailor", p), {"color": color[(p[0], p[2])], "marker": "o"})
        for p in theirs:
            _series(
                ax,
                of(ref, p),
                stat,
                _label(ref_label, p),
                {"color": color[(p[0], p[2])], "marker": "s", "linestyle": "--"},
            )
        if hollow:
            ax.plot(
                [],
                [],
                linestyle="none",
                marker="o",
                markerfacecolor="none",
                color="grey",
                markersize=3,
                label="hollow: fewer than 100 messages in a seed (not judged)",
            )
        _ticks(ax, of(ours, mine[0]) if mine else of(ref, theirs[0]))
        ax.set_xlabel("message size (x linear in message count: a tick per 10 % of messages)")
        ax.set_ylabel(name)
        _log_y(ax)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="x-small")
    fig.suptitle(f"{workload}: {title}", fontsize="medium")
    return fig
