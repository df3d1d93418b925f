"""``tailor advise``: switch weights or the least capacity meeting every SLO (docs/advisor.md)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from tailor.cli import Scenario_, Seed_, app, stderr, stdout, user_errors


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
