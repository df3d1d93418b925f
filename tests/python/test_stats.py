"""tailor.stats, the package's one percentile and one bootstrap: the percentile is the
nearest rank, and the interval across seeds covers what its docstring says."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tailor.stats import bootstrap_ci, percentile, samples_needed


def coverage(n: int, draw, true_mean: float, trials: int = 400) -> float:
    rng = np.random.default_rng(2026)
    hits = 0
    for t in range(trials):
        ci = bootstrap_ci(draw(rng, n), resamples=1000, seed=t)
        assert ci is not None
        hits += ci[0] <= true_mean <= ci[1]
    return hits / trials


NORMAL = (lambda rng, n: rng.normal(10.0, 2.0, n), 10.0)
LOGNORMAL = (lambda rng, n: rng.lognormal(0.0, 0.5, n), float(np.exp(0.125)))


@pytest.mark.parametrize("draw, true_mean", [NORMAL, LOGNORMAL], ids=["normal", "lognormal"])
def test_coverage_approaches_the_nominal_95_percent_with_20_seeds(draw, true_mean) -> None:
    # 400 trials: a binomial standard error of 1.1 points around the true coverage.
    assert 0.88 <= coverage(20, draw, true_mean) <= 0.97


@pytest.mark.parametrize("draw, true_mean", [NORMAL, LOGNORMAL], ids=["normal", "lognormal"])
def test_with_5_seeds_the_interval_is_too_narrow_as_documented(draw, true_mean) -> None:
    assert 0.72 <= coverage(5, draw, true_mean) <= 0.89


def test_the_interval_narrows_as_one_over_root_n() -> None:
    rng = np.random.default_rng(7)
    widths = {}
    for n in (5, 80):
        w = []
        for t in range(100):
            lo, hi = bootstrap_ci(rng.normal(0.0, 1.0, n), resamples=1000, seed=t)
            w.append(hi - lo)
        widths[n] = float(np.mean(w))
    # sqrt(80 / 5) = 4; the small-n interval is also narrowed by sqrt((n-1)/n).
    assert 3.0 < widths[5] / widths[80] < 4.5


def test_edge_cases() -> None:
    assert bootstrap_ci([3.0]) is None
    assert bootstrap_ci([]) is None
    assert bootstrap_ci([2.5, 2.5, 2.5]) == (2.5, 2.5)
    assert bootstrap_ci([1.0, 2.0]) == bootstrap_ci([1.0, 2.0]), "deterministic"
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_ci([1.0, 2.0], confidence=1.5)


VALUES = st.lists(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False), min_size=1, max_size=300)
PERCENTILES = st.sampled_from([0.1, 1, 10, 25, 50, 75, 90, 99, 99.9, 99.99, 100]) | st.floats(0.01, 100)


@given(VALUES, PERCENTILES)
def test_the_percentile_is_the_nearest_rank(values: list[float], p: float) -> None:
    """The smallest value with at least p % of the values at or below it: one of the values,
    at rank ceil(p n / 100) of the sorted values (computed here in exact fractions)."""
    q = percentile(values, p)
    n = len(values)
    assert q in values
    assert 100 * sum(v <= q for v in values) >= round(p * n, 9), "at least p % at or below it"
    assert 100 * sum(v < q for v in values) < round(p * n, 9), "fewer than p % below it"
    exact = Fraction(p) * n / 100  # the float p's exact value: 99.9 is 99.900000000000005684...
    if abs(exact - round(exact)) > Fraction(1, 10**8):  # not within the float error of a whole rank
        assert q == sorted(values)[max(1, math.ceil(exact)) - 1]
    assert percentile(pl.Series(values), p) == q == percentile(np.array(values), p)


@given(VALUES, PERCENTILES, PERCENTILES)
def test_the_percentile_grows_with_p(values: list[float], p: float, r: float) -> None:
    lo, hi = sorted((p, r))
    assert percentile(values, lo) <= percentile(values, hi)


def test_percentiles_of_round_ranks_and_of_nothing() -> None:
    values = list(range(1, 1001))
    assert [percentile(values, p) for p in (50, 99, 99.9, 100)] == [500, 990, 999, 1000]
    assert percentile(list(range(1, 101)), 99) == 99, "p99 of 100 values is the second largest"
    assert math.isnan(percentile([], 50))
    for p in (0, -1, 100.5):
        with pytest.raises(ValueError, match="percentile"):
            percentile([1.0], p)
    assert [samples_needed(p) for p in (50, 99, 99.9, 100)] == [2, 100, 1000, 1]


@given(
    st.lists(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False), min_size=2, max_size=60),
    st.sampled_from([None, 50, 99]),
    st.floats(0.5, 0.99),
)
def test_a_bootstrap_interval_lies_within_the_values(values: list[float], p: float | None, confidence: float) -> None:
    ci = bootstrap_ci(values, confidence, percentile=p, resamples=200)
    assert ci is not None
    lo, hi = ci
    assert min(values) <= lo <= hi <= max(values)
    assert bootstrap_ci(values, confidence, percentile=p, resamples=200) == ci, "deterministic"


def test_the_interval_of_a_percentile_resamples_the_percentile() -> None:
    """p99 of 200 values: each resample's p99 is one of its 2nd and 3rd largest draws, so
    the interval runs between values near the top, and it is wider than the mean's."""
    values = list(np.random.default_rng(1).lognormal(0.0, 1.0, 200))
    lo, hi = bootstrap_ci(values, 0.90, percentile=99)
    top = sorted(values)[-10:]
    assert top[0] <= lo <= percentile(values, 99) <= hi <= top[-1]
    mlo, mhi = bootstrap_ci(values, 0.90)
    assert hi - lo > mhi - mlo
