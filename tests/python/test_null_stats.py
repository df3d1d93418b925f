"""Statistics of no samples are null in summary.json, and every reader shows "–" or skips
them instead of a 0.00 that reads as a perfect slowdown."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
import tailor
from rich.console import Console
from tailor.compare import render
from tailor.report import run_report
from tailor.store import _rows

# Class "early" sends 2 messages in its first microseconds, all inside the 1 ms warm-up:
# only the run can tell (a `messages = N` class has no end time), so the run succeeds and
# the class's statistics are null; "late" starts after the warm-up and is summarised.
SCENARIO = """
name = "nulls"
[run]
warmup = "1ms"
[topology]
kind = "star"
hosts = 4
link = { rate = "10Gbps", delay = "1us" }
[transport]
kind = "dctcp"
[[class]]
name = "early"
sizes_fixed = "1KB"
arrival = "poisson"
load = 0.1
pattern = "n_to_1"
receiver = 3
messages = 2
[[class]]
name = "late"
sizes_fixed = "1KB"
arrival = "poisson"
load = 0.1
pattern = "n_to_1"
receiver = 3
messages = 20
start = "1ms"
"""


@pytest.fixture(scope="module")
def nulls(tmp_path_factory: pytest.TempPathFactory) -> tailor.Result:
    d = tmp_path_factory.mktemp("nulls")
    (d / "nulls.toml").write_text(SCENARIO)
    return tailor.run(d / "nulls.toml", out=d / "run")


def _text(renderable: object) -> str:
    out = io.StringIO()
    Console(file=out, width=200).print(renderable)
    return out.getvalue()


def test_summary_writes_null_not_zero(nulls: tailor.Result) -> None:
    raw = json.loads((nulls.dir / "summary.json").read_text())
    early = raw["classes"]["early"]
    assert early["slowdown"]["count"] == 0
    assert all(early["slowdown"][k] is None for k in ("mean", "p50", "p90", "p99", "p999", "max")), early
    assert all(b["p99"] is None and b["mean"] is None for b in early["bins"] if b["count"] == 0)
    assert raw["classes"]["late"]["slowdown"]["p99"] >= 1.0
    assert raw["messages"]["warmup_excluded"] >= 2


def test_the_run_table_shows_a_dash(nulls: tailor.Result) -> None:
    lines = [ln for ln in _text(nulls.table()).splitlines() if "all sizes" in ln]
    assert len(lines) == 3, lines  # early, late, all
    assert "–" in lines[0] and "0.00" not in lines[0], lines[0]
    assert "–" not in lines[1]


def test_the_html_report_shows_a_dash(nulls: tailor.Result, tmp_path: Path) -> None:
    page = run_report(nulls, tmp_path / "report").read_text()
    early = page[page.index('data-class="early"') : page.index('data-class="late"')]
    assert "–" in early and "0.00" not in early


def test_the_store_skips_statistics_of_nothing(nulls: tailor.Result) -> None:
    rows = _rows("p", nulls.summary)
    assert rows.filter(rows["class"] == "early").height == 0
    assert rows.filter(rows["class"] == "late").height > 0
    assert rows["value"].null_count() == 0


def test_compare_renders_a_bin_one_engine_left_empty() -> None:
    row = {
        "size": "(0 B, 1 KB]",
        "kind": "short",
        "count": 200,
        "judged": [],
        "misses": [],
        "packet": {"mean": 1.5, "p99": 3.0},
        "model": {"mean": None, "p99": None},
        "mean_error": None,
        "p99_error": None,
    }
    report = {
        "scenario": "s",
        "seed": 1,
        "bdp_bytes": 1e5,
        "classes": {"a": {"bins": [row]}},
        "messages": {"identical": True, "packet": {"generated": 200}},
        "wall_seconds": {"packet": 1.0, "model": 0.01, "speedup": 100.0},
        "targets": {"short_p99": 0.2, "long_mean": 0.2, "min_flows": 100},
        "pass": True,
        "misses": [],
    }
    out = io.StringIO()
    render(report, Console(file=out, width=200))
    line = next(ln for ln in out.getvalue().splitlines() if "(0 B, 1 KB]" in ln)
    assert "–" in line and "3.00" in line


def test_cli_run_prints_a_dash(nulls: tailor.Result, tmp_path: Path) -> None:
    scenario = tmp_path / "nulls.toml"
    scenario.write_text(SCENARIO)
    cli = [sys.executable, "-m", "tailor", "run", str(scenario), "--out", str(tmp_path / "r"), "--quiet"]
    done = subprocess.run(cli, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    early = next(ln for ln in done.stdout.splitlines() if "all sizes" in ln)
    assert "–" in early, done.stdout
