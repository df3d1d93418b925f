"""The Python API: tailor.run, tailor.check, Result, and the error mapping."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
import tailor
from tailor.errors import Cancelled, OutputError, ScenarioError, TailorError
from tailor.result import MESSAGE_COLUMNS

SUMMARY_KEYS = {
    "scenario",
    "seed",
    "transport",
    "events",
    "sim_ns",
    "wall_seconds",
    "messages",
    "overall",
    "classes",
    "network",
}


def test_run_writes_the_result_format(result7: tailor.Result) -> None:
    s = result7.summary
    assert SUMMARY_KEYS <= s.keys()
    assert s["seed"] == 7 and s["scenario"] == "quickstart"
    assert {"generated", "completed", "incomplete"} <= s["messages"].keys()
    assert set(s["classes"]) == {"websearch", "rpc"}
    for report in [s["overall"], *s["classes"].values()]:
        assert {"mean", "p50", "p90", "p99", "p999"} <= report["slowdown"].keys()
        assert all({"upper_bytes", "count", "mean", "p50", "p99"} <= b.keys() for b in report["bins"])
    assert {"drops", "ecn_marks", "max_queue_bytes", "mean_queue_bytes", "utilization"} <= s["network"].keys()
    assert sorted(p.name for p in result7.dir.iterdir()) == [
        ".tailor",
        "messages.parquet",
        "ports.csv",
        "scenario.toml",
        "summary.json",
    ]
    assert result7.files() == ["messages.parquet", "ports.csv", "scenario.toml", "summary.json"]


def test_messages_match_the_summary(result7: tailor.Result) -> None:
    m = result7.messages
    assert m.columns == MESSAGE_COLUMNS
    assert m.height == result7.summary["messages"]["completed"] > 0
    assert m["class"].dtype == pl.Utf8
    assert (m["finish_ns"] > m["start_ns"]).all()
    assert (m["slowdown"] >= 0.999).all()
    assert result7.ports.height > 0 and "utilization" in result7.ports.columns


def test_table_covers_every_class(result7: tailor.Result) -> None:
    from rich.console import Console

    console = Console(width=120, record=True)
    console.print(result7.table())
    text = console.export_text()
    for name in ("websearch", "rpc", "all", "p99.9", "KB", "MB"):
        assert name in text


def test_same_seed_same_messages_other_seed_different(result7: tailor.Result, quickstart: Path, tmp_path: Path) -> None:
    again = tailor.run(quickstart, seed=7, out=tmp_path / "again")
    other = tailor.run(quickstart, seed=8, out=tmp_path / "other")
    assert again.messages.equals(result7.messages)
    assert not other.messages.equals(result7.messages)


def test_csv_is_kept_on_request(quickstart: Path, tmp_path: Path) -> None:
    r = tailor.run(quickstart, seed=3, out=tmp_path / "r", csv=True)
    assert (r.dir / "messages.csv").exists() and (r.dir / "messages.parquet").exists()
    csv = pl.read_csv(r.dir / "messages.csv", schema_overrides={"class": pl.Utf8})
    assert csv.schema == r.messages.schema
    # The same rows; the CSV rounds the slowdown to six decimals, the Parquet keeps it whole.
    assert csv.drop("slowdown").equals(r.messages.drop("slowdown"))
    assert (csv["slowdown"] - r.messages["slowdown"]).abs().max() <= 5e-7


def test_the_engine_writes_the_messages_as_parquet_itself(quickstart: Path, tmp_path: Path) -> None:
    """No CSV is converted after the run (its memory grew with the run): the Parquet file
    is the engine's, in row groups, and no messages.csv was written."""
    r = tailor.run(quickstart, seed=3, out=tmp_path / "r")
    parquet = r.dir / "messages.parquet"
    assert b"written by tailor" in parquet.read_bytes()[-4096:], "the footer's created_by names tailor, not polars"
    assert not (r.dir / "messages.csv").exists() and "messages.csv" not in r.files()
    assert r.messages.height == r.summary["messages"]["completed"]


def test_check_describes_the_scenario(quickstart: Path) -> None:
    info = tailor.check(quickstart)
    assert info["name"] == "quickstart" and info["seed"] == 1
    assert info["hosts"] == 16 and info["topology"] == "star"
    assert info["transport"] == "dctcp"
    assert info["classes"] == ["websearch", "rpc"]
    sc = tailor.Scenario.load(quickstart)
    assert (sc.name, sc.seed, sc.path) == ("quickstart", 1, quickstart)


def test_bad_key_raises_scenario_error_with_the_key_path(bad_scenario: Path) -> None:
    with pytest.raises(ScenarioError) as caught:
        tailor.check(bad_scenario)
    e = caught.value
    assert isinstance(e, TailorError) and isinstance(e, ValueError)
    assert e.file == str(bad_scenario)
    assert e.key_path == "transport.knd"
    assert "unknown key" in e.message and "kind" in e.message
    assert str(e) == f"{e.file}: {e.key_path}: {e.message}"


def test_misspelt_required_key_names_the_accepted_values(quickstart: Path, tmp_path: Path) -> None:
    bad = tmp_path / "typo.toml"
    bad.write_text(quickstart.read_text().replace('kind = "dctcp"', 'knd = "dctcp"'))
    with pytest.raises(ScenarioError) as caught:
        tailor.check(bad)
    assert caught.value.key_path == "transport.kind"
    assert "dctcp" in caught.value.message


def test_syntax_error_has_an_empty_key_path(tmp_path: Path) -> None:
    bad = tmp_path / "broken.toml"
    bad.write_text("name = \n")
    with pytest.raises(ScenarioError) as caught:
        tailor.check(bad)
    assert caught.value.key_path == "" and "TOML" in caught.value.message


def test_missing_file_is_a_scenario_error(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="cannot read"):
        tailor.check(tmp_path / "nope.toml")


def test_refusing_to_overwrite_is_an_output_error(quickstart: Path, tmp_path: Path) -> None:
    out = tmp_path / "occupied"
    out.mkdir()
    (out / "precious.txt").write_text("mine")
    with pytest.raises(OutputError, match="not a directory tailor wrote"):
        tailor.run(quickstart, seed=1, out=out)
    assert (out / "precious.txt").read_text() == "mine"


def test_progress_is_reported(quickstart: Path, tmp_path: Path) -> None:
    seen: list[dict] = []
    tailor.run(quickstart, seed=7, out=tmp_path / "p", progress=lambda p: seen.append(p) or True)
    assert seen, "the final state is always reported"
    assert set(seen[-1]) == {"phase", "built", "ports", "sim_ns", "events", "started", "completed", "active"}
    assert seen[-1]["phase"] == "running" and seen[-1]["built"] == seen[-1]["ports"] == 2 * 16
    assert seen[-1]["completed"] == 3400 and seen[-1]["active"] == 0
    assert [p["events"] for p in seen] == sorted(p["events"] for p in seen)


def test_progress_returning_false_cancels(quickstart: Path, tmp_path: Path) -> None:
    out = tmp_path / "cancelled"
    calls = []
    with pytest.raises(Cancelled):
        tailor.run(quickstart, seed=7, out=out, progress=lambda p: calls.append(p) and False)
    assert len(calls) == 1
    assert list(tmp_path.iterdir()) == [], "a cancelled run leaves nothing behind"


def test_progress_raising_cancels_and_propagates(quickstart: Path, tmp_path: Path) -> None:
    def boom(p: dict) -> bool:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        tailor.run(quickstart, seed=7, out=tmp_path / "k", progress=boom)
    assert list(tmp_path.iterdir()) == []


def test_workloads_dir_is_found_from_any_cwd(quickstart: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert tailor.check(quickstart)["classes"] == ["websearch", "rpc"]


def test_a_run_releases_the_gil(quickstart: Path, tmp_path: Path) -> None:
    """While the engine runs in one thread, Python code keeps running in another."""
    import threading
    import time

    ticks = 0
    done = threading.Event()

    def count() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    start = time.perf_counter()
    tailor.run(quickstart, seed=7, out=tmp_path / "r")
    wall = time.perf_counter() - start
    done.set()
    t.join()
    # With the GIL held for the whole run the counter would stall (a progress callback
    # gives it back five times a second at most, and there is none here).
    assert wall > 0.2 and ticks > 0.3 * wall / 0.0011, (ticks, wall)


def test_variants_of_a_scenario_get_their_own_default_directory(quickstart: Path) -> None:
    from tailor.run import default_out

    sc = tailor.Scenario.load(quickstart)
    a, b = default_out(sc.with_(load=0.3), 1), default_out(sc.with_(load=0.5), 1)
    assert a != b and default_out(sc, 1) == Path("runs/quickstart-packet-s1")
    assert default_out(sc, 1, "model") == Path("runs/quickstart-model-s1")
    assert a.name.startswith("quickstart-") and a.name.endswith("-s1")


def test_the_package_shows_its_api_and_loads_plot_on_first_use() -> None:
    code = (
        "import sys, tailor\n"
        "assert 'tailor.plot' not in sys.modules\n"
        "assert callable(tailor.plot.save) and callable(tailor.report.report)\n"
        "assert dir(tailor) == sorted(tailor.__all__), dir(tailor)\n"
        "assert not {'os', 'Path', '_find_workloads', 'annotations'} & set(dir(tailor))\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr


def test_help_of_run_states_the_default_directory_and_the_replace_rule() -> None:
    doc = " ".join((tailor.run.__doc__ or "").split())
    assert "runs/<scenario name>-<engine>-s<seed>" in doc
    assert "only the files tailor wrote there are replaced" in doc and "OutputError" in doc
