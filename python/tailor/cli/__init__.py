"""The ``tailor`` command: the typer ``app``, ``main()`` and what its commands share.

Every error a user can cause (a bad scenario, an unwritable directory, a cancelled
run) is a :class:`tailor.errors.TailorError`: it is printed as one line on stderr and
the command exits with status 2, without a traceback (``user_errors``).

Each command group is a module of this package that adds its commands to ``app`` when
imported: ``run`` (run, check), ``advise``, ``reproduce``, ``crosscheck``, ``compare``,
``sweep``, ``report``, ``plot``. The imports at the end of this file fix the order
``tailor --help`` lists them in.
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


def main() -> None:
    terminate_as_interrupt()
    app(prog_name="tailor")


# The command groups, in the order of `tailor --help` (after the shared names above, which they import).
from tailor.cli import run, advise, reproduce, crosscheck, compare, sweep, report, plot  # noqa: E402, F401, I001
