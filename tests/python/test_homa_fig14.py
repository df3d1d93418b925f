"""homa-fig14: the bar is the mean waits of the short messages near their p99, and a short
run end to end writes fig14.csv (the full form is in `make validate`)."""

from __future__ import annotations

import csv
from pathlib import Path

import polars as pl
import pytest

from tailor.reproduce.homa import fig14


def test_the_bar_averages_the_short_messages_near_their_p99() -> None:
    n = 1000
    # Sizes 1..1000: the smallest 20 % are 1..200. Their slowdown is 1 + id/1000, so their
    # p98.5-p99.5 band is ids 197 to 199 (nearest rank: the 197th and the 199th of 200
    # values); each waited id ns of lag and 10 ns
    # of queueing. Larger messages have huge waits that must not count.
    ids = list(range(1, n + 1))
    msgs = pl.DataFrame({"id": ids, "size_bytes": ids, "slowdown": [1 + i / 1000 for i in ids],
                         "ideal_ns": [1000.0] * n, "start_ns": [0.0] * n,
                         "finish_ns": [1000.0 + i + 10 for i in ids]})
    waits = pl.DataFrame({"id": ids, "preemption_lag_ns": [float(i) if i <= 200 else 1e9 for i in ids],
                          "queueing_ns": [10.0] * n})
    b = fig14.bar(msgs, waits, "W3")
    assert b["short_messages"] == 200
    assert b["near_p99"] == 3
    assert b["preemption_lag_ns"] == pytest.approx(198.0)
    assert b["lag_percent"] == pytest.approx(100 * 198 / 208)
    # W5's short messages are the one-packet ones.
    assert fig14.bar(msgs, waits, "W5")["short_messages"] == n


def test_a_short_run_writes_fig14_csv(tmp_path: Path) -> None:
    report = fig14.run([fig14.WPoint("W3", 1, 300)], "quick", tmp_path / "out", lambda _: None)
    with open(tmp_path / "out" / "fig14.csv") as f:
        rows = list(csv.DictReader(f))
    assert tuple(rows[0]) == fig14.COLUMNS and rows[0]["workload"] == "W3"
    r = report["rows"][0]
    assert r["short_messages"] > 1000
    # Every nanosecond a one-packet message lost is lag or queueing (tests/homa.rs).
    assert r["preemption_lag_ns"] + r["queueing_ns"] == pytest.approx(r["extra_ns"], abs=1.0)
