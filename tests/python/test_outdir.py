"""Where tailor writes and what it may replace (tailor.outdir, docs/results.md "Output
directories"): nothing that is not tailor's is deleted or overwritten, results are written
whole, and kills leave nothing that a later run does not clean up."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import tailor
from tailor import outdir
from tailor.errors import DataError, OptionError, OutputError

ROOT = Path(__file__).resolve().parents[2]
TAILOR = [sys.executable, "-m", "tailor"]
ANCHOR = ROOT / "anchors" / "ns3" / "results" / "lognormal-0.6-2000-s1"

#: One bottleneck (n_to_1), so that the fast model may run it too; about a second.
SMALL = """\
name = "small"
seed = 1
[topology]
kind = "star"
hosts = 5
link = { rate = "100Gbps", delay = "1us" }
[switch]
ecn_threshold = "100KB"
[transport]
kind = "dctcp"
init_cwnd = "bdp"
max_cwnd = "bdp"
[[class]]
name = "ws"
sizes = "websearch"
arrival = "poisson"
load = 0.5
pattern = "n_to_1"
receiver = 4
messages = MESSAGES
"""


def small(tmp_path: Path, messages: int = 300) -> Path:
    path = tmp_path / f"small-{messages}.toml"
    path.write_text(SMALL.replace("MESSAGES", str(messages)))
    return path


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*TAILOR, *args], capture_output=True, text=True, timeout=300, cwd=cwd)


def snapshot(d: Path) -> dict[str, bytes]:
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


# ---------------------------------------------------------------------------- item 1


def test_run_into_a_copied_ns3_run_refuses_and_touches_nothing(tmp_path: Path) -> None:
    target = tmp_path / "anchor"
    shutil.copytree(ANCHOR, target)
    before = snapshot(target)
    r = cli("run", str(small(tmp_path)), "--out", str(target), "--quiet")
    assert r.returncode == 2, r.stderr
    assert "not a directory tailor wrote" in r.stderr and "Traceback" not in r.stderr
    assert snapshot(target) == before  # flows.csv.gz, workload.csv.gz, summary.txt, time.txt all kept
    assert not [p for p in tmp_path.iterdir() if ".partial-" in p.name]


def test_replacing_a_run_keeps_the_users_files_and_says_so(tmp_path: Path) -> None:
    sc, out = small(tmp_path), tmp_path / "r"
    assert cli("run", str(sc), "--out", str(out), "--quiet", "--seed", "1").returncode == 0
    (out / "notes.txt").write_text("my notes")
    (out / "sub").mkdir()
    (out / "sub" / "data.txt").write_text("my data")
    first = (out / "summary.json").read_text()
    r = cli("run", str(sc), "--out", str(out), "--quiet", "--seed", "2")
    assert r.returncode == 0, r.stderr
    assert "replacing the earlier run result" in r.stderr and "2 file(s) tailor did not write are kept" in r.stderr
    assert (out / "notes.txt").read_text() == "my notes" and (out / "sub" / "data.txt").read_text() == "my data"
    assert (out / "summary.json").read_text() != first and json.loads((out / "summary.json").read_text())["seed"] == 2
    assert tailor.Result(out).files() == ["messages.parquet", "ports.csv", "scenario.toml", "summary.json"]


def test_an_old_runs_files_that_the_new_run_does_not_write_are_removed(tmp_path: Path) -> None:
    sc, out = small(tmp_path), tmp_path / "r"
    tailor.run(sc, out=out, csv=True)
    assert (out / "messages.csv").is_file()
    tailor.run(sc, out=out)
    assert not (out / "messages.csv").exists() and (out / "messages.parquet").is_file()


def test_a_users_file_where_tailor_would_write_is_not_overwritten(tmp_path: Path) -> None:
    sc, out = small(tmp_path), tmp_path / "r"
    tailor.run(sc, out=out)
    (out / "messages.csv").write_text("mine")  # not in the marker: the user's
    with pytest.raises(OutputError, match="messages.csv: exists and was not written by tailor"):
        tailor.run(sc, out=out, csv=True)
    assert (out / "messages.csv").read_text() == "mine"
    assert tailor.Result(out).files() == ["messages.parquet", "ports.csv", "scenario.toml", "summary.json"]


def test_another_kind_of_tailor_directory_is_not_replaced_by_a_run(tmp_path: Path) -> None:
    store = tmp_path / "store"
    tailor.sweep(small(tmp_path, 120), {"load": [0.3]}, out=store, jobs=1)
    with pytest.raises(OutputError, match="is a tailor store directory, not a run"):
        tailor.run(small(tmp_path), out=store)
    r = cli("sweep", str(small(tmp_path)), "--out", str(tmp_path / "store"), "--quiet")
    assert r.returncode == 0, r.stderr


def test_sweep_report_and_plot_refuse_what_is_not_tailors(tmp_path: Path) -> None:
    sc = small(tmp_path, 120)
    user = tmp_path / "mine"
    user.mkdir()
    (user / "data.txt").write_text("x")
    r = cli("sweep", str(sc), "--out", str(user), "--quiet")
    assert r.returncode == 2 and "not a tailor result store" in r.stderr
    assert snapshot(user) == {"data.txt": b"x"}

    run = tmp_path / "r"
    tailor.run(sc, out=run)
    (run / "report.html").write_text("<html>my own page</html>")
    r = cli("report", str(run))
    assert r.returncode == 2 and "report.html: exists and was not written by tailor" in r.stderr
    assert (run / "report.html").read_text() == "<html>my own page</html>"
    (run / "report.html").unlink()
    assert cli("report", str(run)).returncode == 0
    assert cli("report", str(run)).returncode == 0, "its own report is replaced"
    assert "report.html" in tailor.Result(run).files()

    (tmp_path / "figure.png").write_bytes(b"\x89PNG not tailor's")
    r = cli("plot", str(run), "--kind", "latency-cdf", "--out", str(tmp_path / "figure"), "--format", "png")
    assert r.returncode == 2 and "figure.png: exists and was not written by tailor" in r.stderr
    assert (tmp_path / "figure.png").read_bytes() == b"\x89PNG not tailor's"
    r = cli("plot", str(run), "--kind", "latency-cdf", "--out", str(tmp_path / "fig2"), "--format", "png,svg,pdf")
    assert r.returncode == 0, r.stderr
    for f in ("fig2.png", "fig2.svg", "fig2.pdf"):
        assert outdir.written_by_tailor(tmp_path / f), f
    r = cli("plot", str(run), "--kind", "latency-cdf", "--out", str(tmp_path / "fig2"), "--format", "png,svg,pdf")
    assert r.returncode == 0, "tailor's own plots are replaced: " + r.stderr


def test_a_rerun_of_a_run_removes_the_stale_report_made_from_the_old_result(tmp_path: Path) -> None:
    sc, out = small(tmp_path), tmp_path / "r"
    tailor.run(sc, out=out)
    tailor.report.report(out)
    assert (out / "report.html").is_file()
    tailor.run(sc, out=out, seed=5)
    assert not (out / "report.html").exists()


# ---------------------------------------------------------------------------- item 2


def test_default_directories_differ_by_engine(tmp_path: Path) -> None:
    sc = small(tmp_path)
    assert cli("run", str(sc), "--quiet", cwd=tmp_path).returncode == 0
    packet = snapshot(tmp_path / "runs" / "small-packet-s1")
    r = cli("run", str(sc), "--engine", "model", "--quiet", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert snapshot(tmp_path / "runs" / "small-packet-s1") == packet
    model = json.loads((tmp_path / "runs" / "small-model-s1" / "summary.json").read_text())
    assert model["engine"] == "model"


# ---------------------------------------------------------------------------- item 3


def inheriting(disposition: Any) -> Callable[[], None]:
    """A child's start that sets SIGINT and SIGTERM to ``disposition`` before tailor runs:
    what it inherits from its parent (SIG_IGN for a script's background job), whatever
    the test process itself inherited."""

    def preexec() -> None:
        signal.signal(signal.SIGINT, disposition)
        signal.signal(signal.SIGTERM, disposition)

    return preexec


def _start(args: list[str], cwd: Path, inherited: Any = signal.SIG_DFL) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*TAILOR, *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=inheriting(inherited),
    )


def _wait_for_partial(parent: Path, proc: subprocess.Popen[str], timeout: float = 300) -> Path:
    """The run's partial directory once the engine has started writing its messages: a
    file the child writes, so that this holds however busy the machine is."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        partials = [p for p in parent.iterdir() if ".partial-" in p.name] if parent.is_dir() else []
        if partials and (partials[0] / "messages.parquet").exists():
            return partials[0]
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError("the run never started writing")


@pytest.mark.parametrize("inherited", [signal.SIG_DFL, signal.SIG_IGN], ids=["inherited-default", "inherited-ignored"])
@pytest.mark.parametrize("sig, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_sigterm_and_sigint_leave_nothing_half_written(tmp_path: Path, sig: int, status: int, inherited: Any) -> None:
    # 2,000,000 messages: minutes of running, so the signal always arrives mid-run.
    sc, out = small(tmp_path, 2_000_000), tmp_path / "runs" / "r"
    tailor.run(small(tmp_path), out=out)
    before = snapshot(out)
    proc = _start(["run", str(sc), "--out", str(out), "--quiet"], tmp_path, inherited)
    try:
        _wait_for_partial(out.parent, proc)
        proc.send_signal(sig)
        # Answered within a fraction of a second (the engine looks for signals five times
        # a second); the bound is far above that, far below the run's minutes.
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == status, err
    assert "Traceback" not in err and "nothing was left half-written" in err
    assert snapshot(out) == before
    assert sorted(p.name for p in out.parent.iterdir()) == ["r"]


def test_a_killed_runs_partial_is_removed_by_the_next_run(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    proc = _start(["run", str(small(tmp_path, 200_000)), "--out", str(runs / "big"), "--quiet"], tmp_path)
    partial = _wait_for_partial(runs, proc)
    proc.kill()
    proc.wait()
    assert partial.is_dir()  # SIGKILL cannot be handled: the partial stays ...
    # ... beside a partial of a live process and a user's directory that merely looks like one
    live = runs / f".other.partial-{os.getpid()}"
    live.mkdir()
    (live / outdir.MARKER).write_text(
        (partial / outdir.MARKER)
        .read_text()
        .replace(f'"pid": {proc.pid}', f'"pid": {os.getpid()}')
        .replace('"process_start"', '"process_start_unused"')
    )
    users = runs / ".mine.partial-999999999"
    users.mkdir()
    (users / "thesis.tex").write_text("x")
    tailor.run(small(tmp_path), out=runs / "next")
    assert not partial.exists()  # ... until the next run beside it
    assert live.is_dir() and (users / "thesis.tex").is_file()


def test_a_result_left_half_replaced_is_refused_by_readers(tmp_path: Path) -> None:
    out = tmp_path / "r"
    tailor.run(small(tmp_path), out=out)
    marker = json.loads((out / outdir.MARKER).read_text())
    (out / outdir.MARKER).write_text(json.dumps({**marker, "state": "replacing"}))
    with pytest.raises(DataError, match="left replacing"):
        tailor.Result(out)
    tailor.run(small(tmp_path), out=out)  # a rerun replaces it
    assert tailor.Result(out).summary["seed"] == 1


# ---------------------------------------------------------------------------- crosscheck, reproduce


def test_crosscheck_writes_under_runs_and_says_where(tmp_path: Path) -> None:
    from tailor.crosscheck import default_dir

    assert default_dir(ANCHOR) == Path("runs") / "crosscheck-lognormal-0.6-2000-s1"


def test_reproductions_write_under_runs_and_refuse_a_foreign_out(tmp_path: Path) -> None:
    from tailor.reproduce.swp import capacity as swp_capacity
    from tailor.reproduce.swp import fig1 as swp_fig1

    assert swp_fig1.default_dir(swp_fig1.Setup(engine="model")) == Path("runs") / "swp-fig1-model"
    assert swp_capacity.default_dir(5) == Path("runs") / "swp-capacity-5"
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "a.txt").write_text("x")
    r = cli("reproduce", "swp-fig1", "--out", str(tmp_path / "mine"))
    assert r.returncode == 2 and "not a directory tailor wrote" in r.stderr
    assert snapshot(tmp_path / "mine") == {"a.txt": b"x"}


# ---------------------------------------------------------------------------- Python API


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"seed": -1}, "seed: -1 is not a seed"),
        ({"seed": 2**64}, "seed: .* is not a seed"),
        ({"engine": "foo"}, "engine: unknown value 'foo'; accepted: packet, model"),
    ],
)
def test_run_raises_tailor_errors_for_bad_options(tmp_path: Path, kwargs: dict, match: str) -> None:
    with pytest.raises(OptionError, match=match):
        tailor.run(small(tmp_path), out=tmp_path / "r", **kwargs)
    assert not (tmp_path / "r").exists()


def test_a_failed_run_leaves_no_directory_it_made(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(SMALL.replace("MESSAGES", "10").replace('pattern = "n_to_1"', 'pattern = "all_to_all"'))
    r = cli("run", str(bad), "--engine", "model", "--out", str(tmp_path / "a" / "b"), "--quiet")
    assert r.returncode == 2, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]


# ---------------------------------------------------------------------------- hardening (review)


def test_a_marker_naming_files_outside_its_directory_touches_nothing_there(tmp_path: Path) -> None:
    sc, out = small(tmp_path), tmp_path / "runs" / "q"
    tailor.run(sc, out=out)
    victim = tmp_path / "victim"
    (victim / "empty" / "sub").mkdir(parents=True)
    (victim / "precious.txt").write_text("keep")
    outside = tmp_path / "abs.txt"
    outside.write_text("keep")
    marker = json.loads((out / outdir.MARKER).read_text())
    marker["files"] += ["../../victim/precious.txt", str(outside), "../../victim/empty/sub/x", "", ".", "a/../b"]
    (out / outdir.MARKER).write_text(json.dumps(marker))
    tailor.run(sc, out=out, seed=2)
    assert (victim / "precious.txt").read_text() == "keep" and outside.read_text() == "keep"
    assert (victim / "empty" / "sub").is_dir()
    assert tailor.Result(out).files() == ["messages.parquet", "ports.csv", "scenario.toml", "summary.json"]


def test_dot_and_a_symlink_name_the_directory_they_lead_to(tmp_path: Path) -> None:
    sc = small(tmp_path)
    (tmp_path / "here").mkdir()
    assert cli("run", str(sc), "--out", ".", "--quiet", cwd=tmp_path / "here").returncode == 0
    assert tailor.Result(tmp_path / "here").files() == [
        "messages.parquet",
        "ports.csv",
        "scenario.toml",
        "summary.json",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["here", sc.name]  # no partial left beside it
    (tmp_path / "link").symlink_to(tmp_path / "here")
    r = cli("run", str(sc), "--out", str(tmp_path / "link"), "--seed", "4", "--quiet")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "link").is_symlink() and tailor.Result(tmp_path / "here").summary["seed"] == 4


def test_a_replacement_that_would_meet_a_users_file_changes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "c"
    with outdir.staged(out, "compare", say=None) as s:
        (s / "model").mkdir()
        (s / "model" / "a.txt").write_text("1")
    shutil.rmtree(out / "model")
    (out / "model").write_text("the user's file where tailor had a directory")
    before = snapshot(out)
    with pytest.raises(OutputError, match="is a file where tailor's result has a directory"):
        with outdir.staged(out, "compare", say=None) as s:
            (s / "model").mkdir()
            (s / "model" / "a.txt").write_text("2")
    assert snapshot(out) == before and json.loads((out / outdir.MARKER).read_text())["state"] == "complete"


def test_markers_of_directories_inside_a_result_are_replaced_with_it(tmp_path: Path) -> None:
    out = tmp_path / "c"
    for files in (["a", "b"], ["a"]):
        with outdir.staged(out, "compare", say=None) as s:
            (s / "packet").mkdir()
            for f in files:
                (s / "packet" / f).write_text(f)
            outdir.mark(s / "packet", "run")
            marker = json.loads((s / "packet" / outdir.MARKER).read_text())
            (s / "packet" / outdir.MARKER).write_text(json.dumps({**marker, "files": files}))
    assert json.loads((out / "packet" / outdir.MARKER).read_text())["files"] == ["a"]
    assert not (out / "packet" / "b").exists()


def test_a_signal_during_a_replacement_waits_for_it_to_finish(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sc, out = small(tmp_path), tmp_path / "r"
    tailor.run(sc, out=out, seed=1)

    class Stop(Exception):
        pass

    def stop(signum: int, frame: object) -> None:
        raise Stop()

    real = os.replace
    calls = []

    def replace_then_signal(a: object, b: object) -> None:
        if not calls and str(b).endswith("messages.parquet"):
            calls.append(b)
            os.kill(os.getpid(), signal.SIGTERM)  # arrives half-way through the replacement
        real(a, b)

    old = signal.signal(signal.SIGTERM, stop)
    try:
        monkeypatch.setattr(outdir.os, "replace", replace_then_signal)
        with pytest.raises(Stop):
            tailor.run(sc, out=out, seed=2)
    finally:
        signal.signal(signal.SIGTERM, old)
    r = tailor.Result(out)  # whole: the signal was handled once the replacement was done
    assert r.summary["seed"] == 2 and r.messages.height == r.summary["messages"]["completed"]


def test_a_corrupt_partial_marker_beside_the_output_is_left_alone(tmp_path: Path) -> None:
    for pid in (None, "abc", 1.5):
        d = tmp_path / f".zz{pid}.partial-999999"
        d.mkdir()
        marker = {"kind": "run", "files": [], "state": "partial", "host": outdir._host(), "pid": pid}
        (d / outdir.MARKER).write_text(json.dumps(marker))
    tailor.run(small(tmp_path), out=tmp_path / "r")
    assert len([p for p in tmp_path.iterdir() if ".partial-" in p.name]) == 3


def test_a_file_that_merely_mentions_the_signature_is_not_tailors(tmp_path: Path) -> None:
    notes = tmp_path / "notes.html"
    notes.write_text("the report was written by tailor yesterday; keep these notes!")
    assert not outdir.written_by_tailor(notes)
    with pytest.raises(OutputError, match="not written by tailor"):
        outdir.check_file(notes)


def test_a_plot_refused_for_one_format_writes_no_other(tmp_path: Path) -> None:
    run = tmp_path / "r"
    tailor.run(small(tmp_path), out=run)
    (tmp_path / "fig.svg").write_text("mine")
    r = cli("plot", str(run), "--kind", "latency-cdf", "--out", str(tmp_path / "fig.svg"))
    assert r.returncode == 2 and "fig.svg: exists and was not written by tailor" in r.stderr
    assert not (tmp_path / "fig.png").exists()


def test_an_inner_marker_the_outer_marker_omits_is_still_tailors(tmp_path: Path) -> None:
    """Results written before inner markers were listed (a crosscheck's tailor/ run)."""
    out = tmp_path / "c"
    for seed in (1, 2):
        with outdir.staged(out, "crosscheck", say=None) as s:
            tailor.run(small(tmp_path), out=s / "tailor", seed=seed)
        if seed == 1:
            marker = json.loads((out / outdir.MARKER).read_text())
            marker["files"] = [f for f in marker["files"] if f != "tailor/.tailor"]
            (out / outdir.MARKER).write_text(json.dumps(marker))
    assert tailor.Result(out / "tailor").summary["seed"] == 2


# ---------------------------------------------------------------------------- issue 24: no report over a result


@pytest.mark.parametrize("name", ["summary.json", "messages.parquet", "ports.csv", "scenario.toml", outdir.MARKER])
def test_a_report_never_replaces_a_file_of_the_run_it_describes(tmp_path: Path, name: str) -> None:
    run = tmp_path / "r"
    tailor.run(small(tmp_path), out=run)
    before = snapshot(run)
    r = cli("report", str(run), "--out", str(run / name))
    assert r.returncode == 2, r.stderr
    assert f"{name}: is a result file of the tailor run in {run}/" in r.stderr and "Traceback" not in r.stderr
    assert snapshot(run) == before
    assert tailor.Result(run).summary["seed"] == 1


def test_a_plot_never_replaces_a_reproductions_figure_nor_a_stores_point(tmp_path: Path) -> None:
    import tailor.plot as tp

    run = tmp_path / "r"
    tailor.run(small(tmp_path), out=run)
    repro = tmp_path / "repro"
    with outdir.staged(repro, "reproduction", say=None, name="swp-fig1") as work:
        tp.save(tp.latency_cdf(tp.open_result(run)), work / "fig1", formats=("png",))
    before = snapshot(repro)
    r = cli("plot", str(run), "--kind", "latency-cdf", "--out", str(repro / "fig1"), "--format", "png")
    assert r.returncode == 2 and f"fig1.png: is a result file of the tailor reproduction in {repro}/" in r.stderr
    assert snapshot(repro) == before

    store = tmp_path / "store"
    tailor.sweep(small(tmp_path, 120), {"load": [0.3]}, out=store, jobs=1)
    (point,) = (store / "points").iterdir()
    kept = hashlib.sha256((point / "scenario.toml").read_bytes()).hexdigest()
    assert (
        json.loads((point / "summary.json").read_text())["scenario_sha256"] == kept
    )  # one scenario text, run or point
    before = snapshot(store)
    with pytest.raises(OutputError, match=f"is a result file of the tailor store in {store}/"):
        tailor.report.report(run, out=point / "summary.json")
    with pytest.raises(OutputError, match="lies among the results of the tailor store"):
        tp.save(tp.latency_cdf(tp.open_result(run)), point / "scenario", formats=("png",))  # a new file, but in points/
    assert snapshot(store) == before
    tailor.report.report(store)  # the store's own report: written, then replaced
    tailor.report.report(store)
    assert outdir.read_marker(store)["outputs"] == outdir.read_marker(store)["files"]


def test_reports_listed_by_a_marker_of_an_older_tailor_stay_replaceable(tmp_path: Path) -> None:
    """Markers written before ``outputs`` was listed apart: a run's signed files (its
    reports) are its outputs, its other files results."""
    run = tmp_path / "r"
    tailor.run(small(tmp_path), out=run)
    tailor.report.report(run)
    marker = json.loads((run / outdir.MARKER).read_text())
    del marker["outputs"]
    (run / outdir.MARKER).write_text(json.dumps(marker))
    assert "report.html" in marker["files"]
    tailor.report.report(run)
    with pytest.raises(OutputError, match="summary.json: is a result file of the tailor run"):
        tailor.report.report(run, out=run / "summary.json")
    assert outdir.read_marker(run)["outputs"] == sorted(f for f in marker["files"] if f.startswith("report"))


# ---------------------------------------------------------------------------- issue 24: a reproduction's marker names it


def _reproduction(out: Path, name: str | None, text: str) -> None:
    with outdir.staged(out, "reproduction", say=None, name=name) as work:
        (work / "result.json").write_text(text)


def test_a_different_reproduction_is_refused_the_directory_of_another(tmp_path: Path) -> None:
    out = tmp_path / "fig14"
    _reproduction(out, "homa-fig14", "three hours of work")
    assert json.loads((out / outdir.MARKER).read_text())["name"] == "homa-fig14"
    with pytest.raises(OutputError, match=r"holds the results of reproduction 'homa-fig14', not 'swp-fig1'"):
        _reproduction(out, "swp-fig1", "five seconds")
    assert (out / "result.json").read_text() == "three hours of work"
    _reproduction(out, "homa-fig14", "again")  # the same reproduction replaces its own results
    assert (out / "result.json").read_text() == "again"
    before = snapshot(out)
    r = cli("reproduce", "swp-fig1", "--out", str(out))
    assert r.returncode == 2 and "holds the results of reproduction 'homa-fig14', not 'swp-fig1'" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and snapshot(out) == before


def test_a_reproduction_whose_marker_names_none_is_not_replaced(tmp_path: Path) -> None:
    """A marker of a tailor that did not name the reproduction: it may be any, so none
    replaces it."""
    out = tmp_path / "old"
    _reproduction(out, "homa-fig14", "old results")
    marker = json.loads((out / outdir.MARKER).read_text())
    del marker["name"]
    (out / outdir.MARKER).write_text(json.dumps(marker))
    with pytest.raises(OutputError, match="written by a tailor that did not record which one.*Remove it"):
        _reproduction(out, "homa-fig14", "new results")
    assert (out / "result.json").read_text() == "old results"
