"""``tailor import hpcc-ns3`` and ``tailor run --fct-out`` (docs/rdma.md, "Import"): the
HPCC programs' config, topology and flow files become a scenario whose run writes their
FCT file; what tailor cannot stand for is refused by its key."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from tailor.errors import ScenarioError
from tailor.importers.hpcc_ns3 import import_files

CONFIG = """ENABLE_QCN 1
USE_DYNAMIC_PFC_THRESHOLD 1
PACKET_PAYLOAD_SIZE 1000
TOPOLOGY_FILE /their/absolute/path/topo.txt
FLOW_FILE /their/absolute/path/flow.txt
FCT_OUTPUT_FILE mix/fct.txt
SIMULATOR_STOP_TIME 2.01
CC_MODE {mode}
ALPHA_RESUME_INTERVAL 1
RATE_DECREASE_INTERVAL 4
CLAMP_TARGET_RATE 0
RP_TIMER 300
EWMA_GAIN 0.00390625
FAST_RECOVERY_TIMES 1
RATE_AI 20Mb/s
RATE_HAI 200Mb/s
MIN_RATE 1000Mb/s
DCTCP_RATE_AI 615Mb/s
L2_CHUNK_SIZE 4000
L2_ACK_INTERVAL 1
L2_BACK_TO_ZERO 0
HAS_WIN 0
GLOBAL_T 1
VAR_WIN 0
FAST_REACT 0
U_TARGET 0.95
MI_THRESH 0
MULTI_RATE 0
SAMPLE_FEEDBACK 0
RATE_BOUND 1
ACK_HIGH_PRIO 1
KMAX_MAP 2 100000000000 1600 400000000000 6400
KMIN_MAP 2 100000000000 400 400000000000 1600
PMAX_MAP 2 100000000000 0.2 400000000000 0.2
BUFFER_SIZE 32
"""


def fat_tree_k4() -> str:
    """A k = 4 fat-tree in their format: hosts 0-15, edges 16-23, aggregations 24-31, cores 32-35."""
    links = []
    for h in range(16):
        links.append((h, 16 + h // 2))
    for e in range(8):
        pod = e // 2
        links += [(16 + e, 24 + 2 * pod + a) for a in range(2)]
    for a in range(8):
        j = a % 2
        links += [(24 + a, 32 + 2 * j + c) for c in range(2)]
    body = "".join(f"{a} {b} 100Gbps 1000ns 0\n" for a, b in links)
    return f"36 20 {len(links)}\n" + " ".join(str(s) for s in range(16, 36)) + "\n" + body


def files(tmp_path: Path, mode: int = 1, topo: str | None = None, extra: str = "") -> Path:
    (tmp_path / "topo.txt").write_text(topo or fat_tree_k4())
    flows = [(i % 16, (i * 5 + 3) % 16, 3, 100, 20_000 + 1000 * i, 2.0 + 2e-6 * i) for i in range(40)]
    flows = [f for f in flows if f[0] != f[1]]
    (tmp_path / "flow.txt").write_text(
        f"{len(flows)}\n" + "".join(f"{a} {b} {p} {d} {s} {t:.9f}\n" for a, b, p, d, s, t in flows)
    )
    (tmp_path / "config.txt").write_text(CONFIG.format(mode=mode) + extra)
    return tmp_path / "config.txt"


def run_with_fct(scenario: Path, out: Path, fct: Path) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "tailor", "run", str(scenario), "--out", str(out), "--fct-out", str(fct), "-q"]
    return subprocess.run(cmd, capture_output=True, text=True)


def test_a_fat_tree_config_imports_and_its_run_writes_their_fct_file(tmp_path: Path) -> None:
    config = files(tmp_path)
    out = tmp_path / "imported"
    written = import_files(config, tmp_path / "topo.txt", tmp_path / "flow.txt", out)
    assert written == ["flows_pg3_dport100.csv", "scenario.toml"]
    doc = tomllib.loads((out / "scenario.toml").read_text())
    topo = doc["topology"]
    assert (topo["kind"], topo["pods"], topo["tors"], topo["aggs"], topo["cores"], topo["hosts_per_tor"]) == (
        "fat_tree",
        4,
        2,
        2,
        4,
        2,
    )
    t = doc["transport"]
    assert (t["kind"], t["congestion_control"], t["window"], t["ack_high_priority"]) == ("rdma", "dcqcn", "none", True)
    # Their maxRtt: 6 hops of 1 us both ways plus one 1,000 B payload per hop at 100 Gb/s.
    assert t["base_rtt"] == f"{2 * 6000 + 6 * 80}ns"
    # Only the 100 Gb/s ramp: the map's 400 Gb/s entry has no link.
    assert doc["switch"]["dequeue_red"] == [{"rate": "100Gbps", "kmin": "400000B", "kmax": "1600000B", "pmax": 0.2}]
    fct = tmp_path / "fct.txt"
    run = run_with_fct(out / "scenario.toml", tmp_path / "r", fct)
    assert run.returncode == 0, run.stderr
    lines = [ln.split() for ln in fct.read_text().splitlines()]
    assert len(lines) == 40
    for sip, _dip, sport, dport, _size, start, fct_ns, ideal in lines:
        assert len(sip) == 8 and sip.startswith("0b") and int(sport) >= 10000 and dport == "100"
        assert int(start) >= 2_000_000_000 and int(fct_ns) >= int(ideal) * 0.9
    # The same file again is refused: tailor does not overwrite a file it did not write.
    again = run_with_fct(out / "scenario.toml", tmp_path / "r2", fct)
    assert again.returncode == 2 and "exists" in again.stderr


def test_a_topology_that_is_not_a_fat_tree_becomes_a_graph(tmp_path: Path) -> None:
    star = "17 1 16\n16\n" + "".join(f"{h} 16 100Gbps 1000ns 0\n" for h in range(16))
    config = files(tmp_path, mode=3, topo=star, extra="HAS_WIN 1\nVAR_WIN 1\n")
    written = import_files(config, tmp_path / "topo.txt", tmp_path / "flow.txt", tmp_path / "o")
    assert "topology.graph" in written
    doc = tomllib.loads((tmp_path / "o" / "scenario.toml").read_text())
    assert doc["topology"]["kind"] == "graph" and doc["transport"]["congestion_control"] == "hpcc"
    assert doc["transport"]["variable_window"] is True
    assert (tmp_path / "o" / "topology.graph").read_text().splitlines()[1] == "h0 s0 100Gbps 1000ns"


@pytest.mark.parametrize(
    ("extra", "key", "said"),
    [
        ("MULTI_RATE 1\n", "MULTI_RATE", "accepted: 0"),
        ("GLOBAL_T 0\n", "GLOBAL_T", "per-pair"),
        ("ERROR_RATE_PER_LINK 0.01\n", "ERROR_RATE_PER_LINK", "loss"),
        ("LINK_DOWN 100 0 16\n", "LINK_DOWN", "failures"),
        ("KMIN_MAPP 1 1 1\n", "KMIN_MAPP", "not a key"),
    ],
)
def test_what_tailor_cannot_stand_for_is_refused_by_its_key(tmp_path: Path, extra: str, key: str, said: str) -> None:
    config = files(tmp_path, extra=extra)
    with pytest.raises(ScenarioError) as e:
        import_files(config, tmp_path / "topo.txt", tmp_path / "flow.txt", tmp_path / "o")
    assert e.value.key_path == key and said in str(e.value)
    assert not (tmp_path / "o").exists(), "nothing half-written"


def test_cc_mode_10_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="HPCC-PINT"):
        import_files(files(tmp_path, mode=10), tmp_path / "topo.txt", tmp_path / "flow.txt", tmp_path / "o")
