"""A run that makes no progress stops with one line and exit status 2 (the engine's
watchdog, ``crates/tailor/src/engine/stall.rs``; docs/scenario.md, "A run that makes no
progress"), instead of spinning until it is killed.

The livelock: pFabric's senders resend every packet into a class queue limited to 1 byte,
which drops them all. The watchdog stops it after its default 50 million events (some
seconds).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

LIVELOCK = """
[topology]
kind = "star"
hosts = 4
link = { rate = "100Gbps", delay = "1us" }
[switch]
scheduler = "rank"
overflow = "evict"
[host]
nic_depth = 0
[transport]
kind = "pfabric"
[[class]]
name = "a"
sizes_fixed = "10KB"
arrival = "poisson"
load = 0.5
pattern = "all_to_all"
messages = 20
queue_limit = "1B"
"""


def test_a_run_that_makes_no_progress_stops_with_one_line_and_status_2(tmp_path: Path) -> None:
    scenario = tmp_path / "livelock.toml"
    scenario.write_text(LIVELOCK)
    out = tmp_path / "out"
    p = subprocess.run(
        [sys.executable, "-m", "tailor.cli", "run", str(scenario), "--out", str(out), "--quiet"],
        capture_output=True, text=True, timeout=540,
    )
    assert p.returncode == 2, p.stderr
    assert "Traceback" not in p.stderr
    errors = [line for line in p.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, p.stderr
    line = errors[0]
    assert line.startswith("error: the run made no progress: no message completed and no payload byte arrived"), line
    assert "with 20 messages active" in line and "likely cause: packets are dropped" in line, line
    assert not out.exists(), "nothing is written for a run that made no progress"


def test_the_python_api_raises_stalled_with_the_stretch_as_data(tmp_path: Path) -> None:
    import tailor
    from tailor.errors import Stalled, TailorError

    scenario = tmp_path / "livelock.toml"
    scenario.write_text(LIVELOCK)
    with pytest.raises(Stalled) as caught:
        tailor.run(scenario, out=tmp_path / "out")
    e = caught.value
    assert isinstance(e, TailorError)
    assert e.active == 20 and e.events >= 50_000_000 and e.at_s - e.since_s >= 0.1
    assert str(e) == e.message and "likely cause: packets are dropped" in e.message
    assert not (tmp_path / "out").exists()
