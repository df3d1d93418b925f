"""Sweeps, overrides and the result store (docs/sweeps.md)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import tailor
from conftest import QUICKSTART, QUICKSTART_MODEL, Recorder
from tailor.errors import PointsFailed, ScenarioError, StoreError, SweepError
from tailor.sweep import grid, parse_axis

# Most sweeps here run on the fast model: quickstart stating its bottleneck.
SMALL = QUICKSTART_MODEL


# -- axes -----------------------------------------------------------------------------


def test_axis_values_parse_as_toml_ranges_or_bare_strings() -> None:
    assert parse_axis("load=0.3,0.5,0.7") == ("load", [0.3, 0.5, 0.7])
    assert parse_axis("seed=1..5") == ("seed", [1, 2, 3, 4, 5])
    assert parse_axis("seed=1..9:4") == ("seed", [1, 5, 9])
    assert parse_axis("load=0.2..0.8:0.2") == ("load", [0.2, 0.4, 0.6, 0.8])
    assert parse_axis("switch.scheduler=drr,wfq") == ("switch.scheduler", ["drr", "wfq"])
    assert parse_axis("topology.link.rate=25Gbps,100Gbps") == ("topology.link.rate", ["25Gbps", "100Gbps"])
    assert parse_axis('run.bins=[1, 2],"a,b",true') == ("run.bins", [[1, 2], "a,b", True])


@pytest.mark.parametrize(
    "spec, says",
    [
        ("load", "expected KEY=VALUES"),
        ("=1", "expected KEY=VALUES"),
        ("load=", "empty value"),
        ("load=0.3,,0.5", "empty value"),
        ("seed=5..1", "is not a range"),
        ("seed=1..5:0", "is not a range"),
        ("seed=a..b", "is not a range"),
    ],
)
def test_bad_axes_are_refused_naming_the_option(spec: str, says: str) -> None:
    with pytest.raises(SweepError, match=says) as e:
        parse_axis(spec)
    assert "--set" in str(e.value)


def test_grid_is_the_product_first_axis_slowest() -> None:
    g = grid({"a": [1, 2], "b": ["x", "y", "z"]})
    assert g[:3] == [{"a": 1, "b": "x"}, {"a": 1, "b": "y"}, {"a": 1, "b": "z"}] and len(g) == 6
    with pytest.raises(SweepError, match="given twice"):
        grid({"a": [1, 1]})


# -- overrides ------------------------------------------------------------------------


def test_an_override_runs_exactly_as_the_edited_file(tmp_path: Path) -> None:
    """Setting class[0].load by override and by editing the file give the same bytes."""
    text = QUICKSTART.read_text()
    edited = tmp_path / "edited.toml"
    lines = text.splitlines()
    first_load = next(i for i, line in enumerate(lines) if line.strip().startswith("load ="))
    lines[first_load] = "load = 0.2"
    edited.write_text("\n".join(lines) + "\n")
    a = tailor.run(tailor.Scenario.load(QUICKSTART).with_({"class[0].load": 0.2}), seed=3, out=tmp_path / "a")
    b = tailor.run(edited, seed=3, out=tmp_path / "b")
    assert a.messages.equals(b.messages)
    c = tailor.run(QUICKSTART, seed=3, out=tmp_path / "c")
    assert not a.messages.equals(c.messages)


def test_total_load_scales_every_class_and_changes_the_offered_bytes(tmp_path: Path) -> None:
    sc = tailor.Scenario.load(QUICKSTART)
    doc = sc.with_(load=0.4).resolve()["document"]
    import tomllib

    loads = [c["load"] for c in tomllib.loads(doc)["class"]]
    orig = [c["load"] for c in tomllib.loads(QUICKSTART.read_text())["class"]]
    assert sum(loads) == pytest.approx(0.4)
    assert loads[0] / loads[1] == pytest.approx(orig[0] / orig[1])


def test_bad_overrides_name_the_key_path() -> None:
    sc = tailor.Scenario.load(QUICKSTART)
    with pytest.raises(ScenarioError) as e:
        sc.with_({"switch.schedulr": "drr"})
    assert e.value.key_path == "switch.schedulr" and "accepted keys here" in e.value.message
    with pytest.raises(ScenarioError) as e:
        sc.with_({"class[9].load": 0.1})
    assert e.value.key_path == "class[9].load" and "accepted indices 0 to 1" in e.value.message
    with pytest.raises(ScenarioError) as e:
        sc.with_({"switch.scheduler": "lifo"})
    assert e.value.key_path == "switch.scheduler" and "accepted" in e.value.message


# -- the store ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def store_a(tmp_path_factory: pytest.TempPathFactory) -> tailor.Sweep:
    out = tmp_path_factory.mktemp("sweeps") / "a"
    return tailor.sweep(SMALL, load=[0.3, 0.6], seed=range(1, 4), out=out, engine="model", jobs=2)


def test_a_sweep_stores_every_point_once_with_its_axes(store_a: tailor.Sweep) -> None:
    pts = store_a.points()
    assert pts.height == 6 and pts["point"].n_unique() == 6
    assert sorted(pts["load"].unique().to_list()) == [0.3, 0.6]
    assert sorted(pts["seed"].to_list()) == [1, 1, 2, 2, 3, 3]
    assert not any((store_a.store.dir / "tmp").iterdir()), "nothing is left in tmp/"
    for id in store_a.ids:
        d = store_a.store.dir / "points" / id
        assert {"point.json", "summary.json", "scenario.toml", "messages.parquet", "rows.parquet"} <= {
            p.name for p in d.iterdir()
        }
        s = json.loads((d / "summary.json").read_text())
        assert s["engine"] == "model" and s["seed"] == json.loads((d / "point.json").read_text())["seed"]


def test_summary_is_the_mean_across_seeds_with_an_interval_around_it(store_a: tailor.Sweep) -> None:
    df = store_a.summary(stats=("p99",), sizes=False)
    assert set(df.columns) >= {"load", "engine", "class", "size", "stat", "mean", "ci_low", "ci_high", "n_seeds"}
    assert df.height == 2 * 3  # loads x (2 classes + all)
    rows = store_a.store.rows(store_a.ids).filter((pl.col("stat") == "p99") & (pl.col("size") == "all")).collect()
    for r in df.iter_rows(named=True):
        per_seed = rows.filter((pl.col("load") == r["load"]) & (pl.col("class") == r["class"]))["value"]
        assert per_seed.len() == r["n_seeds"] == 3
        assert r["mean"] == pytest.approx(per_seed.mean())
        assert per_seed.min() <= r["ci_low"] <= r["mean"] <= r["ci_high"] <= per_seed.max()
    # Load raises the tail: the all-class p99 at 0.6 is above that at 0.3.
    at = {r["load"]: r["mean"] for r in df.filter(pl.col("class") == "all").iter_rows(named=True)}
    assert at[0.6] > at[0.3]


def test_messages_of_every_point_query_lazily(store_a: tailor.Sweep) -> None:
    lf = tailor.open(store_a.store.dir).messages(store_a.ids)
    assert isinstance(lf, pl.LazyFrame)
    per_point = lf.group_by("point", "load", "seed").len().collect()
    assert per_point.height == 6
    for r in per_point.iter_rows(named=True):
        s = json.loads((store_a.store.dir / "points" / r["point"] / "summary.json").read_text())
        assert r["len"] == s["messages"]["completed"]


def test_a_second_sweep_reuses_the_points_it_shares(store_a: tailor.Sweep) -> None:
    before = {id: (store_a.store.dir / "points" / id / "point.json").stat().st_mtime_ns for id in store_a.ids}
    rec = Recorder()
    sw = tailor.sweep(SMALL, load=[0.6, 0.9], seed=range(1, 4), out=store_a.store.dir, engine="model", listener=rec)
    shared = set(sw.ids) & set(store_a.ids)
    assert len(shared) == 3 and rec.of("cached") == shared
    assert rec.of("finished") == set(sw.ids) - shared
    assert all((store_a.store.dir / "points" / id / "point.json").stat().st_mtime_ns == before[id] for id in shared)
    assert len(tailor.open(store_a.store.dir).point_ids()) == 9
    assert sorted(tailor.open(store_a.store.dir).points()["load"].unique().to_list()) == [0.3, 0.6, 0.9]


TRACE_SCENARIO = """
name = "replay"
[topology]
kind = "star"
hosts = 4
link = { rate = "10Gbps", delay = "1us" }
[transport]
kind = "dctcp"
[[class]]
name = "replay"
trace = "good.csv"
receiver = 3
"""


def test_a_point_that_fails_while_running_is_reported_and_the_others_kept(tmp_path: Path) -> None:
    """A stop so early that no message completes parses (the first message starts before
    it) but fails its run: it would summarise nothing (a broken trace row, which used to
    fail here, is now refused before anything runs)."""
    rows = "".join(f"{i},{i % 3},{1000 * (i + 1)},{i * 10_000}\n" for i in range(8))
    (tmp_path / "good.csv").write_text("flow_id,sender,size_bytes,start_ns\n" + rows)
    (tmp_path / "replay.toml").write_text(TRACE_SCENARIO)
    rec = Recorder()
    with pytest.raises(PointsFailed, match="1 of 2 points failed") as e:
        tailor.sweep(tmp_path / "replay.toml", {"run.stop": ["1s", "1ns"]}, out=tmp_path / "s", listener=rec)
    assert list(e.value.failures) == ['{"run.stop": "1ns"}']
    assert "run.stop: no message completed" in e.value.failures['{"run.stop": "1ns"}']
    assert len(rec.of("failed")) == 1 and len(rec.of("finished")) == 1
    kept = tailor.open(tmp_path / "s")
    assert kept.points().height == 1 and kept.messages().collect().height == 8
    assert not any((tmp_path / "s" / "tmp").iterdir())


def test_a_trace_point_is_keyed_by_the_trace_bytes(tmp_path: Path) -> None:
    rows = "".join(f"{i},{i % 3},{1000 * (i + 1)},{i * 10_000}\n" for i in range(8))
    (tmp_path / "good.csv").write_text("flow_id,sender,size_bytes,start_ns\n" + rows)
    (tmp_path / "replay.toml").write_text(TRACE_SCENARIO)
    first = tailor.sweep(tmp_path / "replay.toml", seed=[1], out=tmp_path / "s").ids
    (tmp_path / "good.csv").write_text("flow_id,sender,size_bytes,start_ns\n" + rows.replace(",1000,", ",2000,"))
    second = tailor.sweep(tmp_path / "replay.toml", seed=[1], out=tmp_path / "s").ids
    assert first != second, "an edited trace is a new point, not a cached one"


def test_a_point_that_cannot_be_resolved_stops_the_sweep_before_anything_runs(tmp_path: Path) -> None:
    rec = Recorder()
    with pytest.raises(ScenarioError) as e:
        tailor.sweep(SMALL, {"class[0].load": [0.3, 7.0]}, out=tmp_path / "s", engine="model", listener=rec)
    assert e.value.key_path == "class[0].load"
    assert rec.events == [] and not (tmp_path / "s").exists()


def test_open_refuses_what_is_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="not a tailor result store"):
        tailor.open(tmp_path)
    (tmp_path / "x.txt").write_text("x")
    with pytest.raises(StoreError, match="not a tailor result store"):
        tailor.sweep(SMALL, seed=[1], out=tmp_path, engine="model")


# -- resume after a kill, Ctrl-C ------------------------------------------------------


def _sweep_cmd(out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "tailor",
        "sweep",
        str(SMALL),
        "--set",
        "load=0.3,0.5,0.7",
        "--set",
        "seed=1..3",
        "--jobs",
        "1",
        "--out",
        str(out),
        "--progress-json",
    ]


def _wait_for_points(out: Path, n: int, proc: subprocess.Popen[bytes], timeout: float = 120) -> list[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pts = (
            [p.name for p in (out / "points").glob("*") if (p / "point.json").exists()]
            if (out / "points").exists()
            else []
        )
        if len(pts) >= n:
            return pts
        assert proc.poll() is None, "the sweep ended before it was killed"
        time.sleep(0.05)
    raise AssertionError("the sweep made no progress")


def _comparable(out: Path) -> dict[str, Any]:
    """A store's content: per point its messages and summary, run-time fields aside."""
    content = {}
    for d in sorted((out / "points").iterdir()):
        s = json.loads((d / "summary.json").read_text())
        for k in ("wall_seconds", "events_per_second"):
            s.pop(k, None)
        content[d.name] = (pl.read_parquet(d / "messages.parquet").to_dicts(), s, (d / "scenario.toml").read_text())
    return content


def test_a_killed_sweep_restarts_without_recomputing_and_ends_as_an_uninterrupted_one(tmp_path: Path) -> None:
    out = tmp_path / "killed"
    proc = subprocess.Popen(_sweep_cmd(out), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    finished = _wait_for_points(out, 3, proc)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = [p.name for p in (out / "points").iterdir()]
    assert 3 <= len(finished) < 9
    stamps = {id: (out / "points" / id / "messages.parquet").stat().st_mtime_ns for id in finished}
    again = subprocess.run(_sweep_cmd(out), capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    events = [json.loads(line) for line in again.stderr.splitlines() if line.startswith("{")]
    cached = {e["point"] for e in events if e["event"] == "cached"}
    ran = {e["point"] for e in events if e["event"] == "finished"}
    assert cached == set(finished), "every finished point is reused"
    assert not (ran & set(finished)), "no finished point is computed again"
    assert len(cached) + len(ran) == 9
    assert all((out / "points" / id / "messages.parquet").stat().st_mtime_ns == stamps[id] for id in finished)
    assert not any((out / "tmp").iterdir()), "the killed sweep's partial point was removed"
    whole = tmp_path / "whole"
    subprocess.run([*_sweep_cmd(whole)[:-1], "--quiet"], check=True, capture_output=True, timeout=300)
    assert _comparable(out) == _comparable(whole)


@pytest.mark.parametrize("inherited", [signal.SIG_DFL, signal.SIG_IGN], ids=["inherited-default", "inherited-ignored"])
def test_ctrl_c_keeps_finished_points_and_leaves_nothing_partial(tmp_path: Path, inherited: Any) -> None:
    """Ctrl-C (SIGINT to the process group) while a point runs, whatever SIGINT disposition
    the sweep inherited (ignored in a script's background job): two short points, then a
    long one, and the signal is sent once the sweep says the long one started, so it
    arrives mid-point however busy the machine is."""
    out = tmp_path / "interrupted"
    cmd = [
        sys.executable,
        "-m",
        "tailor",
        "sweep",
        str(SMALL),
        "--set",
        "class[0].messages=400,4000000",
        "--set",
        "seed=1..2",
        "--jobs",
        "1",
        "--out",
        str(out),
        "--progress-json",
    ]
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, inherited),
    )
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            event = json.loads(line) if line.startswith("{") else {}
            if event.get("event") == "started" and event["params"]["class[0].messages"] == 4_000_000:
                break
        else:
            raise AssertionError("the sweep ended before its long point started")
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # the sweep and its workers, if the test failed
    assert proc.returncode == 130, err
    assert "interrupted:" in err and "Traceback" not in err
    kept = [p for p in (out / "points").iterdir()]
    assert len(kept) == 2 and all((p / "point.json").exists() and (p / "messages.parquet").exists() for p in kept)
    assert all(json.loads((p / "point.json").read_text())["params"]["class[0].messages"] == 400 for p in kept)
    assert not any((out / "tmp").iterdir())


# -- Ray ------------------------------------------------------------------------------


def test_the_same_sweep_on_ray_gives_the_same_store(tmp_path: Path, store_a: tailor.Sweep) -> None:
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install tailor[ray])")
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    except Exception as e:  # noqa: BLE001 - whatever stops Ray from starting here
        pytest.skip(f"Ray cannot start on this machine: {e}")
    try:
        sw = tailor.sweep(SMALL, load=[0.3, 0.6], seed=range(1, 4), out=tmp_path / "ray", engine="model", ray=True)
    finally:
        ray.shutdown()
    assert sorted(sw.ids) == sorted(store_a.ids)
    mine = {k: v for k, v in _comparable(store_a.store.dir).items() if k in sw.ids}
    assert _comparable(tmp_path / "ray") == mine


def test_ray_addresses_are_checked_before_anything_is_written(tmp_path: Path) -> None:
    pytest.importorskip("ray", reason="Ray is not installed")
    with pytest.raises(SweepError, match="accepted: local, auto, ray://HOST:PORT"):
        tailor.sweep(SMALL, seed=[5], out=tmp_path / "s", engine="model", ray="somewhere")
    assert not (tmp_path / "s").exists()


def test_plan_lists_the_points_and_what_the_store_holds_without_writing(store_a: tailor.Sweep, tmp_path: Path) -> None:
    from tailor.sweep import plan

    p = plan(SMALL, load=[0.3, 0.45], seed=range(1, 4), out=store_a.store.dir, engine="model")
    assert p.height == 6
    stored = set(p.filter(pl.col("stored"))["point"].to_list())
    assert stored == set(p.filter(pl.col("load") == 0.3)["point"].to_list()) and stored <= set(store_a.ids)
    assert plan(SMALL, seed=[1], out=tmp_path / "new", engine="model")["stored"].to_list() == [False]
    assert not (tmp_path / "new").exists()
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "tailor",
            "sweep",
            str(SMALL),
            "--set",
            "load=0.3,0.45",
            "--set",
            "seed=1..3",
            "--engine",
            "model",
            "--out",
            str(store_a.store.dir),
            "--dry-run",
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0 and "6 points: 3 in" in r.stdout and "3 to run" in r.stdout


# -- what the review found ------------------------------------------------------------


def test_a_scenario_edited_during_a_sweep_fails_its_points_instead_of_storing_them_wrongly(tmp_path: Path) -> None:
    """Each worker re-resolves its point: results are never filed under another id."""
    path = tmp_path / "q.toml"
    path.write_text(SMALL.read_text())

    class EditAfterFirst(Recorder):
        def finished(self, point: str, params: dict[str, Any], wall_s: float) -> None:
            super().finished(point, params, wall_s)
            path.write_text(SMALL.read_text().replace('rate = "100Gbps"', 'rate = "25Gbps"'))

    rec = EditAfterFirst()
    with pytest.raises(PointsFailed, match="2 of 3 points failed") as e:
        tailor.sweep(path, seed=[1, 2, 3], out=tmp_path / "s", engine="model", jobs=1, listener=rec)
    assert all("differs from when the sweep planned" in m for m in e.value.failures.values())
    assert len(tailor.open(tmp_path / "s").point_ids()) == 1 and e.value.sweep.ids == list(rec.of("finished"))


def test_a_worker_that_dies_fails_only_its_point(tmp_path: Path) -> None:
    import multiprocessing

    class KillFirstWorker(Recorder):
        killed = False

        def started(self, point: str, params: dict[str, Any]) -> None:
            super().started(point, params)
            if not self.killed:
                self.killed = True
                (child,) = multiprocessing.active_children()
                os.kill(child.pid, signal.SIGKILL)

    rec = KillFirstWorker()
    with pytest.raises(PointsFailed, match="1 of 3 points failed") as e:
        tailor.sweep(SMALL, seed=[1, 2, 3], out=tmp_path / "s", engine="model", jobs=1, listener=rec)
    (message,) = e.value.failures.values()
    assert "worker process running it died (exit code -9)" in message
    assert len(rec.of("finished")) == 2 and len(tailor.open(tmp_path / "s").point_ids()) == 2
    assert not multiprocessing.active_children(), "no worker is left behind"


def test_a_script_without_a_main_guard_gets_an_answer_not_a_hang(tmp_path: Path) -> None:
    script = tmp_path / "noguard.py"
    script.write_text(
        f"import tailor\ntailor.sweep({str(SMALL)!r}, seed=[1, 2], out={str(tmp_path / 's')!r}, engine='model')\n"
    )
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=180, cwd=tmp_path)
    assert r.returncode != 0
    assert 'if __name__ == "__main__":' in r.stderr


def test_cli_exit_1_when_points_failed_with_the_kept_points_printed(tmp_path: Path) -> None:
    rows = "".join(f"{i},{i % 3},{1000 * (i + 1)},{i * 10_000}\n" for i in range(8))
    (tmp_path / "good.csv").write_text("flow_id,sender,size_bytes,start_ns\n" + rows)
    (tmp_path / "replay.toml").write_text(TRACE_SCENARIO)
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "tailor",
            "sweep",
            str(tmp_path / "replay.toml"),
            "--set",
            "run.stop=1s,1ns",
            "--out",
            str(tmp_path / "s"),
            "-q",
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 1, r.stderr
    assert "1 of 2 points failed" in r.stderr and "Traceback" not in r.stderr
    assert "1s" in r.stdout and "1ns" not in r.stdout


def test_a_broken_trace_row_stops_the_sweep_before_anything_runs(tmp_path: Path) -> None:
    rows = "".join(f"{i},{i % 3},{1000 * (i + 1)},{i * 10_000}\n" for i in range(8))
    (tmp_path / "good.csv").write_text("flow_id,sender,size_bytes,start_ns\n" + rows)
    (tmp_path / "bad.csv").write_text("flow_id,sender,size_bytes,start_ns\n" + rows.replace("4,1,5000", "4,1,five"))
    (tmp_path / "replay.toml").write_text(TRACE_SCENARIO)
    with pytest.raises(ScenarioError, match="bad.csv: line 6, size_bytes: 'five'"):
        tailor.sweep(tmp_path / "replay.toml", {"class[0].trace": ["good.csv", "bad.csv"]}, out=tmp_path / "s")
    assert not (tmp_path / "s" / "points").exists() or not any((tmp_path / "s" / "points").iterdir())


def test_a_store_summary_never_averages_different_configurations(tmp_path: Path) -> None:
    store = tmp_path / "s"
    a = tmp_path / "a.toml"
    a.write_text(SMALL.read_text())
    tailor.sweep(a, seed=[1, 2], out=store, engine="model")
    a.write_text(SMALL.read_text().replace('rate = "100Gbps"', 'rate = "25Gbps"'))  # same name, other content
    tailor.sweep(a, seed=[1, 2], out=store, engine="model")
    with pytest.raises(StoreError, match="compute different things"):
        tailor.open(store).summary()
    # Another scenario name is a column of its own, not a clash.
    other = tmp_path / "other.toml"
    other.write_text(SMALL.read_text().replace('name = "quickstart"', 'name = "other"'))
    store2 = tmp_path / "s2"
    tailor.sweep(SMALL, seed=[1, 2], out=store2, engine="model")
    tailor.sweep(other, seed=[1, 2], out=store2, engine="model")
    df = tailor.open(store2).summary(sizes=False, stats=("p99",))
    assert sorted(df["scenario"].unique().to_list()) == ["other", "quickstart"]
    assert set(df["n_seeds"].to_list()) == {2}


def test_the_scenario_seed_and_the_same_seed_set_explicitly_are_one_point(tmp_path: Path) -> None:
    text = "\n".join(line for line in SMALL.read_text().splitlines() if not line.startswith("seed ="))
    path = tmp_path / "noseed.toml"
    path.write_text(text + "\n")
    assert tailor.Scenario.load(path).seed == 1
    a = tailor.sweep(path, out=tmp_path / "s", engine="model").ids
    b = tailor.sweep(path, seed=[1], out=tmp_path / "s", engine="model").ids
    assert a == b


@pytest.mark.parametrize(
    "args, says",
    [
        (["--set", "seed=1..3000000000"], "at most 100,000 points"),
        (["--set", "transport.init_cwnd=99999999999999999999"], "transport.init_cwnd: 99999999999999999999"),
        (["--set", "name=1979-05-27"], "name: datetime.date(1979, 5, 27)"),
        (["--set", "load=0.3", "--ray", "bogus"], "--ray: 'bogus' is not accepted"),
    ],
)
def test_bad_sweeps_exit_2_with_the_option_named_and_write_nothing(tmp_path: Path, args: list[str], says: str) -> None:
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "tailor",
            "sweep",
            str(SMALL),
            *args,
            "--out",
            str(tmp_path / "s"),
            "--engine",
            "model",
            "--dry-run" if "seed=1..3000000000" in args else "-q",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2, r.stderr
    assert says in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "s").exists()


def test_a_scalar_axis_is_one_value() -> None:
    from tailor.sweep import _axes

    assert _axes({"switch.scheduler": "drr"}, {"load": 0.5, "seed": range(2)}) == {
        "switch.scheduler": ["drr"],
        "load": [0.5],
        "seed": [0, 1],
    }


def test_p99_vs_load_of_a_real_store_from_python_and_the_cli(store_a: tailor.Sweep, tmp_path: Path) -> None:
    from tailor.plot import p99_vs_load

    df = store_a.summary(sizes=False)
    fig = p99_vs_load(df, where={"class": "rpc"})
    ax = fig.axes[0]
    assert ax.get_xlabel() == "load (fraction of link capacity)"
    (bars,) = ax.containers
    xs, ys = bars.lines[0].get_data()
    want = df.filter((pl.col("class") == "rpc") & (pl.col("stat") == "p99")).sort("load")
    assert list(xs) == want["load"].to_list() and list(ys) == pytest.approx(want["mean"].to_list())
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "tailor",
            "plot",
            str(store_a.store.dir),
            "--kind",
            "p99-vs-load",
            "--where",
            "class=rpc",
            "--out",
            str(tmp_path / "p"),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# -- what the second review found ----------------------------------------------------


def test_unwritable_outputs_exit_2_with_the_option_named(
    store_a: tailor.Sweep, result7: tailor.Result, tmp_path: Path
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    for args in (
        ["plot", str(result7.dir), "--kind", "latency-cdf", "--out", str(blocker / "x")],
        ["report", str(result7.dir), "--out", str(blocker / "r.html")],
        ["sweep", str(SMALL), "--set", "seed=1", "--engine", "model", "--out", str(blocker / "s"), "-q"],
    ):
        r = subprocess.run([sys.executable, "-m", "tailor", *args], capture_output=True, text=True)
        assert r.returncode == 2, (args, r.stderr)
        assert "--out" in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_a_closed_progress_pipe_does_not_kill_the_sweep(tmp_path: Path) -> None:
    """`tailor sweep ... 2>&1 | head -1`: progress goes quiet, the points are kept."""
    cmd = (
        f"{sys.executable} -m tailor sweep {SMALL} --set seed=1..3 --engine model --jobs 1 "
        f"--out {tmp_path / 's'} 2>&1 >/dev/null | head -1"
    )
    r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True, text=True, timeout=300)
    assert r.stdout.startswith("{"), r.stdout
    deadline = time.monotonic() + 120
    while len(list((tmp_path / "s" / "points").glob("*/point.json"))) < 3 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len(list((tmp_path / "s" / "points").glob("*/point.json"))) == 3


def test_sweep_progress_never_runs_more_points_than_workers_and_ends_with_done(tmp_path: Path) -> None:
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "tailor",
            "sweep",
            str(SMALL),
            "--set",
            "seed=1..4",
            "--engine",
            "model",
            "--jobs",
            "1",
            "--out",
            str(tmp_path / "s"),
            "--progress-json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    events = [json.loads(line) for line in r.stderr.splitlines() if line.startswith("{")]
    assert max(e["running"] for e in events) == 1
    assert events[-1]["event"] == "done" and events[-1]["done"] == 4


def test_the_sweep_report_shows_an_slo_without_messages_as_such(tmp_path: Path) -> None:
    text = SMALL.read_text().replace(
        '{ sli = "p99", min_size = "125KB", threshold = 20.0 },',
        '{ sli = "p99", min_size = "125KB", threshold = 20.0 },\n  { sli = "p99", min_size = "50MB", threshold = 20.0 },',
    )
    assert "50MB" in text
    path = tmp_path / "slo.toml"
    path.write_text(text)
    tailor.sweep(path, seed=[1, 2], out=tmp_path / "s", engine="model")
    from tailor.report import report

    html = report(tmp_path / "s").read_text()
    row = next(r for r in html.split("<tr>") if "50000000 B" in r)
    assert "not judged" in row and "missed" not in row
