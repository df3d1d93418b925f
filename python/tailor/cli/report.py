"""``tailor report``: a run's or a sweep's report as one offline HTML file (docs/report.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from tailor.cli import app, user_errors


@app.command(
    "report",
    short_help="Write a run's or a sweep's report as one offline HTML file.",
    epilog="Examples: tailor report runs/q (a run: writes runs/q/report.html) | "
    "tailor report sweeps/ws (a sweep store: writes sweeps/ws/report.html)",
)
@user_errors
def report_cmd(
    path: Annotated[
        Path, typer.Argument(help="A run directory (summary.json) or a sweep store (points/).", show_default=False)
    ],
    out: Annotated[
        Optional[Path],
        typer.Option(
            help="The HTML file (default: PATH/report.html); its plots go beside it as PNGs. Never a result "
            "file (summary.json, messages.parquet, …): only a new file or an earlier report is replaced.",
            show_default=False,
        ),
    ] = None,
    scenario: Annotated[
        Optional[Path],
        typer.Option(
            help="A scenario file to show, checked first against the one the run ran (summary.json's "
            "scenario_sha256); another is refused. Default: the scenario the run kept, PATH/scenario.toml.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Write one self-contained HTML file (tables, plots, SLO verdicts, the scenario) about
    a run or a sweep; it opens offline in any browser."""
    from tailor.report import report

    print(f"report: {report(path, out=out, scenario=scenario)}")
