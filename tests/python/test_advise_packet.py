"""`tailor advise` decided on the packet engine (docs/advisor.md, "Least capacity on the packet
engine", "Advice that holds"): the packet search's bracket, the loop that never reports an
answer the packet engine rejected as holding, the store a second run reuses, and the errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import tailor
from tailor.errors import OptionError

sys.path.insert(0, str(Path(__file__).parent))
from advise_scenario import two_classes  # noqa: E402

# Two classes whose SLOs are on messages up to 125 KB only: seeds 1-3 have more than 100
# in range, so every SLO is judged and the searches decide (a p99 needs 100). bulk's range
# expects 93.6 in the mean over 3 ms, so the command line, which refuses a range expected
# short before it searches, is given --allow-unjudged.
SCENARIO = two_classes("advise-packet-test", "3ms", above_bdp=False)


@pytest.fixture
def small(tmp_path: Path) -> Path:
    p = tmp_path / "small.toml"
    p.write_text(SCENARIO)
    return p


def tailor_cli(*args: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tailor.cli", *map(str, args)], capture_output=True, text=True, timeout=600, cwd=cwd
    )


def _trials(entry: dict) -> list[dict]:
    return entry["packet_search"]["trials"]


def test_fifo_packet_least_capacity_is_bracketed_and_a_second_run_runs_nothing(small: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    a = tailor.advise(
        small,
        min_capacity=True,
        disciplines=["fifo"],
        engine="packet",
        seeds=2,
        out=store,
        tolerance=0.05,
        confirm_seeds=0,
    )
    (c,) = a.report["capacity"]
    assert c["engine"] == "packet" and c["holds"] is True and a.passed
    assert c["packet_search"]["outcome"] == "found"
    cap, failed = c["capacity_bps"], c["packet_search"]["failed_at_bps"]
    # The answer held on every seed; a capacity within the tolerance below it failed on one.
    verdicts = {t["capacity_bps"]: t["verdict"] for t in _trials(c)}
    assert verdicts[cap] == "pass" and verdicts[failed] == "fail"
    assert failed < cap and (cap - failed) / cap <= 0.05
    # Monotone: nothing tried below a failing capacity held, nothing above a holding one failed.
    assert all(v == "fail" for x, v in verdicts.items() if x <= failed)
    assert all(v == "pass" for x, v in verdicts.items() if x >= cap)
    assert c["packet_runs"] == 2 * len(_trials(c)) == a.report["packet_engine"]["run"]
    assert c["model_capacity_bps"] is not None and c["host_scaling"] == "scaled"

    again = tailor.advise(
        small,
        min_capacity=True,
        disciplines=["fifo"],
        engine="packet",
        seeds=2,
        out=store,
        tolerance=0.05,
        confirm_seeds=0,
    )
    assert again.report["packet_engine"]["run"] == 0
    assert again.report["packet_engine"]["cached"] == c["packet_runs"]
    assert again.report["capacity"][0]["capacity_bps"] == cap


def test_the_loop_corrects_the_models_answer_and_never_calls_a_rejected_one_held(small: Path, tmp_path: Path) -> None:
    a = tailor.advise(
        small,
        min_capacity=True,
        disciplines=["fifo", "drr"],
        seeds=2,
        out=tmp_path / "s",
        tolerance=0.05,
        confirm_seeds=0,
    )  # the loop itself; confirmation: below
    for c in a.report["capacity"]:
        assert c["engine"] == "model" and c["model_capacity_bps"] is not None
        trials = _trials(c)
        first = trials[0]
        assert first["capacity_bps"] == pytest.approx(c["model_capacity_bps"], rel=1e-6)
        # holds is True only for an answer the packet engine ran and passed.
        at = [t for t in trials if t["capacity_bps"] == c["capacity_bps"]]
        assert c["holds"] is True and at and at[-1]["verdict"] == "pass"
        # The answer is never below a capacity that failed.
        assert all(t["capacity_bps"] < c["capacity_bps"] for t in trials if t["verdict"] == "fail")
        if first["verdict"] == "pass":
            assert c["capacity_bps"] == first["capacity_bps"] and c["packet_search"]["outcome"] == "held"
        else:
            assert c["capacity_bps"] > c["model_capacity_bps"]
    assert a.passed and a.packet_runs == sum(c["packet_runs"] for c in a.report["capacity"])


def test_an_answer_the_packet_engine_rejects_is_printed_as_not_holding(small: Path, tmp_path: Path) -> None:
    # A bound no run can meet (a slowdown of at least 1 by definition): the model's weights,
    # and Algorithm 1 after them on the packet engine's losses, all fail.
    tight = tmp_path / "tight.toml"
    tight.write_text(SCENARIO.replace("threshold = 3.0", "threshold = 1.0"))
    a = tailor.advise(tight, seeds=1, out=tmp_path / "s")
    w = a.report["weights"]
    assert w["holds"] is False and a.passed is False and a.rejected
    assert all(t["verdict"] == "fail" for t in _trials(w))
    p = tailor_cli("advise", tight, "--allow-unjudged", "--seeds", "1", "--out", tmp_path / "s", "-q", cwd=tmp_path)
    assert p.returncode == 1, p.stderr
    assert "NOT HOLDING" in p.stdout and "the packet engine rejects" in p.stdout
    # The same store: nothing run again.
    assert "0 run," in p.stdout


def test_packet_options_refused_with_exit_2(small: Path, tmp_path: Path) -> None:
    with pytest.raises(OptionError, match="--engine packet: only with --min-capacity"):
        tailor.advise(small, engine="packet")
    for args, text in [
        (("--engine", "packet"), "--engine packet: only with --min-capacity"),
        (("--min-capacity", "--engine", "ns3"), "--engine: unknown value 'ns3'; accepted: model, packet"),
        (("--min-capacity", "--seeds", "0"), "--seeds: 0 is out of range"),
        (("--min-capacity", "--host-scaling", "fixed"), "topology.kind: --host-scaling fixed"),
        (("--min-capacity", "--engine", "packet", "--no-recheck"), "--no-recheck: not with --engine packet"),
    ]:
        p = tailor_cli("advise", small, *args, "--allow-unjudged", "--out", tmp_path / "none", cwd=tmp_path)
        assert p.returncode == 2, (args, p.stdout, p.stderr)
        assert text in p.stderr, (args, p.stderr)
        assert "Traceback" not in p.stderr
    assert not (tmp_path / "none").exists()


def test_json_reports_the_fields_the_reproduction_reads(small: Path, tmp_path: Path) -> None:
    p = tailor_cli(
        "advise",
        small,
        "--allow-unjudged",
        "--min-capacity",
        "-d",
        "static",
        "--seeds",
        "1",
        "--tolerance",
        "0.1",
        "--out",
        tmp_path / "s",
        "--json",
        "-q",
        "--confirm-seeds",
        "0",
        cwd=tmp_path,
    )
    assert p.returncode == 0, p.stderr
    (c,) = json.loads(p.stdout)["capacity"]
    for key in ("engine", "model_form", "host_scaling", "packet_runs", "holds", "model_capacity_bps", "held_on_seeds"):
        assert key in c, key
    assert c["held_on_seeds"] == (1 if c["holds"] else None)
    # Static: each class alone, its own search; the answer is their sum.
    assert len(c["packet_search"]) == 2 and c["capacity_bps"] == pytest.approx(sum(c["class_capacity_bps"]))


def test_confirmation_seeds_the_answer_must_also_hold_on(tmp_path: Path) -> None:
    small = tmp_path / "longer.toml"  # seed 4 of 3 ms has 77 bulk messages in range: 5 ms, judged on every seed
    small.write_text(SCENARIO.replace('until = "3ms"', 'until = "5ms"'))
    a = tailor.advise(
        small,
        min_capacity=True,
        disciplines=["fifo"],
        engine="packet",
        seeds=2,
        confirm_seeds=4,
        out=tmp_path / "s",
        tolerance=0.05,
    )
    (c,) = a.report["capacity"]
    assert a.report["packet_engine"]["confirm_seeds"] == [1, 2, 3, 4]
    at = [t for t in _trials(c) if t["capacity_bps"] == c["capacity_bps"] and len(t["points"]) == 4]
    assert c["holds"] is True and at and at[-1]["verdict"] == "pass", "the answer held on all four seeds"
    assert len(c["packet"][0]["slo"][0]["per_seed"]) == 4
    assert c["held_on_seeds"] == 4
    from tailor.advise import _packet_text

    assert _packet_text(c) == f"holds on 4 seeds ({c['packet_runs']} runs)"
    # Nothing that held on the four seeds lies below the answer.
    assert all(
        t["capacity_bps"] >= c["capacity_bps"] for t in _trials(c) if len(t["points"]) == 4 and t["verdict"] == "pass"
    )


def test_a_probe_on_many_seeds_stops_at_the_wave_that_misses(tmp_path: Path) -> None:
    """A search's probe runs its seeds in waves of four and stops at the first wave with a
    missed SLO (tailor.swp_packet.points.WAVE): the verdict is the one all nine seeds give,
    a failing setting costs one wave, and a holding one runs every seed."""
    from tailor.decision import scenario_slos
    from tailor.scenario import Scenario
    from tailor.store import Store
    from tailor.swp_packet.points import WAVE, PacketPlan, Setting

    small = tmp_path / "longer.toml"  # 5 ms: every SLO judged on seeds 1-9
    small.write_text(SCENARIO.replace('until = "3ms"', 'until = "5ms"'))
    sc = Scenario.load(small)
    slos = scenario_slos(sc, list(sc.overrides))

    def plan(store: str) -> PacketPlan:
        return PacketPlan(sc, slos, range(1, 10), Store(tmp_path / store), 100e9)

    fifo = Setting("fifo")
    for c, verdict in ((63e9, "fail"), (400e9, "pass")):  # 105 % and 6.7x the offered 60 Gbps
        early, every = plan(f"early-{c:g}"), plan(f"every-{c:g}")
        (a,) = early.evaluate([(fifo, c)], "early", None, early=True)
        (b,) = every.evaluate([(fifo, c)], "every", None)
        assert a.verdict == b.verdict == verdict, (a.why, b.why)
        assert every.counts["fifo"]["run"] == 9
        assert early.counts["fifo"]["run"] == (WAVE if verdict == "fail" else 9)
        assert [r.seed for r in a.runs] == [r.seed for r in b.runs][: len(a.runs)]
