"""A self-contained HTML report of a run directory or a sweep store.

``report(path)`` writes one HTML file that needs nothing else to be read: the plots are
inline PNG data URIs, the style is inline, there is no script and nothing is fetched
(no fonts, no CSS, no JavaScript from anywhere). The PNGs are also written beside the
HTML file, to be reused. The page is rendered from the jinja2 templates in
``tailor/templates`` (``run.html.j2``, ``sweep.html.j2``, their ``base.html.j2`` and
``macros.html.j2``) with autoescape on: every piece of text from the run (class names,
the scenario's TOML, file names) is HTML-escaped, and markup comes only from the
templates. This module computes what the page says; the templates say how it looks.

    >>> from tailor.report import report
    >>> report("runs/q")                                          # runs/q/report.html

A run report shows the run's identity (scenario, seed, engine, transport, the tailor that
ran it and the one that reported it, dates), the SLO verdicts, the slowdown table of
every class by size bin, slowdown-by-size and latency-CDF plots (and the queues, when
the run recorded them), the network counters, the busiest ports and the scenario as run.

A sweep report (``sweep_report``) is built from the store's two tables, ``summary``
(``Sweep.summary()``: one column per axis, ``engine, class, size, stat, mean, ci_low,
ci_high, n_seeds``) and ``points`` (``point, seed, engine, scenario`` and the axes).
"""

from __future__ import annotations

import base64
import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Union

import jinja2
import polars as pl
from matplotlib.figure import Figure

from tailor import fmt
from tailor.errors import DataError, NotRecordedError, OptionError
from tailor.outdir import SIGNATURE, check_file, write_file
from tailor.plot import (
    STAT_PERCENTILES,
    SUMMARY_VALUE_COLUMNS,
    latency_cdf,
    needs_text,
    open_result,
    p99_vs_load,
    queue_over_time,
    samples_needed,
    save,
    seed_bins,
    slowdown_vs_size,
    slowdown_vs_size_across_seeds,
)
from tailor.provenance import scenario_as_run
from tailor.result import Result

__all__ = ["report", "run_report", "sweep_report", "store_frames", "with_messages"]

#: Resolution of the report's PNGs.
DPI = 110
#: Ports listed in a run report (those with the largest queues).
TOP_PORTS = 10
#: Stats of a sweep summary, in the order its table shows them.
STATS = ("mean", "p50", "p99", "p999")


@dataclass(frozen=True)
class Span:
    """A cell's text in a ``<span>``: a CSS class (``few``, ``met``, ``missed``, ``none``),
    a tooltip, the upper edge of a size bin it stands for, and text after it."""

    text: str
    css: str | None = None
    title: str | None = None
    upper: int | None = None
    after: str = ""


#: A table cell: text, or text in a span.
Cell = Union[str, Span]


@functools.cache
def _templates() -> jinja2.Environment:
    """The templates in tailor/templates, autoescaped; ``is span`` tells a Span from text."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("tailor", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.tests["span"] = lambda c: isinstance(c, Span)
    return env


def _page(template: str, title: str, **content: Any) -> str:
    """The page of ``template`` (tailor/templates) with ``content``."""
    return (
        _templates()
        .get_template(template)
        .render(title=title, generator=f"{SIGNATURE} {_version()}", version=_version(), now=_now(), **content)
    )


def _figure(fig: Figure, stem: Path, caption: str) -> dict[str, Any]:
    """Saves ``fig`` as ``stem.png``; what the page shows of it (the template's ``figure``)."""
    (png,) = save(fig, stem, formats=("png",), dpi=DPI)
    w, h = (round(v * DPI) for v in fig.get_size_inches())
    data = base64.b64encode(png.read_bytes()).decode("ascii")
    return {"data": data, "width": w, "height": h, "caption": caption, "file": png.name}


def _note(text: str, id: str | None = None, code: str | None = None) -> dict[str, Any]:
    """A note in place of a plot (the template's ``figure``)."""
    return {"note": text, "id": id, "code": code}


def _version() -> str:
    from tailor import __version__

    return __version__


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _write(out: Path, text: str) -> Path:
    """Writes the page, replacing an existing file only when tailor wrote it (tailor.outdir)."""
    return write_file(out, lambda tmp: tmp.write_text(text, encoding="utf-8"))


# ---------------------------------------------------------------------------- entry point


def report(
    path: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
    scenario: str | os.PathLike[str] | None = None,
) -> Path:
    """Writes the HTML report of a run directory (it holds ``summary.json``) or of a sweep
    store (it holds ``points/``) and returns its path.

    ``out``: the HTML file (default: ``PATH/report.html``); the PNGs go beside it, named
    ``<out stem>-<plot>.png``; never a result file (tailor.outdir). A run report shows
    the scenario the run kept (``scenario.toml``); ``scenario``, a scenario file, is
    checked against the run first and refused with OptionError when it is not the one
    that ran (tailor.provenance).
    """
    p = Path(path)
    if not p.is_dir():
        raise DataError(f"{p}: no such directory; expected a run directory (summary.json) or a sweep store (points/)")
    target = Path(out) if out is not None else p / "report.html"
    if target.exists() and target.is_dir():
        raise OptionError(f"--out: {target} is a directory; give the HTML file to write, e.g. {target / 'report.html'}")
    check_file(target)  # before its plots are written beside it
    if (p / "summary.json").is_file():
        return run_report(open_result(p), target, scenario)
    if (p / "points").is_dir():
        if scenario is not None:
            raise OptionError("--scenario: only for a run directory; a sweep store keeps its scenarios")
        summary, points, slos, scenarios = store_frames(p)
        return sweep_report(summary, points, target, title=p.name, source=str(p), slos=slos, scenarios=scenarios)
    raise DataError(f"{p}: neither a run directory (no summary.json) nor a sweep store (no points/)")


def store_frames(
    path: str | os.PathLike[str],
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, list[tuple[str, str]]]:
    """The ``summary()``, points and SLO tables of the sweep store at ``path``, and per
    scenario the resolved document of its first point (caption, TOML)."""
    import tailor

    store = tailor.open(path)
    axes = store.axes()
    points = store.points().select("point", "seed", "engine", "scenario", *axes)
    scenarios = []
    for first in points.sort("point").unique("scenario", keep="first", maintain_order=True).iter_rows(named=True):
        at = ", ".join(f"{a} = {first[a]}" for a in axes) + (", " if axes else "") + f"seed = {first['seed']}"
        caption = (
            f"{first['scenario']}, as run at point {first['point'][:10]} ({at}); "
            "the other points differ only in the axes"
        )
        scenarios.append((caption, (Path(path) / "points" / first["point"] / "scenario.toml").read_text()))
    return with_messages(store.summary(), store, axes), points, store.slos().collect(), scenarios


def with_messages(summary: pl.DataFrame, store: Any, axes: list[str]) -> pl.DataFrame:
    """``summary`` with ``messages``: the fewest messages any seed had in the row's class and
    size, so that a percentile of too few messages can be marked (``samples_needed``)."""
    keys = [*axes, "scenario", "engine", "class", "size"]
    fewest = store.rows().group_by(keys).agg(pl.col("count").min().alias("messages")).collect()
    return summary.join(fewest, on=keys, how="left", nulls_equal=True, maintain_order="left")


#: The percentiles of the slowdown tables: (summary key, percentile).
_PERCENTILES = (("p50", 50.0), ("p99", 99.0), ("p999", 99.9))
#: Said once above the slowdown tables.
_BINS_NOTE = (
    "Each size bin is (lower, upper]; the plots draw it at its upper edge. A percentile in grey "
    f"and parentheses has too few messages in its bin to be a result ({needs_text([p for _, p in _PERCENTILES])} "
    "messages needed): it is the largest slowdown seen, not a tail estimate."
)


def _percentile(value: float | None, count: int, p: float) -> Cell:
    """A percentile cell: greyed, in parentheses, when ``count`` messages are too few for it."""
    need = samples_needed(p)
    if value is None or count >= need:
        return fmt.stat(value)
    return Span(f"({fmt.stat(value)})", css="few", title=f"{count:,} messages; p{p:g} needs {need:,}")


def _slowdown_row(label: Cell, b: dict[str, Any]) -> list[Cell]:
    return [
        label,
        f"{b['count']:,}",
        fmt.stat(b.get("mean")),
        *(_percentile(b.get(k), b["count"], p) for k, p in _PERCENTILES),
    ]


def _slowdown_table(name: str, rep: dict[str, Any]) -> dict[str, Any]:
    rows = [
        _slowdown_row(Span(fmt.size_bin(b["lower_bytes"], b["upper_bytes"]), upper=b["upper_bytes"]), b)
        for b in rep["bins"]
        if b["count"] > 0
    ]
    return {"name": name, "rows": rows, "total": _slowdown_row("all sizes", rep["slowdown"])}


def _slo_rows(s: dict[str, Any]) -> list[list[Cell]]:
    rows = []
    for name, c in s["classes"].items():
        for slo in c.get("slo", []):
            text, kind = fmt.verdict(slo)
            verdict = Span(text, css=kind)
            value, loss = (
                (fmt.NONE, fmt.NONE)
                if slo.get("value") is None
                else (fmt.stat(slo["value"], ".4g"), fmt.stat(slo["loss"], "+.3f"))
            )
            rows.append(
                [name, slo["sli"], fmt.stat(slo["threshold"], "g"), value, f"{slo.get('count', 0):,}", verdict, loss]
            )
    return rows


def _unfinished(s: dict[str, Any]) -> str:
    """The messages a stop left unfinished, the run's and each class's ("" when none)."""
    m = s.get("messages", {})
    if not m.get("incomplete"):
        return ""
    per_class = [
        f"{name}: {fmt.unfinished(c['incomplete'], c.get('incomplete_bytes'))}"
        for name, c in s["classes"].items()
        if c.get("incomplete")
    ]
    return fmt.unfinished(m["incomplete"], m.get("incomplete_bytes")) + (
        f" ({'; '.join(per_class)})" if len(s["classes"]) > 1 and per_class else ""
    )


def run_report(r: Result, out: str | os.PathLike[str], scenario: str | os.PathLike[str] | None = None) -> Path:
    """Writes the report of run ``r`` to ``out`` (HTML) with its PNGs beside it."""
    out = Path(out)
    s = r.summary
    shown = scenario_as_run(r.dir, s, scenario)
    stem = out.parent / out.stem
    title = f"{s.get('scenario', r.dir.name)}, seed {s.get('seed', '?')}"
    msgs = s.get("messages", {})
    written = datetime.fromtimestamp((r.dir / "summary.json").stat().st_mtime, timezone.utc).strftime(
        "%Y-%m-%d %H:%M:%S UTC"
    )
    ident = [
        ("scenario", s.get("scenario", "?")),
        ("scenario file", s.get("scenario_file", "not recorded")),
        ("scenario SHA-256", s.get("scenario_sha256", "not recorded (a run of a tailor before runs kept it)")),
        ("seed", str(s.get("seed", "?"))),
        ("engine", s.get("engine", "packet")),
        ("transport", s.get("transport", "?")),
        ("run by", f"tailor {s.get('tailor_version', '(version not recorded)')}"),
        ("reported by", f"tailor {_version()}"),
        ("run directory", str(r.dir)),
        ("run written", written),
        ("report written", _now()),
        ("simulated", fmt.time(s["sim_ns"]) if "sim_ns" in s else fmt.NONE),
        (
            "messages",
            f"{msgs.get('completed', 0):,} completed of {msgs.get('generated', 0):,} generated, "
            f"{msgs.get('incomplete', 0):,} incomplete, {msgs.get('warmup_excluded', 0):,} in the warm-up (not counted)",
        ),
        ("engine work", f"{s['events']:,} events in {s['wall_seconds']:.2f} s" if "events" in s else fmt.NONE),
    ]
    names = (
        r.classes if len(r.classes) == 1 else [*r.classes, "all"]
    )  # with one class, "all" is the same messages again
    return _write(
        out,
        _page(
            "run.html.j2",
            f"tailor report: {title}",
            heading=title,
            ident=ident,
            slos=_slo_rows(s),
            unfinished=_unfinished(s),
            figures=_run_plots(r, stem),
            bins_note=_BINS_NOTE,
            slowdown=[_slowdown_table(n, s["overall"] if n == "all" else s["classes"][n]) for n in names],
            network=_network(s),
            ports=_ports(r),
            scenario=shown.text,
            scenario_source=shown.source,
        ),
    )


def _run_plots(r: Result, stem: Path) -> list[dict[str, Any]]:
    """The run's plots, each a figure or a note saying why it is not there."""
    figures = []
    # A plot that cannot be drawn (no messages after the warm-up, no message records)
    # becomes a note: the tables below come from summary.json and still hold.
    for draw, suffix, caption in (
        (lambda: slowdown_vs_size(r, (50, 99)), "slowdown", "p50 and p99 slowdown per size bin, per class"),
        (lambda: latency_cdf(r), "latency", "latency CDF per class"),
    ):
        try:
            figures.append(_figure(draw(), stem.with_name(f"{stem.name}-{suffix}"), caption))
        except NotRecordedError:
            raise
        except DataError as e:
            figures.append(_note(f"No {caption} plot: {e}"))
    try:
        figures.append(
            _figure(queue_over_time(r), stem.with_name(f"{stem.name}-queues"), "queue occupancy of the fullest ports")
        )
    except NotRecordedError as e:
        figures.append(_note("No queue plot: the run did not record queues.", id="no-queues", code=e.hint))
    except DataError as e:  # queues recorded, none ever held a byte
        figures.append(_note(f"No queue plot: {e}", id="no-queues"))
    return figures


def _network(s: dict[str, Any]) -> list[tuple[str, str]]:
    """The network counters (none: the page says so)."""
    n = s.get("network")
    if not n:
        return []
    rows = [
        ("drops", f"{n['drops']:,}"),
        ("ECN marks", f"{n['ecn_marks']:,}"),
        ("largest switch queue", fmt.size(n["max_queue_bytes"])),
        ("its time-average queue", fmt.size(n["mean_queue_bytes"])),
        ("busiest switch port", f"{100 * n['utilization']:.1f} % utilized"),
    ]
    if "max_host_nic_queue_bytes" in n:
        rows.append(("largest host NIC queue", fmt.size(n["max_host_nic_queue_bytes"])))
    for k, v in s.get("transport_counters", {}).items():
        rows.append((k.replace("_", " "), f"{v:,}"))
    return rows


def _ports(r: Result) -> dict[str, Any] | None:
    """The ports with the largest queues, or None without ports.csv."""
    if not any((r.dir / f"ports.{e}").exists() for e in ("parquet", "csv")):
        return None
    ports = r.ports
    need = {"port", "node", "role", "max_queue_bytes", "mean_queue_bytes", "utilization", "drops", "ecn_marks"}
    if not need <= set(ports.columns):
        return None
    top = ports.sort(["max_queue_bytes", "port"], descending=[True, False]).head(TOP_PORTS)
    rows = [
        [
            str(p["port"]),
            str(p["node"]),
            str(p["role"]),
            fmt.size(p["max_queue_bytes"]),
            fmt.size(p["mean_queue_bytes"]),
            f"{100 * p['utilization']:.1f} %",
            f"{p['drops']:,}",
            f"{p['ecn_marks']:,}",
        ]
        for p in top.iter_rows(named=True)
    ]
    return {"rows": rows, "of": ports.height}


# ---------------------------------------------------------------------------- a sweep


def _axes(summary: pl.DataFrame) -> list[str]:
    """The sweep axes, and the scenario when a store holds several (the identity table
    names a store's one scenario)."""
    return [
        c
        for c in summary.columns
        if c not in SUMMARY_VALUE_COLUMNS and (c != "scenario" or summary["scenario"].n_unique() > 1)
    ]


def _one_class(summary: pl.DataFrame) -> pl.DataFrame:
    """The summary without its "all" rows when it has one class: they repeat the class's."""
    classes = set(summary["class"].unique().to_list()) - {"all"}
    return summary.filter(pl.col("class") != "all") if len(classes) == 1 else summary


def _varying(df: pl.DataFrame, cols: Sequence[str]) -> list[str]:
    return [c for c in cols if df[c].n_unique() > 1]


def sweep_report(
    summary: pl.DataFrame,
    points: pl.DataFrame,
    out: str | os.PathLike[str],
    *,
    title: str = "sweep",
    source: str | None = None,
    slos: pl.DataFrame | None = None,
    scenarios: Sequence[tuple[str, str]] = (),
) -> Path:
    """Writes the report of a sweep from its ``summary`` and ``points`` tables (see the
    module doc) to ``out``, with its PNGs beside it. ``slos`` (``Store.slos()``, one
    row per point and SLO) adds the SLO verdicts per axis values: how many seeds met it.

    The plots put the ``load`` axis (else the first numeric axis that varies) on x and
    draw a line per combination of the other varying axes (and engines), for the p99
    and the mean slowdown of all classes, and the p99 of each class. A sweep whose only
    axis is the seed gets slowdown by message size instead: each bin's p50 and p99,
    the mean over seeds with the interval across them, bins of too few messages in a
    seed left out.
    """
    out = Path(out)
    need = ("engine", "class", "size", "stat", "mean", "ci_low", "ci_high", "n_seeds")
    missing = [c for c in need if c not in summary.columns]
    if missing:
        raise DataError(f"the sweep summary lacks columns {', '.join(missing)}; it has: {', '.join(summary.columns)}")
    missing = [c for c in ("point", "seed", "engine", "scenario") if c not in points.columns]
    if missing:
        raise DataError(
            f"the sweep's points table lacks columns {', '.join(missing)}; it has: {', '.join(points.columns)}"
        )
    if summary.height == 0:
        raise DataError("the sweep summary is empty: no point has finished")
    axes = _axes(summary)
    stem = out.parent / out.stem
    n_points = points["point"].n_unique()
    # A point is one seed of one axis combination: count seeds per combination.
    combo = [c for c in points.columns if c not in ("point", "seed")]
    seeds = points.group_by(combo).agg(pl.col("seed").n_unique())["seed"] if combo else pl.Series([points.height])
    ident = [
        ("sweep", title),
        ("store", source or fmt.NONE),
        ("scenarios", ", ".join(map(str, points["scenario"].unique().sort().to_list()))),
        ("engines", ", ".join(map(str, summary["engine"].unique().sort().to_list()))),
        ("points", f"{n_points:,} runs of {seeds.len():,} axis values"),
        (
            "seeds per axis values",
            f"{seeds.min()}" if seeds.min() == seeds.max() else f"{seeds.min()} to {seeds.max()}",
        ),
        ("reported by", f"tailor {_version()}"),
        ("report written", _now()),
    ]
    return _write(
        out,
        _page(
            "sweep.html.j2",
            f"tailor sweep report: {title}",
            heading=title,
            ident=ident,
            axes=[[a, ", ".join(map(str, summary[a].unique().sort().to_list()))] for a in axes],
            figures=_sweep_plots(_one_class(summary), axes, stem),
            few_note=needs_text(list(STAT_PERCENTILES.values())) if "messages" in summary.columns else None,
            summary=_sweep_table(_one_class(summary), axes),
            slos=_sweep_slos(slos, [a for a in axes if a in slos.columns])
            if slos is not None and slos.height
            else None,
            scenarios=list(scenarios),
            points=_points(points),
        ),
    )


def _points(points: pl.DataFrame) -> dict[str, Any]:
    """The points grouped by axis values, with their seeds and id prefixes."""
    p_axes = [c for c in points.columns if c not in ("point", "seed", "engine", "scenario")]
    per = points.group_by(["scenario", "engine", *p_axes], maintain_order=True).agg(
        pl.col("seed").sort(), pl.col("point").sort()
    )
    rows = [
        [
            str(row["scenario"]),
            str(row["engine"]),
            *(str(row[a]) for a in p_axes),
            ", ".join(map(str, row["seed"])),
            ", ".join(p[:10] for p in row["point"]),
        ]
        for row in per.sort(p_axes or ["scenario"]).iter_rows(named=True)
    ]
    return {"headers": ["scenario", "engine", *p_axes, "seeds", "points (id prefixes)"], "rows": rows}


def _sweep_slos(slos: pl.DataFrame, axes: list[str]) -> dict[str, Any]:
    keys = [*axes, "engine", "class", "sli", "threshold"]
    # A seed whose SLO is not judged (met is null: too few messages in range, or messages
    # unfinished at the stop; docs/results.md) is neither a met nor a miss.
    per = slos.group_by(keys, maintain_order=True).agg(
        pl.col("met").sum().alias("met"),
        pl.col("met").is_not_null().sum().alias("n"),
        pl.len().alias("seeds"),
        pl.col("value").mean().alias("value"),
    )
    rows = []
    for row in per.sort(keys).iter_rows(named=True):
        if row["n"] == 0:
            cell = Span(
                "not judged",
                css="none",
                title="no seed judged it: too few messages in range, or messages unfinished at the stop",
            )
        else:
            css = "met" if row["met"] == row["n"] else "missed" if row["met"] == 0 else "none"
            unjudged = row["seeds"] - row["n"]
            cell = Span(f"{row['met']} of {row['n']}", css=css, after=f" ({unjudged} not judged)" if unjudged else "")
        rows.append(
            [
                *(str(row[a]) for a in axes),
                str(row["engine"]),
                str(row["class"]),
                str(row["sli"]),
                fmt.stat(row["threshold"], ".4g"),
                fmt.stat(row["value"], ".4g"),
                cell,
            ]
        )
    return {
        "headers": [*axes, "engine", "class", "SLI", "bound", "mean value", "seeds met"],
        "rows": rows,
        "left": len(axes) + 3,
    }


def _x_axis(summary: pl.DataFrame, axes: list[str]) -> str | None:
    varying = _varying(summary, axes)
    if "load" in varying:
        return "load"
    numeric = [a for a in varying if summary[a].dtype.is_numeric()]
    return (numeric or varying or [None])[0]


def _sweep_plots(summary: pl.DataFrame, axes: list[str], stem: Path) -> list[dict[str, Any]]:
    x = _x_axis(summary, axes)
    if x is None:
        return [_seed_plot(summary, stem)]
    sizes = summary["size"].unique().to_list()
    df = summary.filter(pl.col("size") == "all") if "all" in sizes else summary
    by = _varying(df, [a for a in axes if a != x] + ["engine"])
    stats = df["stat"].unique().to_list()
    classes = sorted(df["class"].unique().to_list(), key=lambda c: (c != "all", c))
    # The mean of all classes; of the one class when there is one.
    means = ["all"] if "all" in classes else classes if len(classes) == 1 else []
    wanted = [("p99", c) for c in classes] + [("mean", c) for c in means]
    figures = []
    for stat, cls in wanted:
        if stat not in stats:
            continue
        part = df.filter(pl.col("class") == cls)
        fig = p99_vs_load(part, x=x, y=stat, by=by or None, where={"class": cls, "size": part["size"][0]})
        name = f"{stat}-{_slug(cls)}"
        caption = f"{stat} slowdown of {'all classes' if cls == 'all' else 'class ' + cls} against {x}"
        figures.append(_figure(fig, stem.with_name(f"{stem.name}-{name}"), caption))
    return figures


def _seed_plot(summary: pl.DataFrame, stem: Path) -> dict[str, Any]:
    """A sweep whose only axis is the seed: slowdown by message size, the mean over seeds
    of each bin's p50 and p99 with the interval across seeds; the caption says how many
    seeds, which interval, and which bins are left out for too few messages."""
    stats = [st for st in ("p50", "p99") if st in summary["stat"].unique().to_list()]
    try:
        fig = slowdown_vs_size_across_seeds(summary, stats)
    except DataError as e:
        return _note(f"No plot: {e}", id="no-plots")
    seeds = int(summary["n_seeds"].max())
    left = {st: (n, kept.height + n) for st in stats for kept, n in [seed_bins(summary, st)]}
    over = (
        f"the mean over {seeds} seeds of each seed's value, bars: the 95 % percentile-bootstrap interval across seeds"
        if seeds > 1
        else "one seed: its value, no interval"
    )
    if "messages" not in summary.columns:
        rule = "every bin drawn (the messages per seed were not given)"
    elif any(n for n, _ in left.values()):
        dropped = ", ".join(f"{st}: {n} of {total} bins" for st, (n, total) in left.items() if n)
        rule = (
            f"bins where a seed had fewer messages than the percentile needs "
            f"({needs_text([STAT_PERCENTILES[st] for st in stats])}) are left out ({dropped})"
        )
    else:
        rule = "every bin had enough messages in every seed"
    caption = f"{' and '.join(stats)} slowdown per size bin, per class: {over}; {rule}"
    return _figure(fig, stem.with_name(f"{stem.name}-slowdown"), caption)


def _slug(s: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in s)


def _sweep_cell(row: dict[str, Any]) -> Cell:
    """``mean [ci_low, ci_high]``, greyed in parentheses when a seed had too few messages
    for the percentile."""
    text = f"{fmt.stat(row['mean'])} [{fmt.stat(row['ci_low'])}, {fmt.stat(row['ci_high'])}]"
    p = STAT_PERCENTILES.get(row["stat"])
    n = row.get("messages")
    if p is None or n is None or n >= samples_needed(p):
        return text
    return Span(f"({text})", css="few", title=f"a seed had {n:,} messages; p{p:g} needs {samples_needed(p):,}")


def _sweep_table(summary: pl.DataFrame, axes: list[str]) -> dict[str, Any]:
    """One row per (axes, engine, class) at size "all"; a column per stat. With a
    ``messages`` column, a percentile that a seed had too few messages for is greyed."""
    df = summary.filter(pl.col("size") == "all") if "all" in summary["size"].to_list() else summary
    keys = [*axes, "engine", "class", *([] if "all" in summary["size"].to_list() else ["size"])]
    stats = [s for s in STATS if s in df["stat"].unique().to_list()]
    cells: dict[tuple, dict[str, Cell]] = {}
    seeds: dict[tuple, int] = {}
    for row in df.sort(keys).iter_rows(named=True):
        k = tuple(row[c] for c in keys)
        cells.setdefault(k, {})[row["stat"]] = _sweep_cell(row)
        seeds[k] = row["n_seeds"]
    rows = [[*(str(v) for v in k), *(cells[k].get(s, fmt.NONE) for s in stats), str(seeds[k])] for k in cells]
    return {"headers": [*keys, *stats, "seeds"], "rows": rows, "left": len(keys)}
