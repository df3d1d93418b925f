"""`tailor check` refuses what `tailor run` refuses, with the same one-line error and exit
status 2: traces read whole, scenarios that would summarise nothing; a run that turns out
to summarise nothing fails the same way and leaves no result directory."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HEAD = """
[topology]
kind = "star"
hosts = 4
link = { rate = "10Gbps", delay = "1us" }
[transport]
kind = "dctcp"
"""

GENERATED = """
[[class]]
name = "a"
sizes_fixed = "1KB"
arrival = "poisson"
load = 0.1
pattern = "n_to_1"
receiver = 3
"""


def _tailor(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tailor", *args], capture_output=True, text=True)


def _both(path: Path, out: Path) -> list[str]:
    """check's and run's stderr, after asserting both exit 2 and run wrote nothing."""
    errors = []
    for args in (("check", str(path)), ("run", str(path), "--out", str(out), "--quiet")):
        done = _tailor(*args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr
        errors.append(done.stderr.strip())
    assert not out.exists()
    return errors


@pytest.mark.parametrize(
    ("rows", "where"),
    [
        ("1,0,1,10,99\n", "line 3, start_ns: 99 is before the previous row's 100"),
        ("1,0,1,10,-1\n", "line 3, start_ns: '-1' is not a non-negative integer"),
        ("1,7,1,10,200\n", "line 3, sender: 7 is not a host; accepted: 0 to 3"),
        ("1,1,1,10,200\n", "line 3, receiver: sender and receiver are both host 1"),
        ("1,0,1,0,200\n", "line 3, size_bytes: 0 bytes; accepted: 1 or more"),
        ("1,0,1\n", "line 3: 3 fields; accepted: 5"),
        ("0,0,1,10,200\n", "line 3, flow_id: 0 repeats line 2's"),
    ],
)
def test_check_reads_traces_as_run_does(tmp_path: Path, rows: str, where: str) -> None:
    trace = tmp_path / "t.csv"
    trace.write_text("flow_id,sender,receiver,size_bytes,start_ns\n0,0,1,10,100\n" + rows)
    path = tmp_path / "s.toml"
    path.write_text(HEAD + '[[class]]\nname = "t"\ntrace = "t.csv"\n')
    check, run = _both(path, tmp_path / "out")
    assert check == run, (check, run)
    assert check.startswith(f"error: {trace}: {where}"), check


@pytest.mark.parametrize(
    ("extra", "where"),
    [
        ('until = "1ms"\nstart = "2ms"\n', "class[0].until"),
        ('messages = 5\n[run]\nstop = "0ns"\n', "run.stop"),
        ('messages = 5\n[run]\nstop = "1ms"\nwarmup = "2ms"\n', "run.warmup"),
        ('until = "1ms"\n[run]\nwarmup = "2ms"\n', "class[0].until"),
    ],
)
def test_check_refuses_a_scenario_that_summarises_nothing(tmp_path: Path, extra: str, where: str) -> None:
    path = tmp_path / "s.toml"
    path.write_text(HEAD + GENERATED + extra)
    check, run = _both(path, tmp_path / "out")
    assert check == run and check.startswith(f"error: {path}: {where}: ") and "; accepted: " in check, check


def test_an_empty_trace_is_refused(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text("flow_id,sender,receiver,size_bytes,start_ns\n")
    path = tmp_path / "s.toml"
    path.write_text(HEAD + '[[class]]\nname = "t"\ntrace = "t.csv"\n')
    check, _ = _both(path, tmp_path / "out")
    assert f"{path}: class[0].trace: " in check and "t.csv has no rows" in check, check


def test_a_run_that_summarises_nothing_fails_without_a_result(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(HEAD + GENERATED + 'messages = 5\n[run]\nwarmup = "1s"\n')
    assert _tailor("check", str(path)).returncode == 0  # only the run can tell
    done = _tailor("run", str(path), "--out", str(tmp_path / "out"), "--quiet")
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"error: {path}: run.warmup: all 5 messages that completed started inside"), (
        done.stderr
    )
    assert not (tmp_path / "out").exists()
