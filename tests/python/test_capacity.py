"""Where a run runs out of memory (docs/scenario.md, "Memory"; docs/performance.md, "Where
tailor runs out"): ``tailor check`` says what the packet engine would need; ``tailor run``
refuses a run estimated over its limit and stops one that grows over it while running,
each with one line, exit status 2 and nothing written. The estimate's accuracy and the
engine's guard are tested in Rust (crates/tailor/tests/capacity.rs).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import tailor

# A trace, whose rate the estimate does not count (its guard holds it): 300 raw messages
# of 4 MB, all at once, from 8 hosts, so the senders' NICs hold about 110 MB of packets.
INCAST = """
[topology]
kind = "star"
hosts = 9
link = { rate = "100Gbps", delay = "1us" }
[transport]
kind = "raw"
[[class]]
name = "burst"
trace = "burst.csv"
"""


def _tailor(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tailor", *args], capture_output=True, text=True, cwd=cwd)


@pytest.fixture
def incast(tmp_path: Path) -> Path:
    rows = "\n".join(f"{i},{i % 8},8,4000000,{1000 + i}" for i in range(300))
    (tmp_path / "burst.csv").write_text("flow_id,sender,receiver,size_bytes,start_ns\n" + rows + "\n")
    path = tmp_path / "incast.toml"
    path.write_text(INCAST)
    return path


def test_check_says_what_the_packet_engine_would_need(quickstart: Path) -> None:
    p = _tailor(quickstart.parent, "check", str(quickstart))
    assert p.returncode == 0, p.stderr
    line = next(x for x in p.stdout.splitlines() if x.startswith("packet engine memory: about "))
    assert "fabric " in line and "messages active at once" in line and "no [run] memory_limit" in line, line
    info = tailor.Scenario.load(quickstart).info["memory"]
    assert info["total_bytes"] == info["fabric_bytes"] + info["in_flight_bytes"] > 0


def test_a_run_estimated_over_its_limit_is_refused(quickstart: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    p = _tailor(tmp_path, "run", str(quickstart), "--memory-limit", "2MB", "--out", str(out), "--quiet")
    assert p.returncode == 2 and p.stdout == "" and not out.exists(), p.stderr
    assert len(p.stderr.splitlines()) == 1, p.stderr
    for says in ("run.memory_limit: the packet engine would need about", "over the limit of 2.0 MB", "accepted: "):
        assert says in p.stderr, p.stderr


def test_a_run_that_grows_over_its_limit_is_stopped(incast: Path, tmp_path: Path) -> None:
    # What the process holds before the run (as the refusal reports it), then a limit
    # 30 MB above it: the estimate fits, the 110 MB of packets do not.
    p = _tailor(tmp_path, "run", str(incast), "--memory-limit", "1MB", "--quiet", "--out", str(tmp_path / "a"))
    held = re.search(r"the process holds ([0-9.]+) MB already", p.stderr)
    assert p.returncode == 2 and held, p.stderr
    limit = f"{float(held.group(1)) + 30:.0f}MB"
    out = tmp_path / "out"
    p = _tailor(tmp_path, "run", str(incast), "--memory-limit", limit, "--quiet", "--out", str(out))
    assert p.returncode == 2 and not out.exists(), p.stderr
    assert p.stderr.startswith("error: the run was stopped at "), p.stderr
    assert "over its limit of" in p.stderr and "([run] memory_limit)" in p.stderr, p.stderr
    assert re.search(r"with [1-9][0-9]* messages active and [1-9][0-9]* packets queued", p.stderr), p.stderr
    assert len(p.stderr.splitlines()) == 1, p.stderr
    # Without the limit the same run completes.
    done = _tailor(tmp_path, "run", str(incast), "--quiet", "--out", str(tmp_path / "free"))
    assert done.returncode == 0, done.stderr


def test_the_api_raises_memory_exceeded(incast: Path, tmp_path: Path) -> None:
    sc = tailor.Scenario.load(incast)
    with pytest.raises(tailor.errors.ScenarioError) as refused:
        tailor.run(sc.with_({"run.memory_limit": "1MB"}), out=tmp_path / "a")
    held = re.search(r"the process holds ([0-9.]+) MB already", str(refused.value))
    assert held, refused.value
    limit = f"{float(held.group(1)) + 30:.0f}MB"
    with pytest.raises(tailor.errors.MemoryExceeded) as e:
        tailor.run(sc.with_({"run.memory_limit": limit}), out=tmp_path / "out")
    assert e.value.used > e.value.limit and e.value.active > 0 and e.value.queued > 0, e.value
    assert not (tmp_path / "out").exists()
