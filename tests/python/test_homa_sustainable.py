"""homa-fig12 --sustainable: a transport past its capacity on a workload runs Fig. 12 (a)
at its highest sustainable load from a homa-fig15 result, as the paper ran pHost and NDP."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import tailor
from tailor.errors import OptionError
from tailor.reproduce.homa import fig12, sustainable
from tailor.reproduce.homa.points import Point, write_scenario

FIG15 = (
    "transport,workload,max_load,goodput_load,highest_load_run,paper_range\n"
    "phost,W1,0.7123,0.33,0.95,58%-73%\n"
    "phost,W3,,,0.95,58%-73%\n"
    "homa,W1,0.93,0.7,0.95,\n"
)


def test_read_keeps_the_maxima_and_marks_those_above_the_loads_run(tmp_path: Path) -> None:
    f = tmp_path / "fig15.csv"
    f.write_text(FIG15)
    m = sustainable.read(f)
    assert m == {("phost", "W1"): 0.7123, ("phost", "W3"): None, ("homa", "W1"): 0.93}
    assert sustainable.read(None) == {}


def test_cap_runs_named_transports_on_the_wire_basis_within_their_maximum() -> None:
    m = {("phost", "W1"): 0.7123, ("phost", "W3"): None, ("homa", "W1"): 0.93}
    # Capped: the maximum lies below the panel's load.
    assert sustainable.cap(m, "phost", "W1", 0.8, "payload") == 0.7123
    # A payload-basis file (pHost's: Homa's message rate) runs at the panel's load on the
    # wire basis, whether the maximum is known above it or above every load run.
    assert sustainable.cap(m, "phost", "W1", 0.5, "payload") == 0.5
    assert sustainable.cap(m, "phost", "W3", 0.8, "payload") == 0.8
    # A wire-basis file within its maximum runs unchanged; a transport not in the table too.
    assert sustainable.cap(m, "homa", "W1", 0.8, "wire") is None
    assert sustainable.cap(m, "homa", "W1", 0.95, "wire") == 0.93
    assert sustainable.cap(m, "phost", "W2", 0.8, "payload") is None


@pytest.mark.parametrize(
    "text, message",
    [
        ("transport,workload\nphost,W1\n", "no column max_load"),
        ("transport,workload,max_load\nphost,W1,1.5\n", "line 2: max_load '1.5' is not a network load"),
    ],
)
def test_a_bad_table_is_refused_naming_the_file_and_what_is_wrong(tmp_path: Path, text: str, message: str) -> None:
    f = tmp_path / "fig15.csv"
    f.write_text(text)
    with pytest.raises(OptionError, match=f"--sustainable: {f}.*{message}"):
        sustainable.read(f)
    with pytest.raises(OptionError, match="no such file"):
        sustainable.read(tmp_path / "missing.csv")


def test_points_are_capped_and_their_scenario_offers_the_maximum_on_the_wire(tmp_path: Path) -> None:
    maxima = {("phost", "W1"): 0.7123, ("homa", "W1"): None}
    pts = fig12.plan_points(["homa", "phost"], ["W1"], [0.5, 0.8], 1, "quick", maxima)
    by = {(p.transport, p.load): p for p in pts}
    assert by[("phost", 0.8)].offered == 0.7123 and by[("phost", 0.5)].offered == 0.5
    assert by[("homa", 0.8)].offered is None and by[("homa", 0.5)].offered is None, "Homa's files are on the wire"
    assert all(p.offered is None for p in fig12.plan_points(["phost"], ["W1"], [0.8], 1, "quick", {}))
    # The capped point runs as long as a point at its own load would (as many messages).
    assert by[("phost", 0.8)].until_us == round(fig12.LENGTHS_MS["quick"]["W1"] * 1000 * 0.8 / 0.7123)
    path = write_scenario(by[("phost", 0.8)], tmp_path, "test")
    doc = tailor.Scenario.load(path).resolve()["document"]
    assert "load = 0.7123" in doc and 'load_basis = "wire"' in doc
    assert "the smaller of 0.8 and its highest sustainable load" in path.read_text().splitlines()[0]
    # An uncapped point keeps its file's own load and basis (pHost's: Homa's message rate).
    (tmp_path / "plain").mkdir()
    plain = write_scenario(Point("phost", "W1", 0.8, 1, 1000), tmp_path / "plain", "test")
    assert 'load_basis = "payload"' in tailor.Scenario.load(plain).resolve()["document"]


def test_the_cli_exits_2_on_a_bad_table_and_writes_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "fig15.csv"
    bad.write_text("transport,workload\nphost,W1\n")
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "tailor",
            "reproduce",
            "homa-fig12",
            "--quick",
            "--workloads",
            "W1",
            "--sustainable",
            str(bad),
            "--out",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 2 and "--sustainable:" in p.stderr and "no column max_load" in p.stderr
    assert not (tmp_path / "out").exists()
