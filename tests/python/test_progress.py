"""Progress of runs and sweeps (tailor.progress), driven by a fake clock."""

from __future__ import annotations

import io
import json
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
import tailor
from rich.console import Console
from tailor.progress import (
    RunTotal,
    reporter,
    run_total,
    sweep_reporter,
)

ROOT = Path(__file__).resolve().parents[2]
# Classes are read with tomllib (Python 3.11+); before it, only [run] stop is known.
needs_tomllib = pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib is Python 3.11+")


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def pipe() -> tuple[Console, io.StringIO]:
    """A console on a file that is not a terminal, as stderr is under a pipe."""
    buf = io.StringIO()
    return Console(file=buf, force_terminal=False), buf


def terminal(width: int = 140) -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, force_terminal=True, width=width, color_system=None), buf


def lines(buf: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in buf.getvalue().splitlines()]


def report(sim_ns: float, events: int, completed: int, started: int | None = None) -> dict[str, Any]:
    started = completed + 5 if started is None else started
    return {
        "phase": "running",
        "built": 32,
        "ports": 32,
        "sim_ns": sim_ns,
        "events": events,
        "started": started,
        "completed": completed,
        "active": started - completed,
    }


def building(built: int, ports: int) -> dict[str, Any]:
    """An engine report while the topology is built."""
    return {
        "phase": "building",
        "built": built,
        "ports": ports,
        "sim_ns": 0.0,
        "events": 0,
        "started": 0,
        "completed": 0,
        "active": 0,
    }


# --- the length of a run -----------------------------------------------------------


@needs_tomllib
def test_counts_of_several_classes_are_no_total(quickstart: Path, tmp_path: Path) -> None:
    """quickstart's 3,000 RPCs finish long before its 400 web-search messages: the sum
    of counts would show 90 % done at a quarter of the run, so it is not used."""
    assert run_total(tailor.Scenario.load(quickstart)) == RunTotal()
    r = tailor.run(quickstart, seed=7, out=tmp_path / "q")
    m = r.messages
    quarter = r.summary["sim_ns"] / 4
    assert m.filter(m["finish_ns"] <= quarter).height / m.height > 0.8


@needs_tomllib
def test_the_count_of_one_class_is_the_total(tmp_path: Path) -> None:
    sc = write(
        tmp_path,
        HEAD
        + """
[[class]]
name = "z"
sizes = "w3"
load = 0.1
pattern = "all_to_all"
arrival = "poisson"
messages = 70
""",
    )
    assert run_total(sc) == RunTotal(messages=70)


@needs_tomllib
def test_total_of_timed_classes_is_the_latest_until() -> None:
    total = run_total(tailor.Scenario.load(ROOT / "scenarios" / "swp" / "two-class.toml"))
    assert total == RunTotal(horizon_ns=31e6)


def write(tmp_path: Path, text: str, name: str = "s.toml") -> tailor.Scenario:
    path = tmp_path / name
    path.write_text(text)
    return tailor.Scenario.load(path)


HEAD = """
[topology]
kind = "star"
hosts = 4
link = { rate = "100Gbps", delay = "1us" }
[transport]
kind = "dctcp"
"""


@needs_tomllib
def test_mixed_classes_have_only_the_stop_estimate(tmp_path: Path) -> None:
    sc = write(
        tmp_path,
        HEAD
        + """
[run]
stop = "5ms"
[[class]]
name = "a"
sizes = "websearch"
load = 0.3
pattern = "all_to_all"
arrival = "poisson"
messages = 100
[[class]]
name = "b"
sizes = "w3"
load = 0.1
pattern = "all_to_all"
arrival = "poisson"
until = "2ms"
""",
    )
    assert run_total(sc) == RunTotal(stop_ns=5e6)


def test_mixed_classes_without_stop_are_unknown(tmp_path: Path) -> None:
    sc = write(
        tmp_path,
        HEAD
        + """
[[class]]
name = "a"
sizes = "websearch"
load = 0.3
pattern = "all_to_all"
arrival = "poisson"
messages = 100
[[class]]
name = "b"
sizes = "w3"
load = 0.1
pattern = "all_to_all"
arrival = "poisson"
until = "2ms"
""",
    )
    total = run_total(sc)
    assert not total.known and total.fraction(report(1e6, 10, 50)) is None


@needs_tomllib
def test_trace_classes_count_their_own_rows(tmp_path: Path) -> None:
    rows = ["flow_id,sender,receiver,size_bytes,start_ns,class"]
    rows += [f"{i},{i % 3},3,1000,{1000 * i},{'x' if i % 4 == 0 else 'y'}" for i in range(40)]
    (tmp_path / "t.csv").write_text("\n".join(rows) + "\n")
    sc = write(
        tmp_path,
        HEAD
        + """
[[class]]
name = "x"
trace = "t.csv"
""",
    )
    assert run_total(sc) == RunTotal(messages=10)
    # The engine replays exactly as many: the estimate is the run's real total.
    summary = tailor.run(sc, out=tmp_path / "r").summary
    assert summary["messages"]["generated"] == 10


def test_fraction_is_the_largest_estimate_and_the_horizon_stays_below_one() -> None:
    t = RunTotal(messages=1000, stop_ns=1e6)
    assert t.fraction(report(2e5, 1, 500)) == 0.5
    assert t.fraction(report(8e5, 1, 500)) == 0.8
    assert RunTotal(horizon_ns=1e6).fraction(report(2e6, 1, 500)) == 0.99
    assert RunTotal(messages=1000).fraction(report(1, 1, 1000)) == 1.0
    assert RunTotal().fraction(report(1, 1, 1)) is None


# --- a run's JSON lines ------------------------------------------------------------


def test_json_lines_at_most_once_a_second_then_done() -> None:
    console, buf = pipe()
    clock = Clock()
    with reporter("q", console=console, total=RunTotal(messages=2000), clock=clock) as progress:
        for k in range(1, 26):  # 5 s of reports every 0.2 s, as the engine makes them
            clock.t += 0.2
            assert progress(report(1e6 * k, 100_000 * k, 80 * k)) is True
        progress.finish(
            {"sim_ns": 3e7, "events": 2_600_000, "messages": {"generated": 2000, "completed": 2000, "incomplete": 0}}
        )
        clock.t += 0.4
    out = lines(buf)
    progress_lines = [line for line in out if line["event"] == "progress"]
    assert [line["event"] for line in out] == ["progress"] * len(progress_lines) + ["done"]
    assert 5 <= len(progress_lines) <= 6
    elapsed = [line["elapsed_s"] for line in progress_lines]
    assert elapsed[0] == pytest.approx(0.2)  # the first report is shown at once
    assert all(b - a >= 1.0 - 1e-9 for a, b in zip(elapsed, elapsed[1:], strict=False))
    assert set(out[0]) == {
        "event",
        "scenario",
        "phase",
        "built",
        "ports",
        "sim_ns",
        "events",
        "started",
        "completed",
        "active",
        "fraction",
        "eta_s",
        "events_per_second",
        "elapsed_s",
    }


def test_json_line_fields_fraction_eta_and_rate() -> None:
    console, buf = pipe()
    clock = Clock()
    with reporter("q", console=console, total=RunTotal(messages=2000), clock=clock) as progress:
        clock.t += 2.0
        progress(report(1e7, 4_000_000, 500, started=520))
    first, done = lines(buf)
    assert first == {
        "event": "progress",
        "scenario": "q",
        "phase": "running",
        "built": 32,
        "ports": 32,
        "sim_ns": 1e7,
        "events": 4_000_000,
        "started": 520,
        "completed": 500,
        "active": 20,
        "fraction": 0.25,
        "eta_s": 6.0,  # 2 s for a quarter: 6 s for the rest
        "events_per_second": 2_000_000,
        "elapsed_s": 2.0,
    }
    # Without a summary the done line repeats the last report, complete.
    assert done["event"] == "done" and done["completed"] == 500
    assert done["fraction"] == 1.0 and done["eta_s"] == 0.0


def test_done_line_takes_the_summary() -> None:
    console, buf = pipe()
    clock = Clock()
    with reporter("q", console=console, clock=clock) as progress:
        clock.t += 4.0
        progress.finish(
            {"sim_ns": 5e6, "events": 8_000_000, "messages": {"generated": 30, "completed": 28, "incomplete": 2}}
        )
    (done,) = lines(buf)  # a run too short for any report still ends with its done line
    assert done["event"] == "done"
    assert (done["sim_ns"], done["events"], done["started"], done["completed"], done["active"]) == (
        5e6,
        8_000_000,
        30,
        28,
        2,
    )
    assert done["events_per_second"] == 2_000_000  # over the 4 s since the start


def test_done_line_prefers_the_engines_own_rate() -> None:
    console, buf = pipe()
    clock = Clock()
    with reporter("q", console=console, clock=clock) as progress:
        clock.t += 4.0
        progress.finish(
            {
                "sim_ns": 5e6,
                "events": 8_000_000,
                "events_per_second": 3_000_000.4,
                "messages": {"generated": 30, "completed": 30, "incomplete": 0},
            }
        )
    assert lines(buf)[0]["events_per_second"] == 3_000_000


def test_unknown_total_has_null_fraction_and_eta() -> None:
    console, buf = pipe()
    clock = Clock()
    with reporter("q", console=console, clock=clock) as progress:
        clock.t += 1
        progress(report(1e6, 10, 5))
    assert lines(buf)[0]["fraction"] is None and lines(buf)[0]["eta_s"] is None


def test_no_done_line_when_the_run_fails() -> None:
    console, buf = pipe()
    with pytest.raises(tailor.errors.Cancelled):
        with reporter("q", console=console, clock=Clock()) as progress:
            progress(report(1e6, 10, 5))
            raise tailor.errors.Cancelled()
    assert [line["event"] for line in lines(buf)] == ["progress"]


@pytest.mark.parametrize(
    ("quiet", "json_lines", "is_terminal", "expect"),
    [
        (True, True, False, "nothing"),
        (True, None, True, "nothing"),
        (False, None, False, "json"),
        (False, True, True, "json"),
        (False, False, False, "nothing"),
        (False, None, True, "bar"),
    ],
)
def test_where_the_output_goes(quiet: bool, json_lines: bool | None, is_terminal: bool, expect: str) -> None:
    console, buf = terminal() if is_terminal else pipe()
    with reporter("q", quiet=quiet, json_lines=json_lines, console=console, clock=Clock()) as progress:
        progress(report(1e6, 10, 5))
    text = buf.getvalue()
    if expect == "nothing":
        assert text == ""
    elif expect == "json":
        assert [line["event"] for line in lines(buf)] == ["progress", "done"]
    else:
        assert "q" in text and "1.000 ms sim" in text and "{" not in text


def test_terminal_bar_shows_percentage_and_eta() -> None:
    console, buf = terminal()
    clock = Clock()
    with reporter("ws60", console=console, total=RunTotal(messages=2000), clock=clock) as progress:
        clock.t += 3.0
        progress(report(1.2e8, 10_000_000, 1000))
        progress.bar.refresh()
    text = buf.getvalue()
    assert "50%" in text and "eta 0:00:03" in text and "1,000/1,005 msgs" in text


def test_terminal_spinner_without_a_total_has_no_eta() -> None:
    console, buf = terminal()
    clock = Clock()
    with reporter("ws60", console=console, clock=clock) as progress:
        clock.t += 3.0
        progress(report(1.2e8, 10_000_000, 1000))
        progress.bar.refresh()
    text = buf.getvalue()
    assert "120.000 ms sim" in text and "eta" not in text and "%" not in text


def test_building_the_topology_is_a_phase_of_its_own() -> None:
    console, buf = pipe()
    clock = Clock()
    with reporter("big", console=console, total=RunTotal(messages=10), clock=clock) as progress:
        clock.t += 0.5
        progress(building(65_536, 2_097_152))
        clock.t += 1.0
        progress(report(1e6, 10, 5))
    first, second, done = lines(buf)
    assert (first["phase"], first["built"], first["ports"], first["fraction"]) == ("building", 65_536, 2_097_152, 0.0)
    assert (second["phase"], second["built"]) == ("running", 32)
    assert done["phase"] == "running"


def test_terminal_bar_counts_the_ports_built() -> None:
    console, buf = terminal()
    clock = Clock()
    with reporter("big", console=console, total=RunTotal(messages=10), clock=clock) as progress:
        clock.t += 3.0
        progress(building(65_536, 2_097_152))
        progress.bar.refresh()
    assert "building topology: 65,536/2,097,152 ports" in buf.getvalue()


# --- sweeps ------------------------------------------------------------------------


def test_sweep_json_lines_tell_each_point() -> None:
    console, buf = pipe()
    clock = Clock()
    with sweep_reporter("loads", 4, console=console, workers=2, clock=clock) as sweep:
        sweep.cached("p0", {"load": 0.2})
        sweep.started("p1", {"load": 0.4})
        sweep.started("p2", {"load": 0.6})
        clock.t += 10
        sweep.finished("p1", {"load": 0.4}, 10.0)
        sweep.failed("p2", {"load": 0.6}, "p2.toml: class[0].load: must be below 1")
        sweep.started("p3", {"load": 0.8})
        clock.t += 4
        sweep.finished("p3", {"load": 0.8}, 4.0)
    out = lines(buf)
    assert [(x["event"], x["point"]) for x in out] == [
        ("cached", "p0"),
        ("started", "p1"),
        ("started", "p2"),
        ("finished", "p1"),
        ("failed", "p2"),
        ("started", "p3"),
        ("finished", "p3"),
        ("done", None),
    ]
    assert [x["done"] for x in out] == [1, 1, 1, 2, 3, 3, 4, 4]
    assert all(x["total"] == 4 and x["sweep"] == "loads" for x in out)
    assert out[0]["params"] == {"load": 0.2} and out[0]["wall_s"] is None
    assert out[3]["wall_s"] == 10.0 and out[3]["running"] == 1
    assert out[4]["message"] == "p2.toml: class[0].load: must be below 1" and out[4]["failed"] == 1
    # One point left at a mean of 10 s, with none of it spent yet.
    assert out[5]["eta_s"] == 10.0
    assert out[-1] == {
        "event": "done",
        "sweep": "loads",
        "point": None,
        "params": None,
        "wall_s": 14.0,
        "message": None,
        "done": 4,
        "total": 4,
        "cached": 1,
        "running": 0,
        "failed": 1,
        "eta_s": 0.0,
        "elapsed_s": 14.0,
    }


def test_sweep_eta_uses_the_mean_wall_time_and_the_workers() -> None:
    console, _ = pipe()
    clock = Clock()
    with sweep_reporter("s", 12, quiet=True, console=console, workers=4, clock=clock) as sweep:
        assert sweep.eta_s() is None  # nothing finished: nothing to go on
        for i in range(4):
            sweep.started(f"a{i}", {})
        clock.t += 6
        for i in range(2):
            sweep.finished(f"a{i}", {}, 6.0)
        for i in range(2):
            sweep.finished(f"b{i}", {}, 2.0)  # mean 4 s
        # 8 left at 4 s, minus 2 running for min(6, 4) s each, on 4 workers.
        assert sweep.eta_s() == pytest.approx((8 * 4 - 2 * 4) / 4)
        for i in range(2, 4):
            sweep.finished(f"a{i}", {}, 6.0)
        for i in range(4):
            sweep.cached(f"c{i}", {})
        # 2 left: only two workers can help.
        assert sweep.eta_s() == pytest.approx(2 * sweep_mean(sweep) / 2)


def sweep_mean(sweep: Any) -> float:
    return sum(sweep.walls) / len(sweep.walls)


def test_sweep_bar_on_a_terminal() -> None:
    console, buf = terminal()
    clock = Clock()
    with sweep_reporter("loads", 10, console=console, workers=2, clock=clock) as sweep:
        sweep.cached("a", {})
        sweep.started("b", {})
        sweep.started("c", {})
        clock.t += 4
        sweep.finished("b", {}, 4.0)
        sweep.failed("c", {}, "boom")
    text = buf.getvalue()
    assert "3/10" in text and "1 cached" in text and "1 failed" in text
    assert "eta 0:00:14" in text  # 7 points at 4 s on 2 workers
    assert "point c failed: boom" in text
    assert "{" not in text


def test_sweep_quiet_prints_nothing() -> None:
    console, buf = pipe()
    with sweep_reporter("s", 2, quiet=True, json_lines=True, console=console) as sweep:
        sweep.started("a", {})
        sweep.finished("a", {}, 1.0)
        sweep.cached("b", {})
    assert buf.getvalue() == ""


def test_sweep_lines_from_many_threads_stay_whole() -> None:
    console, buf = pipe()
    with sweep_reporter("s", 400, console=console, workers=8) as sweep:

        def work(k: int) -> None:
            for i in range(50):
                pid = f"{k}-{i}"
                sweep.started(pid, {"k": k, "i": i})
                sweep.finished(pid, {"k": k, "i": i}, 0.01)

        threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    out = lines(buf)
    assert len(out) == 801 and out[-1]["done"] == 400 and out[-1]["running"] == 0
    finished = [x["done"] for x in out if x["event"] == "finished"]
    assert finished == list(range(1, 401))
