"""The reproductions' scenario generators and argument checks (the runs themselves are in
`make validate`)."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

import tailor
from tailor.reproduce import swp_capacity, swp_fig1


@pytest.mark.parametrize("n_classes,lo,hi", [(3, 5.0, 10.0), (5, 3.0, 6.0)])
def test_random_scenarios_follow_table_4_and_are_valid(tmp_path: Path, n_classes: int, lo: float, hi: float) -> None:
    a = [swp_capacity.draw(random.Random(7), i, n_classes, "3ms") for i in range(4)]
    rng = random.Random(7)
    b = [swp_capacity.draw(rng, i, n_classes, "3ms") for i in range(4)]
    rng2 = random.Random(7)
    c = [swp_capacity.draw(rng2, i, n_classes, "3ms") for i in range(4)]
    assert [x[0].toml() for x in b] == [x[0].toml() for x in c], "same seed, same scenarios"
    assert a[0][0].toml() == b[0][0].toml()
    assert len({x[0].toml() for x in b}) == 4, "each draw differs"
    for sc, params in b:
        assert len(params) == n_classes
        for p in params:
            assert p["sizes"] in ("google", "hadoop", "alistorage")
            assert 1.0 <= p["sigma"] <= 2.0 and lo <= p["rate_gbps"] <= hi and 3.0 <= p["slo"] <= 8.0
        path = tmp_path / f"{sc.name}.toml"
        path.write_text(sc.toml())
        info = tailor.check(path)
        assert info["classes"] == [f"c{k}" for k in range(n_classes)]


def test_fig1_scenarios_give_the_foreground_its_weight(tmp_path: Path) -> None:
    sc = swp_fig1.scenario("weight", 0.5, swp_fig1.Setup(transport="dctcp"), {"weight": 0.3})
    text = sc.toml()
    assert "weight = 0.3\n" in text and "weight = 0.7\n" in text and 'scheduler = "drr"' in text
    path = tmp_path / "f.toml"
    path.write_text(text)
    assert tailor.check(path)["classes"] == ["fg", "bg"]
    pr = swp_fig1.scenario("priority", 0.5, swp_fig1.Setup(transport="dctcp"), {})
    assert "priority = 0" in pr.toml() and "priority = 1" in pr.toml()


def test_capacity_summary_means_per_scenario_ratios() -> None:
    rows = [
        {"capacity_gbps": {"fifo": 30.0, "drr": 20.0, "hierarchical": 15.0, "static": 40.0}, "tight_bursty": True,
         "found": {}, "packet": {"drr": {"met": 5, "of": 6}}},
        {"capacity_gbps": {"fifo": 20.0, "drr": 20.0, "hierarchical": 10.0, "static": 20.0}, "tight_bursty": False,
         "found": {}, "packet": {}},
    ]
    for r in rows:
        r["found"] = {s: True for s in swp_capacity.STRATEGIES}
    s = swp_capacity.summarize(rows)
    assert s["fifo_vs_drr"] == pytest.approx(25.0)  # mean of +50 % and +0 %
    assert s["fifo_vs_fq"] == pytest.approx(100.0)  # mean of +100 % and +100 %
    assert s["fifo_vs_drr_tight_bursty"] == pytest.approx(50.0) and s["tight_bursty_scenarios"] == 1
    assert s["packet_slos_met"] == pytest.approx(5 / 6)


def test_reproduce_rejects_bad_arguments() -> None:
    p = subprocess.run(
        [sys.executable, "-m", "tailor.cli", "reproduce", "swp-capacity", "--classes", "4"],
        capture_output=True, text=True, timeout=60,
    )
    assert p.returncode == 2 and "accepted: 3, 5" in p.stderr
