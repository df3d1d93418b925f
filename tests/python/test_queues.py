"""Result.queues: queue occupancy over time ([record] queues, docs/results.md)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
import tailor

RECORD = '\n[record]\nqueues = "5us"\nqueue_ports = "to_host"\n'


def _recording(quickstart: Path, tmp_path: Path) -> Path:
    path = tmp_path / "quickstart-queues.toml"
    path.write_text(quickstart.read_text() + RECORD)
    return path


def test_queues_are_a_frame_per_port_and_tick(quickstart: Path, tmp_path: Path) -> None:
    r = tailor.run(_recording(quickstart, tmp_path), seed=7, out=tmp_path / "q")
    assert (r.dir / "queues.parquet").exists() and not (r.dir / "queues.csv").exists()
    q = r.queues
    assert q.columns == ["time_ns", "port", "queue_bytes", "queue_bytes.websearch", "queue_bytes.rpc"]
    assert q.schema["time_ns"] == pl.Float64 and q.schema["port"] == pl.Int64
    info = r.summary["queues"]
    assert q.height == info["rows"] and info["interval_ns"] == 5000.0
    to_host = r.ports.filter(pl.col("role") == "to_host")["port"].to_list()
    assert sorted(q["port"].unique().to_list()) == info["ports"] == to_host
    ticks = q["time_ns"].unique().sort()
    assert ticks.len() * len(to_host) == q.height
    assert ((ticks / 5000.0).round() * 5000.0 == ticks).all()
    assert ticks.max() <= r.summary["sim_ns"] < ticks.max() + 5000.0
    # The per-class columns split each sample, and the samples stay under the port maximum.
    assert (q["queue_bytes.websearch"] + q["queue_bytes.rpc"] == q["queue_bytes"]).all()
    worst = q.group_by("port").agg(pl.col("queue_bytes").max()).join(r.ports, on="port")
    assert (worst["queue_bytes"] <= worst["max_queue_bytes"]).all()
    assert q["queue_bytes"].max() > 0


def test_the_model_rows_have_no_port(quickstart_model: Path, tmp_path: Path) -> None:
    r = tailor.run(_recording(quickstart_model, tmp_path), seed=7, out=tmp_path / "m", engine="model")
    q = r.queues
    assert q.height == r.summary["queues"]["rows"] > 0
    assert q["port"].dtype == pl.Int64 and q["port"].null_count() == q.height
    assert q["queue_bytes.rpc"].null_count() == q.height, "FIFO: the model does not split a shared queue"
    # Its one line is drawn, with the samples as they are.
    from tailor.plot import queue_over_time

    (line,) = queue_over_time(r).axes[0].get_lines()
    assert line.get_label() == "the model's bottleneck"
    assert list(line.get_ydata()) == pytest.approx((q.sort("time_ns")["queue_bytes"] / 1e3).to_list())


def test_a_run_without_the_key_says_how_to_record(result7: tailor.Result) -> None:
    with pytest.raises(tailor.errors.NotRecordedError, match=r"\[record\] queues"):
        _ = result7.queues
