"""PFC through the front (docs/pfc.md): a run's line says what PFC did; a deadlock is a
`tailor.errors.Deadlock` with its cycle as data through the API, and one line, exit 2 and
nothing written through the CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def _ring(tmp_path: Path, buffer: str) -> Path:
    """Six switches in a ring, each host sending 10 MB two switches on, clockwise."""
    graph = [f"h{s} s{s} 100Gbps 1us" for s in range(6)] + [f"s{s} s{(s + 1) % 6} 100Gbps 1us" for s in range(6)]
    (tmp_path / "ring.graph").write_text("\n".join(graph) + "\n")
    rows = ["flow_id,sender,receiver,size_bytes,start_ns"] + [f"{s},{s},{(s + 2) % 6},10000000,0" for s in range(6)]
    (tmp_path / "ring.csv").write_text("\n".join(rows) + "\n")
    sc = tmp_path / "ring.toml"
    sc.write_text(
        f'name = "ring"\n[topology]\nkind = "graph"\nfile = "ring.graph"\n[switch]\nbuffer = "shared"\n'
        f'buffer_size = "{buffer}"\npfc = {{ priorities = [0] }}\n[transport]\nkind = "raw"\n'
        '[[class]]\nname = "cw"\ntrace = "ring.csv"\n'
    )
    return sc


def test_a_deadlock_is_an_error_with_its_cycle(tmp_path: Path) -> None:
    import tailor
    from tailor.errors import Deadlock, TailorError

    sc = _ring(tmp_path, "500KB")
    with pytest.raises(Deadlock) as caught:
        tailor.run(sc, out=tmp_path / "api")
    e = caught.value
    assert isinstance(e, TailorError) and str(e) == e.message
    assert sorted(e.ports) == [12, 14, 16, 18, 20, 22] and e.priority == 0 and e.active == 6
    assert 0 < e.at_s < 1e-4
    assert not (tmp_path / "api").exists()
    done = subprocess.run(
        [sys.executable, "-m", "tailor", "run", str(sc), "--out", str(tmp_path / "cli")], capture_output=True, text=True
    )
    assert done.returncode == 2 and done.stderr.startswith("error: PFC deadlock at "), done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "cli").exists()


def test_the_run_line_says_what_pfc_did(tmp_path: Path) -> None:
    sc = _ring(tmp_path, "50MB")
    done = subprocess.run(
        [sys.executable, "-m", "tailor", "run", str(sc), "--out", str(tmp_path / "r")], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "; PFC: 0 pauses, 0 ports paused for 0.0 us in all, 0 headroom drops" in done.stdout, done.stdout
    # Per port and lossless priority: 6 host cables and 6 between switches, two ports each.
    rows = (tmp_path / "r" / "pfc.csv").read_text().splitlines()
    assert rows[0] == "port,node,role,priority,pause_frames,resume_frames,headroom_drops,headroom_drop_bytes,paused_us"
    assert len(rows) == 1 + 24 and rows[1] == "0,host0,host_nic,0,0,0,0,0,0.000", rows[:2]
