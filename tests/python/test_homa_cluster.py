"""`tailor reproduce homa-cluster` (Homa Fig. 8/9, §5.1, simulated): the variants'
overrides, the claims' arithmetic, option errors, and the quick form on its smallest
setting through the command. The full form is in `make validate` (scripts/reproduce_homa.py)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
import tailor
from tailor.errors import OptionError
from tailor.reproduce import REPRODUCTIONS
from tailor.reproduce.homa import cluster
from tailor.reproduce.homa.buckets import BUCKETS

ROOT = Path(__file__).resolve().parents[2]


def reproduce(*args: str, timeout: int = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tailor.cli", "reproduce", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )


def test_the_variants_override_the_cluster_scenario(tmp_path: Path) -> None:
    assert cluster.parse_variants("P8, basic,p2") == ["homa", "p2", "basic"]
    for v in cluster.VARIANTS:
        p = cluster.write_scenario(cluster.ClusterPoint(v, "W3", 1, 5000), tmp_path, "test")
        t = tailor.Scenario.load(p).resolve()["document"]
        assert 'until = "5000us"' in t
        transport = t.split("[transport]")[1].split("[")[0]
        if v == "basic":
            assert "priority_levels = 1" in t and 'overcommitment = "unlimited"' in t
        elif v == "p1-authors":
            # The authors' run_workload.sh: degreeOC=4 on W3, 7 on W4 and W5.
            assert "priority_levels = 1" in transport and "overcommitment = 4" in transport
            p4 = cluster.write_scenario(cluster.ClusterPoint(v, "W4", 1, 5000), tmp_path, "test")
            assert "overcommitment = 7" in tailor.Scenario.load(p4).resolve()["document"].split("[transport]")[1]
        elif v != "homa":
            assert f"priority_levels = {v[1]}" in t and "overcommitment" not in t.split("[transport]")[1].split("[")[0]


def _rows(variant: str, p99: list[float], judged: bool = True) -> list[dict]:
    return [
        {
            "variant": variant,
            "workload": "W4",
            "size_upper_bytes": b,
            "count_percent": 25.0,
            "messages": 200,
            "judged": judged,
            "p99_slowdown": x,
            "median_slowdown": x / 2,
            "mean_slowdown": x / 2,
        }
        for b, x in zip((100, 200, 300, 400), p99, strict=True)
    ]


def test_the_claims_arithmetic() -> None:
    rows = (
        _rows("homa", [2.0, 2.5, 3.0, 9.0])
        + _rows("basic", [20.0, 25.0, 15.0, 18.0])
        + _rows("p4", [2.0, 2.5, 3.3, 9.0])
        + _rows("p2", [3.0, 3.75, 4.5, 9.0])
    )
    c = cluster.claims(rows, "W4")
    # The largest 1 % of RPCs: the last bucket ends at 100 %, so it is left out.
    assert c["homa_range"]["min"] == 2.0 and c["homa_range"]["max"] == 3.0 and c["homa_range"]["holds"]
    assert c["homa_range"]["buckets"] == 3
    assert c["basic"] == {"median": 7.5, "min": 2.0, "max": 10.0, "buckets": 4} and c["basic_holds"]
    assert c["p4"]["median"] == pytest.approx(1.0) and c["p2"]["median"] == pytest.approx(1.5)
    assert c["levels_holds"] and c["p1"] is None
    c = cluster.claims(_rows("homa", [1.9, 2.5, 3.6, 3.0]) + _rows("basic", [1.0] * 4, judged=False), "W4")
    assert not c["homa_range"]["holds"] and c["basic"] is None and c["basic_holds"] is None


@pytest.mark.parametrize(
    "args,named",
    [
        (["--workloads", "W1"], "--workloads: 'W1' has no cluster scenario"),
        (["--workloads", "W9"], "--workloads: unknown workload 'W9'"),
        (["--variants", "p3"], "--variants: unknown variant 'p3'; accepted: homa, p4, p2, p1, p1-authors, basic"),
        (["--variants", ","], "--variants: none given"),
        (["--seeds", "0"], "--seeds"),
    ],
)
def test_bad_options_exit_2_naming_the_option(tmp_path: Path, args: list[str], named: str) -> None:
    p = reproduce("homa-cluster", *args, "--out", str(tmp_path / "x"))
    assert p.returncode == 2 and named in p.stderr, p.stderr
    assert not (tmp_path / "x").exists()


def test_option_defaults() -> None:
    plan = REPRODUCTIONS["homa-cluster"].options(quick=True)
    assert plan.out == Path("runs") / "homa-cluster-quick"
    with pytest.raises(OptionError, match="--variants"):
        cluster.options(variants="tcp")


def test_quick_cluster_on_w3_through_the_command(tmp_path: Path) -> None:
    out = tmp_path / "cl"
    p = reproduce(
        "homa-cluster", "--quick", "--workloads", "W3", "--variants", "homa,p2,basic", "--seeds", "1", "--out", str(out)
    )
    assert p.returncode == 0, p.stderr
    with open(out / "cluster.csv") as f:
        assert (
            tuple(next(csv.reader(f)))
            == cluster.COLUMNS
            == (
                "variant",
                "workload",
                "size_upper_bytes",
                "count_percent",
                "mean_slowdown",
                "median_slowdown",
                "p99_slowdown",
                "messages",
            )
        )
    df = pl.read_csv(out / "cluster.csv")
    assert df["variant"].unique(maintain_order=True).to_list() == ["homa", "p2", "basic"]
    for v in ("homa", "p2", "basic"):
        d = df.filter(pl.col("variant") == v)
        assert d.height == len(BUCKETS["W3"]) and set(d["workload"]) == {"W3"}
        assert d["count_percent"].sum() == pytest.approx(100.0, abs=1e-6)
        summary = json.loads((out / "runs" / f"{v}-cluster-w3-80-s1" / "summary.json").read_text())
        assert d["messages"].sum() == summary["messages"]["completed"] > 100_000
        got = d.filter(pl.col("messages") > 0)
        assert got["p99_slowdown"].min() >= 1.0 and (got["p99_slowdown"] >= got["median_slowdown"]).all()
    # Basic's tail is far worse than Homa's on small RPCs, HomaP2 in between.
    small = df.filter(pl.col("size_upper_bytes") == 110).select("variant", "p99_slowdown").rows()
    homa, p2, basic = (x for _, x in small)
    assert homa < p2 < basic and basic / homa > 4
    assert 'overcommitment = "unlimited"' in (out / "scenarios" / "basic-cluster-w3-80.toml").read_text()
    assert (out / "cluster-W3.png").is_file()
    assert "W3 at 80 % load: p99 slowdown per RPC size" in p.stdout
    assert "Basic 5-15x worse tail than Homa" in p.stdout and "CPU and software queueing" in p.stdout
