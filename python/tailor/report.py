"""A self-contained HTML report of a run directory or a sweep store.

``report(path)`` writes one HTML file that needs nothing else to be read: the plots are
inline PNG data URIs, the style is inline, there is no script and nothing is fetched
(no fonts, no CSS, no JavaScript from anywhere). The PNGs are also written beside the
HTML file, to be reused. Every piece of text from the run (class names, the scenario's
TOML, file names) is HTML-escaped.

    >>> from tailor.report import report
    >>> report("runs/q", scenario="scenarios/quickstart.toml")     # runs/q/report.html

A run report shows the run's identity (scenario, seed, engine, transport, the tailor that
ran it and the one that reported it, dates), the SLO verdicts, the slowdown table of
every class by size bin, slowdown-by-size and latency-CDF plots (and the queues, when
the run recorded them), the network counters, the busiest ports and the scenario file.

A sweep report (``sweep_report``) is built from the store's two tables, ``summary``
(``Sweep.summary()``: one column per axis, ``engine, class, size, stat, mean, ci_low,
ci_high, n_seeds``) and ``points`` (``point, seed, engine, scenario`` and the axes).
"""

from __future__ import annotations

import base64
import html
import math
import os
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import polars as pl
from matplotlib.figure import Figure

from tailor.errors import DataError, NotRecordedError, OptionError
from tailor.outdir import SIGNATURE, check_file, write_file
from tailor.plot import (
    STAT_PERCENTILES,
    SUMMARY_VALUE_COLUMNS,
    latency_cdf,
    open_result,
    p99_vs_load,
    queue_over_time,
    needs_text,
    samples_needed,
    save,
    slowdown_vs_size,
)
from tailor.result import Result, format_bytes

__all__ = ["report", "run_report", "sweep_report", "store_frames", "with_messages"]

#: Resolution of the report's PNGs.
DPI = 110
#: Ports listed in a run report (those with the largest queues).
TOP_PORTS = 10
#: Stats of a sweep summary, in the order its table shows them.
STATS = ("mean", "p50", "p99", "p999")

_CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d1d1f;
       max-width: 1100px; margin: 2em auto; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: .2em; } h2 { margin-top: 1.8em; border-bottom: 1px solid #ddd; }
h3 { margin-bottom: .3em; }
table { border-collapse: collapse; margin: .5em 0 1em; font-variant-numeric: tabular-nums; }
th, td { padding: .25em .7em; border-bottom: 1px solid #e5e5e5; text-align: right; vertical-align: top; }
th { background: #f5f5f7; } th.l, td.l { text-align: left; }
table.kv td:first-child { color: #555; } table.kv td { text-align: left; }
tr.total td { font-weight: 600; border-top: 2px solid #ccc; }
.met { color: #1a7f37; font-weight: 600; } .missed { color: #c62828; font-weight: 600; }
.none { color: #777; } .few { color: #999; }
figure { margin: 1em 0; } figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { color: #555; font-size: .9em; }
pre { background: #f5f5f7; padding: 1em; overflow-x: auto; font-size: 13px; }
.note { color: #555; } footer { margin-top: 3em; color: #777; font-size: .85em; }
"""


def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _num(x: float | None, fmt: str = ".2f") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return format(x, fmt)


def _table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], attrs: str = "", total: Sequence[str] | None = None,
    left: int = 1,
) -> str:
    """An HTML table; cells in ``rows`` are already HTML (escape them before). The first
    ``left`` columns (text) are aligned left, the others (numbers) right."""

    def cells(row: Sequence[str], tag: str) -> str:
        return "".join(f'<{tag} class="l">{c}</{tag}>' if i < left else f"<{tag}>{c}</{tag}>" for i, c in enumerate(row))

    head = cells([_e(h) for h in headers], "th")
    body = "".join(f"<tr>{cells(row, 'td')}</tr>" for row in rows)
    if total is not None:
        body += f'<tr class="total">{cells(total, "td")}</tr>'
    return f"<table {attrs}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>\n"


def _kv(rows: Sequence[tuple[str, str]], attrs: str) -> str:
    """A two-column table of names and (already escaped) values."""
    body = "".join(f"<tr><td>{_e(k)}</td><td>{v}</td></tr>" for k, v in rows)
    return f'<table class="kv" {attrs}><tbody>{body}</tbody></table>\n'


def _figure(fig: Figure, stem: Path, caption: str) -> str:
    """Saves ``fig`` as ``stem.png`` and returns it as an inline <figure>."""
    (png,) = save(fig, stem, formats=("png",), dpi=DPI)
    data = base64.b64encode(png.read_bytes()).decode("ascii")
    w, h = (round(v * DPI) for v in fig.get_size_inches())
    return (
        f'<figure><img src="data:image/png;base64,{data}" width="{w}" height="{h}" alt="{_e(caption)}">'
        f"<figcaption>{_e(caption)} ({_e(png.name)})</figcaption></figure>\n"
    )


def _page(title: str, body: str) -> str:
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<meta name=\"generator\" content=\"{SIGNATURE} {_version()}\">\n"
        f"<title>{_e(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n{body}"
        f"<footer>Written by tailor {_e(_version())} on {_e(_now())}. Self-contained: nothing here is fetched.</footer>\n"
        "</body>\n</html>\n"
    )


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
    ``<out stem>-<plot>.png``. ``scenario``: the scenario file to show, for a run
    directory that does not hold its scenario (it must be the run's: same name).
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


def store_frames(path: str | os.PathLike[str]) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, list[tuple[str, str]]]:
    """The ``summary()``, points and SLO tables of the sweep store at ``path``, and per
    scenario the resolved document of its first point (caption, TOML)."""
    import tailor

    store = tailor.open(path)
    axes = store.axes()
    points = store.points().select("point", "seed", "engine", "scenario", *axes)
    scenarios = []
    for first in points.sort("point").unique("scenario", keep="first", maintain_order=True).iter_rows(named=True):
        at = ", ".join(f"{a} = {first[a]}" for a in axes) + (", " if axes else "") + f"seed = {first['seed']}"
        caption = (f"{first['scenario']}, as run at point {first['point'][:10]} ({at}); "
                   "the other points differ only in the axes")
        scenarios.append((caption, (Path(path) / "points" / first["point"] / "scenario.toml").read_text()))
    return with_messages(store.summary(), store, axes), points, store.slos().collect(), scenarios


def with_messages(summary: pl.DataFrame, store: Any, axes: list[str]) -> pl.DataFrame:
    """``summary`` with ``messages``: the fewest messages any seed had in the row's class and
    size, so that a percentile of too few messages can be marked (``samples_needed``)."""
    keys = [*axes, "scenario", "engine", "class", "size"]
    fewest = store.rows().group_by(keys).agg(pl.col("count").min().alias("messages")).collect()
    return summary.join(fewest, on=keys, how="left", nulls_equal=True, maintain_order="left")


def _scenario_text(r: Result, scenario: str | os.PathLike[str] | None) -> tuple[str | None, str]:
    """(TOML text, where it came from) of the run's scenario, or (None, why not)."""
    name = r.summary.get("scenario")
    if scenario is not None:
        f = Path(scenario)
        try:
            text = f.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise OptionError(f"--scenario: cannot read {f} ({e.__class__.__name__}: {e})") from None
        found = _toml_name(text, f)
        if found is not None and name is not None and found != name:
            raise OptionError(f"--scenario: {f} is scenario '{found}', but the run in {r.dir} is of '{name}'")
        return text, str(f)
    inside = r.dir / "scenario.toml"
    if inside.is_file():
        return inside.read_text(encoding="utf-8"), str(inside)
    recorded = r.summary.get("scenario_file")
    if recorded:
        f = Path(recorded)
        if f.is_file():
            text = f.read_text(encoding="utf-8", errors="replace")
            if _toml_name(text, f) == name:
                return text, f"{f} (as it is now; the run recorded this file, which may have changed since)"
    return None, (
        f"The run directory does not hold its scenario ({recorded or 'file not recorded'}); "
        "pass --scenario FILE to include it."
    )


def _toml_name(text: str, f: Path) -> str | None:
    """The scenario's name (its ``name`` key, default the file stem), or None when the
    text cannot be parsed here."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        return None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise OptionError(f"--scenario: {f} is not valid TOML ({e})") from None
    return str(doc.get("name", f.stem))


def _size(b: dict[str, Any]) -> str:
    return f"({format_bytes(b['lower_bytes'])}, {format_bytes(b['upper_bytes'])}]"


#: The percentiles of the slowdown tables: (summary key, percentile).
_PERCENTILES = (("p50", 50.0), ("p99", 99.0), ("p999", 99.9))
#: Said once above the slowdown tables.
_BINS_NOTE = (
    "Each size bin is (lower, upper]; the plots draw it at its upper edge. A percentile in grey "
    f"and parentheses has too few messages in its bin to be a result ({needs_text([p for _, p in _PERCENTILES])} "
    "messages needed): it is the largest slowdown seen, not a tail estimate."
)


def _percentile(value: float | None, count: int, p: float) -> str:
    """A percentile cell: greyed, in parentheses, when ``count`` messages are too few for it."""
    need = samples_needed(p)
    if value is None or count >= need:
        return _num(value)
    return f'<span class="few" title="{count:,} messages; p{p:g} needs {need:,}">({_num(value)})</span>'


def _slowdown_row(label: str, b: dict[str, Any]) -> list[str]:
    return [label, f"{b['count']:,}", _num(b.get("mean")), *(_percentile(b.get(k), b["count"], p) for k, p in _PERCENTILES)]


def _slowdown_table(name: str, rep: dict[str, Any]) -> str:
    rows = [
        _slowdown_row(f'<span data-upper-bytes="{b["upper_bytes"]}">{_e(_size(b))}</span>', b)
        for b in rep["bins"]
        if b["count"] > 0
    ]
    total = _slowdown_row("all sizes", rep["slowdown"])
    return f"<h3>{_e(name)}</h3>\n" + _table(
        ("size", "count", "mean", "p50", "p99", "p99.9"), rows, f'class="slowdown" data-class="{_e(name)}"', total
    )


def _slo_rows(s: dict[str, Any]) -> list[list[str]]:
    rows = []
    for name, c in s["classes"].items():
        for slo in c.get("slo", []):
            if slo.get("value") is None:
                verdict, value, loss = '<span class="none">no messages</span>', "–", "–"
            else:
                verdict = '<span class="met">met</span>' if slo["met"] else '<span class="missed">MISSED</span>'
                value, loss = _num(slo["value"], ".4g"), _num(slo["loss"], "+.3f")
            rows.append([_e(name), _e(slo["sli"]), _num(slo["threshold"], "g"), value, f"{slo.get('count', 0):,}", verdict, loss])
    return rows


def run_report(r: Result, out: str | os.PathLike[str], scenario: str | os.PathLike[str] | None = None) -> Path:
    """Writes the report of run ``r`` to ``out`` (HTML) with its PNGs beside it."""
    out = Path(out)
    s = r.summary
    text, source = _scenario_text(r, scenario)
    stem = out.parent / out.stem
    title = f"{s.get('scenario', r.dir.name)}, seed {s.get('seed', '?')}"
    msgs = s.get("messages", {})
    written = datetime.fromtimestamp((r.dir / "summary.json").stat().st_mtime, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    ident = [
        ("scenario", _e(s.get("scenario", "?"))),
        ("scenario file", _e(s.get("scenario_file", "not recorded"))),
        ("seed", _e(s.get("seed", "?"))),
        ("engine", _e(s.get("engine", "packet"))),
        ("transport", _e(s.get("transport", "?"))),
        ("run by", _e(f"tailor {s.get('tailor_version', '(version not recorded)')}")),
        ("reported by", _e(f"tailor {_version()}")),
        ("run directory", _e(r.dir)),
        ("run written", _e(written)),
        ("report written", _e(_now())),
        ("simulated", _e(f"{s['sim_ns'] / 1e6:.3f} ms") if "sim_ns" in s else "–"),
        ("messages", _e(
            f"{msgs.get('completed', 0):,} completed of {msgs.get('generated', 0):,} generated, "
            f"{msgs.get('incomplete', 0):,} incomplete, {msgs.get('warmup_excluded', 0):,} in the warm-up (not counted)"
        )),
        ("engine work", _e(f"{s['events']:,} events in {s['wall_seconds']:.2f} s") if "events" in s else "–"),
    ]
    parts = [f"<h1>tailor report: {_e(title)}</h1>\n", _kv(ident, 'id="run"')]

    parts.append("<h2>SLOs</h2>\n")
    slos = _slo_rows(s)
    if slos:
        parts.append(_table(("class", "SLI", "bound", "value", "messages", "verdict", "loss"), slos, 'id="slo"', left=2))
        parts.append('<p class="note">loss = (value − bound) / bound (SWP eq. 1); negative when met.</p>\n')
    else:
        parts.append('<p class="note">The scenario sets no SLO.</p>\n')

    parts.append("<h2>Plots</h2>\n")
    # A plot that cannot be drawn (no messages after the warm-up, no message records)
    # becomes a note: the tables below come from summary.json and still hold.
    for draw, suffix, caption in (
        (lambda: slowdown_vs_size(r, (50, 99)), "slowdown", "p50 and p99 slowdown per size bin, per class"),
        (lambda: latency_cdf(r), "latency", "latency CDF per class"),
    ):
        try:
            parts.append(_figure(draw(), stem.with_name(f"{stem.name}-{suffix}"), caption))
        except NotRecordedError:
            raise
        except DataError as e:
            parts.append(f'<p class="note">No {_e(caption)} plot: {_e(str(e))}</p>\n')
    try:
        parts.append(_figure(queue_over_time(r), stem.with_name(f"{stem.name}-queues"), "queue occupancy of the fullest ports"))
    except NotRecordedError as e:
        parts.append(f'<p class="note" id="no-queues">No queue plot: the run did not record queues. '
                     f"Add <code>{_e(e.hint)}</code> to the scenario to record them.</p>\n")
    except DataError as e:  # queues recorded, none ever held a byte
        parts.append(f'<p class="note" id="no-queues">No queue plot: {_e(str(e))}</p>\n')

    parts.append("<h2>Slowdown by message size</h2>\n")
    parts.append(f'<p class="note">{_e(_BINS_NOTE)}</p>\n')
    for name in r.classes:
        parts.append(_slowdown_table(name, s["classes"][name]))
    if len(r.classes) != 1:  # with one class, "all" is the same messages again
        parts.append(_slowdown_table("all", s["overall"]))

    parts.append("<h2>Network</h2>\n")
    parts.append(_network(s))
    parts.append(_ports(r))

    parts.append("<h2>Scenario</h2>\n")
    if text is None:
        parts.append(f'<p class="note" id="no-scenario">{_e(source)}</p>\n')
    else:
        parts.append(f'<p class="note">From {_e(source)}</p>\n<pre id="scenario">{_e(text)}</pre>\n')
    return _write(out, _page(f"tailor report: {title}", "".join(parts)))


def _network(s: dict[str, Any]) -> str:
    n = s.get("network")
    if not n:
        return '<p class="note">No network counters in this run.</p>\n'
    rows = [
        ("drops", _e(f"{n['drops']:,}")),
        ("ECN marks", _e(f"{n['ecn_marks']:,}")),
        ("largest switch queue", _e(format_bytes(n["max_queue_bytes"]))),
        ("its time-average queue", _e(format_bytes(n["mean_queue_bytes"]))),
        ("busiest switch port", _e(f"{100 * n['utilization']:.1f} % utilized")),
    ]
    if "max_host_nic_queue_bytes" in n:
        rows.append(("largest host NIC queue", _e(format_bytes(n["max_host_nic_queue_bytes"]))))
    for k, v in s.get("transport_counters", {}).items():
        rows.append((k.replace("_", " "), _e(f"{v:,}")))
    return _kv(rows, 'id="network"')


def _ports(r: Result) -> str:
    if not any((r.dir / f"ports.{e}").exists() for e in ("parquet", "csv")):
        return ""
    ports = r.ports
    need = {"port", "node", "role", "max_queue_bytes", "mean_queue_bytes", "utilization", "drops", "ecn_marks"}
    if not need <= set(ports.columns):
        return ""
    top = ports.sort(["max_queue_bytes", "port"], descending=[True, False]).head(TOP_PORTS)
    rows = [
        [_e(p["port"]), _e(p["node"]), _e(p["role"]), _e(format_bytes(p["max_queue_bytes"])),
         _e(format_bytes(p["mean_queue_bytes"])), _e(f"{100 * p['utilization']:.1f} %"), f"{p['drops']:,}", f"{p['ecn_marks']:,}"]
        for p in top.iter_rows(named=True)
    ]
    return (f"<h3>The {len(rows)} ports with the largest queues (of {ports.height})</h3>\n"
            + _table(("port", "node", "role", "max queue", "mean queue", "utilization", "drops", "ECN marks"), rows, 'id="ports"', left=3))


# ---------------------------------------------------------------------------- a sweep


def _axes(summary: pl.DataFrame) -> list[str]:
    """The sweep axes, and the scenario when a store holds several (the identity table
    names a store's one scenario)."""
    return [c for c in summary.columns
            if c not in SUMMARY_VALUE_COLUMNS and (c != "scenario" or summary["scenario"].n_unique() > 1)]


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
    and the mean slowdown of all classes, and the p99 of each class.
    """
    out = Path(out)
    need = ("engine", "class", "size", "stat", "mean", "ci_low", "ci_high", "n_seeds")
    missing = [c for c in need if c not in summary.columns]
    if missing:
        raise DataError(f"the sweep summary lacks columns {', '.join(missing)}; it has: {', '.join(summary.columns)}")
    missing = [c for c in ("point", "seed", "engine", "scenario") if c not in points.columns]
    if missing:
        raise DataError(f"the sweep's points table lacks columns {', '.join(missing)}; it has: {', '.join(points.columns)}")
    if summary.height == 0:
        raise DataError("the sweep summary is empty: no point has finished")
    axes = _axes(summary)
    stem = out.parent / out.stem
    n_points = points["point"].n_unique()
    # A point is one seed of one axis combination: count seeds per combination.
    combo = [c for c in points.columns if c not in ("point", "seed")]
    seeds = points.group_by(combo).agg(pl.col("seed").n_unique())["seed"] if combo else pl.Series([points.height])
    ident = [
        ("sweep", _e(title)),
        ("store", _e(source or "–")),
        ("scenarios", _e(", ".join(map(str, points["scenario"].unique().sort().to_list())))),
        ("engines", _e(", ".join(map(str, summary["engine"].unique().sort().to_list())))),
        ("points", _e(f"{n_points:,} runs of {seeds.len():,} axis values")),
        ("seeds per axis values", _e(f"{seeds.min()}" if seeds.min() == seeds.max() else f"{seeds.min()} to {seeds.max()}")),
        ("reported by", _e(f"tailor {_version()}")),
        ("report written", _e(_now())),
    ]
    parts = [f"<h1>tailor sweep report: {_e(title)}</h1>\n", _kv(ident, 'id="run"')]

    parts.append("<h2>Axes</h2>\n")
    parts.append(_table(
        ("axis", "values"), left=2, rows=
        [[_e(a), _e(", ".join(map(str, summary[a].unique().sort().to_list())))] for a in axes],
        attrs='id="axes"',
    ))

    parts.append("<h2>Plots</h2>\n")
    parts.append(_sweep_plots(_one_class(summary), axes, stem))

    parts.append("<h2>Slowdown, mean over seeds [95 % interval]</h2>\n")
    if "messages" in summary.columns:
        parts.append(f'<p class="note">In grey and parentheses: a seed had too few messages for the percentile '
                     f"({_e(needs_text(list(STAT_PERCENTILES.values())))} needed); not a result.</p>\n")
    parts.append(_sweep_table(_one_class(summary), axes))

    if slos is not None and slos.height:
        parts.append("<h2>SLO verdicts (seeds meeting each SLO)</h2>\n")
        parts.append(_sweep_slos(slos, [a for a in axes if a in slos.columns]))

    if scenarios:
        parts.append("<h2>Scenario</h2>\n")
        for i, (caption, text) in enumerate(scenarios):
            parts.append(f'<p class="note">{_e(caption)}</p>\n<pre id="scenario-{i}">{_e(text)}</pre>\n')

    parts.append("<h2>Points</h2>\n")
    p_axes = [c for c in points.columns if c not in ("point", "seed", "engine", "scenario")]
    per = points.group_by(["scenario", "engine", *p_axes], maintain_order=True).agg(
        pl.col("seed").sort(), pl.col("point").sort())
    rows = [
        [_e(row["scenario"]), _e(row["engine"]), *(_e(row[a]) for a in p_axes),
         _e(", ".join(map(str, row["seed"]))), _e(", ".join(p[:10] for p in row["point"]))]
        for row in per.sort(p_axes or ["scenario"]).iter_rows(named=True)
    ]
    parts.append(_table(("scenario", "engine", *p_axes, "seeds", "points (id prefixes)"), rows, 'id="points"', left=2))
    return _write(out, _page(f"tailor sweep report: {title}", "".join(parts)))


def _sweep_slos(slos: pl.DataFrame, axes: list[str]) -> str:
    keys = [*axes, "engine", "class", "sli", "threshold"]
    # A seed with no message in the SLO's range has no verdict (met is null): not a miss.
    per = slos.group_by(keys, maintain_order=True).agg(
        pl.col("met").sum().alias("met"), pl.col("met").is_not_null().sum().alias("n"), pl.len().alias("seeds"),
        pl.col("value").mean().alias("value"))
    rows = []
    for row in per.sort(keys).iter_rows(named=True):
        if row["n"] == 0:
            cell = '<span class="none">no messages in range</span>'
        else:
            cls = "met" if row["met"] == row["n"] else "missed" if row["met"] == 0 else "none"
            unjudged = row["seeds"] - row["n"]
            extra = f" ({unjudged} without messages in range)" if unjudged else ""
            cell = f'<span class="{cls}">{row["met"]} of {row["n"]}</span>{_e(extra)}'
        rows.append([*(_e(row[a]) for a in axes), _e(row["engine"]), _e(row["class"]), _e(row["sli"]),
                     _num(row["threshold"], ".4g"), _num(row["value"], ".4g"), cell])
    return _table((*axes, "engine", "class", "SLI", "bound", "mean value", "seeds met"), rows, 'id="slos"',
                  left=len(axes) + 3)


def _x_axis(summary: pl.DataFrame, axes: list[str]) -> str | None:
    varying = _varying(summary, axes)
    if "load" in varying:
        return "load"
    numeric = [a for a in varying if summary[a].dtype.is_numeric()]
    return (numeric or varying or [None])[0]


def _sweep_plots(summary: pl.DataFrame, axes: list[str], stem: Path) -> str:
    x = _x_axis(summary, axes)
    if x is None:
        return '<p class="note" id="no-plots">No plot: no sweep axis takes more than one value.</p>\n'
    sizes = summary["size"].unique().to_list()
    df = summary.filter(pl.col("size") == "all") if "all" in sizes else summary
    by = _varying(df, [a for a in axes if a != x] + ["engine"])
    stats = df["stat"].unique().to_list()
    classes = sorted(df["class"].unique().to_list(), key=lambda c: (c != "all", c))
    # The mean of all classes; of the one class when there is one.
    means = ["all"] if "all" in classes else classes if len(classes) == 1 else []
    wanted = [("p99", c) for c in classes] + [("mean", c) for c in means]
    html_parts = []
    for stat, cls in wanted:
        if stat not in stats:
            continue
        part = df.filter(pl.col("class") == cls)
        fig = p99_vs_load(part, x=x, y=stat, by=by or None, where={"class": cls, "size": part["size"][0]})
        name = f"{stat}-{_slug(cls)}"
        caption = f"{stat} slowdown of {'all classes' if cls == 'all' else 'class ' + cls} against {x}"
        html_parts.append(_figure(fig, stem.with_name(f"{stem.name}-{name}"), caption))
    return "".join(html_parts)


def _slug(s: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in s)


def _sweep_cell(row: dict[str, Any]) -> str:
    """``mean [ci_low, ci_high]`` (HTML), greyed in parentheses when a seed had too few
    messages for the percentile."""
    text = _e(f"{_num(row['mean'])} [{_num(row['ci_low'])}, {_num(row['ci_high'])}]")
    p = STAT_PERCENTILES.get(row["stat"])
    n = row.get("messages")
    if p is None or n is None or n >= samples_needed(p):
        return text
    return f'<span class="few" title="a seed had {n:,} messages; p{p:g} needs {samples_needed(p):,}">({text})</span>'


def _sweep_table(summary: pl.DataFrame, axes: list[str]) -> str:
    """One row per (axes, engine, class) at size "all"; a column per stat. With a
    ``messages`` column, a percentile that a seed had too few messages for is greyed."""
    df = summary.filter(pl.col("size") == "all") if "all" in summary["size"].to_list() else summary
    keys = [*axes, "engine", "class", *([] if "all" in summary["size"].to_list() else ["size"])]
    stats = [s for s in STATS if s in df["stat"].unique().to_list()]
    cells: dict[tuple, dict[str, str]] = {}
    seeds: dict[tuple, int] = {}
    for row in df.sort(keys).iter_rows(named=True):
        k = tuple(row[c] for c in keys)
        cells.setdefault(k, {})[row["stat"]] = _sweep_cell(row)
        seeds[k] = row["n_seeds"]
    rows = [[*(_e(v) for v in k), *(cells[k].get(s, "–") for s in stats), _e(seeds[k])] for k in cells]
    return _table((*keys, *stats, "seeds"), rows, 'id="sweep-summary"', left=len(keys))
