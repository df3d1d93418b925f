"""The fast model's two forms and the advisor's two capacity readings from Python and the
command line (docs/model.md "The paper-literal form", docs/advisor.md "Capacity scaling:
both readings"): the scenario key and the options are honoured, and every mistake exits 2
naming what was wrong."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import tailor
from tailor.errors import OptionError, ScenarioError

DUMBBELL = """
name = "forms"
[topology]
kind = "dumbbell"
left = 4
right = 1
host_link = { rate = "100Gbps", delay = "1us" }
trunk = { rate = "100Gbps", delay = "3us" }
[switch]
ecn_threshold = "100KB"
[transport]
kind = "dctcp"
init_cwnd = "bdp"
max_cwnd = "bdp"
[[class]]
name = "rpc"
sizes = "google"
arrival = "lognormal"
sigma = 1.5
rate = "10Gbps"
pattern = "n_to_1"
senders = "0..4"
receiver = 4
until = "2ms"
slo = [{ sli = "p99", max_size = "125KB", threshold = 4.0 }]
"""

STAR = DUMBBELL.replace(
    'kind = "dumbbell"\nleft = 4\nright = 1\nhost_link = { rate = "100Gbps", delay = "1us" }\n'
    'trunk = { rate = "100Gbps", delay = "3us" }',
    'kind = "star"\nhosts = 5\nlink = { rate = "100Gbps", delay = "2.5us" }',
)


def cli(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tailor.cli", *map(str, args)], capture_output=True, text=True, timeout=300
    )


@pytest.fixture
def dumbbell(tmp_path: Path) -> Path:
    p = tmp_path / "dumbbell.toml"
    p.write_text(DUMBBELL)
    return p


def test_the_scenario_key_picks_the_form_of_a_model_run(dumbbell: Path, tmp_path: Path) -> None:
    paper = tmp_path / "paper.toml"
    paper.write_text(DUMBBELL + '[model]\nform = "paper"\n')
    runs = {}
    for name, path in (("calibrated", dumbbell), ("paper", paper)):
        out = tmp_path / name
        p = cli("run", path, "--engine", "model", "--csv", "-q", "--out", out)
        assert p.returncode == 0, p.stderr
        assert json.loads((out / "summary.json").read_text())["model"]["form"] == name
        runs[name] = (out / "messages.csv").read_text()
    assert runs["calibrated"] != runs["paper"]
    typo = tmp_path / "typo.toml"
    typo.write_text(DUMBBELL + '[model]\nform = "papper"\n')
    p = cli("run", typo, "--engine", "model", "-q", "--out", tmp_path / "typo")
    assert p.returncode == 2
    assert 'model.form: unknown value "papper"; accepted: "calibrated", "paper"' in p.stderr, p.stderr
    assert not (tmp_path / "typo").exists()


def test_advise_reports_the_form_and_reading_it_ran_with(dumbbell: Path, tmp_path: Path) -> None:
    def fifo(path: Path, **kw: str) -> dict:
        a = tailor.advise(path, min_capacity=True, disciplines=["fifo"], recheck=False, **kw)
        return a.report

    r = fifo(dumbbell)
    assert (r["model_form"], r["host_scaling"]) == ("calibrated", "scaled")
    p = fifo(dumbbell, model_form="paper", host_scaling="fixed")
    assert (p["model_form"], p["host_scaling"]) == ("paper", "fixed")
    # Without model_form, the scenario's [model] form.
    paper = tmp_path / "paper.toml"
    paper.write_text(DUMBBELL + '[model]\nform = "paper"\n')
    assert fifo(paper)["model_form"] == "paper"
    assert fifo(paper, model_form="calibrated")["model_form"] == "calibrated"


def test_bad_forms_and_readings_exit_2(dumbbell: Path, tmp_path: Path) -> None:
    p = cli("advise", dumbbell, "--model-form", "papper")
    assert p.returncode == 2 and "--model-form: unknown form 'papper'; accepted: calibrated, paper" in p.stderr, (
        p.stderr
    )
    p = cli("advise", dumbbell, "--host-scaling", "fix")
    assert p.returncode == 2 and "--host-scaling: unknown reading 'fix'; accepted: scaled, fixed" in p.stderr, p.stderr
    star = tmp_path / "star.toml"
    star.write_text(STAR)
    p = cli("advise", star, "--min-capacity", "-d", "fifo", "--host-scaling", "fixed", "--no-recheck")
    assert p.returncode == 2, p.stderr
    assert "topology.kind: --host-scaling fixed" in p.stderr and "a star has none" in p.stderr, p.stderr
    assert "accepted: --host-scaling scaled, or a dumbbell" in p.stderr and "Traceback" not in p.stderr
    p = cli("advise", dumbbell, "--transports", "dctcp", "--model-form", "paper")
    assert p.returncode == 2 and "--model-form: for the weights advisor" in p.stderr, p.stderr
    with pytest.raises(OptionError):
        tailor.advise(dumbbell, model_form="literal")
    with pytest.raises(OptionError):
        tailor.advise(dumbbell, host_scaling="both")
    with pytest.raises(ScenarioError) as e:
        tailor.advise(star, min_capacity=True, disciplines=["fifo"], recheck=False, host_scaling="fixed")
    assert e.value.key_path == "topology.kind"
