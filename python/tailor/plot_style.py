"""What every tailor plot shares (tailor.plot): the figure, colours, line styles and
markers, byte-unit ticks, axis labels, and the checks of percentiles and columns."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from tailor import fmt
from tailor.errors import DataError, OptionError
from tailor.result import Result
from tailor.stats import samples_needed

#: The x label of every plot of size bins: where a bin is drawn.
SIZE_LABEL = "message size (bytes; each bin at its upper edge)"

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
