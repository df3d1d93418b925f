"""`tailor compare`: both engines on the same flows, per size bin, against the targets.

A small web-search scenario (1,500 flows, both engines in about two seconds) run once
per module; the tests check the report against the two result directories it came from, and
that doctored results (slowdowns 25 % off, a message missing) fail the verdict.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tailor.compare import LONG_MEAN_TOLERANCE, MIN_FLOWS, SHORT_P99_TOLERANCE, compare, compare_results
from tailor.result import Result

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    text = (ROOT / "scenarios" / "swp" / "websearch-30.toml").read_text()
    text = re.sub(r"messages = \d+", "messages = 1500", text)
    path = tmp_path_factory.mktemp("sc") / "small.toml"
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def report(small: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    out = tmp_path_factory.mktemp("cmp") / "both"
    return compare(small, out=out), out


def _bins(result: Result) -> list[dict]:
    return [b for b in result.summary["classes"]["websearch"]["bins"] if b["count"] > 0]


def test_both_engines_saw_the_same_messages(report: tuple[dict, Path]) -> None:
    r, out = report
    m = r["messages"]
    assert m["identical"]
    assert m["packet"]["generated"] == m["model"]["generated"] == 1500
    assert m["only_packet"] == m["only_model"] == 0
    ids = ["class", "src", "dst", "size_bytes", "start_ns"]
    p = Result(out / "packet").messages.select(ids).sort(ids)
    q = Result(out / "model").messages.select(ids).sort(ids)
    assert p.equals(q)


def test_every_bin_of_the_summaries_is_reported_with_errors_from_the_two_summaries(report: tuple[dict, Path]) -> None:
    r, out = report
    rows = r["classes"]["websearch"]["bins"]
    pb, mb = _bins(Result(out / "packet")), _bins(Result(out / "model"))
    assert [(b["lower_bytes"], b["upper_bytes"]) for b in rows] == [(b["lower_bytes"], b["upper_bytes"]) for b in pb]
    assert sum(b["count"] for b in rows) == 1500
    for row, p, m in zip(rows, pb, mb, strict=True):
        assert row["count"] == p["count"] == m["count"]
        assert row["packet"] == {"mean": p["mean"], "p99": p["p99"]}
        assert row["model"] == {"mean": m["mean"], "p99": m["p99"]}
        assert row["mean_error"] == pytest.approx(m["mean"] / p["mean"] - 1, rel=1e-12)
        assert row["p99_error"] == pytest.approx(m["p99"] / p["p99"] - 1, rel=1e-12)


def test_bins_are_short_long_or_mixed_by_the_models_bdp(report: tuple[dict, Path]) -> None:
    r, _ = report
    assert r["bdp_bytes"] == pytest.approx(125_000)
    for b in r["classes"]["websearch"]["bins"]:
        hi = b["upper_bytes"]
        expected = "short" if hi <= 125_000 else "long" if b["lower_bytes"] >= 125_000 else "mixed"
        assert b["kind"] == expected
        judged = b["count"] >= MIN_FLOWS
        assert bool(b["judged"]) == judged
        if judged and b["kind"] == "short":
            assert (abs(b["p99_error"]) > SHORT_P99_TOLERANCE) == bool(b["misses"])
        if judged and b["kind"] == "long":
            assert (abs(b["mean_error"]) > LONG_MEAN_TOLERANCE) == bool(b["misses"])
    assert r["pass"] == (not r["misses"])


def _doctored(src: Path, dst: Path, scale: float) -> Result:
    shutil.copytree(src, dst)
    s = json.loads((dst / "summary.json").read_text())
    for b in s["classes"]["websearch"]["bins"]:
        b["mean"] *= scale
        b["p99"] *= scale
    (dst / "summary.json").write_text(json.dumps(s))
    return Result(dst)


def test_a_model_25_percent_off_misses_every_judged_bin(report: tuple[dict, Path], tmp_path: Path) -> None:
    _, out = report
    packet = Result(out / "packet")
    # The packet engine against itself, labelled as a model run: every error is exactly 0.
    _doctored(out / "packet", tmp_path / "same", 1.0)
    s = json.loads((tmp_path / "same" / "summary.json").read_text())
    s["engine"], s["model"] = "model", Result(out / "model").summary["model"]
    (tmp_path / "same" / "summary.json").write_text(json.dumps(s))
    r = compare_results(packet, Result(tmp_path / "same"))
    assert r["pass"] and all(b["mean_error"] == 0 and b["p99_error"] == 0 for b in r["classes"]["websearch"]["bins"])
    off = _doctored(tmp_path / "same", tmp_path / "off", 1.25)
    r = compare_results(packet, off)
    assert not r["pass"]
    judged = [b for b in r["classes"]["websearch"]["bins"] if b["judged"]]
    assert {b["kind"] for b in judged} >= {"short", "long"}
    assert all(b["misses"] for b in judged)


def test_a_missing_message_is_caught(report: tuple[dict, Path], tmp_path: Path) -> None:
    _, out = report
    shutil.copytree(out / "model", tmp_path / "m")
    m = Result(tmp_path / "m").messages
    m.slice(1).write_parquet(tmp_path / "m" / "messages.parquet")
    r = compare_results(Result(out / "packet"), Result(tmp_path / "m"))
    assert not r["messages"]["identical"]
    assert r["messages"]["only_packet"] == 1
    assert not r["pass"] and "the engines did not see the same messages" in r["misses"]


def test_cli_prints_json_and_exits_by_the_verdict(small: Path) -> None:
    p = subprocess.run(
        [sys.executable, "-m", "tailor", "compare", str(small), "--json"], capture_output=True, text=True
    )
    assert p.returncode in (0, 1), p.stderr
    r = json.loads(p.stdout)
    assert p.returncode == (0 if r["pass"] else 1)
    assert r["messages"]["identical"] and r["classes"]["websearch"]["bins"]


def test_cli_bad_scenario_exits_2_naming_the_key(bad_scenario: Path) -> None:
    p = subprocess.run([sys.executable, "-m", "tailor", "compare", str(bad_scenario)], capture_output=True, text=True)
    assert p.returncode == 2
    assert str(bad_scenario) in p.stderr and "transport.knd" in p.stderr


def test_cli_refuses_a_scenario_outside_the_models_scope_before_running(quickstart: Path, tmp_path: Path) -> None:
    """quickstart's all-to-all RPCs have no one bottleneck: nothing to compare the model on."""
    out = tmp_path / "cmp"
    p = subprocess.run(
        [sys.executable, "-m", "tailor", "compare", str(quickstart), "--out", str(out)], capture_output=True, text=True
    )
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith(
        f'error: {quickstart}: class[1].pattern: "all_to_all" spreads traffic over many links'
    ), p.stderr
    assert "Traceback" not in p.stderr
    assert not out.exists(), "nothing written: the packet engine did not run"
