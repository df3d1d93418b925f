"""`tailor reproduce homa-fig21` (Homa Fig. 21, §5.2): bytes per priority level for W3 at
50/80/90 %. The claims' arithmetic on made-up counters, a counter missing, and the quick
form through the command (three short W3 runs)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
from tailor.errors import DataError
from tailor.reproduce import REPRODUCTIONS
from tailor.reproduce.homa import fig21

ROOT = Path(__file__).resolve().parents[2]


def _counters(values: list[int], grants: int = 0) -> dict[str, int]:
    return {"grants": grants, **{f"level_{lv}_data_wire_bytes": v for lv, v in enumerate(values)}}


def test_shares_and_claims_arithmetic() -> None:
    # 1 ms on 144 hosts at 10 Gbps: 180 MB of capacity.
    rows = fig21.shares(0.5, _counters([10, 10, 10, 11, 1, 2, 3, 4]), 1e6)
    assert [r["paper_level"] for r in rows] == ["P7", "P6", "P5", "P4", "P3", "P2", "P1", "P0"]
    assert rows[0]["percent_of_capacity"] == pytest.approx(100 * 10 / 180e6)
    assert sum(r["percent_of_kind"] for r in rows if r["kind"] == "scheduled") == pytest.approx(100)
    # Grants count on level 0, 84 B each.
    with_grants = fig21.shares(0.5, _counters([10, 10, 10, 11, 1, 2, 3, 4], grants=2), 1e6)
    assert (with_grants[0]["bytes"], with_grants[0]["data_bytes"]) == (10 + 2 * 84, 10)
    rows += fig21.shares(0.8, _counters([10, 10, 10, 20, 5, 1, 1, 1]), 1e6)
    rows += fig21.shares(0.9, _counters([10, 10, 10, 10, 5, 1, 1, 1]), 1e6)
    got = {(c["load"], c["claim"][:20]): c["holds"] for c in fig21.claims(rows)}
    assert got[(0.5, "the four unscheduled")] and got[(0.5, "the lowest scheduled")]
    assert not got[(0.8, "the four unscheduled")] and not got[(0.8, "more than half of th")]
    assert got[(0.9, "the highest schedule")]
    with pytest.raises(DataError, match="level_7_data_wire_bytes"):
        fig21.shares(0.5, {k: v for k, v in _counters([1] * 8).items() if "7" not in k}, 1e6)


def test_claims_across_seeds_say_in_how_many_they_hold() -> None:
    even = _counters([10, 10, 10, 11, 1, 2, 3, 4])
    uneven = _counters([10, 10, 10, 20, 1, 2, 3, 4])
    seeds = [fig21.shares(0.5, c, 1e6) for c in (even, even, uneven)]
    got = {c["claim"][:20]: c for c in fig21.seeds_claims(seeds)}
    assert got["the four unscheduled"]["holds"] is None and got["the four unscheduled"]["seeds_holding"] == 2
    assert got["the four unscheduled"]["ours"] == "largest / smallest 1.10/1.10/2.00 (at most 1.25)"
    assert got["the lowest scheduled"]["holds"] is True and got["the lowest scheduled"]["ours"] == "most on P0"
    rows = fig21.across_seeds(seeds)
    assert rows[3]["percent_of_capacity"] == pytest.approx(100 * (11 + 11 + 20) / 3 / 180e6)
    assert rows[3]["percent_of_capacity_seeds"] == 3 and rows[3]["percent_of_capacity_lo"] is not None


def test_quick_fig21_through_the_command(tmp_path: Path) -> None:
    out = tmp_path / "f21"
    p = subprocess.run(
        [sys.executable, "-m", "tailor.cli", "reproduce", "homa-fig21", "--quick", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert p.returncode == 0, p.stderr
    with open(out / "fig21.csv") as f:
        assert tuple(next(csv.reader(f))) == fig21.COLUMNS
    report = json.loads((out / "fig21.json").read_text())
    assert [(x["load"], x["seed"]) for x in report["points"]] == [(x, s) for x in fig21.LOADS for s in (1, 2, 3)]
    assert report["seeds"] == 3
    for load in fig21.LOADS:
        at = [r for r in report["rows"] if r["load"] == load]
        # Data arrive at about the offered load (grants and the backlog left at the stop aside).
        total = sum(r["percent_of_capacity"] for r in at)
        assert 0.6 * 100 * load < total < 100 * load, (load, total)
    assert "Homa Fig. 21" in p.stdout and "checked" in p.stdout
    assert REPRODUCTIONS["homa-fig21"].options(quick=True).out == Path("runs") / "homa-fig21-quick"
