"""Points kept as a summary only (docs/sweeps.md, "Summary-only points"; docs/advisor.md,
"Reproductions"): a packet search that keeps summaries answers exactly as one that keeps
every file, a second search reuses them, a cancelled one resumes, and a caller that needs a
point whole runs it again or is refused by name, never given an empty read."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import tailor
from hypothesis import given, settings
from hypothesis import strategies as st
from tailor.decision import SeedRun, read_point, scenario_slos
from tailor.errors import Cancelled, OptionError, PointError
from tailor.scenario import Scenario
from tailor.store import PointSpec, Store
from tailor.sweep import run_points

sys.path.insert(0, str(Path(__file__).parent))
from advise_scenario import two_classes  # noqa: E402

SCENARIO = two_classes("keep-test", "3ms", above_bdp=False)
#: What a summary-only point holds.
SUMMARY_FILES = {"point.json", "summary.json", "scenario.toml", "rows.parquet", "slo.parquet"}


@pytest.fixture
def small(tmp_path: Path) -> Path:
    p = tmp_path / "small.toml"
    p.write_text(SCENARIO)
    return p


class Events:
    """A sweep listener that records which points were found and which were run."""

    def __init__(self) -> None:
        self.found: list[str] = []
        self.ran: list[str] = []

    def cached(self, point: str, params: dict[str, Any]) -> None:
        self.found.append(point)

    def started(self, point: str, params: dict[str, Any]) -> None:
        pass

    def finished(self, point: str, params: dict[str, Any], wall_s: float) -> None:
        self.ran.append(point)

    def failed(self, point: str, params: dict[str, Any], message: str) -> None:
        raise AssertionError(message)


def _run_summary(d: Path) -> dict[str, Any]:
    """A point's summary.json but for the run's own timing."""
    s = json.loads((d / "summary.json").read_text())
    return {k: v for k, v in s.items() if k not in ("wall_seconds", "events_per_second")}


def _spec(path: Path, keep: str) -> PointSpec:
    return PointSpec.resolve(path, [("seed", 3)], "packet", {"seed": 3}, keep)


def test_a_summary_point_keeps_the_verdicts_and_a_whole_caller_runs_it_again(small: Path, tmp_path: Path) -> None:
    store = Store(tmp_path / "s")
    run_points(store, [_spec(small, "summary")], jobs=1)
    (id,) = store.point_ids()
    d = store.dir / "points" / id
    assert {p.name for p in d.iterdir()} == SUMMARY_FILES
    assert store.kept(id) == "summary" and store.has(id, "summary") and not store.has(id)
    summary = _run_summary(d)
    slos = scenario_slos(Scenario.load(small), [])
    from_summary = SeedRun(3, id)
    read_point(store, slos, id, from_summary)
    # What a search reads (rows, SLO verdicts) is there; the messages are refused by name.
    assert store.slos([id]).collect().height == len(slos)
    with pytest.raises(PointError, match="stored as a summary only") as err:
        store.messages([id]).collect()
    assert "messages.parquet" in str(err.value) and "--keep all" in str(err.value)

    e = Events()
    run_points(store, [_spec(small, "summary")], jobs=1, listener=e)
    assert e.found == [id] and e.ran == []
    # Asked for whole: run again and replaced whole, the same run.
    e = Events()
    run_points(store, [_spec(small, "all")], jobs=1, listener=e)
    assert e.ran == [id] and e.found == []
    assert store.kept(id) == "all" and store.has(id) and (d / "messages.parquet").is_file()
    assert _run_summary(d) == summary
    whole = SeedRun(3, id)
    read_point(store, slos, id, whole)
    assert (whole.values, whole.counts, whole.met, whole.incomplete) == (
        from_summary.values,
        from_summary.counts,
        from_summary.met,
        from_summary.incomplete,
    )
    assert store.messages([id]).collect().height > 0
    # A whole point serves a summary caller: nothing run.
    e = Events()
    run_points(store, [_spec(small, "summary")], jobs=1, listener=e)
    assert e.found == [id] and store.kept(id) == "all"


def _answer(a: tailor.Advice) -> dict[str, Any]:
    """The report but where it names the store, what it keeps, how many runs it found
    there and the model's time."""
    r = json.loads(json.dumps(a.report))
    for k in ("store", "keep", "run", "cached"):
        r["packet_engine"].pop(k)
    r.pop("model_seconds", None)
    return r


@settings(max_examples=3, deadline=None, derandomize=True)
@given(discipline=st.sampled_from(["fifo", "drr", "static"]), threshold=st.floats(2.0, 5.0).map(lambda x: round(x, 2)))
def test_the_search_answers_the_same_with_summaries_and_a_second_search_runs_nothing(
    discipline: str, threshold: float
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "small.toml"
        path.write_text(SCENARIO.replace("threshold = 3.0", f"threshold = {threshold}"))
        # The search on its own seed (no confirmation): what a store keeps, not how many seeds.
        kw = dict(min_capacity=True, disciplines=[discipline], engine="packet", seeds=1, tolerance=0.1, confirm_seeds=0)
        whole = tailor.advise(path, out=Path(tmp) / "all", **kw)
        summary = tailor.advise(path, out=Path(tmp) / "summary", keep="summary", **kw)
        assert summary.report["packet_engine"]["keep"] == "summary"
        assert _answer(summary) == _answer(whole)
        (c,) = summary.report["capacity"]
        assert summary.report["packet_engine"]["run"] == c["packet_runs"] > 0
        store = Store(Path(tmp) / "summary")
        assert all(store.kept(id) == "summary" for id in store.point_ids())
        assert not any((store.dir / "points" / id / "messages.parquet").exists() for id in store.point_ids())
        again = tailor.advise(path, out=Path(tmp) / "summary", keep="summary", **kw)
        pe = again.report["packet_engine"]
        assert pe["run"] == 0 and pe["cached"] == c["packet_runs"]
        assert _answer(again) == _answer(summary)


def test_a_cancelled_summary_search_resumes_with_the_points_it_kept(small: Path, tmp_path: Path) -> None:
    kw = dict(
        min_capacity=True,
        disciplines=["fifo"],
        engine="packet",
        seeds=1,
        tolerance=0.1,
        keep="summary",
        confirm_seeds=0,
    )
    rounds = []

    def stop_at_the_third(e: dict) -> bool:
        if e["kind"] == "recheck":
            rounds.append(e)
        return len(rounds) < 3

    with pytest.raises(Cancelled):
        tailor.advise(small, out=tmp_path / "s", progress=stop_at_the_third, **kw)
    kept = Store(tmp_path / "s").point_ids()
    assert len(kept) == 2, "two rounds of one seed ran before the third was cancelled"
    resumed = tailor.advise(small, out=tmp_path / "s", **kw)
    pe = resumed.report["packet_engine"]
    assert pe["cached"] == 2 and pe["run"] == resumed.report["capacity"][0]["packet_runs"] - 2
    assert _answer(resumed) == _answer(tailor.advise(small, out=tmp_path / "whole", **{**kw, "keep": "all"}))


def test_keep_is_checked_and_named(small: Path, tmp_path: Path) -> None:
    with pytest.raises(OptionError, match="--keep: unknown value 'some'; accepted: all, summary"):
        tailor.advise(small, keep="some", out=tmp_path / "none")
    for args, text in [
        (("--keep", "some"), "--keep: unknown value 'some'; accepted: all, summary"),
        (("--keep", "summary", "--transports", "dctcp"), "--keep: for the weights advisor"),
    ]:
        p = subprocess.run(
            [sys.executable, "-m", "tailor.cli", "advise", str(small), *args, "--out", str(tmp_path / "none")],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=tmp_path,
        )
        assert p.returncode == 2, (args, p.stdout, p.stderr)
        assert text in p.stderr and "Traceback" not in p.stderr
    assert not (tmp_path / "none").exists()
