"""The decomposition's link simulations on Ray with a set number of workers
(docs/decomposed.md, "Running it on Ray"): any number of workers writes the same bytes as a
local run, clustered links included, and a worker count that cannot be used exits 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# A k = 4 fat-tree, Hadoop sizes at 50 % all-to-all, links clustered (docs/decomposed.md,
# "Clustering"): several link simulations, some links given their representative's delays.
SCENARIO = """name = "fabric"
seed = 1
[topology]
kind = "fat_tree"
k = 4
host_link = { rate = "10Gbps", delay = "1us" }
fabric_link = { rate = "40Gbps", delay = "1us" }
[switch]
ecn_threshold = "100KB"
[transport]
kind = "dctcp"
[[class]]
name = "c"
sizes = "hadoop"
arrival = "poisson"
load = 0.5
pattern = "all_to_all"
until = "2ms"
[decomposed]
cluster = 0.3
"""


def tailor_cli(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tailor.cli", *map(str, args)], capture_output=True, text=True, timeout=300
    )


def test_any_number_of_ray_workers_writes_the_same_bytes(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    sc = tmp_path / "fabric.toml"
    sc.write_text(SCENARIO)
    local = tailor_cli("run", sc, "--engine", "decomposed", "--out", tmp_path / "l", "--quiet", "--csv")
    assert local.returncode == 0, local.stderr
    summary = json.loads((tmp_path / "l" / "summary.json").read_text())["decomposed"]
    assert summary["clustered"] > 0 and summary["links"] > 4, summary
    messages = lambda d: (tmp_path / d / "messages.csv").read_bytes()  # noqa: E731
    assert len(messages("l").splitlines()) > 100
    for n in (1, 3):
        p = tailor_cli(
            "run", sc, "--engine", "decomposed", "--ray", "local", "--ray-workers", n,
            "--out", tmp_path / f"r{n}", "--quiet", "--csv",
        )  # fmt: skip
        assert p.returncode == 0, p.stderr
        assert messages(f"r{n}") == messages("l"), f"{n} workers"
        on_ray = json.loads((tmp_path / f"r{n}" / "summary.json").read_text())
        assert on_ray["decomposed"] == summary
        # The events counted include those of the simulations alone the workers ran.
        assert on_ray["events"] == json.loads((tmp_path / "l" / "summary.json").read_text())["events"]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--ray", "local", "--ray-workers", "0"], "an integer of at least 1"),
        (["--ray-workers", "2"], "only with ray"),
    ],
)
def test_a_worker_count_it_cannot_use_exits_2(tmp_path: Path, args: list[str], said: str) -> None:
    sc = tmp_path / "fabric.toml"
    sc.write_text(SCENARIO)
    p = tailor_cli("run", sc, "--engine", "decomposed", *args, "--out", tmp_path / "d", "--quiet")
    assert p.returncode == 2, p.stderr
    assert "ray_workers" in p.stderr and said in p.stderr
    assert not (tmp_path / "d").exists()


def test_the_second_pass_in_pieces_gives_the_local_bytes_and_refuses_another_scenarios(tmp_path: Path) -> None:
    """What Ray's path does, without Ray: both passes' link simulations run through the
    pieces a task calls, the result written from them (docs/decomposed.md, "Running it on
    Ray")."""
    from tailor import _core
    from tailor.errors import TailorError

    sc = tmp_path / "fabric.toml"
    sc.write_text(SCENARIO)
    local = tailor_cli("run", sc, "--engine", "decomposed", "--out", tmp_path / "l", "--quiet", "--csv")
    assert local.returncode == 0, local.stderr
    messages, links, work, again_work = _core.decomposed_links(sc, 1)
    first = [_core.decomposed_simulate(sc, links[:3], 1), _core.decomposed_simulate(sc, links[3:], 1)]
    inputs, each = _core.decomposed_again(sc, first, 1)
    # Every simulated host uplink of the k = 4 fat-tree's 16 hosts, clustered: some.
    assert 0 < len(inputs) <= 16 and sum(each) == again_work > 0
    again = [_core.decomposed_simulate_again(sc, inputs[:2], 1), _core.decomposed_simulate_again(sc, inputs[2:], 1)]
    (tmp_path / "p").mkdir()
    written = json.loads(_core.decomposed_write(sc, tmp_path / "p", first, 1, None, True, again))
    assert (tmp_path / "p" / "messages.csv").read_bytes() == (tmp_path / "l" / "messages.csv").read_bytes()
    # The tasks' simulations of messages alone are told once each (a process keeps its
    # parts: the second task of this process tells only the parts it ran first) and
    # counted in the events as the local run counts them.
    told = [pair[0] for text in first + again for pair in json.loads(text)["solo"]]
    assert told and len(told) == len(set(told))
    assert written["events"] == json.loads((tmp_path / "l" / "summary.json").read_text())["events"]
    # The second pass's results of another seed are not this run's: refused, not used.
    other = _core.decomposed_again(sc, [_core.decomposed_simulate(sc, _core.decomposed_links(sc, 2)[1], 2)], 2)[0]
    (tmp_path / "q").mkdir()
    with pytest.raises(TailorError, match="not those of this scenario and seed"):
        _core.decomposed_write(
            sc, tmp_path / "q", first, 1, None, True, [_core.decomposed_simulate_again(sc, other, 2)]
        )
    with pytest.raises(TailorError, match="not those of this scenario and seed"):
        _core.decomposed_simulate_again(sc, [inputs[0].replace('"link":', '"link":1')], 1)
