"""tailor.stats.Estimate and tailor.reproduce.cells: a reproduction's statistic is the mean
over seeds with its interval, and a percentile of too few samples in any seed is a dash."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tailor.errors import OptionError
from tailor.reproduce import cells
from tailor.stats import Estimate, bootstrap_ci, percentile


def test_the_value_is_the_mean_of_each_seeds_percentile_not_the_pooled_one() -> None:
    rng = np.random.default_rng(3)
    seeds = [rng.exponential(1.0, 500), rng.exponential(3.0, 800), rng.exponential(2.0, 300)]
    e = Estimate.of_samples(seeds, 99)
    per_seed = [percentile(s, 99) for s in seeds]
    assert e.value == pytest.approx(np.mean(per_seed))
    assert e.value != pytest.approx(percentile(np.concatenate(seeds), 99), rel=1e-3)
    assert e.ci == bootstrap_ci(per_seed)
    assert (e.n, e.total, e.seeds) == (300, 1600, 3)
    assert e.judged


def test_one_seed_short_of_100_samples_leaves_the_p99_unjudged_and_printed_as_a_dash() -> None:
    e = Estimate.of_samples([np.arange(100.0), np.arange(99.0), np.arange(500.0)], 99)
    assert not e.judged and e.n == 99
    assert cells.text(e) == "— n=99<100"
    # The median of the same samples needs 2 a seed: a result.
    m = Estimate.of_samples([np.arange(100.0), np.arange(99.0), np.arange(500.0)], 50)
    assert m.judged and cells.text(m).startswith(f"{m.value:.1f} [")


def test_a_mean_needs_one_sample_and_a_seed_without_a_value_counts_as_none() -> None:
    e = Estimate.of_values([(5.0, 3), (None, 0), (float("nan"), 7)])
    assert e.value == 5.0 and e.n == 0 and not e.judged and e.ci is None
    assert cells.text(Estimate.of_values([(None, 0)])) == "—"
    one = Estimate.of_values([(5.0, 3)])
    assert one.judged and cells.text(one, ".2f") == "5.00 n=3 (1 seed)"
    counter = Estimate.of_values([(4.0, 1), (6.0, 1)])
    assert cells.text(counter, ".0f") == "5 [4–6]"


def test_columns_keep_the_value_and_say_whether_it_is_a_result() -> None:
    e = Estimate.of_values([(10.0, 50), (12.0, 60)], 99)
    row = cells.columns("p99_us", e)
    assert row == {
        "p99_us": 11.0,
        "p99_us_lo": e.ci[0],
        "p99_us_hi": e.ci[1],
        "p99_us_n": 50,
        "p99_us_seeds": 2,
        "p99_us_judged": False,
    }
    assert cells.columns("x", Estimate.of_values([(1.0, 1)]))["x_lo"] is None
    back = cells.restore("p99_us", row, 99)
    assert cells.text(back) == cells.text(e) == "— n=50<100"
    ok = Estimate.of_values([(10.0, 150), (12.0, 160)], 99)
    assert cells.text(cells.restore("v", cells.columns("v", ok), 99)) == cells.text(ok)


@given(
    st.lists(st.lists(st.floats(0, 1e6), min_size=1, max_size=40), min_size=1, max_size=6),
    st.sampled_from([None, 50.0, 90.0, 99.0]),
)
def test_the_value_and_interval_lie_within_the_seeds_values(samples, p) -> None:
    e = Estimate.of_samples(samples, p)
    per_seed = [float(np.mean(s)) if p is None else percentile(s, p) for s in samples]
    lo, hi = min(per_seed), max(per_seed)
    assert lo - 1e-6 * abs(lo) <= e.value <= hi + 1e-6 * abs(hi)
    if e.ci is not None:
        assert lo <= e.ci[0] <= e.ci[1] <= hi
    assert e.n == min(len(s) for s in samples)
    assert e.judged == (p is None or all(len(s) >= (100 if p == 99 else 10 if p == 90 else 2) for s in samples))


def test_seeds_option_bounds_and_percentile_range() -> None:
    cells.check_seeds(1)
    cells.check_seeds(cells.MAX_SEEDS)
    for bad in (0, cells.MAX_SEEDS + 1):
        with pytest.raises(OptionError, match="--seeds: .*accepted: 1 to 20"):
            cells.check_seeds(bad)
    with pytest.raises(ValueError):
        Estimate.of_values([(1.0, 1)], 0)
    assert "p99 100" in cells.legend()
