"""``tailor reproduce NAME``: a paper's experiment beside the paper's numbers."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from tailor.cli import MAX_SEED, app, stderr, stdout, user_errors


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
