"""Percentiles of samples and intervals across seeds: the package's one percentile and one
bootstrap.

**Percentiles are nearest-rank** (docs/results.md): the p-th percentile of n values is the
smallest value with at least p % of the values at or below it, the value of rank
ceil(p n / 100). It is always one of the values, and needs ``samples_needed(p)`` of them
to be a result rather than the largest value seen. The engine's summaries keep it to 0.1 %
(an HDR histogram); :func:`percentile` computes it exactly from message records (the
plots, the crosscheck, a table merged from messages).

**Intervals are percentile bootstrap intervals.** A run's tail percentile is one draw of
a random quantity; its messages are not independent (they share queues), so the unit of
replication is the seed, never the message. Across the seeds of a point we give the mean
of the per-seed statistic and a percentile bootstrap interval over seeds: resample the n
per-seed values with replacement, take the mean of each resample, and read the interval
off the resamples' quantiles. It needs no distributional assumption about the statistic
(a p99 is skewed), and it is deterministic here (a fixed generator seed). The same
:func:`bootstrap_ci` gives the interval of a sample's percentile (``percentile=99``: the
crosscheck's interval of ns-3's p99 over a bin's flows).

Its known weakness is small n: the interval is about sqrt((n-1)/n) too narrow and
ignores the t-distribution's wider quantiles, so its "95 %" interval covers the
true mean about 80 % of the time with 5 seeds, 88-90 % with 10 and 91-94 % with 20
(measured on normal and log-normal data, 400 trials each; tests/python/test_stats.py
keeps these figures honest). Use 10 or more seeds when a decision rests on the interval. With one seed there is no interval (null).

**An estimate is what a reproduction prints** (:class:`Estimate`): the mean over seeds of a
per-seed statistic, its interval across seeds, and the fewest samples any seed's value rests
on. A percentile is *judged* only when every seed has ``samples_needed(p)`` samples; a
reproduction's table prints an unjudged one as a dash with its count
(``tailor.reproduce.cells``), never as a number that looks like a result.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

__all__ = ["percentile", "bootstrap_ci", "samples_needed", "Estimate", "RESAMPLES"]

#: Resamples per interval: the interval's own Monte Carlo error is then well under
#: 1 % of its width.
RESAMPLES = 4000


def _rank(p: float, n: int) -> int:
    """The nearest rank (1-based) of the ``p``-th percentile of ``n`` values."""
    if not 0 < p <= 100:
        raise ValueError(f"percentile must be in (0, 100], got {p}")
    # round() keeps 99.9 % of 1000 at rank 999 despite 99.9 * 1000 / 100 = 999.0000000000001.
    return min(max(math.ceil(round(p * n / 100, 9)), 1), n)


def percentile(values: Sequence[float] | np.ndarray | pl.Series, p: float) -> float:
    """The nearest-rank ``p``-th percentile (0 < p <= 100) of ``values``: the smallest
    value with at least ``p`` % of the values at or below it. NaN when empty."""
    s = np.sort(values.to_numpy() if isinstance(values, pl.Series) else np.asarray(values, dtype=float))
    if len(s) == 0:
        return math.nan
    return float(s[_rank(p, len(s)) - 1])


def bootstrap_ci(
    values: Sequence[float] | np.ndarray,
    confidence: float = 0.95,
    *,
    percentile: float | None = None,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> tuple[float, float] | None:
    """The percentile bootstrap interval of the mean of ``values`` (one per seed), or with
    ``percentile=p`` of their nearest-rank ``p``-th percentile.

    None for fewer than two (finite) values. Values that are all equal give a zero-width
    interval; the interval never leaves [min, max] of the values.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    n = len(x)
    if n < 2:
        return None
    rng = np.random.default_rng(seed)
    draws = x[rng.integers(0, n, size=(resamples, n))]
    if percentile is None:
        stats = draws.mean(axis=1)
    else:
        stats = np.sort(draws, axis=1)[:, _rank(percentile, n) - 1]
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(stats, [alpha, 1.0 - alpha])
    # A resample's statistic lies within [min, max]; clip the float error of averaging
    # (equal values can average one ulp below themselves), keeping lo <= hi.
    lo = min(max(float(lo), float(x.min())), float(x.max()))
    hi = min(max(float(hi), lo), float(x.max()))
    return lo, hi


def samples_needed(p: float) -> int:
    """The messages a bin needs for its ``p``-th percentile to be a result: enough that at
    least one lies above it, 100 / (100 - p) (p50: 2, p99: 100, p99.9: 1,000). Fewer, and
    the "p99.9" is just the largest value seen. The maximum (p = 100) is the sample's own: 1.
    The engine's rule (``measure::slo::samples_needed``), which also leaves an SLO of too few
    messages not judged: one rule for the verdicts, tables, reports and plots."""
    from tailor._core import samples_needed as engine_rule

    if not 0 < p <= 100:
        raise ValueError(f"percentile must be in (0, 100], got {p}")
    return int(engine_rule(float(p)))


@dataclass(frozen=True)
class Estimate:
    """One statistic of a reproduction across its seeds.

    ``value`` is the mean over seeds of the per-seed statistic (None when no seed has
    one); ``ci`` its :func:`bootstrap_ci` across seeds (None with fewer than two seeds);
    ``n`` the fewest samples behind any seed's value and ``total`` their sum; ``p`` the
    percentile (None for a mean, which any sample makes a result)."""

    value: float | None
    ci: tuple[float, float] | None
    n: int
    total: int
    seeds: int
    p: float | None

    @property
    def needed(self) -> int:
        """Samples every seed needs for the value to be a result."""
        return 1 if self.p is None else samples_needed(self.p)

    @property
    def judged(self) -> bool:
        """Every seed's value rests on enough samples to be a result."""
        return self.value is not None and self.n >= self.needed

    @classmethod
    def of_values(cls, per_seed: Sequence[tuple[float | None, int]], p: float | None = None) -> Estimate:
        """From each seed's ``(value, samples behind it)``: an engine summary's percentile
        and count, a probe's mean and probes. A seed without a value (None or NaN) counts
        as zero samples."""
        if p is not None and not 0 < p <= 100:
            raise ValueError(f"percentile must be in (0, 100], got {p}")
        vals = [float(v) for v, _ in per_seed if v is not None and math.isfinite(v)]
        counts = [int(c) if v is not None and math.isfinite(v) else 0 for v, c in per_seed]
        return cls(
            value=float(np.mean(vals)) if vals else None,
            ci=bootstrap_ci(vals),
            n=min(counts, default=0),
            total=sum(counts),
            seeds=len(per_seed),
            p=p,
        )

    @classmethod
    def of_samples(cls, per_seed: Sequence[Sequence[float] | np.ndarray], p: float | None = None) -> Estimate:
        """From each seed's samples (message latencies, slowdowns): the nearest-rank
        ``p``-th percentile of each seed's (or its mean, ``p=None``), then across seeds."""

        def one(x: Sequence[float] | np.ndarray) -> tuple[float | None, int]:
            a = np.asarray(x, dtype=float)
            if len(a) == 0:
                return None, 0
            return (float(a.mean()) if p is None else percentile(a, p)), len(a)

        return cls.of_values([one(x) for x in per_seed], p)
