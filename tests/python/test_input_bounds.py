"""Inputs that used to lead a command astray are refused by every command with the one
error line and exit status 2: a scenario name leading out of `runs/`, a misspelled trace
column, a special file; and reading a large legal trace lets Python's signal handlers
run, so Ctrl-C and SIGTERM are not held off until the whole file is read."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
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

CLASS = """
[[class]]
name = "a"
sizes_fixed = "1KB"
arrival = "poisson"
load = 0.1
pattern = "n_to_1"
receiver = 3
messages = 20
"""


def _tailor(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tailor", *args], capture_output=True, text=True, cwd=cwd)


def _tree(root: Path) -> set[Path]:
    return {p.relative_to(root) for p in root.rglob("*")}


@pytest.mark.parametrize("name", ["../../x", "/abs/x", "a\\\\b", ".."])
def test_a_name_that_leads_out_of_runs_is_refused_by_every_command(tmp_path: Path, name: str) -> None:
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    path = work / "s.toml"
    path.write_text(f'name = "{name}"\n' + HEAD + CLASS)
    before = _tree(tmp_path)
    for args in (
        ("check", "s.toml"),
        ("run", "s.toml", "--quiet"),
        ("sweep", "s.toml", "--set", "load=0.1,0.2", "--quiet"),
        ("advise", "s.toml"),
    ):
        done = _tailor(work, *args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr, (args, done.stderr)
        line = done.stderr.strip()
        assert line.startswith("error: s.toml: name: ") and "; accepted: a name without" in line, (args, line)
    assert _tree(tmp_path) == before, "nothing is written, inside runs/ or out of it"


def test_a_misspelled_trace_column_is_refused_not_ignored(tmp_path: Path) -> None:
    trace = tmp_path / "t.csv"
    trace.write_text("flow_id,sender,reciever,size_bytes,start_ns\n0,0,1,1000,100\n")
    path = tmp_path / "s.toml"
    path.write_text(HEAD + '[[class]]\nname = "t"\ntrace = "t.csv"\nreceiver = 3\n')
    for args in (("check", str(path)), ("run", str(path), "--out", str(tmp_path / "out"), "--quiet")):
        done = _tailor(tmp_path, *args)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr.strip() == (
            f"error: {trace}: line 1: unknown column 'reciever' (column 3); accepted: required: flow_id, sender, "
            "size_bytes, start_ns; optional: receiver, class; each once"
        ), done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("key", ["sizes_cdf", "trace"])
def test_dev_zero_is_refused_at_once(tmp_path: Path, key: str) -> None:
    path = tmp_path / "s.toml"
    if key == "trace":
        path.write_text(HEAD + '[[class]]\nname = "t"\ntrace = "/dev/zero"\nreceiver = 3\n')
    else:
        path.write_text(HEAD + CLASS.replace('sizes_fixed = "1KB"', 'sizes_cdf = "/dev/zero"\ninterpolation = "step"'))
    done = _tailor(tmp_path, "check", str(path))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert (
        f"{path}: class[0].{key}: /dev/zero: is a character device, not a regular file; accepted: a regular file"
        in done.stderr
    )


class _Interrupted(Exception):
    pass


def _trace_is_open(trace: Path) -> bool:
    """Whether this process holds `trace` open (reading it)."""
    fds = Path("/proc/self/fd")
    for fd in os.listdir(fds):
        try:
            if os.readlink(fds / fd) == str(trace):
                return True
        except OSError:
            continue
    return False


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc to see which files are open")
def test_a_signal_is_handled_while_a_large_trace_is_read(tmp_path: Path) -> None:
    """A signal handler runs while `check` is still reading the trace (its file still
    open), not after the whole file has been read; the exception it raises ends `check`."""
    from tailor import _core

    trace = tmp_path / "big.csv"
    with trace.open("w") as f:
        f.write("flow_id,sender,receiver,size_bytes,start_ns\n")
        for chunk in range(40):
            f.write("".join(f"{i},0,1,1000,{i}\n" for i in range(chunk * 100_000, (chunk + 1) * 100_000)))
    path = tmp_path / "s.toml"
    path.write_text(HEAD + '[[class]]\nname = "t"\ntrace = "big.csv"\n')
    seen: dict[str, bool] = {}

    def handler(signum: int, frame: object) -> None:
        seen["open"] = _trace_is_open(trace)
        raise _Interrupted

    done = threading.Event()

    def signal_once_reading() -> None:
        while not _trace_is_open(trace):
            if done.is_set():
                return
            time.sleep(0.001)  # polling for the file to be opened, not waiting for a result
        os.kill(os.getpid(), signal.SIGUSR1)

    previous = signal.signal(signal.SIGUSR1, handler)
    sender = threading.Thread(target=signal_once_reading, daemon=True)
    try:
        sender.start()
        with pytest.raises(_Interrupted):
            _core.check(path)
    finally:
        done.set()
        sender.join(timeout=60)
        signal.signal(signal.SIGUSR1, previous)
    assert seen == {"open": True}, "the handler ran only after the trace had been read whole"
