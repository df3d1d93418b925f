"""`--engine decomposed` from the Python front (docs/decomposed.md): the CLI runs it and says
the latencies are estimates, the result has the packet engine's files and columns, and what
it cannot stand for exits 2 naming the key, writing nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCENARIO = """name = "incast"
seed = 1
[topology]
kind = "star"
hosts = 9
link = { rate = "10Gbps", delay = "1us" }
[switch]
ecn_threshold = "30KB"
[transport]
kind = "dctcp"
[[class]]
name = "c"
sizes = "hadoop"
arrival = "poisson"
load = 0.6
pattern = "n_to_1"
until = "5ms"
"""


def tailor_cli(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tailor.cli", *map(str, args)], capture_output=True, text=True, timeout=120
    )


def test_the_cli_runs_it_and_says_the_latencies_are_estimates(tmp_path: Path) -> None:
    sc = tmp_path / "incast.toml"
    sc.write_text(SCENARIO)
    p = tailor_cli("run", sc, "--engine", "decomposed", "--out", tmp_path / "d", "--quiet", "--csv")
    assert p.returncode == 0, p.stderr
    assert "latencies are estimates" in p.stdout
    s = json.loads((tmp_path / "d" / "summary.json").read_text())
    assert s["engine"] == "decomposed"
    assert s["decomposed"]["estimate"] is True and s["decomposed"]["method"] == "parsimon"
    assert 2 <= s["decomposed"]["links"] <= 9, "the senders' uplinks and the link into host 8"
    assert s["messages"]["completed"] == s["messages"]["generated"] > 20
    q = tailor_cli("run", sc, "--out", tmp_path / "p", "--quiet", "--csv")
    assert q.returncode == 0, q.stderr
    head = lambda d: (tmp_path / d / "messages.csv").read_text().splitlines()[0]  # noqa: E731
    assert head("d") == head("p")


def test_what_it_cannot_stand_for_exits_2_naming_the_key(tmp_path: Path) -> None:
    sc = tmp_path / "stop.toml"
    sc.write_text(SCENARIO.replace("seed = 1\n", 'seed = 1\n[run]\nstop = "1ms"\n'))
    p = tailor_cli("run", sc, "--engine", "decomposed", "--out", tmp_path / "d", "--quiet")
    assert p.returncode == 2, p.stderr
    assert "run.stop" in p.stderr and "--engine decomposed" in p.stderr
    assert not (tmp_path / "d").exists()


def test_on_ray_the_link_simulations_give_the_same_bytes(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    sc = tmp_path / "incast.toml"
    sc.write_text(SCENARIO)
    local = tailor_cli("run", sc, "--engine", "decomposed", "--out", tmp_path / "l", "--quiet", "--csv")
    assert local.returncode == 0, local.stderr
    on_ray = tailor_cli(
        "run", sc, "--engine", "decomposed", "--ray", "local", "--out", tmp_path / "r", "--quiet", "--csv"
    )
    assert on_ray.returncode == 0, on_ray.stderr
    messages = lambda d: (tmp_path / d / "messages.csv").read_bytes()  # noqa: E731
    assert len(messages("l").splitlines()) > 20
    assert messages("l") == messages("r")


def test_ray_is_refused_with_another_engine(tmp_path: Path) -> None:
    sc = tmp_path / "incast.toml"
    sc.write_text(SCENARIO)
    p = tailor_cli("run", sc, "--ray", "local", "--out", tmp_path / "p", "--quiet")
    assert p.returncode == 2, p.stderr
    assert "ray" in p.stderr and "decomposed" in p.stderr
    assert not (tmp_path / "p").exists()
