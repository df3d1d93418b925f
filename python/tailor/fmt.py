"""How tailor writes a quantity for people: one function per kind of quantity, used by
every table, report, plot axis and progress line, so that a size or a time reads the same
everywhere.

- sizes in decimal units, as scenarios write them: ``size`` (``512 B``, ``1.5 KB``,
  ``30 MB``) and a size bin ``size_bin`` (``(0 B, 125 KB]``; an open bin's upper edge ``∞``);
- simulated time ``time`` (``11.000 ms``) and wall time ``duration`` (``0:00:07``);
- link rates ``rate`` (``12.5 Gbps``);
- statistics ``stat`` (two decimals unless told) and relative differences ``change``
  (``+4.2%``); a value that does not exist (a statistic of no samples, a ratio to
  nothing) is ``NONE``, an en dash;
- ``in_order`` puts quantities written as in a scenario (``30KB``, ``120KB``) in order of
  magnitude, for a plot's axis;
- an SLO's verdict ``verdict`` (``met``, ``MISSED``, ``not judged: 82 messages, 100
  needed``) and messages a stop left ``unfinished`` (``253 messages (177.2 MB) unfinished at stop``).

Numbers written into files for programs (JSON, CSV, scenario TOML) are not formatted here.
"""

from __future__ import annotations

import math
import re
from typing import Any

from tailor.parse import TIME_SCALE_NS

__all__ = [
    "NONE",
    "size",
    "size_bin",
    "time",
    "duration",
    "rate",
    "stat",
    "change",
    "verdict",
    "unfinished",
    "in_order",
]

#: A value that does not exist: a statistic of no samples (``null`` in summary.json).
NONE = "–"


def _missing(x: float | None) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def size(n: float | None) -> str:
    """A size in bytes, in decimal units as scenarios write them: 512 B, 1.5 KB, 30 MB
    (three significant digits, in the largest unit that keeps at least 1: 999,500 B is
    1 MB, not 1e+03 KB). None is an open bin's upper edge: "∞"."""
    if n is None:
        return "∞"
    if n < 999.5:
        return f"{n:.0f} B"
    for unit, scale in (("KB", 1e3), ("MB", 1e6)):
        text = f"{n / scale:.3g}"
        if float(text) < 1000:
            return f"{text} {unit}"
    return f"{n / 1e9:.3g} GB" if n < 999.5e9 else f"{n / 1e9:,.0f} GB"


def size_bin(lower: float, upper: float | None) -> str:
    """A message-size bin, (lower, upper]: ``(0 B, 125 KB]``."""
    return f"({size(lower)}, {size(upper)}]"


def time(ns: float) -> str:
    """A simulated time in its largest unit of at least 1, to the nanosecond: 11.000 ms,
    2.500 us, 640 ns."""
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3f} {unit}"
    return f"{ns:.0f} ns"


def duration(seconds: float) -> str:
    """Wall time, rounded up to the second: ``0:00:07``, ``1:02:03``."""
    s = max(0, math.ceil(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


def rate(bps: float | None) -> str:
    """A link rate in Gbps to 0.1: ``12.5 Gbps``."""
    return NONE if _missing(bps) else f"{bps / 1e9:.1f} Gbps"  # type: ignore[operator]


def stat(x: float | None, spec: str = ".2f") -> str:
    """A statistic (a slowdown, a loss): ``format(x, spec)``, or NONE when it has no value."""
    return NONE if _missing(x) else format(x, spec)


def change(x: float | None, digits: int = 1) -> str:
    """A relative difference (0.042 for 4.2 % more), signed: ``+4.2%``, ``-19.6%``."""
    return NONE if _missing(x) else f"{x:+.{digits}%}"


def unfinished(count: int, nbytes: int | None) -> str:
    """Messages a ``[run] stop`` left unfinished, as the engine words them in an SLO's
    ``reason`` (``measure::slo::unfinished_text``); without their bytes (the fast model's
    summary has none), the count alone."""
    what = f"{count:,} message{'' if count == 1 else 's'}"
    return f"{what} ({nbytes / 1e6:.1f} MB) unfinished at stop" if nbytes is not None else f"{what} unfinished at stop"


def verdict(slo: dict) -> tuple[str, str]:
    """An SLO's verdict from summary.json (docs/results.md) and its kind (``met``,
    ``missed``, ``none``): ``met``, ``MISSED``, or ``not judged: REASON`` when ``met`` is
    null. A summary written before verdicts had reasons: ``no message in range``."""
    if slo.get("met") is True:
        return "met", "met"
    if slo.get("met") is False:
        return "MISSED", "missed"
    return f"not judged: {slo.get('reason') or 'no message in range'}", "none"


#: The scale of each unit a value written as in a scenario may carry, by family (docs/scenario.md, "Units").
_UNITS = {
    "size": {"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30},
    "time": TIME_SCALE_NS,
    "rate": {"bps": 1, "Kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9, "Tbps": 1e12},
}
_QUANTITY = re.compile(r"([0-9][0-9_]*(?:\.[0-9_]+)?)\s*([A-Za-z]+)")


def in_order(values: list[Any]) -> list[Any]:
    """Values in order (a sweep axis' on a plot): by magnitude when each is a quantity of
    one family of units as scenarios write them (30KB before 120KB, 25Gbps before
    100Gbps), else as text."""
    for units in _UNITS.values():
        magnitudes = {}
        for v in values:
            m = _QUANTITY.fullmatch(str(v).strip())
            if m is None or m.group(2) not in units:
                break
            magnitudes[v] = float(m.group(1).replace("_", "")) * units[m.group(2)]
        else:
            return sorted(values, key=lambda v: (magnitudes[v], str(v)))
    return sorted(values, key=str)
