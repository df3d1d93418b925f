"""``tailor reproduce NAME``: a paper's experiment beside the paper's numbers.

The commands are made from the registry (``tailor.reproduce.REPRODUCTIONS``): each
reproduction's options function gives the command its options and help, and the command
checks the output directory, runs the plan, prints the report and where it went.
``tailor reproduce --list`` names each reproduction, its paper figure and its expected run
time; an unknown name exits 2 with the accepted names. The registry (and polars, which its
reproductions import) loads only when ``tailor reproduce`` is used, not for every command.
"""

from __future__ import annotations

import functools
import inspect
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Callable

import typer
from typer.core import TyperGroup

from tailor.cli import app, stderr, stdout, user_errors

if TYPE_CHECKING:  # annotations only: typer runs on its own copy of click
    import click

    from tailor.reproduce import Reproduction


class _Reproductions(TyperGroup):
    """The group of reproductions: an unknown name is an error that lists the accepted ones.
    Its commands are made from the registry when first looked at."""

    @property  # type: ignore[override]
    def commands(self) -> dict[str, click.Command]:
        if self._commands is None:
            self._commands = _commands()
        return self._commands

    @commands.setter
    def commands(self, value: dict[str, click.Command]) -> None:
        self._commands = value or None

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        name = args[0] if args else ""
        if not name.startswith("-") and self.get_command(ctx, name) is None:
            ctx.fail(f"unknown reproduction '{name}'; accepted: {', '.join(self.list_commands(ctx))}")
        return super().resolve_command(ctx, args)


reproduce_app = typer.Typer(
    cls=_Reproductions,
    short_help="Reproduce a paper's experiment beside the paper's numbers.",
    help="Reproduce a paper's headline experiment and print it beside the paper's numbers.",
    epilog="Example: tailor reproduce swp-fig1 --out runs/fig1",
    no_args_is_help=True,
    invoke_without_command=True,
)
app.add_typer(reproduce_app, name="reproduce")


@reproduce_app.callback()
def _group(
    list_: Annotated[
        bool,
        typer.Option("--list", help="List the reproductions: paper, figure and expected run time; then exit."),
    ] = False,
) -> None:
    if list_:
        _print_list()
        raise typer.Exit(0)


def _print_list() -> None:
    from rich.table import Table

    from tailor.reproduce import REPRODUCTIONS

    table = Table(
        title="tailor reproduce NAME: run times measured on a 2-core machine",
        title_justify="left",
        caption="* no --quick: the time with the defaults",
        caption_justify="left",
    )
    for col in ("reproduction", "paper", "figure", "--quick", "full run", "full time"):
        table.add_column(col, justify="right" if col.endswith("time") else "left")
    for r in REPRODUCTIONS.values():
        quick = r.quick if "quick" in inspect.signature(r.options).parameters else f"{r.quick} *"
        table.add_row(r.name, r.paper, r.figure, quick, r.full_options, r.full)
    stdout.print(table)


def _reproduction_dir(out: Path, name: str) -> Path:
    """Checks ``out`` before hours are spent (a different reproduction's results there
    are refused), and says where the results will go."""
    from tailor.outdir import check_target

    check_target(out, "reproduction", name)
    stderr.print(f"writing scenarios, runs and data to {out}/ (once complete)", highlight=False)
    return out


def _command(r: Reproduction) -> Callable[..., None]:
    """The command of ``r``: its options are those of ``r.options``."""

    @functools.wraps(r.options)
    def command(**options: Any) -> None:
        plan = r.options(**options)
        out = _reproduction_dir(plan.out, r.name)
        report = plan.run(out, lambda m: stderr.print(m, highlight=False))
        r.render(report, stdout)
        stdout.print(f"results: {out}/", highlight=False)

    return command


def _commands() -> dict[str, click.Command]:
    """A command per reproduction of the registry, in its order."""
    from tailor.reproduce import REPRODUCTIONS

    commands = typer.Typer(rich_markup_mode=None, pretty_exceptions_enable=False)
    for r in REPRODUCTIONS.values():
        commands.command(r.name, short_help=r.summary, epilog=f"Example: {r.example}")(user_errors(_command(r)))
    return dict(typer.main.get_group(commands).commands)
