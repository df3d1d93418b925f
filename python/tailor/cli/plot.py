"""``tailor plot``: one plot of a run or of a sweep (docs/report.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from tailor import parse
from tailor.cli import app, user_errors

PLOT_KINDS = ("slowdown-vs-size", "latency-cdf", "queue", "p99-vs-load")
#: The CLI option of each plot-function parameter, for error messages.
_PLOT_OPTIONS = {
    "percentiles": "--percentiles",
    "classes": "--class",
    "ports": "--port",
    "x": "--x",
    "y": "--stat",
    "by": "--by",
    "where": "--where",
    "formats": "--format",
}


@app.command(
    "plot",
    short_help="Draw one plot of a run or of a sweep (PNG, SVG, PDF).",
    epilog="Examples: tailor plot runs/q --kind slowdown-vs-size --percentiles 50,99,99.9 | "
    "tailor plot runs/q --kind latency-cdf --out plots/q-cdf --format svg | "
    "tailor plot runs/sweep --kind p99-vs-load --x load --by switch.scheduler",
)
@user_errors
def plot_cmd(
    path: Annotated[
        Path,
        typer.Argument(
            help="A run directory; for p99-vs-load a sweep store or its summary table (.parquet, .csv).",
            show_default=False,
        ),
    ],
    kind: Annotated[str, typer.Option(help=" | ".join(PLOT_KINDS) + ".", show_default=False)],
    out: Annotated[
        Optional[Path],
        typer.Option(
            help="File name without extension (default: PATH/<kind>). Only a new file or an earlier plot or "
            "report is replaced, never a result file.",
            show_default=False,
        ),
    ] = None,
    format: Annotated[str, typer.Option("--format", help="Comma-separated: png, svg, pdf.")] = "png,svg",
    percentiles: Annotated[str, typer.Option(help="slowdown-vs-size: percentiles, comma-separated.")] = "50,99",
    classes: Annotated[
        Optional[list[str]],
        typer.Option(
            "--class",
            help="slowdown-vs-size, latency-cdf: a class to draw (repeatable; 'all': every class "
            "together; default: each class).",
            show_default=False,
        ),
    ] = None,
    port: Annotated[
        Optional[list[int]],
        typer.Option(
            help="queue: a port to draw (repeatable; default: the six largest peaks among the ports that held a queue).",
            show_default=False,
        ),
    ] = None,
    x: Annotated[str, typer.Option("--x", help="p99-vs-load: the axis on x.")] = "load",
    stat: Annotated[str, typer.Option(help="p99-vs-load: mean, p50, p99 or p999 slowdown.")] = "p99",
    by: Annotated[
        Optional[list[str]],
        typer.Option(help="p99-vs-load: a column whose values get a line each (repeatable).", show_default=False),
    ] = None,
    where: Annotated[
        Optional[list[str]],
        typer.Option(help="p99-vs-load: KEY=VALUE, keep only these rows (repeatable).", show_default=False),
    ] = None,
    ccdf: Annotated[
        bool,
        typer.Option("--ccdf", help="latency-cdf: the tail instead, share of messages at least this slow (log y)."),
    ] = False,
) -> None:
    """Draw one plot of a run (slowdown by message size, latency CDF, queues) or of a sweep
    (a slowdown statistic against load, a line per value of --by), as PNG and SVG."""
    from tailor.errors import OptionError

    if kind not in PLOT_KINDS:
        raise OptionError(f"--kind: unknown value '{kind}'; accepted: {', '.join(PLOT_KINDS)}")
    given = {
        "--percentiles": percentiles != "50,99",
        "--class": bool(classes),
        "--port": bool(port),
        "--x": x != "load",
        "--stat": stat != "p99",
        "--by": bool(by),
        "--where": bool(where),
        "--ccdf": ccdf,
    }
    allowed = {
        "slowdown-vs-size": {"--percentiles", "--class"},
        "latency-cdf": {"--class", "--ccdf"},
        "queue": {"--port"},
        "p99-vs-load": {"--x", "--stat", "--by", "--where"},
    }[kind]
    for opt, used in given.items():
        if used and opt not in allowed:
            raise OptionError(
                f"{opt}: not an option of --kind {kind}; its options: {', '.join(sorted(allowed)) or 'none'}"
            )
    formats = parse.split(format)
    try:
        fig = _plot(path, kind, percentiles, classes, port, x, stat, by, where, ccdf)
        if out is None:
            out = path / kind if path.is_dir() else path.with_name(f"{path.stem}-{kind}")
        from tailor.plot import save

        written = save(fig, out, formats)
    except OptionError as e:
        param, _, rest = str(e).partition(":")
        raise OptionError(f"{_PLOT_OPTIONS[param]}:{rest}" if param in _PLOT_OPTIONS else str(e)) from None
    print("wrote " + ", ".join(map(str, written)))


def _plot(
    path: Path,
    kind: str,
    percentiles: str,
    classes: Optional[list[str]],
    port: Optional[list[int]],
    x: str,
    stat: str,
    by: Optional[list[str]],
    where: Optional[list[str]],
    ccdf: bool = False,
) -> Any:
    import tailor.plot as tp
    from tailor.errors import DataError, OptionError

    if kind == "p99-vs-load":
        import polars as pl

        if path.is_dir() and (path / "points").is_dir():
            import tailor
            from tailor.report import with_messages
            from tailor.store import STATS

            store = tailor.open(path)
            summary = with_messages(store.summary(stats=STATS), store, store.axes())
        elif path.is_file() and path.suffix in (".parquet", ".csv"):
            try:
                summary = pl.read_parquet(path) if path.suffix == ".parquet" else pl.read_csv(path)
            except (pl.exceptions.PolarsError, OSError) as e:
                raise DataError(f"{path}: cannot read ({type(e).__name__}: {e})") from None
        else:
            raise DataError(f"{path}: neither a sweep store (points/) nor a summary table (.parquet, .csv)")
        conditions: dict[str, Any] = {}
        for item in where or []:
            key, eq, value = item.partition("=")
            if not eq or not key:
                raise OptionError(f"where: '{item}' is not KEY=VALUE, e.g. --where class=websearch")
            if key in conditions:
                raise OptionError(f"where: {key} is given twice; give one value per key")
            if key in summary.columns and summary[key].dtype == pl.Boolean:
                if value.lower() not in ("true", "false"):
                    raise OptionError(f"where: {key} is true or false; '{value}' is neither")
                conditions[key] = value.lower() == "true"
            elif key in summary.columns and summary[key].dtype.is_numeric():
                try:
                    conditions[key] = float(value)
                except ValueError:
                    raise OptionError(f"where: {key} is numeric; '{value}' is not a number") from None
            else:
                conditions[key] = value
        return tp.p99_vs_load(summary, x=x, y=stat, by=by or None, where=conditions)
    run = tp.open_result(path)
    if kind == "slowdown-vs-size":
        accepted = "numbers in (0, 100] separated by commas, e.g. 50,99"
        ps = parse.comma_list("percentiles", percentiles, accepted, float, "'{}' is not a number")
        return tp.slowdown_vs_size(run, ps, classes=classes)
    if kind == "latency-cdf":
        return tp.latency_cdf(run, classes=classes, ccdf=ccdf)
    return tp.queue_over_time(run, ports=port)
