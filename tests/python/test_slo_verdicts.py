"""SLO verdicts that count what is missing (issue 24, items 2 and 11; docs/results.md, "SLO
verdicts"): messages a ``[run] stop`` left unfinished are said on the terminal, in the
report and in summary.json, and decide a verdict only where they must; a percentile of too
few messages is not judged; the transport advisor reads the same verdicts; ``advise`` exits
3 when nothing meets the SLOs; ``check`` refuses what ``advise`` refuses in ``[advise]``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import tailor
from tailor import _core, fmt
from tailor.stats import samples_needed
from tailor.transport_advisor.search import Probe, SeedRun, Slo, _verdict

ROOT = Path(__file__).resolve().parents[2]

#: 1 MB messages from 3 senders into host 3 at 0.9 of each sender's link (the receiver's is
#: overloaded): a stop at 40 ms leaves 5 of them unfinished; and 82 small RPCs, too few for
#: a p99. Before issue 24 the RPCs' p99 was printed "met" and the storage p90 judged without
#: its 5 unfinished messages ("MISSED" at 10.33, which they could still have made met).
STOPPED = """
name = "stopped"
seed = 1

[topology]
kind = "star"
hosts = 4
link = { rate = "10Gbps" }

[transport]
kind = "dctcp"

[run]
stop = "40ms"

[[class]]
name = "storage"
sizes_fixed = "1MB"
arrival = "poisson"
load = 0.9
pattern = "n_to_1"
senders = "0..3"
receiver = 3
messages = 400
slo = [{ sli = "p90", threshold = 10.0 }]

[[class]]
name = "rpc"
sizes_fixed = "1000B"
arrival = "poisson"
load = 0.01
pattern = "all_to_all"
messages = 82
slo = [{ sli = "p99", threshold = 1000.0 }]
"""


def cli(*args: object, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tailor", *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=300
    )


@pytest.fixture(scope="module")
def stopped(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    d = tmp_path_factory.mktemp("stopped")
    (d / "stopped.toml").write_text(STOPPED)
    r = cli("run", d / "stopped.toml", "--out", d / "run", "-q")
    assert r.returncode == 0, r.stderr
    return d / "run", r


def test_a_stop_says_what_it_left_unfinished_and_the_slo_it_leaves_open_is_not_judged(stopped) -> None:
    run, r = stopped
    s = json.loads((run / "summary.json").read_text())
    storage = s["classes"]["storage"]
    assert s["messages"]["incomplete"] == storage["incomplete"] == 5 and storage["incomplete_bytes"] == 5_000_000
    slo = storage["slo"][0]
    assert (slo["incomplete"], slo["incomplete_bytes"], slo["met"]) == (5, 5_000_000, None)
    assert slo["reason"] == "5 messages (5.0 MB) unfinished at stop"
    lines = r.stdout.splitlines()
    assert (
        "5 messages (5.0 MB) unfinished at stop" in lines
        and "  storage: 5 messages (5.0 MB) unfinished at stop" in lines
    )
    line = next(x for x in lines if x.startswith("SLO storage"))
    assert "not judged: 5 messages (5.0 MB) unfinished at stop" in line and " met" not in line, line


def test_a_p99_of_82_messages_is_not_judged(stopped) -> None:
    run, r = stopped
    slo = json.loads((run / "summary.json").read_text())["classes"]["rpc"]["slo"][0]
    assert slo["count"] == 82 and slo["met"] is None and slo["reason"] == "82 messages, 100 needed"
    assert slo["value"] is not None and slo["value"] <= slo["threshold"], "its value is within the bound: 'met' before"
    line = next(x for x in r.stdout.splitlines() if x.startswith("SLO rpc"))
    assert "not judged: 82 messages, 100 needed" in line and " met" not in line, line


def test_the_report_says_the_same(stopped, tmp_path: Path) -> None:
    run, _ = stopped
    from tailor.report import report

    page = report(run, tmp_path / "r.html").read_text()
    assert 'id="unfinished"' in page and "5 messages (5.0 MB) unfinished at stop" in page
    assert "storage: 5 messages (5.0 MB) unfinished at stop" in page
    assert "not judged: 82 messages, 100 needed" in page
    assert ">met<" not in page, "no SLO of this run is met"


def test_one_sample_rule_for_verdicts_tables_and_plots() -> None:
    for p in (50, 90, 99, 99.9, 99.99, 100):
        assert samples_needed(p) == _core.samples_needed(p)
    assert [samples_needed(p) for p in (50, 90, 99, 99.9, 100)] == [2, 10, 100, 1000, 1]
    assert fmt.verdict({"met": None, "reason": "82 messages, 100 needed"}) == (
        "not judged: 82 messages, 100 needed",
        "none",
    )
    assert fmt.verdict({"met": None, "value": None}) == ("not judged: no message in range", "none")
    assert fmt.unfinished(253, 177_200_000) == "253 messages (177.2 MB) unfinished at stop"


def _run(met: bool | None, value: float | None, count: int, reason: str | None = None, incomplete: int = 0) -> SeedRun:
    return SeedRun(1, "p", [value], [count], [met], [reason], incomplete)


def test_the_transport_advisor_reads_the_engines_verdicts() -> None:
    slo = Slo("storage", 0, "p90", 10.0)
    p = Probe(0.5, [_run(None, 5.3, 45, "5 messages (5.0 MB) unfinished at stop", incomplete=5)])
    p.judge([slo])
    assert p.verdict == "undecided" and "not judged on seed 1: 5 messages (5.0 MB) unfinished at stop" in p.why
    # Unfinished messages that cannot change the verdict no longer fail the load.
    p = Probe(0.5, [_run(True, 5.3, 45, incomplete=5)])
    p.judge([slo])
    assert p.verdict == "pass"
    p = Probe(0.5, [_run(False, 15.9, 68, incomplete=1)])
    p.judge([slo])
    assert p.verdict == "fail" and "counting messages unfinished at the stop" in p.why
    # A point written before verdicts counted unfinished messages: the rule of then.
    assert _verdict({"value": 5.0, "count": 500, "met": True}, slo, incomplete=3) is False
    assert _verdict({"value": 5.0, "count": 5, "met": True}, slo, incomplete=0) is None
    assert _verdict({"value": 5.0, "count": 500, "met": True}, slo, incomplete=0) is True


# -- issue 24, low items: exit status 3, and check reads [advise] ----------------------

#: The transport advisor's star (tests/python/test_transport_advisor.py) with a bound no load
#: meets: a slowdown of 1.0 at p99 under queueing.
STAR = """
name = "star-impossible"
seed = 1

[topology]
kind = "star"
hosts = 8
link = { rate = "10Gbps" }

[transport]
kind = "raw"

[[class]]
name = "rpc"
sizes_fixed = "1000B"
arrival = "poisson"
load = 0.5
pattern = "n_to_1"
senders = "0..7"
receiver = 7
messages = 1500
slo = [{ sli = "p99", threshold = 1.0 }]
"""


def test_advise_transports_exits_3_when_no_transport_meets_the_slo(tmp_path: Path) -> None:
    path = tmp_path / "star.toml"
    path.write_text(STAR)
    r = cli("advise", path, "--transports", "raw", "--quick", "--out", tmp_path / "out", "-q")
    assert r.returncode == 3, r.stdout + r.stderr
    assert "an SLO fails at the lowest load tried" in r.stdout
    # A bound that holds somewhere: 0 as before.
    path.write_text(STAR.replace("threshold = 1.0", "threshold = 5.0"))
    r = cli("advise", path, "--transports", "raw", "--quick", "--out", tmp_path / "out2", "-q")
    assert r.returncode == 0, r.stdout + r.stderr


#: SWP's two classes into one bottleneck; a latency bound below the propagation delay for the
#: first: no capacity meets it.
TWO = ROOT / "scenarios" / "swp" / "two-class.toml"


def test_advise_min_capacity_exits_3_when_no_discipline_finds_a_capacity(tmp_path: Path) -> None:
    text = TWO.read_text()
    start = text.index("slo = [", text.index("[[class]]"))
    end = text.index("]", start) + 1
    path = tmp_path / "two.toml"
    path.write_text(text[:start] + 'slo = [{ sli = "p50", metric = "latency", threshold = "10ns" }]' + text[end:])
    a = tailor.advise(path, min_capacity=True, disciplines=["fifo"], recheck=False, tolerance=0.1)
    assert a.capacity("fifo") is None and a.nothing_meets
    r = cli("advise", path, "--min-capacity", "-d", "fifo", "--no-recheck", "--tolerance", "0.1")
    assert r.returncode == 3, r.stdout + r.stderr


CANDIDATES = """
[advise]
transports = ["fast", "raw"]
loads = [0.5, 0.9]
[advise.candidate.fast]
transport = { kind = "raw" }
switch = { delay = "0ns" }
"""


@pytest.mark.parametrize(
    "change, key, fragment",
    [
        (('delay = "0ns"', 'schedulr = "fifo"'), "advise.candidate.fast.switch.schedulr", "unknown key"),
        (
            ('transports = ["fast", "raw"]', 'transports = ["fast", "nosuch"]'),
            "advise.transports",
            'unknown transport "nosuch"',
        ),
        (("loads = [0.5, 0.9]", "loads = [0.5, 0.9]\ntolerance = 0.5"), "advise.tolerance", "not below the width"),
        (("loads = [0.5, 0.9]", "loads = [0.5, 0.9]\nbogus = 1"), "advise.bogus", "unknown key"),
    ],
)
def test_check_refuses_what_advise_refuses_in_advise(
    tmp_path: Path, change: tuple[str, str], key: str, fragment: str
) -> None:
    path = tmp_path / "s.toml"
    path.write_text(STAR.replace("threshold = 1.0", "threshold = 5.0") + CANDIDATES.replace(*change))
    r = cli("check", path)
    assert r.returncode == 2 and key in r.stderr and fragment in r.stderr and str(path) in r.stderr, r.stderr
    a = cli("advise", path, "--quick", "--out", tmp_path / "out", "-q")
    assert a.returncode == 2 and key in a.stderr, a.stderr
    assert r.stderr.splitlines()[-1] == a.stderr.splitlines()[-1], "the same message"


def test_check_names_the_candidates_it_read(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(STAR + CANDIDATES)
    r = cli("check", path)
    assert r.returncode == 0, r.stderr
    assert "[advise] candidates: fast, raw" in r.stdout
