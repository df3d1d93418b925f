"""A topology read from an edge list through the front (docs/scenario.md, "Graph
topologies"): the shipped ring runs and says it is a graph; a wrong line is refused by
`check` and `run` with the graph file's name and line, exit 2 and nothing written; the
engines and searches that do not take a graph say so."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _tailor(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tailor", *args], capture_output=True, text=True, timeout=300)


def _ring(tmp_path: Path) -> Path:
    for f in ("ring.toml", "ring.graph"):
        shutil.copy(ROOT / "scenarios" / "graph" / f, tmp_path / f)
    return tmp_path / "ring.toml"


def test_the_ring_runs_as_a_graph(tmp_path: Path) -> None:
    sc = _ring(tmp_path)
    sc.write_text(sc.read_text().replace('until = "20ms"', 'until = "5ms"'))
    done = _tailor("run", str(sc), "--out", str(tmp_path / "r"), "--quiet")
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["messages"]["generated"] == summary["messages"]["completed"] > 100
    # 12 host cables and 6 between switches, two ports each.
    ports = (tmp_path / "r" / "ports.csv").read_text().splitlines()
    assert len(ports) == 1 + 36


def test_a_wrong_line_is_refused_at_its_line(tmp_path: Path) -> None:
    sc = _ring(tmp_path)
    graph = tmp_path / "ring.graph"
    graph.write_text(graph.read_text() + "h3 s4 10Gbps 1us\n")
    for args in (("check", str(sc)), ("run", str(sc), "--out", str(tmp_path / "r"), "--quiet")):
        done = _tailor(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert "Traceback" not in done.stderr
        assert f"{graph}: line 22: gives h3 a second cable (its first is on line 7)" in done.stderr, done.stderr
    assert not (tmp_path / "r").exists()


def test_engines_that_do_not_take_a_graph_say_so(tmp_path: Path) -> None:
    sc = _ring(tmp_path)
    for engine in ("model", "oracle", "decomposed"):
        done = _tailor("run", str(sc), "--engine", engine, "--out", str(tmp_path / engine), "--quiet")
        assert done.returncode == 2, (engine, done.stderr)
        assert "topology.kind: is a graph" in done.stderr and "accepted: --engine packet" in done.stderr, done.stderr
        assert not (tmp_path / engine).exists()
