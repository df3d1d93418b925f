"""The SRPT oracle engine from Python and the CLI (docs/oracle.md): the packet engine's
result format, so the Homa reproductions bucket it unchanged, and a clear exit 2 for what
it cannot stand for."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import tailor
from tailor.reproduce.homa import bins

ROOT = Path(__file__).resolve().parents[2]
W3 = ROOT / "scenarios" / "homa" / "w3-80.toml"


def tailor_cli(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tailor.cli", *map(str, args)], capture_output=True, text=True, timeout=120
    )


def test_an_oracle_run_writes_what_a_packet_run_writes(tmp_path: Path) -> None:
    sc = tailor.Scenario.load(W3).with_({"class[0].until": "1ms"})
    packet = tailor.run(sc.with_({"class[0].until": "0.05ms"}), out=tmp_path / "p")
    r = tailor.run(sc, out=tmp_path / "o", engine="oracle")
    s = r.summary
    assert s["engine"] == "oracle" and s["transport"] == "homa"
    assert s["messages"]["completed"] == s["messages"]["generated"] > 40_000
    assert s["oracle"]["packets"] > s["messages"]["completed"] and s["oracle"]["preemptions"] > 0
    assert sorted(r.files()) == sorted(packet.files())
    assert r.messages.columns == packet.messages.columns
    # The transports' own settings (Homa's levels) play no part in the oracle.
    assert set(s) - {"oracle"} == set(packet.summary) - {"transport_settings"}
    # The Homa reproductions' buckets take it as it is; nothing is faster than alone.
    rows, huge = bins.run_rows(r.messages, "W3")
    assert huge == 0 and sum(row["messages"] for row in rows) == s["messages"]["completed"]
    assert r.messages["slowdown"].min() >= 1.0
    assert rows[0]["p99_slowdown"] == pytest.approx(1.0, abs=0.01), "the smallest messages never wait"


def test_the_cli_runs_the_oracle_and_says_what_it_scheduled(tmp_path: Path) -> None:
    p = tailor_cli("run", W3, "--engine", "oracle", "--out", tmp_path / "o", "--quiet")
    assert p.returncode == 0, p.stderr
    assert "oracle:" in p.stdout and "preemptions" in p.stdout and "busiest host link" in p.stdout
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["engine"] == "oracle"


def test_what_the_oracle_cannot_run_exits_2_naming_the_key(tmp_path: Path, quickstart: Path) -> None:
    p = tailor_cli("run", quickstart, "--engine", "oracle", "--out", tmp_path / "o", "--quiet")
    assert p.returncode == 2, p.stderr
    # The accepted list is what can run on this fabric: Homa's 8 levels cannot on the
    # quickstart's FIFO switches, so raw, udp and rds (one level) are offered.
    assert "does not tell the oracle the packets it sends" in p.stderr and "one of raw, udp, rds with" in p.stderr
    assert not (tmp_path / "o").exists()
    oversubscribed = tailor.Scenario.load(W3).with_({"topology.spines": 2})
    with pytest.raises(tailor.errors.ScenarioError) as e:
        tailor.run(oversubscribed, out=tmp_path / "api", engine="oracle")
    assert e.value.key_path == "topology.spines"
    assert "80 Gbps up for 160 Gbps" in str(e.value)


def test_a_sweep_on_the_oracle_refuses_out_of_scope_points_before_running(tmp_path: Path) -> None:
    p = tailor_cli("sweep", W3, "--set", "topology.spines=2,4", "--engine", "oracle", "--out", tmp_path / "s", "-q")
    assert p.returncode == 2, p.stderr
    assert "topology.spines" in p.stderr and "oversubscribed" in p.stderr
    assert not (tmp_path / "s").exists()
    p = tailor_cli("sweep", W3, "--set", "seed=1,2", "--engine", "oracle", "--out", tmp_path / "s", "--dry-run")
    assert p.returncode == 0, p.stderr
