"""The ``tailor`` command.

Every error a user can cause (a bad scenario, an unwritable directory, a cancelled
run) is a :class:`tailor.errors.TailorError`: it is printed as one line on stderr and
the command exits with status 2, without a traceback.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Annotated, Any, Callable, Optional, TypeVar

import typer
from rich.console import Console

from tailor import __version__
from tailor.errors import TailorError

__all__ = ["app", "main"]

app = typer.Typer(
    name="tailor",
    help="Predict and control microsecond tail latency in datacenter networks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

stdout = Console()
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
        except KeyboardInterrupt:
            print("interrupted; no results were written", file=sys.stderr)
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


@app.command(epilog="Example: tailor run scenarios/quickstart.toml --seed 7 --out runs/quickstart")
@user_errors
def run(
    scenario: Scenario_,
    seed: Annotated[Optional[int], typer.Option(help="Seed (default: the scenario's).", min=0)] = None,
    out: Annotated[
        Optional[Path], typer.Option(help="Result directory (default: runs/<name>-s<seed>).", show_default=False)
    ] = None,
    csv: Annotated[bool, typer.Option("--csv", help="Keep messages.csv beside messages.parquet.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    progress_json: Annotated[
        bool, typer.Option("--progress-json", help="Progress as JSON lines on stderr (for scripts).")
    ] = False,
    engine: Annotated[
        str, typer.Option(help="'packet' (the packet simulator) or 'model' (the SWP fast model).")
    ] = "packet",
) -> None:
    """Run a scenario and print slowdown by message size."""
    import tailor
    from tailor.progress import reporter

    if engine not in ("packet", "model"):
        stderr.print(f"error: --engine: unknown value '{engine}'; accepted: packet, model")
        raise typer.Exit(2)
    sc = tailor.Scenario.load(scenario)
    with reporter(sc.name, quiet=quiet, json_lines=progress_json, console=stderr) as progress:
        result = tailor.run(sc, seed=seed, out=out, csv=csv, progress=progress, engine=engine)
    stdout.print(result.table())
    for line in result.slo_lines():
        stdout.print(line, highlight=False)
    stdout.print(result.network_line())
    s = result.summary
    stdout.print(
        f"{s['messages']['completed']:,} messages in {s['sim_ns'] / 1e6:.3f} ms simulated, "
        f"{s['events']:,} events in {s['wall_seconds']:.2f} s"
    )
    stdout.print(f"results: {result.dir}/ (summary.json, messages.parquet, ports.csv)", highlight=False)


@app.command(epilog="Example: tailor check scenarios/quickstart.toml")
@user_errors
def check(scenario: Scenario_) -> None:
    """Check a scenario file without running it, and describe it."""
    import tailor

    sc = tailor.Scenario.load(scenario)
    print(sc.describe())
    print(f"{scenario}: ok")


crosscheck_app = typer.Typer(
    help="Compare tailor with a reference simulator on the same flows.", no_args_is_help=True
)
app.add_typer(crosscheck_app, name="crosscheck")


@crosscheck_app.command(
    "ns3",
    epilog="Example: tailor crosscheck ns3 ../shared/anchors/ns3/results/lognormal-0.6-2000-s1 --json",
)
@user_errors
def crosscheck_ns3(
    run_dir: Annotated[Path, typer.Argument(help="An ns-3 anchor run directory (summary.json, workload.csv.gz, flows.csv.gz).")],
    json_out: Annotated[bool, typer.Option("--json", help="Print the comparison as one JSON object.")] = False,
    out: Annotated[
        Optional[Path], typer.Option(help="Keep the replay (scenario, workload, tailor results) here.", show_default=False)
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
    raise typer.Exit(0 if report["pass"] else 1)


@app.command(epilog="Example: tailor compare scenarios/swp/websearch-60.toml --json")
@user_errors
def compare(
    scenario: Scenario_,
    seed: Annotated[Optional[int], typer.Option(help="Seed (default: the scenario's).", min=0)] = None,
    out: Annotated[
        Optional[Path], typer.Option(help="Keep both runs here (DIR/packet, DIR/model).", show_default=False)
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the comparison as one JSON object.")] = False,
) -> None:
    """Run a scenario on the packet engine and on the fast model (same flows) and compare
    mean and p99 slowdown per size bin.

    Exit status 0 when every judged bin meets its target (short flows: p99 within 10 %;
    long flows: mean within 10 %), 1 otherwise, 2 for a scenario that cannot be run.
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


def main() -> None:
    app()


if __name__ == "__main__":
    main()
