"""How long SWP §5.2's random scenarios must run for their SLOs to be judged, and which
SLOs cannot be (tailor reproduce swp-capacity).

A p99 needs 100 messages in its size range after the warm-up (crates/tailor/src/measure/
slo.rs ``samples_needed``; docs/results.md, "SLO verdicts"); fewer, and the "p99" is the
largest value seen. §5.2 judges each class's messages up to the BDP (125 KB) and above it
separately, so each class has two ranges, and the rarest decides the horizon.

The count of a class's messages in a range over a time T: its arrivals are a renewal
process with log-normal gaps (σ from Table 4) of mean m = mean size / rate; each arrival
falls in the range with probability p (the size table, read as the engine reads it:
linear between points, workloads/README.md). By the renewal central limit theorem the
count is about normal with mean μ = p T / m and variance μ (p (e^{σ²} − 1) + 1 − p): the
gaps' squared coefficient of variation is e^{σ²} − 1 (54 at σ = 2, so bursty classes need
several times the mean count). The horizon is the least T with μ − z sd ≥ 100, z = 2.33
(a 1 % chance of falling short). Where that T exceeds the cap the SLO is refused: not
judged, dropped from the scenario, counted.

All classes of a scenario run to the same horizon: a class that stopped early would
leave the others a quieter link for the rest of the run, which is not the paper's
scenario.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path

from tailor.errors import DataError

#: The BDP of §5.2's network (100 Gbps x 10 us): the boundary of the two SLO ranges.
BDP_BYTES = 125_000
#: Messages a p99 needs in its range (the engine's ``samples_needed(99)``).
NEEDED = 100
#: The normal quantile of the margin: the horizon falls short of NEEDED with about 1 %
#: probability per range.
Z = 2.33
#: The size tables of Table 4's three workloads (the engine's built-in names; all are read
#: linearly: crates/tailor/src/workload/builtin.rs).
TABLES = {"google": "hpcc_google_rpc2008.cdf", "hadoop": "hpcc_fb_hadoop.cdf", "alistorage": "alistorage2019.cdf"}


@dataclass(frozen=True)
class Sizes:
    """A size table read linearly: its mean and P(size <= BDP)."""

    mean_bytes: float
    p_small: float


@functools.cache
def sizes(name: str) -> Sizes:
    """The mean and the share of messages up to the BDP of a Table 4 workload, from its
    file in workloads/ (the one the engine samples)."""
    import os

    import tailor  # noqa: F401 - points TAILOR_WORKLOADS at the shipped tables in a checkout

    root = os.environ.get("TAILOR_WORKLOADS")
    if not root:
        raise DataError("TAILOR_WORKLOADS is not set and no workloads/ folder was found beside tailor")
    path = Path(root) / TABLES[name]
    pts: list[tuple[float, float]] = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            s, f = line.split()[:2]
            pts.append((float(s), float(f)))
    if not pts or pts[-1][1] not in (1.0, 100.0):
        raise DataError(f"{path}: not a size table (the last probability must be 1 or 100)")
    scale = pts[-1][1]
    pts = [(s, f / scale) for s, f in pts]
    mean = pts[0][0] * pts[0][1] + sum((a + b) / 2 * (g - f) for (a, f), (b, g) in zip(pts, pts[1:], strict=False))
    return Sizes(mean, _cdf(pts, BDP_BYTES))


def _cdf(pts: list[tuple[float, float]], x: float) -> float:
    if x <= pts[0][0]:
        return pts[0][1]
    for (a, f), (b, g) in zip(pts, pts[1:], strict=False):
        if x <= b:
            return f + (g - f) * (x - a) / (b - a)
    return 1.0


def needed_mean(p: float, sigma: float) -> float:
    """The mean count μ of a range with μ − Z sd >= NEEDED, where sd² = μ (p (e^{σ²} − 1) + 1 − p)."""
    c = p * math.expm1(sigma * sigma) + 1.0 - p
    x = (Z * math.sqrt(c) + math.sqrt(Z * Z * c + 4 * NEEDED)) / 2
    return x * x


def range_horizon_s(sizes_name: str, sigma: float, rate_gbps: float, small: bool) -> float:
    """Seconds of traffic after the warm-up for one class's range (<= BDP when ``small``)
    to hold NEEDED messages with probability about 99 %."""
    s = sizes(sizes_name)
    p = s.p_small if small else 1.0 - s.p_small
    if p <= 0:
        return math.inf
    per_s = rate_gbps * 1e9 / 8 / s.mean_bytes
    return needed_mean(p, sigma) / (p * per_s)
