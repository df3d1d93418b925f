"""tailor.fmt, how every table, report and progress line writes a quantity."""

from __future__ import annotations

import math

from hypothesis import example, given
from hypothesis import strategies as st
from tailor import fmt


def test_sizes_read_as_scenarios_write_them() -> None:
    assert [fmt.size(n) for n in (0, 999, 1000, 1500, 10**6, 1_048_576, 999_500, 2.5e9, 2.5e12, None)] == [
        "0 B",
        "999 B",
        "1 KB",
        "1.5 KB",
        "1 MB",
        "1.05 MB",
        "1 MB",
        "2.5 GB",
        "2,500 GB",
        "∞",
    ]
    assert fmt.size_bin(0, 125_000) == "(0 B, 125 KB]" and fmt.size_bin(1_000_000, None) == "(1 MB, ∞]"


@given(st.integers(min_value=0, max_value=10**13))
@example(999_500)
@example(999_999)
@example(999_999_999)
@example(10**12)
def test_a_size_is_at_least_1_of_its_unit_to_three_significant_digits(n: int) -> None:
    number, unit = fmt.size(n).split()
    value = float(number.replace(",", ""))
    scale = {"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9}[unit]
    assert (1 <= value < 1000 or n == 0 or unit == "GB") and "e" not in number
    assert math.isclose(value * scale, n, rel_tol=5e-3)


def test_times_and_durations() -> None:
    assert [fmt.time(ns) for ns in (640, 2500, 11e6, 1.5e9)] == ["640 ns", "2.500 us", "11.000 ms", "1.500 s"]
    assert [fmt.duration(s) for s in (0, 61.2, 3723, -1)] == ["0:00:00", "0:01:02", "1:02:03", "0:00:00"]


def test_rates_statistics_and_changes_and_what_has_no_value() -> None:
    assert fmt.rate(12.5e9) == "12.5 Gbps" and fmt.rate(100e9) == "100.0 Gbps"
    assert fmt.stat(2.345) == "2.35" and fmt.stat(2.345, ".3f") == "2.345" and fmt.stat(-0.05, "+.3f") == "-0.050"
    assert fmt.change(0.042) == "+4.2%" and fmt.change(-0.196) == "-19.6%" and fmt.change(0.44, 0) == "+44%"
    for f in (fmt.rate, fmt.stat, fmt.change):
        assert f(None) == fmt.NONE == f(math.nan) == "–"
