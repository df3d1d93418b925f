"""tailor.run's conversion of record files to Parquet: same table, read in bounded chunks."""

from __future__ import annotations

import importlib
import io
from pathlib import Path
from typing import Any

import polars as pl
import pytest

# `tailor.run` the module (the package exports the function under the same name).
run_module = importlib.import_module("tailor.run")


def _records(path: Path, rows: int) -> None:
    lines = ["id,class,src,dst,size_bytes,start_ns,finish_ns,ideal_ns,slowdown"]
    for i in range(rows):
        lines.append(
            f"{i},c{i % 3},{i % 7},{(i + 1) % 7},{1000 + i},{i * 10.5:.3f},{i * 10.5 + 99:.3f},50.000,{1 + i % 5 / 4:.6f}"
        )
    path.write_text("\n".join(lines) + "\n")


def test_conversion_reads_bounded_chunks_and_keeps_every_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    csv = tmp_path / "messages.csv"
    _records(csv, 5000)
    expected = pl.read_csv(csv, schema_overrides={"class": pl.Utf8})
    monkeypatch.setattr(run_module, "CHUNK_BYTES", 4096, raising=False)
    parsed: list[int] = []
    read_csv = pl.read_csv

    def counting(source: Any, *args: Any, **kwargs: Any) -> pl.DataFrame:
        parsed.append(len(source.getvalue()) if isinstance(source, io.BytesIO) else csv.stat().st_size)
        return read_csv(source, *args, **kwargs)

    def whole_file(*_: Any, **__: Any) -> None:
        raise AssertionError("the whole file was scanned at once")

    monkeypatch.setattr(pl, "read_csv", counting)
    monkeypatch.setattr(pl, "scan_csv", whole_file)
    run_module._to_parquet(csv, keep_csv=False, schema={"class": pl.Utf8})
    assert not csv.exists()
    got = pl.read_parquet(tmp_path / "messages.parquet")
    assert got.equals(expected) and got.schema == expected.schema
    longest_line = 100
    assert len(parsed) > 10 and max(parsed) <= 4096 + 2 * longest_line, parsed
