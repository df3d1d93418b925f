"""Result.table's coarse size bins: contiguous, covering, and few."""

from __future__ import annotations

import io
import math
from pathlib import Path

import polars as pl
import pytest
import tailor
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from rich.table import Table
from tailor.result import TABLE_BINS, _merge, _stats

QUICKSTART = Path(__file__).resolve().parents[2] / "scenarios" / "quickstart.toml"


@st.composite
def bins(draw: st.DrawFn) -> list[dict]:
    edges = sorted(draw(st.sets(st.integers(1, 10**8), min_size=1, max_size=80)))
    counts = draw(st.lists(st.integers(1, 1000), min_size=len(edges), max_size=len(edges)))
    lowers = [0, *edges[:-1]]
    return [{"lower_bytes": lo, "upper_bytes": hi, "count": c} for lo, hi, c in zip(lowers, edges, counts, strict=True)]


@given(bins(), st.integers(1, 20))
def test_groups_are_contiguous_and_cover_every_bin(b: list[dict], max_bins: int) -> None:
    groups = _merge(b, max_bins)
    assert groups[0][0] == b[0]["lower_bytes"] and groups[-1][1] == b[-1]["upper_bytes"]
    assert all(prev[1] == nxt[0] for prev, nxt in zip(groups, groups[1:], strict=False))
    assert len(groups) <= max_bins + 1
    uppers = {x["upper_bytes"] for x in b}
    assert all(hi in uppers for _, hi in groups), "groups only merge whole bins"


def _many_bins(tmp_path: Path) -> Path:
    """A scenario whose one class fills about 30 size bins."""
    edges = ", ".join(f'"{k}KB"' for k in range(2, 62, 2))
    path = tmp_path / "bins.toml"
    path.write_text(
        f"""
[run]
bins = [{edges}]
[topology]
kind = "star"
hosts = 8
link = {{ rate = "100Gbps", delay = "1us" }}
[transport]
kind = "raw"
[[class]]
name = "exp"
sizes_exponential_mean = "20KB"
arrival = "poisson"
load = 0.3
pattern = "all_to_all"
messages = 3000
"""
    )
    return path


def _text(table: Table) -> str:
    console = Console(record=True, width=200, file=io.StringIO())
    console.print(table)
    return console.export_text()


def test_the_table_of_many_bins_is_printed_without_reading_the_messages(tmp_path: Path) -> None:
    r = tailor.run(_many_bins(tmp_path), out=tmp_path / "run")
    assert len([b for b in r.summary["classes"]["exp"]["bins"] if b["count"] > 0]) > TABLE_BINS
    shown = _text(r.table())
    (r.dir / "messages.parquet").rename(tmp_path / "aside.parquet")
    assert _text(tailor.Result(r.dir).table()) == shown, "the table must not depend on the messages"
    # The engine's merged bins: the groups Python's _merge makes, with the statistics of
    # the messages in each (percentiles within the histograms' 0.1 %).
    report = r.summary["classes"]["exp"]
    merged = report["table_bins"]
    fine = [b for b in report["bins"] if b["count"] > 0]
    assert [(b["lower_bytes"], b["upper_bytes"]) for b in merged] == _merge(fine, TABLE_BINS)
    messages = pl.read_parquet(tmp_path / "aside.parquet")
    for b in merged:
        exact = _stats(messages, b["lower_bytes"], b["upper_bytes"])
        assert b["count"] == exact.count
        assert b["mean"] == pytest.approx(exact.mean, rel=1e-6)  # messages.csv keeps 6 decimals
        size = pl.col("size_bytes")
        inside = (size > b["lower_bytes"]) & (size <= (b["upper_bytes"] or 2**63))
        values = sorted(messages.filter(inside)["slowdown"])
        for key, q in (("p50", 0.5), ("p99", 0.99), ("p999", 0.999)):
            nearest_rank = values[math.ceil(q * len(values)) - 1]
            # Recorded in thousandths, reported at the bucket's upper edge (docs/results.md).
            assert nearest_rank - 5e-4 <= b[key] <= nearest_rank * 1.001 + 5e-4, key


def _text(table: Table) -> str:
    console = Console(width=160, record=True, file=io.StringIO())
    console.print(table)
    return console.export_text()


def test_the_printed_table_marks_percentiles_of_too_few_messages(result7: tailor.Result) -> None:
    rows = [line.split("│") for line in _text(result7.table()).splitlines() if line.count("│") == 8]
    cells = {(r[2].strip(), r[1].strip() or None): [c.strip() for c in r[3:8]] for r in rows[1:]}
    marked = unmarked = 0
    for count, p99, p999 in ((int(c[0].replace(",", "")), c[3], c[4]) for c in cells.values() if c[0]):
        assert p99.startswith("(") == (count < 100), (count, p99)
        assert p999.startswith("(") == (count < 1000), (count, p999)
        marked += p99.startswith("(")
        unmarked += not p99.startswith("(")
    assert marked and unmarked, "quickstart has bins on both sides of 100 messages"


def test_a_one_class_table_does_not_repeat_the_class_as_all(tmp_path: Path) -> None:
    sc = tmp_path / "one.toml"
    sc.write_text(QUICKSTART.read_text().split("# Small RPCs")[0])
    text = _text(tailor.run(sc, out=tmp_path / "r").table())
    first_column = [line.split("│")[1].strip() for line in text.splitlines() if line.count("│") == 8]
    assert [c for c in first_column if c] == ["websearch"]
