"""homa-fig10: incast control keeps a client's 10 KB responses from overflowing its port where
without it they drop; the quick form runs end to end and writes fig10.csv."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from tailor.errors import OptionError
from tailor.reproduce.homa import fig10


def test_quick_incast_control_holds_the_link_where_blind_responses_overflow_it(tmp_path: Path) -> None:
    plan = fig10.options(quick=True, seeds=2, out=tmp_path / "f10")
    report = plan.run(plan.out, lambda _: None)
    with open(tmp_path / "f10" / "fig10.csv") as f:
        rows = list(csv.DictReader(f))
    assert tuple(rows[0]) == fig10.COLUMNS and len(rows) == 3 * 3 * 2
    at = {(p["mode"], p["outstanding"]): p for p in report["points"]}
    peak = max(p["throughput_gbps"] for p in report["points"])
    # The link's payload share of 10 Gbps: responses of 10 KB in 1,538 B frames.
    assert 9.0 < peak < 10.0
    # With control, 300 outstanding RPCs drop nothing and 1,000 drop 15 times fewer packets
    # than without; without it, 300 blind 10 KB responses already overflow the 2 MB port
    # (the buffer was fitted to that onset) and 1,000 lose throughput to RESEND waits.
    assert at[("control", 300)]["drops"] == 0 < at[("none", 300)]["drops"]
    assert 0 < 15 * at[("control", 1000)]["drops"] < at[("none", 1000)]["drops"]
    assert at[("none", 1000)]["throughput_gbps"] < at[("control", 1000)]["throughput_gbps"] < peak
    # With the receiver budget (and the receiver's BUSY) nothing drops and the link stays full.
    assert all(at[("budget", n)]["drops"] == 0 for n in (10, 300, 1000))
    assert at[("budget", 1000)]["throughput_gbps"] > fig10.HOLDS * peak
    # The quick form's 1,000 RPCs do not reach "several thousand": those claims are not judged.
    assert [c["holds"] for c in report["claims"]] == [None, None, True]


def test_the_knee_is_where_throughput_leaves_the_peak_after_reaching_it() -> None:
    pts = [
        {"outstanding": n, "throughput_gbps": g} for n, g in ((1, 4.0), (10, 9.4), (300, 9.3), (400, 2.0), (500, 9.4))
    ]
    assert fig10._knee(pts, 9.4) == 300
    assert fig10._knee(pts[:1], 9.4) is None


def test_bad_outstanding_is_refused() -> None:
    for bad in ("0,10", "ten", "30000"):
        with pytest.raises(OptionError, match="--outstanding: .*accepted: integers from 1 to 20000"):
            fig10.options(outstanding=bad)
