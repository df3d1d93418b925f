"""Scenarios too large for the machine are refused as user errors, before anything is built."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import tailor
from tailor.errors import ScenarioError

# 65,536 racks of 16,384 hosts: 2^30 hosts, about 1.5 TB of ports, links and routes.
HUGE = """
[topology]
kind = "leaf_spine"
racks = 65536
hosts_per_rack = 16384
spines = 4
host_link = { rate = "100Gbps" }
fabric_link = { rate = "100Gbps" }
[transport]
kind = "raw"
[[class]]
name = "one"
sizes_fixed = "1KB"
arrival = "poisson"
load = 0.1
pattern = "n_to_1"
receiver = 0
messages = 20
"""


@pytest.mark.parametrize("command", ["check", "run"])
def test_a_topology_that_cannot_fit_exits_2_naming_the_key(tmp_path: Path, command: str) -> None:
    path = tmp_path / "huge.toml"
    path.write_text(HUGE)
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "tailor.cli",
            command,
            str(path),
            *(["--out", str(tmp_path / "out")] if command == "run" else []),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 2, p.stderr
    assert f"{path}: topology: 1073741824 hosts (2148007936 ports) need about" in p.stderr
    assert "this machine has" in p.stderr and "; accepted: about" in p.stderr
    assert "Traceback" not in p.stderr and not (tmp_path / "out").exists()


def test_the_python_api_raises_a_scenario_error(tmp_path: Path) -> None:
    path = tmp_path / "huge.toml"
    path.write_text(HUGE)
    with pytest.raises(ScenarioError, match="need about"):
        tailor.Scenario.load(path)
