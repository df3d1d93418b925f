"""The crosscheck machinery, on ns-3-format run directories made from tailor itself.

A run directory whose "ns-3" side is tailor's own result must compare at ratio 1.0 in
every bin and pass; one whose slowdowns are 25 % higher must fail; a parameter the
crosscheck does not understand must stop it with exit status 2 naming the key.
(`make validate` runs the real comparison against the ns-3 anchors.)
"""

from __future__ import annotations

import gzip
import json
import random
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
import tailor
from tailor.crosscheck import build_scenario, crosscheck_ns3
from tailor.errors import ScenarioError

PARAMS = {
    "senders": 4,
    "flows": 300,
    "load": 0.6,
    "arrival": "poisson",
    "sigma": 2.0,
    "seed": 1,
    "link_gbps": 100.0,
    "rtt_us": 10.0,
    "K_bytes": 100000,
    "buffer_bytes": 32000000,
    "init_cwnd_segments": 87,
    "max_cwnd_segments": 87,
    "mss_bytes": 1448,
    "header_bytes": 54,
    "del_ack_count": 1,
    "min_rto_us": 1000.0,
    "preconnect_us": 1000.0,
    "dctcp_g": 0.0625,
    "syn_window_cap": False,
    "flows_in": "",
}
EDGES = [0, 10_000, 100_000, 1_000_000, 30_000_000]


def _gz(path: Path, text: str) -> None:
    with gzip.open(path, "wt") as f:
        f.write(text)


@pytest.fixture(scope="module")
def fake_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An ns-3-format run directory whose flows.csv is tailor's own replay of it."""
    d = tmp_path_factory.mktemp("ns3run")
    rng = random.Random(5)
    t, rows = 1_000_000, ["flow_id,sender,size_bytes,start_ns"]
    for i in range(PARAMS["flows"]):
        t += int(rng.expovariate(1 / 20_000))
        rows.append(f"{i},{rng.randrange(4)},{rng.choice([500, 5_000, 50_000, 500_000])},{t}")
    _gz(d / "workload.csv.gz", "\n".join(rows) + "\n")
    bins = [{"lower_bytes": lo, "upper_bytes": hi} for lo, hi in zip(EDGES, EDGES[1:], strict=False)]
    summary = {"params": PARAMS, "bins": bins, "network": {}}
    (d / "summary.json").write_text(json.dumps(summary))
    work = tmp_path_factory.mktemp("replay")
    (work / "workload.csv").write_text("\n".join(rows) + "\n")
    text, kind = build_scenario(d, work / "workload.csv")
    assert kind == "single"
    (work / "scenario.toml").write_text(text)
    res = tailor.run(work / "scenario.toml", out=work / "out")
    m = res.messages.sort("id")
    flows = m.select(
        pl.col("id").alias("flow_id"),
        pl.col("src").alias("sender"),
        pl.col("size_bytes"),
        pl.col("start_ns"),
        (pl.col("finish_ns") - pl.col("start_ns")).alias("fct_ns"),
        pl.col("ideal_ns"),
        ((pl.col("finish_ns") - pl.col("start_ns")) / pl.col("ideal_ns")).alias("slowdown"),
    )
    _gz(d / "flows.csv.gz", flows.write_csv())
    net = res.summary["network"]
    summary["network"] = {
        k: net[k]
        for k in (
            "ecn_marks",
            "drops",
            "max_queue_bytes",
            "mean_queue_bytes",
            "utilization",
            "max_host_nic_queue_bytes",
        )
    }
    (d / "summary.json").write_text(json.dumps(summary))
    return d


def test_same_simulator_on_both_sides_compares_at_ratio_one(fake_run: Path, tmp_path: Path) -> None:
    report = crosscheck_ns3(fake_run, out=tmp_path / "cc")
    assert report["pass"]
    assert report["flows"]["compared"] == PARAMS["flows"]
    assert report["max_ideal_difference"] == 0
    judged = [b for b in report["bins"] if b["count"]]
    assert sum(b["count"] for b in judged) == PARAMS["flows"]
    for b in judged:
        assert b["mean_ratio"] == pytest.approx(1.0, rel=1e-6)
        assert b["p99_ratio"] == pytest.approx(1.0, rel=1e-6)


def test_slower_reference_fails_with_exit_status_1(fake_run: Path, tmp_path: Path) -> None:
    slow = tmp_path / "slow"
    slow.mkdir()
    (slow / "summary.json").write_text((fake_run / "summary.json").read_text())
    (slow / "workload.csv.gz").write_bytes((fake_run / "workload.csv.gz").read_bytes())
    with gzip.open(fake_run / "flows.csv.gz", "rb") as f:
        flows = pl.read_csv(f.read()).with_columns(pl.col("slowdown") * 1.25)
    _gz(slow / "flows.csv.gz", flows.write_csv())
    report = crosscheck_ns3(slow, out=tmp_path / "cc")
    assert not report["pass"] and report["misses"]
    # The plot written beside the replay: ns-3's curves 25 % above tailor's in both panels.
    assert report["plots"] == [str(tmp_path / "cc" / "crosscheck.png"), str(tmp_path / "cc" / "crosscheck.svg")]
    assert (tmp_path / "cc" / "crosscheck.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    from tailor.figures import crosscheck_figure

    for ax in crosscheck_figure(report).axes:
        lines = {ln.get_label(): ln.get_ydata() for ln in ax.get_lines()}
        assert list(lines["ns-3"]) == pytest.approx([1.25 * v for v in lines["tailor"]], rel=1e-6)
    p = subprocess.run(
        [sys.executable, "-m", "tailor", "crosscheck", "ns3", str(slow), "--json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )  # it writes runs/crosscheck-slow there
    assert p.returncode == 1, p.stderr
    assert json.loads(p.stdout)["pass"] is False


def test_unknown_parameter_is_refused_naming_it(fake_run: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    s = json.loads((fake_run / "summary.json").read_text())
    s["params"]["pacing"] = True
    (bad / "summary.json").write_text(json.dumps(s))
    for f in ("workload.csv.gz", "flows.csv.gz"):
        (bad / f).write_bytes((fake_run / f).read_bytes())
    p = subprocess.run([sys.executable, "-m", "tailor", "crosscheck", "ns3", str(bad)], capture_output=True, text=True)
    assert p.returncode == 2
    assert "params.pacing" in p.stderr and "unknown parameter" in p.stderr


@pytest.mark.parametrize("missing", ["dir", "summary.json"])
def test_a_missing_run_names_it_once(tmp_path: Path, missing: str) -> None:
    run = tmp_path / "run"
    if missing != "dir":
        run.mkdir()
    with pytest.raises(ScenarioError) as e:
        crosscheck_ns3(run, out=tmp_path / "cc")
    assert str(e.value).count(str(run)) == 1, str(e.value)
    assert ("no such directory" if missing == "dir" else "summary.json is missing") in str(e.value)
    assert "accepted: an ns-3 anchor run directory" in str(e.value)
