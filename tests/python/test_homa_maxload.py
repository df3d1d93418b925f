"""homa-max-load (Fig. 15/16): the wasted share from Homa's counters, the crossing with
the surplus, option errors, and one short point run end to end. The quick and full forms
are in `make validate` (scripts/reproduce_homa.py)."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest
from tailor.errors import OptionError
from tailor.reproduce.homa import maxload, points

ROOT = Path(__file__).resolve().parents[2]


def row(load: float, wasted: float, seed: int = 1) -> dict:
    return {"load": load, "wasted_percent": wasted, "surplus_percent": 100 * (1 - load), "seed": seed}


def test_the_maximum_is_where_the_wasted_share_reaches_the_surplus() -> None:
    # Wasted 10 % at 0.6 (surplus 40), 25 % at 0.7 (surplus 30), 35 % at 0.8 (surplus 20):
    # the difference goes -30, -5, +15: it crosses a quarter of the way from 0.7 to 0.8.
    rows = [row(0.6, 10), row(0.7, 25), row(0.8, 35)]
    assert maxload.crossing(rows) == pytest.approx(0.725)
    assert maxload.crossing([row(0.6, 1), row(0.9, 2)]) is None, "never reaches the surplus: above the loads run"
    assert maxload.crossing([row(0.6, 45), row(0.7, 50)]) == 0.6, "beyond it already at the lowest load"


def test_the_maximum_is_found_per_seed_and_averaged() -> None:
    # Seed 1 crosses at 0.725, seed 2 at 0.75 (wasted 20 % at 0.7, 40 % at 0.8: -10, +20,
    # a third of the way), seed 3 never: the mean is over seeds 1 and 2, seed 3 counted above.
    rows = [
        row(0.6, 10, 1),
        row(0.7, 25, 1),
        row(0.8, 35, 1),
        row(0.6, 10, 2),
        row(0.7, 20, 2),
        row(0.8, 40, 2),
        row(0.6, 1, 3),
        row(0.7, 2, 3),
        row(0.8, 3, 3),
    ]
    m = maxload.maximum(("W4", 1), rows)
    assert m["max_load"] == pytest.approx((0.725 + 0.7 + 0.1 / 3) / 2)
    assert (m["seeds_above"], m["max_load_seeds"], m["max_load_n"], m["highest_load_run"]) == (1, 3, 0, 0.8)
    assert points.maximum_text(m).endswith("(1 of 3 seeds > 80%)")
    assert points.maximum_text(maxload.maximum(("W4", 1), [r for r in rows if r["seed"] == 3])) == "> 80%"


def test_the_wasted_share_counts_idle_time_while_grants_were_withheld() -> None:
    # 144 hosts x 1 ms; 2.88 ms of oversubscription in which 1,800,000 bytes (1.44 ms at
    # 10 Gbps) arrived: 1.44 ms wasted of 144 ms, 1 %.
    s = {
        "transport_counters": {"oversubscribed_ns": 2_880_000, "oversubscribed_wire_bytes": 1_800_000},
        "sim_ns": 1_000_000.0,
        "messages": {"completed": 5, "incomplete_bytes": 7},
    }
    m = maxload.measure(s)
    assert m["wasted_percent"] == pytest.approx(1.0)
    assert (m["backlog_bytes"], m["messages"], m["sim_ms"]) == (7, 5, 1.0)


def test_bad_levels_are_refused_with_the_option_named() -> None:
    with pytest.raises(
        OptionError, match="--scheduled-levels: '8' is not an integer from 1 to 7; accepted: integers from 1 to 7"
    ):
        maxload.parse_levels("1,8")
    p = subprocess.run(
        [sys.executable, "-m", "tailor.cli", "reproduce", "homa-max-load", "--workloads", "W9"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert p.returncode == 2 and "--workloads" in p.stderr


def test_a_short_point_runs_and_writes_both_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(maxload.LENGTH_MS, "quick", 2)
    pts = [maxload.Point("W4", 1, 0.6, 1), maxload.Point("W4", 1, 0.9, 1)]
    report = maxload.run(pts, "quick", tmp_path / "out", lambda _: None)
    with open(tmp_path / "out" / "maxload.csv") as f:
        rows = list(csv.DictReader(f))
    assert tuple(rows[0]) == maxload.COLUMNS and len(rows) == 2
    assert all(float(r["sim_ms"]) == pytest.approx(2.0) and int(r["messages"]) > 0 for r in rows)
    with open(tmp_path / "out" / "max_load.csv") as f:
        assert tuple(next(csv.DictReader(f))) == maxload.MAX_COLUMNS
    assert report["maxima"][0]["paper_max_load"] == 0.63
    # The scenarios run are kept, as files a user can rerun.
    assert (tmp_path / "out" / "scenarios" / "w4-s1-60-s1.toml").is_file()
