"""The reproductions' registry, scenario generators and argument checks (the runs themselves
are in `make validate`)."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import tailor
import typer
from tailor.reproduce import REPRODUCTIONS
from tailor.reproduce.swp import capacity as swp_capacity
from tailor.reproduce.swp import fig1 as swp_fig1


@pytest.mark.parametrize("n_classes,lo,hi", [(3, 5.0, 10.0), (5, 3.0, 6.0)])
def test_random_scenarios_follow_table_4_and_are_valid(tmp_path: Path, n_classes: int, lo: float, hi: float) -> None:
    a = [swp_capacity.draw(random.Random(7), i, n_classes, "3ms") for i in range(4)]
    rng = random.Random(7)
    b = [swp_capacity.draw(rng, i, n_classes, "3ms") for i in range(4)]
    rng2 = random.Random(7)
    c = [swp_capacity.draw(rng2, i, n_classes, "3ms") for i in range(4)]
    assert [x[0].toml() for x in b] == [x[0].toml() for x in c], "same seed, same scenarios"
    assert a[0][0].toml() == b[0][0].toml()
    assert len({x[0].toml() for x in b}) == 4, "each draw differs"
    assert len({x[0].seed for x in b}) == 4, "each scenario has a traffic seed of its own"
    for sc, params in b:
        assert len(params) == n_classes
        for p in params:
            assert p["sizes"] in ("google", "hadoop", "alistorage")
            assert 1.0 <= p["sigma"] <= 2.0 and lo <= p["rate_gbps"] <= hi and 3.0 <= p["slo"] <= 8.0
        path = tmp_path / f"{sc.name}.toml"
        path.write_text(sc.toml())
        info = tailor.check(path)
        assert info["classes"] == [f"c{k}" for k in range(n_classes)]
        assert f"seed = {sc.seed}\n" in sc.toml() and 'kind = "dumbbell"' in sc.toml()


def test_the_computed_horizon_gives_every_judged_range_100_messages(tmp_path: Path) -> None:
    """The horizon is the least that gives each judged SLO range 100 messages after the
    warm-up with about 99 % probability; a model run of the scenario finds them there,
    and the ranges that would need more than the cap are left out and marked."""
    rng = random.Random(3)
    drawn = [swp_capacity.draw(rng, i, 3, None, cap_ms=25.0) for i in range(12)]
    judged = [(sc, ps) for sc, ps in drawn if not swp_capacity.refused(ps)]
    assert judged and len(judged) < len(drawn), "the cap refuses some scenarios and keeps others"
    for sc, ps in drawn:
        for p in ps:
            assert p["judged"] == {r: p["needs_ms"][r] <= 25.0 for r in ("small", "large")}
        assert sc.toml().count("min_size") == sum(p["judged"]["large"] for p in ps)
        assert sc.toml().count("max_size") == sum(p["judged"]["small"] for p in ps)
    sc, ps = judged[0]
    assert float(sc.until.removesuffix("ms")) >= swp_capacity.WARMUP_MS + max(p["needs_ms"]["small"] for p in ps)
    path = tmp_path / f"{sc.name}.toml"
    path.write_text(sc.toml())
    r = tailor.run(path, engine="model", out=tmp_path / "run")
    counts = [s["count"] for c in r.summary["classes"].values() for s in c["slo"]]
    assert len(counts) == sum(sum(p["judged"].values()) for p in ps)
    assert min(counts) >= 100, counts


def test_too_rare_a_range_is_not_judged() -> None:
    """A Google class at 5 Gbps needs about 190 ms for 100 messages above 125 KB: under a
    100 ms cap its large-message SLO is dropped, and its small-message one kept."""
    from tailor.reproduce.swp import horizon

    assert 150 < horizon.range_horizon_s("google", 1.0, 5.0, small=False) * 1e3 < 250
    assert horizon.range_horizon_s("google", 1.0, 5.0, small=True) * 1e3 < 1
    # σ = 2 gaps have a squared coefficient of variation of e^4 - 1: several times the mean count.
    assert horizon.needed_mean(1.0, 2.0) > 4 * horizon.needed_mean(1.0, 0.01)


def test_fig1_scenarios_give_the_foreground_its_weight(tmp_path: Path) -> None:
    sc = swp_fig1.scenario("weight", 0.5, swp_fig1.Setup(transport="dctcp"), {"weight": 0.3})
    text = sc.toml()
    assert "weight = 0.3\n" in text and "weight = 0.7\n" in text and 'scheduler = "drr"' in text
    path = tmp_path / "f.toml"
    path.write_text(text)
    assert tailor.check(path)["classes"] == ["fg", "bg"]
    pr = swp_fig1.scenario("priority", 0.5, swp_fig1.Setup(transport="dctcp"), {})
    assert "priority = 0" in pr.toml() and "priority = 1" in pr.toml()


def _rows(scenario: str, caps: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "scenario": scenario,
            "classes": 3,
            "seed": 1,
            "discipline": d,
            "engine": "model",
            "model_form": "calibrated",
            "host_scaling": "fixed",
            "capacity_gbps": c,
            "offered_gbps": 10.0,
            "found": c is not None,
        }
        for d, c in caps.items()
    ]


def test_capacity_summary_means_medians_and_counts_the_not_found() -> None:
    from tailor.reproduce.swp import savings

    rows = (
        _rows("a", {"fifo": 30.0, "weights": 20.0, "weights_fq": 15.0, "static": 40.0})
        + _rows("b", {"fifo": 20.0, "weights": 20.0, "weights_fq": 10.0, "static": 18.0})
        + _rows("c", {"fifo": 24.0, "weights": 20.0, "weights_fq": 12.0, "static": 24.0})
        + _rows("d", {"fifo": None, "weights": 20.0, "weights_fq": 10.0, "static": 30.0})
    )
    tight = [{"sigma": 1.8, "slo": 3.5}] * 3
    loose = [{"sigma": 1.2, "slo": 6.0}] * 3
    params = {"a": tight, "b": loose, "c": loose, "d": loose, "e": loose}
    s = {(x["experiment"], x["comparison"]): x for x in savings.summarize(rows, params, refused={"e"})}
    w = s[("Fig. 8", "fifo_vs_weights")]
    assert w["mean"] == pytest.approx(70 / 3) and w["median"] == pytest.approx(20.0)  # +50, +0, +20 %
    assert w["n"] == 3 and w["not_found"] == 1 and w["scenarios"] == 5 and w["refused"] == 1
    assert w["ci"][0] <= w["mean"] <= w["ci"][1] and w["paper"] == 44.0 and w["negative"] == 0
    st = s[("Fig. 8", "static_vs_fifo")]
    assert st["n"] == 3 and st["not_found"] == 1 and st["negative"] == 1  # static 18 < FIFO 20 in b
    assert s[("Fig. 8", "fifo_vs_weights_fq")]["mean"] == pytest.approx(100.0)
    b = s[("Fig. 8(b)", "fifo_vs_weights")]
    assert b["n"] == 1 and b["mean"] == pytest.approx(50.0) and b["ci"] is None
    assert s[("Fig. 8(d)", "fifo_vs_weights")]["n"] == 1
    assert s[("Fig. 9", "fifo_vs_weights")]["scenarios"] == 0
    # Another variant on a subset (scenario a only) is set beside the main one on the same scenarios.
    paper = [
        dict(r, model_form="paper", capacity_gbps=r["capacity_gbps"] * (1.2 if r["discipline"] == "fifo" else 1))
        for r in rows
        if r["scenario"] == "a"
    ]
    both = savings.summarize(rows + paper, params, refused={"e"})
    p = next(
        x
        for x in both
        if x["experiment"] == "Fig. 8" and x["comparison"] == "fifo_vs_weights" and x["model_form"] == "paper"
    )
    assert p["n"] == 1 and p["mean"] == pytest.approx(80.0) and p["main_same"] == pytest.approx(50.0)
    assert "calibrated, fixed on these: +50 %" in savings.cell(p)


def test_quick_writes_capacity_csv_with_exactly_the_issues_columns(tmp_path: Path) -> None:
    """The quick form (one short scenario, two variants: seconds) writes every discipline's
    row per variant, says it is not a result, and its table names the paper's figure
    beside ours."""
    p = reproduce_cli(
        "swp-capacity",
        "--quick",
        "--classes",
        "3",
        "--n",
        "1",
        "--model-form",
        "calibrated",
        "--model-form",
        "paper",
        "--host-scaling",
        "fixed",
        "--out",
        str(tmp_path / "q"),
    )
    assert p.returncode == 0, p.stderr
    assert "NOT a result" in p.stdout and "Fig. 8" in p.stdout and "+44 %" in p.stdout
    assert "model paper-literal" in p.stdout and "host links fixed at 100 Gbps" in p.stdout
    lines = (tmp_path / "q" / "capacity.csv").read_text().splitlines()
    assert lines[0] == (
        "scenario,classes,seed,discipline,engine,model_form,host_scaling,capacity_gbps,offered_gbps,found"
    )
    rows = [dict(zip(lines[0].split(","), x.split(","), strict=True)) for x in lines[1:]]
    for form in ("calibrated", "paper"):
        mine = [r for r in rows if r["model_form"] == form]
        assert sorted(r["discipline"] for r in mine) == ["fifo", "static", "weights", "weights_fq"]
        assert {(r["engine"], r["host_scaling"]) for r in mine} == {("model", "fixed")}
    scenario = (tmp_path / "q" / "scenarios" / f"{rows[0]['scenario']}.toml").read_text()
    assert all(f"seed = {r['seed']}\n" in scenario for r in rows)
    for r in rows:
        assert r["found"] in ("true", "false") and (r["capacity_gbps"] == "") == (r["found"] == "false")
    assert (tmp_path / "q" / "capacity_cdf.csv").is_file() and (tmp_path / "q" / "capacity.png").is_file()


def test_reproduce_rejects_bad_arguments() -> None:
    p = subprocess.run(
        [sys.executable, "-m", "tailor.cli", "reproduce", "swp-capacity", "--classes", "4"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 2 and "accepted: 3, 5" in p.stderr


@pytest.mark.parametrize(
    "option, value, accepted",
    [
        ("--engine", "ns3", "accepted: model, packet"),
        ("--model-form", "literal", "accepted: calibrated, paper"),
        ("--host-scaling", "both", "accepted: scaled, fixed"),
    ],
)
def test_swp_capacity_refuses_an_unknown_variant(tmp_path: Path, option: str, value: str, accepted: str) -> None:
    p = reproduce_cli("swp-capacity", option, value, "--out", str(tmp_path / "r"))
    assert p.returncode == 2 and p.stderr == f"error: {option}: '{value}' is not accepted; {accepted}\n", p.stderr
    assert list(tmp_path.iterdir()) == []


def test_each_variant_calls_the_advisor_as_plan25_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The call sites of the variants other branches bring (the paper-literal form, host
    links fixed, the packet engine), checked against a stand-in advisor: the keywords
    each passes, the CSV names of the disciplines, a capacity not found kept as a row."""
    from tailor.errors import DisciplineError
    from tailor.reproduce.swp import searches

    calls: list[dict[str, Any]] = []

    def fake_advise(path: str, **kw: Any) -> Any:
        calls.append(kw)
        if kw.get("engine") == "packet" and "static" in kw["disciplines"]:
            raise DisciplineError("--discipline: static needs a link per class")
        caps = [
            {"strategy": d, "capacity_bps": None if d == "fifo" else 2e10, "verdicts": []} for d in kw["disciplines"]
        ]
        return SimpleNamespace(report={"capacity": caps, "offered_bps": 1e10, "messages": 7})

    monkeypatch.setattr(tailor, "advise", fake_advise)
    params = {"scenario": "s", "classes": 3, "seed": 42}
    out = {}
    for v in (searches.Variant("model", "paper", "fixed"), searches.Variant("packet", "", "scaled")):
        out[v.engine] = searches.search(searches.task(tmp_path / "s.toml", params, v, 3, tmp_path))
    model, packet = calls[0], calls[-1]
    assert model["model_form"] == "paper" and model["host_scaling"] == "fixed" and model["recheck"] is False
    assert "engine" not in model and model["disciplines"] == ["fifo", "drr", "hierarchical", "static"]
    assert packet["engine"] == "packet" and packet["seeds"] == 3 and "recheck" not in packet
    assert packet["keep"] == "summary" and "keep" not in model  # the packet searches keep summaries only
    assert "model_form" not in packet and "host_scaling" not in packet  # scaled: the advisor's default
    assert packet["disciplines"] == ["fifo", "drr", "hierarchical"]  # static refused, retried without it
    rows = out["model"]["rows"]
    assert [r["discipline"] for r in rows] == ["fifo", "weights", "weights_fq", "static"]
    assert rows[0]["found"] is False and rows[0]["capacity_gbps"] is None and rows[1]["capacity_gbps"] == 20.0
    assert all(r["seed"] == 42 and r["model_form"] == "paper" for r in rows)
    assert {r["model_form"] for r in out["packet"]["rows"]} == {""}


def reproduce_cli(*args: str) -> subprocess.CompletedProcess[str]:
    # The timeout only stops a hung run; a quick form that takes 20 s alone takes minutes
    # on a machine whose other core (and more) is busy, so it is no time limit.
    return subprocess.run(
        [sys.executable, "-m", "tailor.cli", "reproduce", *args], capture_output=True, text=True, timeout=900
    )


def test_every_registered_reproduction_is_a_command_and_nothing_else_is() -> None:
    from tailor.cli.reproduce import reproduce_app

    group = typer.main.get_group(reproduce_app)
    assert list(group.commands) == list(REPRODUCTIONS) and len(REPRODUCTIONS) >= 2
    for name, r in REPRODUCTIONS.items():
        assert r.name == name and name.startswith(f"{r.paper.lower()}-")
        assert group.commands[name].get_short_help_str(limit=10_000) == r.summary
        assert r.example.startswith(f"tailor reproduce {name}")


def test_list_names_each_reproduction_its_figure_and_its_time() -> None:
    p = reproduce_cli("--list")
    assert p.returncode == 0, p.stderr
    rows = {line.split("│")[1].strip(): line for line in p.stdout.splitlines() if line.count("│") > 2}
    assert set(rows) - {"reproduction"} == set(REPRODUCTIONS)
    for name, r in REPRODUCTIONS.items():
        for text in (r.paper, r.figure, r.quick, r.full, r.full_options):
            assert text in rows[name], f"--list: {name}: {text!r} missing from {rows[name]!r}"


def test_an_unknown_reproduction_exits_2_naming_the_accepted_ones(tmp_path: Path) -> None:
    p = subprocess.run(
        [sys.executable, "-m", "tailor.cli", "reproduce", "swp-fig2"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert p.returncode == 2
    assert f"unknown reproduction 'swp-fig2'; accepted: {', '.join(REPRODUCTIONS)}" in p.stderr
    assert list(tmp_path.iterdir()) == []


def test_two_reproductions_of_one_name_are_refused() -> None:
    from tailor.reproduce import _by_name

    (first, *_) = REPRODUCTIONS.values()
    with pytest.raises(ValueError, match=f"two reproductions are named '{first.name}'"):
        _by_name((first,), (first,))


def test_a_plan_writes_where_its_options_say(tmp_path: Path) -> None:
    """The options function checks its values before anything runs, and names the default directory."""
    plan = REPRODUCTIONS["swp-capacity"].options(classes=5)
    assert plan.out == Path("runs") / "swp-capacity-5"
    assert REPRODUCTIONS["swp-fig1"].options(engine="packet", out=tmp_path).out == tmp_path
    with pytest.raises(tailor.errors.OptionError, match="--until: '3' is not a positive time"):
        REPRODUCTIONS["swp-fig1"].options(until="3")


@pytest.mark.parametrize("inherited", [signal.SIG_DFL, signal.SIG_IGN], ids=["inherited-default", "inherited-ignored"])
def test_ctrl_c_stops_a_reproduction_mid_point_and_leaves_nothing(tmp_path: Path, inherited: Any) -> None:
    """Points run in threads while the main thread waits for them; Ctrl-C must cancel the
    point in flight, not wait for it (it used to: polars' SIGINT handler restarts a wait
    with no timeout). homa-fig14's W4 point runs for most of a minute; the signal is sent
    once it has started writing, so it arrives mid-point however busy the machine is, and
    the point must not finish (no line reporting it)."""
    out = tmp_path / "fig14"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tailor.cli", "reproduce", "homa-fig14", "--workloads", "W4", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        preexec_fn=lambda: signal.signal(signal.SIGINT, inherited),
    )
    try:
        deadline = time.monotonic() + 300
        while not any(tmp_path.rglob("messages.parquet")):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "fig14-w4-80 seed 1:" not in err, "the point ran to its end after Ctrl-C"
    assert "nothing was left half-written" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == [], "no reproduction directory, no partial one"


@pytest.mark.parametrize(
    "name, option, value",
    [
        ("hull-fattree", "--flows", "0"),
        ("hull-fattree", "--flows", "-1"),
        ("pl2-vgg16", "--iterations", "0"),
        ("pl2-microburst", "--seeds", "0"),
        ("hull-table4", "--seeds", "0"),
        ("homa-fig12", "--seeds", "0"),
        ("swp-capacity", "--n", "0"),
        ("hull-fattree", "--flows", "many"),
        ("pl2-vgg16", "--worker-gbps", "0"),
    ],
)
def test_a_nonsense_count_is_refused_not_replaced_by_the_default(
    tmp_path: Path, name: str, option: str, value: str
) -> None:
    p = subprocess.run(
        [sys.executable, "-m", "tailor.cli", "reproduce", name, option, value, "--out", str(tmp_path / "r")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert p.returncode == 2 and p.stderr.startswith(f"error: {option}: ") and "accepted: " in p.stderr, p.stderr
    assert len(p.stderr.splitlines()) == 1 and list(tmp_path.iterdir()) == []


@dataclass(frozen=True)
class Point:
    """A point as run_points takes one (HULL's and PL2's carry no transport)."""

    name: str
    seed: int = 1
    workload: str = "W1"
    until_us: int = 1000


def test_a_reproduction_says_how_far_its_points_are(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """At once how many points run and how many at a time, then (every REPORT_S, here every
    wake-up) the points done and each running point's share of its traffic simulated. The
    runs are stand-ins that report half their traffic simulated, then wait until the
    reproduction has said so: no timing involved."""
    from tailor.reproduce import runner

    said: list[str] = []
    heard = threading.Event()

    def say(line: str) -> None:
        said.append(line)
        if "running: " in line and line.count("50%") == 2:
            heard.set()

    def run(path: Path, *, seed: int, out: Path, progress: Any, engine: str) -> Any:
        progress({"sim_ns": 500_000.0})
        assert heard.wait(timeout=120), said
        return SimpleNamespace(summary={"messages": {"completed": 7}, "sim_ns": 1_000_000.0})

    monkeypatch.setattr(runner, "REPORT_S", 0.0)
    monkeypatch.setattr(runner.tailor, "run", run)
    monkeypatch.setattr(runner.os, "cpu_count", lambda: 2)
    pts = [Point(f"p{i}") for i in range(2)]
    runner.run_points(pts, tmp_path, "a test", say, write=lambda p, d, why: d / f"{p.name}.toml")
    assert said[0] == "running 2 points, 2 at a time; progress every 0 s"
    assert any(
        s.startswith("0 of 2 points done, ") and s.endswith("running: p0 seed 1 50%, p1 seed 1 50%") for s in said
    )
    finished = sorted(s.rsplit(", ", 1)[0] for s in said if " messages, " in s)
    assert finished == [f"p{i} seed 1: 7 messages, 1.000 ms simulated" for i in range(2)]


def test_a_long_single_run_says_its_share_simulated(monkeypatch: pytest.MonkeyPatch) -> None:
    from tailor.reproduce import runner

    monkeypatch.setattr(runner, "REPORT_S", 0.0)
    said: list[str] = []
    progress = runner.reporting("w4-s1-90", 20e6, said.append)
    assert progress({"sim_ns": 5e6}) and progress({"sim_ns": 21e6})
    assert said == ["w4-s1-90: 25% simulated", "w4-s1-90: draining"]
