"""tailor.plot: the figures are read back (axes, scales, line data) and compared with
statistics recomputed here from the message records; the files written are checked to
be what their names say."""

from __future__ import annotations

import itertools
import math
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import tailor
import tailor.figures as tf
import tailor.plot as tp
from matplotlib.container import ErrorbarContainer
from matplotlib.figure import Figure
from tailor.errors import DataError, NotRecordedError, OptionError, TailorError

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def inverted_cdf(values: list[float], p: float) -> float:
    """numpy's nearest-rank percentile, independent of tailor.plot's."""
    return float(np.percentile(np.asarray(values, dtype=float), p, method="inverted_cdf"))


def expected_lines(result: tailor.Result, cls: str, percentiles: tuple[float, ...]) -> dict[float, list[tuple]]:
    """Per percentile: (bin upper edge, bin percentile, bin count) from the run's bins, recomputed."""
    m = result.messages.sort("start_ns").slice(result.summary["messages"]["warmup_excluded"])
    m = m if cls == "all" else m.filter(pl.col("class") == cls)
    bins = (result.summary["overall"] if cls == "all" else result.summary["classes"][cls])["bins"]
    out: dict[float, list[tuple]] = {p: [] for p in percentiles}
    for b in bins:
        part = m.filter((pl.col("size_bytes") > b["lower_bytes"]) & (pl.col("size_bytes") <= b["upper_bytes"]))
        assert part.height == b["count"], "the summary's bin counts are the messages'"
        if part.height == 0:
            continue
        for p in percentiles:
            out[p].append((float(b["upper_bytes"]), inverted_cdf(part["slowdown"].to_list(), p), part.height))
    return out


def drawn(ax, label: str) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """The (x, y) points of the line ``label``: those drawn as results (its line) and those
    drawn hollow (bins with too few messages for the percentile)."""

    def xy(line) -> list[tuple[float, float]]:
        return list(zip(map(float, line.get_xdata()), map(float, line.get_ydata()), strict=True))

    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    hollow = lines.get(f"_too few: {label}")
    if hollow is not None:
        assert hollow.get_linestyle() == "None" and hollow.get_markerfacecolor() == "none"
    return xy(lines[label]), xy(hollow) if hollow is not None else []


def flat(points: list[tuple[float, float]]) -> list[float]:
    return [v for point in points for v in point]


def test_samples_needed_per_percentile() -> None:
    assert [tp.samples_needed(p) for p in (50, 90, 99, 99.9, 99.99)] == [2, 10, 100, 1000, 10_000]


def test_slowdown_vs_size_lines_are_the_binned_percentiles(result7: tailor.Result) -> None:
    ps = (50, 99, 99.9)
    fig = tp.slowdown_vs_size(result7, ps)
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    assert ax.get_xscale() == "log" and ax.get_yscale() == "linear"
    assert "message size" in ax.get_xlabel() and "upper edge" in ax.get_xlabel() and "slowdown" in ax.get_ylabel()
    for cls in result7.classes:
        for p, rows in expected_lines(result7, cls, ps).items():
            results, hollow = drawn(ax, f"{cls} p{p:g}")
            # A bin is at its upper edge; its point is a result only with enough messages.
            want = [(x, y) for x, y, n in rows if n >= tp.samples_needed(p)]
            few = [(x, y) for x, y, n in rows if n < tp.samples_needed(p)]
            assert flat(results) == pytest.approx(flat(want)) and flat(hollow) == pytest.approx(flat(few))
    # quickstart's websearch bins hold 14 to 74 messages: not one p99 is a result.
    assert drawn(ax, "websearch p99")[0] == [] and len(drawn(ax, "websearch p99")[1]) == 11
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("hollow" in t and "p99: 100" in t and "p99.9: 1,000" in t for t in legend), legend
    # The summary keeps its percentiles to 0.1 %: the plotted ones agree with it.
    ws = result7.summary["classes"]["rpc"]["bins"]
    p99 = [b["p99"] for b in ws if b["count"] >= 100]
    assert [y for _, y in drawn(ax, "rpc p99")[0]] == pytest.approx(p99, rel=2e-3)
    assert len(drawn(ax, "rpc p99")[1]) == 2  # (31 KB, 357 KB] and (357 KB, 15.2 MB]: 24 and 5 messages


def test_slowdown_vs_size_overlays_runs_and_takes_frames(result7: tailor.Result) -> None:
    other = result7.messages.with_columns(pl.col("slowdown") * 2)
    fig = tp.slowdown_vs_size({"seed 7": result7, "doubled": other}, percentiles=(99,), classes=["rpc"])
    (ax,) = fig.axes
    by = {ln.get_label() for ln in ax.get_lines() if not ln.get_label().startswith(("_", "hollow"))}
    assert by == {"seed 7: rpc p99", "doubled: rpc p99"}
    # A bare frame has no run bins: ten bins of equal count, ending at the largest size.
    x = [p[0] for p in sorted(sum(drawn(ax, "doubled: rpc p99"), []))]
    rpc = other.filter(pl.col("class") == "rpc")
    assert x[-1] == rpc["size_bytes"].max() and len(x) <= 10
    # With the run, x is each bin's upper edge.
    uppers = [b["upper_bytes"] for b in result7.summary["classes"]["rpc"]["bins"] if b["count"]]
    assert sorted(p[0] for p in sum(drawn(ax, "seed 7: rpc p99"), [])) == pytest.approx(uppers)


def test_slowdown_vs_size_rejects_bad_options(result7: tailor.Result) -> None:
    with pytest.raises(OptionError, match="percentiles: 120"):
        tp.slowdown_vs_size(result7, (50, 120))
    with pytest.raises(OptionError, match="unknown class 'nope'; accepted: rpc, websearch, all"):
        tp.slowdown_vs_size(result7, classes="nope")
    with pytest.raises(OptionError, match="x: unknown value 'mean'"):
        tp.slowdown_vs_size(result7, x="mean")
    with pytest.raises(DataError, match="lacks column"):
        tp.slowdown_vs_size(pl.DataFrame({"size_bytes": [1]}))


def test_latency_ccdf_shows_the_tail_on_a_log_axis(result7: tailor.Result) -> None:
    """At each latency, the share of messages at least as slow: 1 at the fastest, 1/n at
    the slowest, so the p99 and p99.9 regions are readable (log y)."""
    (ax,) = tp.latency_cdf(result7, ccdf=True).axes
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log" and "at least this slow" in ax.get_ylabel()
    for line in ax.get_lines():
        x, y = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
        m = result7.messages.filter(pl.col("class") == line.get_label())
        lat_us = np.sort(((m["finish_ns"] - m["start_ns"]) / 1e3).to_numpy())
        assert y[0] == pytest.approx(1.0) and y[-1] == pytest.approx(1 / m.height) and np.all(np.diff(y) < 0)
        p99 = lat_us[int(0.99 * len(lat_us))]
        assert y[np.searchsorted(x, p99)] == pytest.approx(np.mean(lat_us >= p99))
        assert ax.get_ylim()[0] < 1 / m.height


def test_latency_cdf_is_monotone_and_ends_at_one(result7: tailor.Result) -> None:
    fig = tp.latency_cdf(result7)
    (ax,) = fig.axes
    assert ax.get_xscale() == "log" and "latency" in ax.get_xlabel()
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    assert set(lines) == set(result7.classes)
    for cls, line in lines.items():
        x, y = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
        m = result7.messages.filter(pl.col("class") == cls)
        assert len(x) == m.height
        assert np.all(np.diff(x) >= 0) and np.all(np.diff(y) > 0)
        assert y[-1] == pytest.approx(1.0) and y[0] > 0
        lat_us = ((m["finish_ns"] - m["start_ns"]) / 1e3).to_numpy()
        assert x[-1] == pytest.approx(lat_us.max()) and x[0] == pytest.approx(lat_us.min())
        # The curve at the median latency is the fraction of messages at or below it.
        med = float(np.median(lat_us))
        assert y[np.searchsorted(x, med, side="right") - 1] == pytest.approx(np.mean(lat_us <= med))


def sweep_summary() -> pl.DataFrame:
    """Sweep.summary()'s schema: two axes, two classes plus "all", two stats, 3 seeds."""
    rows = []
    for load, sched, cls, stat in itertools.product(
        (0.3, 0.5, 0.7), ("fifo", "drr"), ("all", "a", "b"), ("mean", "p99")
    ):
        m = 10 * load * (1.6 if sched == "fifo" else 1.0) + (4 if stat == "p99" else 0) + (cls == "b")
        rows.append(
            {
                "load": load,
                "switch.scheduler": sched,
                "engine": "packet",
                "class": cls,
                "size": "all",
                "stat": stat,
                "mean": m,
                "ci_low": m - 0.4,
                "ci_high": m + 0.9,
                "n_seeds": 3,
            }
        )
    return pl.DataFrame(rows)


def seed_summary() -> pl.DataFrame:
    """Sweep.summary() of a sweep whose only axis is the seed: 3 seeds, two classes and
    "all", four size bins; the fewest messages of a seed per bin (`messages`) is 500, 50,
    150, and in the last bin one seed had none (2 seeds)."""
    bins = [(0, 10_000, 500, 3), (10_000, 100_000, 50, 3), (100_000, 1_000_000, 150, 3), (1_000_000, 10**7, 120, 2)]
    rows = []
    for cls, stat in itertools.product(("all", "a", "b"), ("mean", "p50", "p99")):
        for lo, hi, n, seeds in [(None, None, 2000, 3), *bins]:
            m = (2 if stat == "p99" else 1) * (1 + (hi or 0) / 1e6) + (cls == "b")
            rows.append(
                {
                    "scenario": "s",
                    "engine": "packet",
                    "class": cls,
                    "size": "all" if lo is None else f"({lo}, {hi}]",
                    "lower_bytes": lo,
                    "upper_bytes": hi,
                    "stat": stat,
                    "mean": m,
                    "ci_low": m - 0.2,
                    "ci_high": m + 0.3,
                    "n_seeds": seeds,
                    "messages": n,
                }
            )
    return pl.DataFrame(rows)


def test_slowdown_by_size_across_seeds_leaves_out_bins_a_seed_had_too_few_messages_for() -> None:
    df = seed_summary()
    (ax,) = tp.slowdown_vs_size_across_seeds(df, ("p50", "p99")).axes
    bars = {c.get_label(): c for c in ax.containers if isinstance(c, ErrorbarContainer)}
    assert set(bars) == {"a p50", "a p99", "b p50", "b p99"}, "the classes, not 'all' beside them"
    # p50 needs 2 messages a seed: every bin but the one a seed had none in; p99 needs 100.
    assert list(bars["a p50"].lines[0].get_xdata()) == [10_000, 100_000, 1_000_000]
    assert list(bars["a p99"].lines[0].get_xdata()) == [10_000, 1_000_000]
    want = df.filter(
        (pl.col("class") == "b") & (pl.col("stat") == "p99") & pl.col("upper_bytes").is_in([10_000, 1_000_000])
    )
    line, _caps, (segments,) = bars["b p99"].lines
    assert list(line.get_ydata()) == pytest.approx(want.sort("upper_bytes")["mean"].to_list())
    assert [seg[0][1] for seg in segments.get_segments()] == pytest.approx(want.sort("upper_bytes")["ci_low"].to_list())
    assert "mean over 3 seeds" in ax.get_title() and "p50 2 of 8, p99 4 of 8" in ax.get_title()
    assert ax.get_xlabel() == tp.SIZE_LABEL and ax.get_xscale() == "log"
    kept, left = tp.seed_bins(df, "p99")
    assert left == 4 and sorted(set(kept["upper_bytes"].to_list())) == [10_000, 1_000_000]
    with pytest.raises(DataError, match="no size bin is a result in every seed"):
        tp.slowdown_vs_size_across_seeds(df.with_columns(pl.lit(1).alias("messages")), ("p99",))
    one = df.with_columns(
        pl.lit(1).alias("n_seeds"), pl.lit(None, pl.Float64).alias("ci_low"), pl.lit(None, pl.Float64).alias("ci_high")
    )
    assert "one seed, no interval" in tp.slowdown_vs_size_across_seeds(one).axes[0].get_title()
    with pytest.raises(OptionError, match="stats: no stat 'p999'"):
        tp.slowdown_vs_size_across_seeds(df, ("p999",))


def test_p99_vs_load_draws_a_line_per_value_with_error_bars() -> None:
    df = sweep_summary()
    fig = tp.p99_vs_load(df, x="load", y="p99", by="switch.scheduler")
    (ax,) = fig.axes
    bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert len(bars) == 2 and all(c.has_yerr for c in bars)
    assert ax.get_xlabel() == "load (fraction of link capacity)" and "p99" in ax.get_ylabel()
    for c in bars:
        sched = c.get_label().split("=")[1]
        want = df.filter(
            (pl.col("switch.scheduler") == sched) & (pl.col("class") == "all") & (pl.col("stat") == "p99")
        ).sort("load")
        line, _caps, (segments,) = c.lines
        assert list(line.get_xdata()) == want["load"].to_list()
        assert list(line.get_ydata()) == pytest.approx(want["mean"].to_list())
        segs = segments.get_segments()
        assert [s[0][1] for s in segs] == pytest.approx(want["ci_low"].to_list())
        assert [s[1][1] for s in segs] == pytest.approx(want["ci_high"].to_list())
    # by class, fixing the scheduler
    fig = tp.p99_vs_load(df, by="class", where={"switch.scheduler": "drr"})
    labels = sorted(c.get_label() for c in fig.axes[0].containers if isinstance(c, ErrorbarContainer))
    assert labels == ["class=a", "class=all", "class=b"]


def test_load_axes_say_fraction_of_link_capacity() -> None:
    """Any load on x is a fraction of link capacity (the scenario's `load`), and says so."""
    df = sweep_summary().filter(pl.col("switch.scheduler") == "drr").drop("switch.scheduler")
    per_class = df.rename({"load": "class[0].load"})
    for frame, x in ((df, "load"), (per_class, "class[0].load")):
        (ax,) = tp.p99_vs_load(frame, x=x).axes
        assert ax.get_xlabel() == f"{x} (fraction of link capacity)"
    from tailor.reproduce.swp import fig1

    rows = [
        {"config": c, "bg_load": load, "fg_p99": 2.0 + load, "bg_p99": 3.0 + load}
        for c in fig1.CONFIGS
        for load in (0.2, 0.5, 0.8)
    ]
    for ax in fig1.figure({"rows": rows, "engine": "model"}).axes:
        assert ax.get_xlabel() == "background load (fraction of link capacity)"
        assert list(ax.get_lines()[0].get_xdata()) == pytest.approx([0.2, 0.5, 0.8])


def test_p99_vs_load_draws_around_a_statistic_of_no_samples() -> None:
    """summary statistics of no samples are null: the point is left out, not a crash."""
    df = sweep_summary().filter(pl.col("switch.scheduler") == "drr").drop("switch.scheduler")
    df = df.with_columns(
        pl.when((pl.col("load") == 0.5) & (pl.col("class") == "all")).then(None).otherwise(pl.col(c)).alias(c)
        for c in ("mean", "ci_low", "ci_high")
    )
    (ax,) = tp.p99_vs_load(df).axes
    (bars,) = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    ys = list(bars.lines[0].get_ydata())
    assert len(ys) == 3 and math.isnan(ys[1]) and not math.isnan(ys[0])


def test_p99_vs_load_marks_statistics_of_too_few_messages() -> None:
    """With a `messages` column (the fewest messages of a seed, as tailor.report adds it),
    a p99 of fewer than 100 messages is a hollow point off the line."""
    df = sweep_summary().filter(pl.col("switch.scheduler") == "drr").drop("switch.scheduler")
    df = df.with_columns(pl.when(pl.col("load") == 0.7).then(60).otherwise(400).alias("messages"))
    (ax,) = tp.p99_vs_load(df).axes
    (bars,) = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert list(bars.lines[0].get_xdata()) == [0.3, 0.5]
    (few,) = [ln for ln in ax.get_lines() if ln.get_label() == "_too few: p99"]
    assert list(few.get_xdata()) == [0.7] and few.get_markerfacecolor() == "none"
    assert any("p99: 100" in t.get_text() for t in ax.get_legend().get_texts())
    (ax,) = tp.p99_vs_load(df, y="mean").axes  # a mean needs no more than one message
    assert not [ln for ln in ax.get_lines() if ln.get_label().startswith("_too few")]


def test_p99_vs_load_refuses_ambiguous_or_unknown_columns() -> None:
    df = sweep_summary()
    with pytest.raises(DataError, match="several values of 'switch.scheduler'"):
        tp.p99_vs_load(df)
    with pytest.raises(OptionError, match="by: 'transport.kind' is not a column.*accepted: load, switch.scheduler"):
        tp.p99_vs_load(df, by="transport.kind")
    with pytest.raises(OptionError, match="no stat 'p90'.*accepted: mean, p99"):
        tp.p99_vs_load(df, y="p90", by="switch.scheduler")
    with pytest.raises(DataError, match="lacks columns ci_low, ci_high"):
        tp.p99_vs_load(df.drop("ci_low", "ci_high"))


def queues() -> pl.DataFrame:
    t = list(range(0, 100_000, 10_000))
    rows = [(ti, port, (port * 1000 + ti // 100) % 7000) for port in range(5) for ti in t]
    return pl.DataFrame(rows, schema=["time_ns", "port", "queue_bytes"], orient="row")


def test_queue_over_time_draws_the_fullest_ports_and_the_chosen_ones() -> None:
    q = queues()
    fig = tp.queue_over_time(q, top=2)
    (ax,) = fig.axes
    peaks = q.group_by("port").agg(pl.col("queue_bytes").max()).sort("queue_bytes", descending=True)
    assert [ln.get_label() for ln in ax.get_lines()] == [f"port {p}" for p in peaks["port"].head(2)]
    assert ax.get_xlabel() == "time (µs)" and ax.get_ylabel() == "queue (KB)"
    fig = tp.queue_over_time(q, ports=[3])
    (line,) = fig.axes[0].get_lines()
    part = q.filter(pl.col("port") == 3).sort("time_ns")
    assert list(line.get_xdata()) == pytest.approx((part["time_ns"] / 1e3).to_list())
    assert list(line.get_ydata()) == pytest.approx((part["queue_bytes"] / 1e3).to_list())
    with pytest.raises(OptionError, match="no samples of port 9"):
        tp.queue_over_time(q, ports=[9])


def test_queue_legend_lists_only_ports_that_held_a_queue() -> None:
    """Ports whose queue stayed empty are not among the "fullest" ports drawn by default."""
    q = queues()
    t = q["time_ns"].unique().sort().to_list()
    empty = pl.DataFrame([(ti, port, 0) for port in (5, 6, 7) for ti in t], schema=q.schema, orient="row")
    both = pl.concat([q.filter(pl.col("port") < 2), empty])
    (ax,) = tp.queue_over_time(both).axes  # top=6 of 5 sampled ports
    held = both.group_by("port").agg(pl.col("queue_bytes").max()).filter(pl.col("queue_bytes") > 0)["port"]
    assert sorted(ln.get_label() for ln in ax.get_legend().get_lines()) == [f"port {p}" for p in sorted(held)]
    assert "2 of 5 ports sampled held a queue" in ax.get_title()
    # Asked for by name, an empty port is drawn and says it never queued.
    (ax,) = tp.queue_over_time(both, ports=[0, 6]).axes
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["port 0", "port 6 (never queued)"]
    with pytest.raises(DataError, match="no port held a queue: the 3 ports sampled stayed at 0 B"):
        tp.queue_over_time(empty)


def test_queue_over_time_says_how_to_record_queues(result7: tailor.Result, tmp_path: Path) -> None:
    with pytest.raises(NotRecordedError) as e:
        tp.queue_over_time(result7)
    assert isinstance(e.value, TailorError)
    assert '[record] queues = "10us"' in str(e.value) and str(result7.dir) in str(e.value)
    assert e.value.hint == '[record] queues = "10us"'
    # Once the run has them, the run's own samples are drawn, named by ports.csv.
    run = tmp_path / "run"
    run.mkdir()
    for f in ("summary.json", "ports.csv", "messages.parquet"):
        (run / f).write_bytes((result7.dir / f).read_bytes())
    queues().write_parquet(run / "queues.parquet")
    fig = tp.queue_over_time(run, ports=[1])
    assert fig.axes[0].get_lines()[0].get_label() == "port 1 (switch0 to_host)"


def test_overlay_and_reproduction_figures() -> None:
    fig = tf.overlay({"a": 1.0, "b": 3.0, "c": None}, {"a": 2.0, "c": 5.0}, labels=("tailor", "paper"), ylabel="x")
    (ax,) = fig.axes
    heights = {c.get_label(): [b.get_height() for b in c] for c in ax.containers}
    assert heights == {"paper": [2.0, 5.0], "tailor": [1.0, 3.0]}
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "c", "b"]
    assert sum(t.get_text() == "n/a" for t in ax.texts) == 2  # paper's b, ours c
    from tailor.reproduce.swp import capacity, savings

    rows = [
        {
            "scenario": sc,
            "classes": 5,
            "seed": 1,
            "discipline": d,
            "engine": "model",
            "model_form": "calibrated",
            "host_scaling": "scaled",
            "capacity_gbps": c,
            "offered_gbps": 10.0,
            "found": True,
        }
        for sc, caps in (("a", (30.0, 20.0, 15.0, 40.0)), ("b", (24.0, 20.0, 12.0, 30.0)))
        for d, c in zip(("fifo", "weights", "weights_fq", "static"), caps, strict=True)
    ]
    params = {"a": [{"sigma": 1.2, "slo": 6.0}] * 5, "b": [{"sigma": 1.2, "slo": 6.0}] * 5}
    report = {"rows": rows, "classes": [5], "summary": savings.summarize(rows, params, set())}
    cdf, saving = capacity.figure(report).axes
    assert "Fig. 9(a)" in cdf.get_title()
    lines = {ln.get_label(): list(ln.get_xdata()) for ln in cdf.get_lines()}
    assert lines["fifo"] == [24.0, 24.0, 30.0] and lines["weights"] == [20.0, 20.0, 20.0]  # CDF from 0, then 1/2, 1
    got = {ln.get_label(): list(ln.get_xdata()) for ln in saving.get_lines()}
    assert got["model calibrated scaled"] == pytest.approx([20.0, 20.0, 50.0])  # +20 %, +50 %
    assert got["paper's mean +65 %"] == [65.0, 65.0]
    cc = {
        "run_dir": "/x/anchor-1",
        "bins": [
            {
                "lower_bytes": 0,
                "upper_bytes": 10_000,
                "count": 50,
                "ns3_mean": 1.5,
                "tailor_mean": 1.4,
                "ns3_p99": 4.0,
                "tailor_p99": 4.4,
            },
            {
                "lower_bytes": 10_000,
                "upper_bytes": 100_000,
                "count": 0,
                "ns3_mean": math.nan,
                "tailor_mean": math.nan,
                "ns3_p99": math.nan,
                "tailor_p99": math.nan,
            },
            {
                "lower_bytes": 100_000,
                "upper_bytes": 1_000_000,
                "count": 150,
                "ns3_mean": 3.0,
                "tailor_mean": 3.3,
                "ns3_p99": 9.0,
                "tailor_p99": 8.0,
            },
        ],
    }
    fig = tf.crosscheck_figure(cc)
    assert len(fig.axes) == 2 and all(a.get_xscale() == "log" for a in fig.axes)
    # One convention for size bins in every plot: the bin at its upper edge, said on the axis.
    assert fig.axes[0].get_xlabel() == tp.SIZE_LABEL and "upper edge" in tp.SIZE_LABEL
    assert list(fig.axes[0].get_lines()[0].get_xdata()) == [10_000, 1_000_000]
    p99 = {
        ln.get_label(): list(ln.get_ydata())
        for ln in fig.axes[1].get_lines()
        if not ln.get_label().startswith("hollow")
    }  # the legend's key to the hollow points
    # A p99 of 50 flows is hollow, off the line, as in the other plots; 150 flows are enough.
    assert p99 == {"ns-3": [9.0], "tailor": [8.0], "_too few: ns3": [4.0], "_too few: tailor": [4.4]}
    hollow = [ln for ln in fig.axes[1].get_lines() if ln.get_label().startswith("_too few")]
    assert all(ln.get_markerfacecolor() == "none" for ln in hollow)
    assert any("p99: 100" in t.get_text() for t in fig.axes[1].get_legend().get_texts())
    with pytest.raises(OptionError, match="kind: unknown value 'pie'"):
        tf.overlay({"a": 1}, {"a": 1}, kind="pie")


def test_save_writes_valid_png_and_svg(result7: tailor.Result, tmp_path: Path) -> None:
    fig = tp.latency_cdf(result7)
    paths = tp.save(fig, tmp_path / "sub" / "cdf.png")  # a suffix on the stem is dropped
    assert paths == [tmp_path / "sub" / "cdf.png", tmp_path / "sub" / "cdf.svg"]
    png = paths[0].read_bytes()
    assert png[:8] == PNG_MAGIC and len(png) > 10_000
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert (width, height) == (round(7.5 * 150), round(4.6 * 150))
    root = ET.parse(paths[1]).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert len(root.findall(".//{http://www.w3.org/2000/svg}path")) > 10
    # Same figure, same bytes: no date in the SVG.
    again = tp.save(fig, tmp_path / "again", formats=("svg",))
    assert again[0].read_bytes() == paths[1].read_bytes()
    with pytest.raises(OptionError, match="formats: unknown format 'jpg'; accepted: png, svg, pdf"):
        tp.save(fig, tmp_path / "x", formats=("jpg",))


def test_plots_leave_no_pyplot_state(result7: tailor.Result) -> None:
    import matplotlib

    backend = matplotlib.get_backend()
    tp.slowdown_vs_size(result7)
    import sys

    if "matplotlib.pyplot" in sys.modules:
        import matplotlib.pyplot as plt

        assert plt.get_fignums() == []
    assert matplotlib.get_backend() == backend


def test_not_a_run_directory(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="not a run directory"):
        tp.latency_cdf(tmp_path)
    with pytest.raises(DataError, match="no such directory"):
        tp.latency_cdf(tmp_path / "missing")


def tailor_cli(*args: object) -> "subprocess.CompletedProcess[str]":
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "tailor.cli", *map(str, args)], capture_output=True, text=True, timeout=120
    )


def test_cli_plot_writes_the_formats_asked(result7: tailor.Result, tmp_path: Path) -> None:
    p = tailor_cli(
        "plot", result7.dir, "--kind", "slowdown-vs-size", "--out", tmp_path / "sd", "--percentiles", "50,99.9"
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == f"wrote {tmp_path / 'sd.png'}, {tmp_path / 'sd.svg'}"
    assert (tmp_path / "sd.png").read_bytes()[:8] == PNG_MAGIC
    svg = ET.parse(tmp_path / "sd.svg").getroot()
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    p = tailor_cli(
        "plot", result7.dir, "--kind", "latency-cdf", "--out", tmp_path / "cdf", "--format", "svg", "--class", "rpc"
    )
    assert p.returncode == 0, p.stderr
    assert [f.name for f in sorted(tmp_path.glob("cdf*"))] == ["cdf.svg"]
    summary = tmp_path / "sweep.parquet"
    sweep_summary().write_parquet(summary)
    p = tailor_cli(
        "plot", summary, "--kind", "p99-vs-load", "--by", "switch.scheduler", "--where", "class=a", "--format", "png"
    )
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "sweep-p99-vs-load.png").read_bytes()[:8] == PNG_MAGIC


@pytest.mark.parametrize(
    "args,message",
    [
        (("--kind", "pie"), "--kind: unknown value 'pie'; accepted: slowdown-vs-size, latency-cdf, queue, p99-vs-load"),
        (("--kind", "queue"), 'the run did not record queues (no queues.parquet); add `[record] queues = "10us"`'),
        (
            ("--kind", "slowdown-vs-size", "--percentiles", "50,abc"),
            "--percentiles: 'abc' is not a number; accepted: numbers in (0, 100]",
        ),
        (("--kind", "slowdown-vs-size", "--percentiles", "0"), "--percentiles: 0 is out of range"),
        (("--kind", "latency-cdf", "--class", "nope"), "--class: unknown class 'nope'; accepted: rpc, websearch, all"),
        (("--kind", "latency-cdf", "--format", "png,gif"), "--format: unknown format 'gif'; accepted: png, svg, pdf"),
        (
            ("--kind", "latency-cdf", "--by", "load"),
            "--by: not an option of --kind latency-cdf; its options: --ccdf, --class",
        ),
        (("--kind", "queue", "--ccdf"), "--ccdf: not an option of --kind queue; its options: --port"),
        (("--kind", "p99-vs-load"), "neither a sweep store (points/) nor a summary table"),
    ],
)
def test_cli_plot_errors_name_the_option(
    result7: tailor.Result, tmp_path: Path, args: tuple[str, ...], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """In-process (the subprocess path is exercised above): exit status 2 and one line."""
    from tailor.cli import app

    status = app(["plot", str(result7.dir), *args, "--out", str(tmp_path / "x")], standalone_mode=False)
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert err.startswith("error: ") and message in err and len(err.splitlines()) == 1
    assert not list(tmp_path.iterdir()), "nothing written"


def test_reproductions_write_their_plots(tmp_path: Path) -> None:
    """Short runs of both SWP reproductions: the plot is written beside their data and
    shows the numbers they report."""
    from tailor.reproduce.swp import capacity as swp_capacity
    from tailor.reproduce.swp import fig1 as swp_fig1

    cap = swp_capacity.run(n=1, classes=(3,), cap_ms=25.0, out=tmp_path / "cap", say=lambda m: None)
    assert cap["plots"] == [str(tmp_path / "cap" / "capacity.png"), str(tmp_path / "cap" / "capacity.svg")]
    assert (tmp_path / "cap" / "capacity.png").read_bytes()[:8] == PNG_MAGIC
    cdf, saving = swp_capacity.figure(cap).axes
    lines = {ln.get_label(): ln for ln in cdf.get_lines()}
    for r in cap["rows"]:  # Fig. 8(a): each discipline's CDF ends at its least capacity (one scenario)
        assert list(lines[r["discipline"]].get_xdata())[-1] == pytest.approx(r["capacity_gbps"])
    ours = next(s for s in cap["summary"] if s["experiment"] == "Fig. 8" and s["comparison"] == "fifo_vs_weights")
    assert list(saving.get_lines()[0].get_xdata())[-1] == pytest.approx(ours["values"][-1])

    fig1 = swp_fig1.run(tmp_path / "fig1", swp_fig1.Setup(until="2ms"), say=lambda m: None)
    assert (tmp_path / "fig1" / "fig1.svg").is_file() and len(fig1["plots"]) == 2
    axes = swp_fig1.figure(fig1).axes
    assert [a.get_title() for a in axes] == [swp_fig1.TITLES[c] for c in swp_fig1.CONFIGS]
    for ax, cfg in zip(axes, swp_fig1.CONFIGS, strict=True):
        fg = ax.get_lines()[0]
        rows = sorted((r for r in fig1["rows"] if r["config"] == cfg), key=lambda r: r["bg_load"])
        assert list(fg.get_xdata()) == pytest.approx([r["bg_load"] for r in rows])
        assert list(fg.get_ydata()) == pytest.approx([r["fg_p99"] for r in rows])


def test_cli_plot_names_its_options_for_an_ambiguous_sweep(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Several schedulers for one load: the command suggests --by and --where, not the
    Python arguments."""
    from tailor.cli import app

    table = tmp_path / "summary.parquet"
    sweep_summary().write_parquet(table)
    status = app(["plot", str(table), "--kind", "p99-vs-load"], standalone_mode=False)
    _, err = capsys.readouterr()
    assert status == 2 and len(err.splitlines()) == 1
    assert "--by switch.scheduler or --where switch.scheduler=VALUE" in err, err


def test_p99_vs_load_orders_values_with_units_by_magnitude() -> None:
    """A sweep over switch.buffer_size: 30KB before 120KB (as text, 120KB came first), and
    each line runs left to right in that order."""
    sizes = ["120KB", "30KB", "1MB", "60KB"]
    df = pl.DataFrame(
        [
            {
                "switch.buffer_size": b,
                "engine": "packet",
                "class": "all",
                "size": "all",
                "stat": "p99",
                "mean": float(i),
                "ci_low": i - 0.1,
                "ci_high": i + 0.1,
                "n_seeds": 3,
            }
            for i, b in enumerate(sizes)
        ]
    )
    (ax,) = tp.p99_vs_load(df, x="switch.buffer_size").axes
    assert [t.get_text() for t in ax.get_xticklabels()] == ["30KB", "60KB", "120KB", "1MB"]
    (bars,) = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert list(bars.lines[0].get_ydata()) == [1.0, 3.0, 0.0, 2.0]
    assert list(bars.lines[0].get_xdata()) == [0.0, 1.0, 2.0, 3.0]
    from tailor.fmt import in_order

    assert in_order(["b", "a", "10KB"]) == ["10KB", "a", "b"], "mixed values stay text"
    assert in_order(["100Gbps", "25Gbps", "400Mbps"]) == ["400Mbps", "25Gbps", "100Gbps"]
