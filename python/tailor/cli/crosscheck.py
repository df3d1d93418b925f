"""``tailor crosscheck ns3 RUN``: an ns-3 run's flows replayed in tailor (docs/validation.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from tailor.cli import app, stderr, stdout, user_errors

crosscheck_app = typer.Typer(
    short_help="Compare tailor with another simulator on the same flows.",
    help="Compare tailor with a reference simulator on the same flows.",
    epilog="Example: tailor crosscheck ns3 anchors/ns3/results/lognormal-0.6-2000-s1",
    no_args_is_help=True,
)
app.add_typer(crosscheck_app, name="crosscheck")


@crosscheck_app.command(
    "ns3",
    short_help="Replay an ns-3 run's flows in tailor and compare slowdowns.",
    epilog="Example: tailor crosscheck ns3 anchors/ns3/results/lognormal-0.6-2000-s1 --json",
)
@user_errors
def crosscheck_ns3(
    run_dir: Annotated[
        Path, typer.Argument(help="An ns-3 anchor run directory (summary.json, workload.csv.gz, flows.csv.gz).")
    ],
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
        typer.Option(
            help="DCTCP window-reduction pacing: 'ns3' (as ns-3 3.37 does it) or 'rfc6937' (tailor's default)."
        ),
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
