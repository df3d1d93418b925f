"""A result directory (DESIGN.md, "Result format") opened for reading.

``summary.json`` is read eagerly (it is small); ``messages``, ``ports`` and ``queues``
are read on first use, from Parquet when the run was converted (``tailor.run`` does that)
or from the engine's CSV.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import polars as pl
from rich.table import Table

from tailor import fmt
from tailor.stats import percentile, samples_needed

__all__ = ["Result", "queue_schema"]

#: How many size bins the summary's ``table_bins`` merge a class into (at most about).
TABLE_BINS = 14

#: Columns of messages.csv / messages.parquet, in order.
MESSAGE_COLUMNS = ["id", "class", "src", "dst", "size_bytes", "start_ns", "finish_ns", "ideal_ns", "slowdown"]


def queue_schema(csv: str | os.PathLike[str]) -> dict[str, Any]:
    """The column types of a ``queues.csv`` (docs/results.md): ``time_ns`` a float, every
    other column an integer — also where the fast model leaves ``port`` and the class
    cells of shared queues empty, which would otherwise be read as text."""
    with open(csv) as f:
        header = f.readline().rstrip("\n").split(",")
    return {c: pl.Float64 if c == "time_ns" else pl.Int64 for c in header}


def _cell(x: float | None, p: float | None, count: int) -> str:
    """A table cell: the ``p``-th percentile of ``count`` messages, dim and in
    parentheses when they are too few for it to be a result (``samples_needed``)."""
    text = fmt.stat(x)
    if x is None or p is None or count >= samples_needed(p):
        return text
    return f"[dim]({text})[/dim]"


@dataclass(frozen=True)
class _Row:
    """One size bin's slowdown statistics; None where the bin has no message."""

    lower: int
    upper: int | None
    count: int
    mean: float | None
    p50: float | None
    p99: float | None
    p999: float | None


class Result:
    """The result of one run: ``summary`` (dict), ``messages``, ``ports`` and ``queues``
    (DataFrames)."""

    def __init__(self, dir: str | os.PathLike[str]) -> None:
        from tailor.outdir import require_complete

        self.dir = Path(dir)
        require_complete(self.dir)
        self.summary: dict[str, Any] = json.loads((self.dir / "summary.json").read_text())

    def __repr__(self) -> str:
        s = self.summary
        return f"Result({str(self.dir)!r}, scenario={s['scenario']!r}, seed={s['seed']})"

    def files(self) -> list[str]:
        """The files of the result (those tailor wrote: a user's own files beside them are
        not listed)."""
        from tailor.outdir import read_marker

        marker = read_marker(self.dir)
        if marker is not None:
            return sorted(str(f) for f in marker["files"])
        return sorted(p.name for p in self.dir.iterdir() if p.is_file())

    @property
    def classes(self) -> list[str]:
        return list(self.summary["classes"])

    @property
    def sim_ns(self) -> float:
        """Simulated time at the run's end, ns."""
        return float(self.summary["sim_ns"])

    @property
    def network(self) -> dict[str, Any]:
        """The network's counters (drops, marks, each mechanism's under its name;
        docs/results.md)."""
        return self.summary["network"]

    @property
    def transport_counters(self) -> dict[str, Any]:
        """The transport's counters (resends, ACKs, ...; docs/results.md)."""
        return self.summary["transport_counters"]

    @property
    def incomplete(self) -> int:
        """Messages generated but not completed by the run's end."""
        return int(self.summary["messages"]["incomplete"])

    @cached_property
    def messages(self) -> pl.DataFrame:
        """One row per completed message (warm-up included; see ``summarised``)."""
        return self._read("messages", schema_overrides={"class": pl.Utf8})

    @cached_property
    def ports(self) -> pl.DataFrame:
        """Per port: queue statistics, drops, ECN marks, bytes sent, utilization."""
        return self._read("ports")

    @cached_property
    def queues(self) -> pl.DataFrame:
        """Queue occupancy over time, for a scenario with ``[record] queues``: one row per
        sampled port per tick, ``time_ns``, ``port``, ``queue_bytes`` and, with several
        classes, ``queue_bytes.<class>`` (docs/results.md). Raises
        :class:`tailor.errors.NotRecordedError`, naming the key, for a run that did not
        record queues."""
        if "queues" not in self.summary:
            from tailor.errors import NotRecordedError

            raise NotRecordedError(
                f"{self.dir}: this run did not record queues; give its scenario "
                '[record] queues = "10us" (a sampling interval, docs/scenario.md) and run it again',
                what="queues",
                hint='[record] queues = "10us"',
            )
        parquet = self.dir / "queues.parquet"
        if parquet.exists():
            return pl.read_parquet(parquet)
        csv = self.dir / "queues.csv"
        return pl.read_csv(csv, schema_overrides=queue_schema(csv))

    @cached_property
    def progress(self) -> pl.DataFrame:
        """The run's progress over time, for a scenario with ``[record] progress``: one row
        per tick, messages and bytes generated, completed and delivered, and the messages
        active (docs/results.md). Raises :class:`tailor.errors.NotRecordedError`, naming
        the key, for a run that did not record it."""
        csv = self.dir / "progress.csv"
        if not csv.exists():
            from tailor.errors import NotRecordedError

            raise NotRecordedError(
                f"{self.dir}: this run did not record its progress; give its scenario "
                '[record] progress = "1ms" (a sampling interval, docs/scenario.md) and run it again',
                what="progress",
                hint='[record] progress = "1ms"',
            )
        return pl.read_csv(csv, schema_overrides={"time_ns": pl.Float64})

    def _read(self, stem: str, **csv_options: Any) -> pl.DataFrame:
        parquet = self.dir / f"{stem}.parquet"
        if parquet.exists():
            return pl.read_parquet(parquet)
        return pl.read_csv(self.dir / f"{stem}.csv", **csv_options)

    def summarised(self) -> pl.DataFrame:
        """The messages the summary counts: those that started after the warm-up.

        Warm-up messages are exactly the earliest-starting ``warmup_excluded`` ones.
        """
        skip = self.summary["messages"].get("warmup_excluded", 0)
        df = self.messages
        return df.sort("start_ns").slice(skip) if skip else df

    def network_line(self) -> str:
        """The run's network counters in one line (the oracle's: what it scheduled)."""
        n = self.summary["network"]
        if "decomposed" in self.summary:
            d = self.summary["decomposed"]
            return (
                f"decomposed ({d['method']}): latencies are estimates from {d['links']:,} link simulations "
                f"({d['link_messages']:,} link-messages)"
            )
        if "oracle" in self.summary:
            o = self.summary["oracle"]
            return (
                f"oracle: {o['packets']:,} packets, {o['preemptions']:,} preemptions, "
                f"busiest host link {100 * n['utilization']:.1f}% held"
            )
        line = (
            f"network: {n['drops']:,} drops, {n['ecn_marks']:,} ECN marks, "
            f"max queue {fmt.size(n['max_queue_bytes'])}, "
            f"busiest port {100 * n['utilization']:.1f}% utilized"
        )
        if "pfc" in n:
            p = n["pfc"]
            line += (
                f"; PFC: {p['pause_frames']:,} pauses, {p['paused_ports']:,} ports paused for "
                f"{p['paused_port_us']:,.1f} us in all, {p['headroom_drops']:,} headroom drops"
            )
        return line

    def slo_lines(self) -> list[str]:
        """One line per SLO of every class: the SLI, its bound, its verdict (met, MISSED or
        not judged and why: ``fmt.verdict``) and the loss of SWP eq. 1 ((SLI - threshold) /
        threshold, negative when met)."""
        lines = []
        colour = {"met": "green", "missed": "red", "none": "yellow"}
        for name, c in self.summary["classes"].items():
            for slo in c.get("slo", []):
                text, kind = fmt.verdict(slo)
                verdict = f"[{colour[kind]}]{text}[/{colour[kind]}]"
                if slo["value"] is None:
                    lines.append(f"SLO {name}: {slo['sli']} <= {slo['threshold']:g}: {verdict}")
                    continue
                lines.append(
                    f"SLO {name}: {slo['sli']} = {slo['value']:.4g} (bound {slo['threshold']:g}, {slo['count']:,} messages) "
                    f"{verdict}, loss {slo['loss']:+.3f}"
                )
        return lines

    def unfinished_lines(self) -> list[str]:
        """The messages a ``[run] stop`` left unfinished: the run's, and each class's when
        there are several (counted after the warm-up, as the SLOs count them). Empty when
        every message completed."""
        m = self.summary["messages"]
        if not m.get("incomplete"):
            return []
        lines = [fmt.unfinished(m["incomplete"], m.get("incomplete_bytes"))]
        if len(self.classes) > 1:
            for name, c in self.summary["classes"].items():
                if c.get("incomplete"):
                    lines.append(f"  {name}: {fmt.unfinished(c['incomplete'], c.get('incomplete_bytes'))}")
        return lines

    def table(self, max_bins: int = TABLE_BINS) -> Table:
        """Slowdown per class and message-size bin (lower, upper], as a rich Table.

        Classes whose size table has more than ``max_bins`` non-empty bins are shown in
        about ``max_bins`` bins of similar counts: with the default, the summary's
        ``table_bins`` (merged by the engine, so the messages are not read: memory does
        not grow with the run's length); with another ``max_bins``, or a result written
        by a tailor without them, computed from ``messages``.
        """
        s = self.summary
        table = Table(
            title=f"{s['scenario']} ({self._identity()}): slowdown by message size",
            caption=f"(in parentheses): fewer messages than the percentile needs to be a result "
            f"(p99: {samples_needed(99):,}, p99.9: {samples_needed(99.9):,}); it is then the bin's largest",
        )
        for col in ("class", "size", "count", "mean", "p50", "p99", "p99.9"):
            table.add_column(col, justify="left" if col in ("class", "size") else "right")
        # One class: "all" would repeat it row for row.
        names = self.classes + ["all"] if len(self.classes) > 1 else self.classes
        for i, name in enumerate(names):
            report = s["overall"] if name == "all" else s["classes"][name]
            for j, r in enumerate(self._rows(name, report, max_bins)):
                size = fmt.size_bin(r.lower, r.upper)
                cells = [_cell(x, p, r.count) for x, p in ((r.mean, None), (r.p50, 50), (r.p99, 99), (r.p999, 99.9))]
                table.add_row(name if j == 0 else "", size, f"{r.count:,}", *cells)
            sd = report["slowdown"]
            table.add_row(
                "",
                "[b]all sizes[/b]",
                f"[b]{sd['count']:,}[/b]",
                *(
                    f"[b]{_cell(sd[k], p, sd['count'])}[/b]"
                    for k, p in (("mean", None), ("p50", 50), ("p99", 99), ("p999", 99.9))
                ),
                end_section=i + 1 < len(names),
            )
        return table

    def _identity(self) -> str:
        return f"seed {self.summary['seed']}, {self.summary['transport']}"

    def _rows(self, name: str, report: dict[str, Any], max_bins: int) -> list[_Row]:
        bins = [b for b in report["bins"] if b["count"] > 0]
        fine = [_row(b) for b in bins]
        if len(bins) <= max_bins:
            return fine
        if max_bins == TABLE_BINS and "table_bins" in report:
            return [_row(b) for b in report["table_bins"]]
        if not self._has_messages():
            return fine
        df = self.summarised()
        if name != "all":
            df = df.filter(pl.col("class") == name)
        return [_stats(df, lo, hi) for lo, hi in _merge(bins, max_bins)]

    def _has_messages(self) -> bool:
        return any((self.dir / f"messages.{ext}").exists() for ext in ("parquet", "csv"))


def _row(b: dict[str, Any]) -> _Row:
    return _Row(b["lower_bytes"], b["upper_bytes"], b["count"], b["mean"], b["p50"], b["p99"], b["p999"])


def _merge(bins: list[dict[str, Any]], max_bins: int) -> list[tuple[int, int | None]]:
    """Groups consecutive bins into at most about ``max_bins`` of similar total count."""
    target = sum(b["count"] for b in bins) / max_bins
    groups: list[tuple[int, int | None]] = []
    lower, acc = bins[0]["lower_bytes"], 0
    for b in bins:
        acc += b["count"]
        if acc >= target or b is bins[-1]:
            groups.append((lower, b["upper_bytes"]))
            lower, acc = b["upper_bytes"], 0
    return groups


def _stats(df: pl.DataFrame, lower: int, upper: int | None) -> _Row:
    size = pl.col("size_bytes")
    cond = size > lower if upper is None else (size > lower) & (size <= upper)
    sd = df.filter(cond)["slowdown"]
    if sd.len() == 0:
        return _Row(lower, upper, 0, None, None, None, None)
    return _Row(lower, upper, sd.len(), float(sd.mean()), percentile(sd, 50), percentile(sd, 99), percentile(sd, 99.9))
