"""``tailor sweep``: a scenario over a grid of keys and seeds, into a result store (docs/sweeps.md)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from tailor import fmt
from tailor.cli import Scenario_, app, stderr, stdout, user_errors


@app.command(
    short_help="Run a scenario over a grid of keys and seeds.",
    epilog="Examples: tailor sweep scenarios/swp/websearch-60.toml --set load=0.3,0.5,0.7 --set seed=1..5 --out sweeps/ws | "
    "tailor sweep scenarios/quickstart.toml --set switch.scheduler=drr,wfq --ray local",
)
@user_errors
def sweep(
    scenario: Scenario_,
    set_: Annotated[
        Optional[list[str]],
        typer.Option(
            "--set",
            help="An axis KEY=VALUES (repeatable): a dotted scenario key (switch.scheduler, class[1].load), "
            "load (total offered load) or seed; values a,b,c, a range a..b (integers) or a..b:step.",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Optional[Path], typer.Option(help="The result store (default: sweeps/<scenario name>).", show_default=False)
    ] = None,
    engine: Annotated[
        str,
        typer.Option(
            help="'packet' (the packet simulator), 'model' (the SWP fast model) or 'oracle' (the SRPT oracle)."
        ),
    ] = "packet",
    jobs: Annotated[
        Optional[int], typer.Option(help="Parallel simulations (default: one per core).", show_default=False)
    ] = None,
    ray: Annotated[
        Optional[str],
        typer.Option(
            help="Run on Ray: 'local' (start one here), 'auto' (the running cluster) or ray://HOST:PORT.",
            show_default=False,
        ),
    ] = None,
    stat: Annotated[
        str, typer.Option(help="The statistic to print per class: mean, p50, p90, p99, p999, max.")
    ] = "p99",
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="List the points and which the store holds; run nothing.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr.")] = False,
    progress_json: Annotated[
        bool, typer.Option("--progress-json", help="Progress as JSON lines on stderr (for scripts).")
    ] = False,
) -> None:
    """Run a scenario over a grid of keys and seeds, in parallel, into a result store.

    Points already in the store are not run again: a killed sweep restarts where it
    stopped, and sweeps into one store share their common points. Ctrl-C keeps the
    finished points. Exit status 0; 1 when points failed (the others are kept); 2 for a
    bad scenario, axis or option; 130 when interrupted."""
    import tailor
    from tailor.errors import PointsFailed
    from tailor.progress import sweep_reporter
    from tailor.run import ENGINES
    from tailor.store import STATS
    from tailor.sweep import Interrupted, grid, parse_axis

    if stat not in STATS:
        stderr.print(f"error: --stat: unknown value '{stat}'; accepted: {', '.join(STATS)}")
        raise typer.Exit(2)
    axes: dict[str, list] = {}
    for spec in set_ or []:
        key, values = parse_axis(spec)
        if key in axes:
            stderr.print(f"error: --set {key}: given twice; give all its values in one --set")
            raise typer.Exit(2)
        axes[key] = values
    sc = tailor.Scenario.load(scenario)
    if engine not in ENGINES:
        stderr.print(f"error: --engine: unknown value '{engine}'; accepted: {', '.join(ENGINES)}")
        raise typer.Exit(2)
    if dry_run:
        from tailor.sweep import plan

        _print_plan(plan(sc, axes, out=out, engine=engine), out or Path("sweeps") / sc.name)
        return
    total = len(grid(axes)) if axes else 1
    workers = jobs or os.cpu_count() or 1
    failed: PointsFailed | None = None
    try:
        with sweep_reporter(
            sc.name,
            total=total,
            quiet=quiet,
            json_lines=True if progress_json else None,
            console=stderr,
            workers=workers,
        ) as listener:
            try:
                sw = tailor.sweep(sc, axes, out=out, engine=engine, jobs=jobs, ray=ray, listener=listener)
            except PointsFailed as e:
                failed = e  # the reporter still ends with its `done` line
        if failed is not None:
            raise failed
    except Interrupted as e:
        print(str(e), file=sys.stderr)
        raise typer.Exit(e.status) from None
    except PointsFailed as e:
        print(f"error: {e}", file=sys.stderr)
        if e.sweep is not None and e.sweep.ids:
            _print_sweep(e.sweep, stat)
        raise typer.Exit(1) from None
    _print_sweep(sw, stat)


def _print_plan(points: Any, store: Path) -> None:
    from rich.table import Table

    table = Table()
    for col in points.columns:
        table.add_column(col, justify="right" if col == "seed" else "left")
    for row in points.iter_rows():
        table.add_row(*("yes" if v is True else "no" if v is False else str(v) for v in row))
    stdout.print(table)
    stored = int(points["stored"].sum())
    stdout.print(f"{points.height} points: {stored} in {store}/, {points.height - stored} to run", highlight=False)


def _print_sweep(sw: Any, stat: str) -> None:
    from rich.table import Table

    df = sw.summary(stats=(stat,), sizes=False)
    axes = [a for a in sw.axes if a != "seed"]
    stdout.print(
        f"{sw.manifest['scenario']}: {stat} slowdown, mean over seeds [95 % bootstrap interval]", highlight=False
    )
    table = Table()
    for col in [*axes, "class", "seeds", stat]:
        table.add_column(col, justify="right" if col in ("seeds", stat) else "left")
    for row in df.iter_rows(named=True):
        ci = "" if row["ci_low"] is None else f" [{fmt.stat(row['ci_low'], '.3g')}, {fmt.stat(row['ci_high'], '.3g')}]"
        table.add_row(
            *(str(row[a]) for a in axes), row["class"], str(row["n_seeds"]), fmt.stat(row["mean"], ".3g") + ci
        )
    stdout.print(table)
