"""The interval across seeds (tailor.stats): its coverage is what its docstring says."""

from __future__ import annotations

import numpy as np
import pytest

from tailor.stats import bootstrap_mean_ci


def coverage(n: int, draw, true_mean: float, trials: int = 400) -> float:
    rng = np.random.default_rng(2026)
    hits = 0
    for t in range(trials):
        ci = bootstrap_mean_ci(draw(rng, n), resamples=1000, seed=t)
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
            lo, hi = bootstrap_mean_ci(rng.normal(0.0, 1.0, n), resamples=1000, seed=t)
            w.append(hi - lo)
        widths[n] = float(np.mean(w))
    # sqrt(80 / 5) = 4; the small-n interval is also narrowed by sqrt((n-1)/n).
    assert 3.0 < widths[5] / widths[80] < 4.5


def test_edge_cases() -> None:
    assert bootstrap_mean_ci([3.0]) is None
    assert bootstrap_mean_ci([]) is None
    assert bootstrap_mean_ci([2.5, 2.5, 2.5]) == (2.5, 2.5)
    assert bootstrap_mean_ci([1.0, 2.0]) == bootstrap_mean_ci([1.0, 2.0]), "deterministic"
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_mean_ci([1.0, 2.0], confidence=1.5)
