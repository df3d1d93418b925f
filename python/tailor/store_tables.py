"""The tables a store derives from each point's summary.json (tailor.store): rows.parquet,
the slowdown statistics in long form, and slo.parquet, each SLO's verdict."""

from __future__ import annotations

from typing import Any

import polars as pl

from tailor import fmt

__all__ = ["STATS", "rows", "slos"]

#: The slowdown statistics summary.json gives per class and size bin.
STATS = ("mean", "p50", "p90", "p99", "p999", "max")


def _size_label(lower: int | None, upper: int | None) -> str:
    if lower is None:
        return "all"
    return fmt.size_bin(lower, upper)


def rows(id: str, summary: dict[str, Any]) -> pl.DataFrame:
    """summary.json's slowdown statistics in long form, one row per (class, bin, stat)."""
    out: dict[str, list[Any]] = {
        k: [] for k in ("point", "class", "size", "lower_bytes", "upper_bytes", "stat", "value", "count")
    }

    def add(cls: str, lower: int | None, upper: int | None, block: dict[str, Any]) -> None:
        for stat in STATS:
            if block.get(stat) is None:
                continue
            for k, v in zip(
                out,
                (id, cls, _size_label(lower, upper), lower, upper, stat, float(block[stat]), block["count"]),
                strict=True,
            ):
                out[k].append(v)

    reports = [*summary["classes"].items(), ("all", summary["overall"])]
    for name, report in reports:
        add(name, None, None, report["slowdown"])
        for b in report["bins"]:
            if b["count"] > 0:
                add(name, b["lower_bytes"], b["upper_bytes"], b)
    schema = {
        "point": pl.Utf8,
        "class": pl.Utf8,
        "size": pl.Utf8,
        "lower_bytes": pl.UInt64,
        "upper_bytes": pl.UInt64,
        "stat": pl.Utf8,
        "value": pl.Float64,
        "count": pl.UInt64,
    }
    return pl.DataFrame(out, schema=schema)


def slos(id: str, summary: dict[str, Any]) -> pl.DataFrame:
    rows = [
        {
            "point": id,
            "class": name,
            "sli": s["sli"],
            "threshold": float(s["threshold"]),
            "value": None if s["value"] is None else float(s["value"]),
            "count": s.get("count"),
            "met": s.get("met"),
            "loss": s.get("loss"),
        }
        for name, c in summary["classes"].items()
        for s in c.get("slo", [])
    ]
    schema = {
        "point": pl.Utf8,
        "class": pl.Utf8,
        "sli": pl.Utf8,
        "threshold": pl.Float64,
        "value": pl.Float64,
        "count": pl.UInt64,
        "met": pl.Boolean,
        "loss": pl.Float64,
    }
    return pl.DataFrame(rows, schema=schema)
