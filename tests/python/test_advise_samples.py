"""`tailor advise` refuses, before anything runs, a scenario whose SLOs cannot be judged
for too few messages in their size range over the horizon (docs/advisor.md, "Too few
messages to judge"), unless --allow-unjudged; a scenario with enough horizon is searched."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import tailor
from tailor import _core
from tailor.advise import check_samples
from tailor.errors import ScenarioError
from tailor.scenario import Scenario

sys.path.insert(0, str(Path(__file__).parent))
from advise_scenario import two_classes  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FIVE = ROOT / "scenarios" / "swp" / "five-class.toml"


def _cli(*args: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tailor.cli", *map(str, args)], capture_output=True, text=True, timeout=600, cwd=cwd
    )


def test_five_class_is_refused_up_front_naming_each_slo_and_the_horizon_it_needs(tmp_path: Path) -> None:
    out = tmp_path / "store"
    p = _cli("advise", FIVE, "--min-capacity", "--out", out, cwd=tmp_path)
    assert p.returncode == 2, p.stdout + p.stderr
    assert "Traceback" not in p.stderr and p.stdout == ""
    err = p.stderr.strip()
    assert err.count("\n") == 0, "one line"
    assert err.startswith(f"error: {FIVE}: class[0].slo[1]: too few messages to judge 6 SLO(s)")
    # Each short range by class and size range, with the count expected, the count needed
    # and the until that would give it (the engine's estimate, _core.slo_counts).
    short = [e for e in json.loads(_core.slo_counts(str(FIVE))) if e["expected"] < e["needed"]]
    assert [(e["class"], e["slo_index"]) for e in short] == [("a", 1), ("b", 1), ("c", 1), ("d", 1), ("e", 0), ("e", 1)]
    for e in short:
        rng = "> 125 KB" if e["slo_index"] == 1 else "<= 125 KB"
        until = f'"{-(-e["until_needed_ns"] // 1e6):.0f}ms"'
        assert (
            f"class {e['class']}, p99 slowdown {rng}: {e['expected']:.1f} messages expected from 1.000 ms to "
            f"until at 21.000 ms, 100 needed (until = {until} would give them)"
        ) in err
    assert 3 <= min(e["expected"] for e in short) and max(e["expected"] for e in short if e["slo_index"]) <= 20
    assert 'until = "286ms" for all' in err and "--allow-unjudged" in err
    assert not out.exists(), "nothing written"


def test_the_estimate_counts_the_messages_the_engine_judges(tmp_path: Path) -> None:
    """The count the model's run judged per SLO (one seed) is near the estimate where it is
    large; every refused SLO is also not judged there."""
    a = tailor.advise(FIVE, min_capacity=True, disciplines=["fifo"], recheck=False)
    counts = {(v["class"], i): s for v in a.report["capacity"][0]["verdicts"] for i, s in enumerate(v["slo"])}
    for e in json.loads(_core.slo_counts(str(FIVE))):
        got = counts[(e["class"], e["slo_index"])]
        if e["expected"] > 1000:
            assert abs(got["count"] / e["expected"] - 1) < 0.25, (e, got)
        if e["expected"] < 20:
            assert got["met"] is None, "not judged on the model either"


def test_allow_unjudged_searches_and_enough_horizon_is_not_refused(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="too few messages to judge"):
        tailor.advise(FIVE, min_capacity=True, disciplines=["fifo"], recheck=False, allow_unjudged=False)
    # Until 290 ms every range expects its 100 messages: nothing to refuse.
    longer = tmp_path / "five-290.toml"
    longer.write_text(FIVE.read_text().replace('until = "21ms"', 'until = "290ms"'))
    check_samples(Scenario.load(longer))
    p = _cli("advise", FIVE, "--min-capacity", "-d", "fifo", "--no-recheck", "--allow-unjudged", "-q", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "not judged" in p.stdout
    # A scenario whose every SLO gets hundreds of messages is searched as it is.
    small = tmp_path / "small.toml"
    small.write_text(two_classes("samples-test", "5ms", above_bdp=False))
    p = _cli("advise", small, "--min-capacity", "-d", "fifo", "--no-recheck", "-q", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "least capacity meeting every SLO" in p.stdout
