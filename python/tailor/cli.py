"""The ``tailor`` command.

Every error a user can cause (a bad scenario, an unwritable directory, a cancelled
run) is a :class:`tailor.errors.TailorError`: it is printed as one line on stderr and
the command exits with status 2, without a traceback.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path
from typing import Annotated, Any, Callable, Optional, TypeVar

import typer
from rich.console import Console

from tailor import __version__
from tailor.errors import TailorError
from tailor.run import SEED_MAX as MAX_SEED  # the largest seed, 2^63 - 1 (docs/scenario.md, "Seeds")
from tailor.signals import Terminated, terminate_as_interrupt

__all__ = ["app", "main"]

EXAMPLES = """\b
Examples:
  tailor check scenarios/quickstart.toml
  tailor run scenarios/quickstart.toml --seed 7 --out runs/q
  tailor run scenarios/swp/websearch-60.toml --engine model --progress-json
  tailor advise scenarios/swp/two-class.toml
  tailor COMMAND --help"""

app = typer.Typer(
    name="tailor",
    help="Predict and control microsecond tail latency in datacenter networks.",
    epilog=EXAMPLES,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

# Tables are wider than 80 columns; when stdout is a file or a pipe, do not wrap them there.
stdout = Console() if Console().is_terminal else Console(width=160)
stderr = Console(stderr=True)

F = TypeVar("F", bound=Callable[..., Any])


def user_errors(f: F) -> F:
    """Turns tailor's errors into one line on stderr and exit status 2."""

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return f(*args, **kwargs)
        except TailorError as e:
            print(f"error: {e}", file=sys.stderr)
            raise typer.Exit(2) from None
        except Terminated:
            print("terminated; nothing was left half-written", file=sys.stderr)
            raise typer.Exit(143) from None
        except KeyboardInterrupt:
            print("interrupted; nothing was left half-written", file=sys.stderr)
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def _version(value: bool) -> None:
    if value:
        print(f"tailor {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        Optional[bool], typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = None,
) -> None:
    """Predict and control microsecond tail latency in datacenter networks."""


Scenario_ = Annotated[Path, typer.Argument(help="Scenario file (TOML).", show_default=False)]
Seed_ = Annotated[Optional[int], typer.Option(help="Seed (default: the scenario's), 0 to 2^63 - 1.", min=0, max=MAX_SEED)]


@app.command(
    short_help="Run a scenario and print slowdown by message size.",
    epilog="Example: tailor run scenarios/quickstart.toml --seed 7 --out runs/quickstart",
)
@user_errors
def run(
    scenario: Scenario_,
    seed: Seed_ = None,
    out: Annotated[
        Optional[Path],
        typer.Option(
            help="Result directory (default: runs/<name>-<engine>-s<seed>). An earlier tailor run there is "
            "replaced (its own files only); any other non-empty directory is refused.",
            show_default=False,
        ),
    ] = None,
    csv: Annotated[bool, typer.Option("--csv", help="Keep messages.csv beside messages.parquet.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr (errors only).")] = False,
    progress_json: Annotated[
        bool,
        typer.Option(
            "--progress-json",
            help="Progress as JSON lines on stderr even on a terminal (the default when stderr is not one).",
        ),
    ] = False,
    engine: Annotated[
        str, typer.Option(help="'packet' (the packet simulator) or 'model' (the SWP fast model).")
    ] = "packet",
) -> None:
    """Run a scenario and print slowdown by message size.

    Progress goes to stderr: a bar with an ETA on a terminal, JSON lines otherwise
    (docs/cli.md), nothing with --quiet."""
    import tailor
    from tailor.progress import reporter, run_total

    if engine not in ("packet", "model"):
        stderr.print(f"error: --engine: unknown value '{engine}'; accepted: packet, model")
        raise typer.Exit(2)
    sc = tailor.Scenario.load(scenario)
    json_lines = True if progress_json else None
    with reporter(sc.name, quiet=quiet, json_lines=json_lines, console=stderr, total=run_total(sc)) as progress:
        result = tailor.run(sc, seed=seed, out=out, csv=csv, progress=progress, engine=engine)
        progress.finish(result.summary)
    stdout.print(result.table())
    for line in result.slo_lines():
        stdout.print(line, highlight=False)
    stdout.print(result.network_line())
    s = result.summary
    stdout.print(
        f"{s['messages']['completed']:,} messages in {s['sim_ns'] / 1e6:.3f} ms simulated, "
        f"{s['events']:,} events in {s['wall_seconds']:.2f} s"
    )
    stdout.print(f"results: {result.dir}/ ({', '.join(result.files())})", highlight=False)


@app.command(
    short_help="Check a scenario file without running it, and describe it.",
    epilog="Example: tailor check scenarios/quickstart.toml",
)
@user_errors
def check(scenario: Scenario_) -> None:
    """Check a scenario file without running it, and describe it."""
    import tailor

    sc = tailor.Scenario.load(scenario)
    print(sc.describe())
    print(f"{scenario}: ok")


@app.command(
    short_help="Find switch weights or the least capacity meeting every SLO.",
    epilog="Examples: tailor advise scenarios/swp/two-class.toml | "
    "tailor advise scenarios/swp/five-class.toml --min-capacity --discipline drr"
)
@user_errors
def advise(
    scenario: Scenario_,
    seed: Seed_ = None,
    min_capacity: Annotated[
        bool, typer.Option("--min-capacity", help="Find the least link capacity meeting every SLO, per discipline.")
    ] = False,
    discipline: Annotated[
        Optional[list[str]],
        typer.Option(
            "--discipline",
            "-d",
            help="fifo | drr | hierarchical | priority | static (repeatable). Weights mode: drr or "
            "hierarchical (default: the scenario's scheduler). --min-capacity: default all.",
            show_default=False,
        ),
    ] = None,
    recheck: Annotated[bool, typer.Option(help="Re-check each answer on the packet engine.")] = True,
    tolerance: Annotated[float, typer.Option(help="Relative precision of the capacity search.", min=0.001, max=0.4)] = 0.01,
    json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress line.")] = False,
) -> None:
    """Find switch weights that meet every class's SLO (SWP Algorithm 1 on the fast model),
    or with --min-capacity the least capacity per discipline; re-check on the packet engine.

    Exit status 0 when every check passed; 1 when the weights found do not meet every SLO
    on the model, or the packet engine's re-check of an answer rejects an SLO (listed
    after the tables); 2 for a bad scenario or option, or one outside the fast model's
    scope."""
    from tailor.advise import advise as run_advisor
    from tailor.advise import describe_event

    status = None if quiet or json_out else stderr.status("advisor: reading the scenario", spinner="dots")

    def progress(e: dict) -> bool:
        if status is not None:
            status.update(f"advisor: {describe_event(e)}")
        return True

    if status is not None:
        status.start()
    try:
        a = run_advisor(
            scenario,
            seed=seed,
            min_capacity=min_capacity,
            disciplines=discipline,
            recheck=recheck,
            tolerance=tolerance,
            progress=progress,
        )
    finally:
        if status is not None:
            status.stop()
    if json_out:
        print(a.to_json())
    else:
        a.render(stdout)
    if not a.passed:
        raise typer.Exit(1)


reproduce_app = typer.Typer(
    short_help="Reproduce a paper's experiment beside the paper's numbers.",
    help="Reproduce a paper's headline experiment and print it beside the paper's numbers.",
    epilog="Example: tailor reproduce swp-fig1 --out runs/fig1",
    no_args_is_help=True,
)
app.add_typer(reproduce_app, name="reproduce")

Out_ = Annotated[
    Optional[Path],
    typer.Option(
        help="Keep scenarios, runs and data here (default: runs/<reproduction>). Written whole once complete; "
        "an earlier reproduction there is replaced (its own files only).",
        show_default=False,
    ),
]


def _reproduction_args(until: str) -> None:
    """Checks a reproduction's options before anything is written."""
    import re

    m = re.fullmatch(r"(\d+(?:\.\d+)?)(ps|ns|us|ms|s)", until)
    if m is None or float(m.group(1)) <= 0:
        stderr.print(f"error: --until: '{until}' is not a positive time; accepted: a number and a unit (ps, ns, us, ms, s), e.g. 11ms")
        raise typer.Exit(2)


def _reproduction_dir(out: Path) -> Path:
    """Checks ``out`` before hours are spent, and says where the results will go."""
    from tailor.outdir import check_target

    check_target(out, "reproduction")
    stderr.print(f"writing scenarios, runs and data to {out}/ (once complete)", highlight=False)
    return out


@reproduce_app.command(
    "swp-fig1",
    short_help="SWP Fig. 1: foreground p99 slowdown per scheduling choice.",
    epilog="Example: tailor reproduce swp-fig1 --out runs/fig1",
)
@user_errors
def reproduce_swp_fig1(
    out: Out_ = None,
    engine: Annotated[str, typer.Option(help="'model' (the SWP fast model, as the paper) or 'packet'.")] = "model",
    until: Annotated[str, typer.Option(help="Simulated traffic per point (a time, e.g. 11ms).")] = "11ms",
) -> None:
    """SWP Fig. 1: foreground p99 slowdown under FIFO, priority, one weight, weight + fair
    queueing, background 20-80 %; checks each of the paper's claims."""
    from tailor.reproduce import swp_fig1

    if engine not in ("model", "packet"):
        stderr.print(f"error: --engine: unknown value '{engine}'; accepted: model, packet")
        raise typer.Exit(2)
    _reproduction_args(until)
    setup = swp_fig1.Setup(engine=engine, until=until)
    out = _reproduction_dir(out or swp_fig1.default_dir(setup))
    report = swp_fig1.run(out, setup, say=lambda m: stderr.print(m, highlight=False))
    swp_fig1.render(report, stdout)
    stdout.print(f"results: {out}/", highlight=False)


@reproduce_app.command(
    "swp-capacity",
    short_help="SWP Fig. 8-9: least capacity per discipline.",
    epilog="Example: tailor reproduce swp-capacity --classes 5 --n 20",
)
@user_errors
def reproduce_swp_capacity(
    n: Annotated[int, typer.Option(help="Random scenarios (the paper used 150).", min=1)] = 10,
    classes: Annotated[int, typer.Option(help="Classes per scenario: 3 (Fig. 8) or 5 (Fig. 9).")] = 3,
    seed: Annotated[int, typer.Option(help="Seed of the scenario generator.", min=0, max=MAX_SEED)] = 1,
    recheck: Annotated[int, typer.Option(help="Re-check this many scenarios' answers on the packet engine.", min=0)] = 3,
    until: Annotated[str, typer.Option(help="Simulated traffic per scenario (a time).")] = "21ms",
    out: Out_ = None,
) -> None:
    """SWP Fig. 8-9: least capacity per discipline over random scenarios (Table 4)."""
    from tailor.reproduce import swp_capacity

    if classes not in (3, 5):
        stderr.print(f"error: --classes: {classes} is not accepted; accepted: 3, 5")
        raise typer.Exit(2)
    _reproduction_args(until)
    out = _reproduction_dir(out or swp_capacity.default_dir(classes))
    report = swp_capacity.run(
        n=n, n_classes=classes, seed=seed, recheck=recheck, until=until, out=out,
        say=lambda m: stderr.print(m, highlight=False),
    )
    swp_capacity.render(report, stdout)
    stdout.print(f"results: {out}/", highlight=False)


crosscheck_app = typer.Typer(
    short_help="Compare tailor with another simulator on the same flows.",
    help="Compare tailor with a reference simulator on the same flows.",
    epilog="Example: tailor crosscheck ns3 ../shared/anchors/ns3/results/lognormal-0.6-2000-s1",
    no_args_is_help=True,
)
app.add_typer(crosscheck_app, name="crosscheck")


@crosscheck_app.command(
    "ns3",
    short_help="Replay an ns-3 run's flows in tailor and compare slowdowns.",
    epilog="Example: tailor crosscheck ns3 ../shared/anchors/ns3/results/lognormal-0.6-2000-s1 --json",
)
@user_errors
def crosscheck_ns3(
    run_dir: Annotated[Path, typer.Argument(help="An ns-3 anchor run directory (summary.json, workload.csv.gz, flows.csv.gz).")],
    json_out: Annotated[bool, typer.Option("--json", help="Print the comparison as one JSON object.")] = False,
    out: Annotated[
        Optional[Path],
        typer.Option(
            help="Keep the replay (scenario, workload, tailor results, plots) here (default: "
            "runs/crosscheck-<anchor run>); an earlier cross-check there is replaced (its own files only).",
            show_default=False,
        ),
    ] = None,
    prr: Annotated[
        str,
        typer.Option(help="DCTCP window-reduction pacing: 'ns3' (as ns-3 3.37 does it) or 'rfc6937' (tailor's default)."),
    ] = "ns3",
) -> None:
    """Replay an ns-3 anchor run's flows in tailor and compare slowdowns per size bin.

    Exit status 0 when every bin with at least 100 flows has its mean within 10 % and
    its p99 within 15 % of ns-3, 1 otherwise, 2 for a directory it cannot read.
    """
    import json

    from tailor.crosscheck import crosscheck_ns3 as compare
    from tailor.crosscheck import render

    if prr not in ("ns3", "rfc6937"):
        stderr.print(f"error: --prr: unknown value '{prr}'; accepted: ns3, rfc6937")
        raise typer.Exit(2)
    report = compare(run_dir, out=out, prr=prr)
    if json_out:
        print(json.dumps(report, indent=2))
    else:
        render(report, stdout)
        stdout.print(f"replay and plots: {report['work_dir']}/", highlight=False)
    raise typer.Exit(0 if report["pass"] else 1)


@app.command(
    short_help="Compare the fast model with the packet engine, same flows.",
    epilog="Example: tailor compare scenarios/swp/websearch-60.toml --json",
)
@user_errors
def compare(
    scenario: Scenario_,
    seed: Seed_ = None,
    out: Annotated[
        Optional[Path],
        typer.Option(
            help="Keep both runs here (DIR/packet, DIR/model; default: none kept). An earlier comparison "
            "there is replaced (its own files only).",
            show_default=False,
        ),
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the comparison as one JSON object.")] = False,
) -> None:
    """Run a scenario on the packet engine and on the fast model (same flows) and compare
    mean and p99 slowdown per size bin.

    Exit status 0 when every judged bin meets its target (short flows: p99 within 10 %;
    long flows: mean within 10 %), 1 otherwise, 2 for a scenario that cannot be run or
    that has no one bottleneck for the model (docs/model.md, "Scope").
    """
    import json

    from tailor.compare import compare as compare_engines
    from tailor.compare import render

    report = compare_engines(scenario, seed=seed, out=out)
    if json_out:
        print(json.dumps(report, indent=2))
    else:
        render(report, Console(width=max(stdout.width, 150)))
    raise typer.Exit(0 if report["pass"] else 1)


@app.command(
    short_help="Run a scenario over a grid of keys and seeds.",
    epilog="Examples: tailor sweep scenarios/swp/websearch-60.toml --set load=0.3,0.5,0.7 --set seed=1..5 --out sweeps/ws | "
    "tailor sweep scenarios/quickstart.toml --set switch.scheduler=drr,wfq --ray local"
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
    engine: Annotated[str, typer.Option(help="'packet' (the packet simulator) or 'model' (the SWP fast model).")] = "packet",
    jobs: Annotated[Optional[int], typer.Option(help="Parallel simulations (default: one per core).", show_default=False)] = None,
    ray: Annotated[
        Optional[str],
        typer.Option(help="Run on Ray: 'local' (start one here), 'auto' (the running cluster) or ray://HOST:PORT.",
                     show_default=False),
    ] = None,
    stat: Annotated[str, typer.Option(help="The statistic to print per class: mean, p50, p90, p99, p999, max.")] = "p99",
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
    from tailor.sweep import Interrupted, grid, parse_axis

    from tailor.store import STATS

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
    if engine not in ("packet", "model"):
        stderr.print(f"error: --engine: unknown value '{engine}'; accepted: packet, model")
        raise typer.Exit(2)
    if dry_run:
        from tailor.sweep import plan

        _print_plan(plan(sc, axes, out=out, engine=engine), out or Path("sweeps") / sc.name)
        return
    total = len(grid(axes)) if axes else 1
    workers = jobs or os.cpu_count() or 1
    failed: PointsFailed | None = None
    try:
        with sweep_reporter(sc.name, total=total, quiet=quiet, json_lines=True if progress_json else None,
                            console=stderr, workers=workers) as listener:
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
    stdout.print(f"{sw.manifest['scenario']}: {stat} slowdown, mean over seeds [95 % bootstrap interval]", highlight=False)
    table = Table()
    for col in [*axes, "class", "seeds", stat]:
        table.add_column(col, justify="right" if col in ("seeds", stat) else "left")
    for row in df.iter_rows(named=True):
        ci = "" if row["ci_low"] is None else f" [{row['ci_low']:.3g}, {row['ci_high']:.3g}]"
        table.add_row(*(str(row[a]) for a in axes), row["class"], str(row["n_seeds"]), f"{row['mean']:.3g}{ci}")
    stdout.print(table)
    stdout.print(f"store: {sw.store.dir}/ ({len(sw.ids)} points; tailor report {sw.store.dir} for plots)", highlight=False)
# ---------------------------------------------------------------------------- plots and reports


@app.command(
    "report",
    short_help="Write a run's or a sweep's report as one offline HTML file.",
    epilog="Examples: tailor report runs/q --scenario scenarios/quickstart.toml (a run: writes runs/q/report.html) | "
    "tailor report sweeps/ws (a sweep store: writes sweeps/ws/report.html)",
)
@user_errors
def report_cmd(
    path: Annotated[Path, typer.Argument(help="A run directory (summary.json) or a sweep store (points/).", show_default=False)],
    out: Annotated[
        Optional[Path],
        typer.Option(help="The HTML file (default: PATH/report.html); its plots go beside it as PNGs.", show_default=False),
    ] = None,
    scenario: Annotated[
        Optional[Path],
        typer.Option(help="The run's scenario file, shown in the report (a run directory does not hold it).", show_default=False),
    ] = None,
) -> None:
    """Write one self-contained HTML file (tables, plots, SLO verdicts, the scenario) about
    a run or a sweep; it opens offline in any browser."""
    from tailor.report import report

    print(f"report: {report(path, out=out, scenario=scenario)}")


PLOT_KINDS = ("slowdown-vs-size", "latency-cdf", "queue", "p99-vs-load")
#: The CLI option of each plot-function parameter, for error messages.
_PLOT_OPTIONS = {"percentiles": "--percentiles", "classes": "--class", "ports": "--port", "x": "--x", "y": "--stat",
                 "by": "--by", "where": "--where", "formats": "--format"}


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
        typer.Argument(help="A run directory; for p99-vs-load a sweep store or its summary table (.parquet, .csv).",
                       show_default=False),
    ],
    kind: Annotated[str, typer.Option(help=" | ".join(PLOT_KINDS) + ".", show_default=False)],
    out: Annotated[
        Optional[Path], typer.Option(help="File name without extension (default: PATH/<kind>).", show_default=False)
    ] = None,
    format: Annotated[str, typer.Option("--format", help="Comma-separated: png, svg, pdf.")] = "png,svg",
    percentiles: Annotated[str, typer.Option(help="slowdown-vs-size: percentiles, comma-separated.")] = "50,99",
    classes: Annotated[
        Optional[list[str]],
        typer.Option("--class", help="slowdown-vs-size, latency-cdf: a class to draw (repeatable; 'all': every class "
                     "together; default: each class).", show_default=False),
    ] = None,
    port: Annotated[
        Optional[list[int]],
        typer.Option(help="queue: a port to draw (repeatable; default: the six largest peaks among the ports that held a queue).", show_default=False),
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
) -> None:
    """Draw one plot of a run (slowdown by message size, latency CDF, queues) or of a sweep
    (a slowdown statistic against load, a line per value of --by), as PNG and SVG."""
    from tailor.errors import OptionError

    if kind not in PLOT_KINDS:
        raise OptionError(f"--kind: unknown value '{kind}'; accepted: {', '.join(PLOT_KINDS)}")
    given = {"--percentiles": percentiles != "50,99", "--class": bool(classes), "--port": bool(port),
             "--x": x != "load", "--stat": stat != "p99", "--by": bool(by), "--where": bool(where)}
    allowed = {"slowdown-vs-size": {"--percentiles", "--class"}, "latency-cdf": {"--class"}, "queue": {"--port"},
               "p99-vs-load": {"--x", "--stat", "--by", "--where"}}[kind]
    for opt, used in given.items():
        if used and opt not in allowed:
            raise OptionError(f"{opt}: not an option of --kind {kind}; its options: {', '.join(sorted(allowed)) or 'none'}")
    formats = [f.strip() for f in format.split(",") if f.strip()]
    try:
        fig = _plot(path, kind, percentiles, classes, port, x, stat, by, where)
        if out is None:
            out = path / kind if path.is_dir() else path.with_name(f"{path.stem}-{kind}")
        from tailor.plot import save

        written = save(fig, out, formats)
    except OptionError as e:
        param, _, rest = str(e).partition(":")
        raise OptionError(f"{_PLOT_OPTIONS[param]}:{rest}" if param in _PLOT_OPTIONS else str(e)) from None
    print("wrote " + ", ".join(map(str, written)))


def _plot(
    path: Path, kind: str, percentiles: str, classes: Optional[list[str]], port: Optional[list[int]], x: str, stat: str,
    by: Optional[list[str]], where: Optional[list[str]],
) -> Any:
    import tailor.plot as tp
    from tailor.errors import DataError, OptionError

    if kind == "p99-vs-load":
        import polars as pl

        if path.is_dir() and (path / "points").is_dir():
            import tailor

            from tailor.store import STATS

            from tailor.report import with_messages

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
        try:
            ps = [float(p) for p in percentiles.split(",") if p.strip()]
        except ValueError:
            raise OptionError(
                f"percentiles: '{percentiles}' is not a list of numbers; accepted: numbers in (0, 100] separated by commas, e.g. 50,99"
            ) from None
        return tp.slowdown_vs_size(run, ps, classes=classes)
    if kind == "latency-cdf":
        return tp.latency_cdf(run, classes=classes)
    return tp.queue_over_time(run, ports=port)


def main() -> None:
    terminate_as_interrupt()
    app(prog_name="tailor")


if __name__ == "__main__":
    main()
