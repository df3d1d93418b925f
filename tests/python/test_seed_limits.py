"""One seed range everywhere: 0 to 2^63 - 1, what a scenario file (a TOML integer) holds.
Each way of giving a seed accepts 2^63 - 1 and refuses 2^63 with exit status 2 or a
tailor.errors exception (docs/scenario.md, "Seeds")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import tailor
from tailor.errors import OptionError, ScenarioError, SweepError

TOP = 2**63 - 1

SMALL = """
name = "tiny"
seed = {seed}
[topology]
kind = "star"
hosts = 3
link = {{ rate = "10Gbps", delay = "1us" }}
[transport]
kind = "dctcp"
[[class]]
name = "a"
sizes_fixed = "1KB"
arrival = "poisson"
load = 0.1
pattern = "n_to_1"
receiver = 2
messages = 5
"""


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text(SMALL.format(seed=1))
    return path


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tailor", *args], capture_output=True, text=True)


def test_the_cli_takes_seeds_up_to_2_63_minus_1(tiny: Path, tmp_path: Path) -> None:
    done = _cli("run", str(tiny), "--seed", str(TOP), "--out", str(tmp_path / "top"), "--quiet")
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "top" / "summary.json").read_text())["seed"] == TOP
    for command in ("run", "compare", "advise"):
        done = _cli(command, str(tiny), "--seed", str(TOP + 1))
        assert done.returncode == 2, (command, done.stderr)
        assert "--seed" in done.stderr and str(TOP) in done.stderr, (command, done.stderr)


def test_a_file_holds_seeds_up_to_2_63_minus_1(tmp_path: Path) -> None:
    path = tmp_path / "top.toml"
    path.write_text(SMALL.format(seed=TOP))
    assert tailor.Scenario.load(path).seed == TOP
    path.write_text(SMALL.format(seed=TOP + 1))
    done = _cli("check", str(path))
    assert done.returncode == 2 and "top.toml" in done.stderr, done.stderr


def test_sweep_axes_hold_seeds_up_to_2_63_minus_1(tiny: Path, tmp_path: Path) -> None:
    done = _cli("sweep", str(tiny), "--set", f"seed={TOP}", "--out", str(tmp_path / "s"), "--dry-run")
    assert done.returncode == 0, done.stderr
    assert str(TOP) in done.stdout
    done = _cli("sweep", str(tiny), "--set", f"seed={TOP + 1}", "--out", str(tmp_path / "s2"), "--dry-run")
    assert done.returncode == 2 and "seed" in done.stderr, done.stderr
    with pytest.raises(SweepError, match="2\\^63 - 1"):
        tailor.sweep(tiny, seed=[TOP + 1], out=tmp_path / "s3")


def test_the_python_api_holds_seeds_to_2_63_minus_1(tiny: Path, tmp_path: Path) -> None:
    r = tailor.run(tiny, seed=TOP, out=tmp_path / "top")
    assert r.summary["seed"] == TOP
    with pytest.raises(OptionError, match="2\\^63 - 1") as e:
        tailor.run(tiny, seed=TOP + 1, out=tmp_path / "over")
    assert str(TOP) in str(e.value)
    assert not (tmp_path / "over").exists()
    with pytest.raises(OptionError, match="2\\^63 - 1"):
        tailor.advise(tiny, seed=TOP + 1)
    with pytest.raises(ScenarioError, match="2\\^63 - 1"):
        tailor.Scenario.load(tiny).with_(seed=TOP + 1).describe()
    assert tailor.Scenario.load(tiny).with_(seed=TOP).seed == TOP
