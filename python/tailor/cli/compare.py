"""``tailor compare``: the fast model against the packet engine on the same flows (docs/model.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

from tailor.cli import Scenario_, Seed_, app, stdout, user_errors


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
