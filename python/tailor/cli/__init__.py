"""The ``tailor`` command: the typer ``app``, ``main()`` and what its commands share.

Every error a user can cause (a bad scenario, an unwritable directory, a cancelled
run) is a :class:`tailor.errors.TailorError`: it is printed as one line on stderr and
the command exits with status 2, without a traceback (``user_errors``). A command line
that typer refuses (an unknown option, a missing argument, a value out of range) is one
line of the same form (``usage_error``), in tailor's words rather than typer's and
pydantic's.

Each command group is a module of this package that adds its commands to ``app`` when
imported: ``run`` (run, check), ``advise``, ``reproduce``, ``crosscheck``, ``compare``,
``sweep``, ``report``, ``plot``. The imports at the end of this file fix the order
``tailor --help`` lists them in.
"""

from __future__ import annotations

import errno
import functools
import sys
from pathlib import Path
from typing import Annotated, Any, Callable, Optional, TypeVar

import typer
from rich.console import Console

try:  # typer from 0.2x carries its own copy of click
    from typer._click import exceptions as clicks
except ImportError:  # pragma: no cover - older typer, on click itself
    from click import exceptions as clicks  # type: ignore[no-redef]

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
Seed_ = Annotated[
    Optional[int], typer.Option(help="Seed (default: the scenario's), 0 to 2^63 - 1.", min=0, max=MAX_SEED)
]


def main() -> None:
    terminate_as_interrupt()
    try:
        status = app(prog_name="tailor", standalone_mode=False)
    except clicks.NoArgsIsHelpError as e:
        e.show()  # `tailor` or `tailor reproduce` alone: the help, as --help prints it
        status = e.exit_code
    except clicks.UsageError as e:
        print(f"error: {usage_error(e)}", file=sys.stderr)
        status = e.exit_code
    except clicks.ClickException as e:
        print(f"error: {e.format_message()}", file=sys.stderr)
        status = e.exit_code
    except typer.Abort:  # typer's own: its copy of click has no Abort
        status = 130
    except OSError as e:
        if e.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        # A full disk is no bug to trace back: say where, and fail (the run's staging
        # directory is already gone, nothing half-written is left).
        where = f": {e.filename}" if e.filename else ""
        print(f"error: {e.strerror}{where}; free space and run again", file=sys.stderr)
        status = 1
    sys.exit(status if isinstance(status, int) else 0)


def usage_error(e: clicks.UsageError) -> str:
    """A command line typer refused, as one line: what is wrong, with the accepted values
    of an option given a bad one, and the command's --help."""
    command = e.ctx.command_path if e.ctx is not None else "tailor"
    param = getattr(e, "param", None)
    if isinstance(e, clicks.BadParameter) and param is not None and _typed(param) in (int, float):
        name = param.opts[0] if param.opts else param.name
        given = _given(e)
        kind = "an integer" if _typed(param) is int else "a number"
        low, high = getattr(param, "min", None), getattr(param, "max", None)
        accepted = kind + (
            f" from {_bound(low)} to {_bound(high)}"
            if low is not None and high is not None
            else f" of at least {_bound(low)}"
            if low is not None
            else f" of at most {_bound(high)}"
            if high is not None
            else ""
        )
        what = f"'{given}' is not {kind}" if given is not None else "not accepted"
        if given is not None and _parses(given, _typed(param)):
            what = f"'{given}' is out of range"
        return f"{name}: {what}; accepted: {accepted} (see '{command} --help')"
    message = e.format_message().rstrip(".")
    return f"{message[:1].lower()}{message[1:]} (see '{command} --help')"


def _typed(param: Any) -> Any:
    """The Python type a typer parameter converts to (int, float, Path ...), if known."""
    descriptor = getattr(param, "type_descriptor", None)
    annotation = getattr(descriptor, "annotation", None)
    return annotation


def _given(e: clicks.BadParameter) -> Optional[str]:
    """The text the user gave, from the validation error typer converted."""
    errors = getattr(e.__cause__, "errors", None)
    if callable(errors):
        for item in errors():
            if "input" in item:
                return str(item["input"])
    return None


def _parses(text: str, kind: type) -> bool:
    """Whether ``text`` is a finite value of ``kind``: then only its range was wrong."""
    try:
        value = kind(text)
    except ValueError:
        return False
    return value == value and value not in (float("inf"), float("-inf"))


def _bound(x: float) -> str:
    return f"2^63 - 1 ({MAX_SEED})" if x == MAX_SEED else f"{x:g}" if isinstance(x, float) else str(x)


# The command groups, in the order of `tailor --help` (after the shared names above, which they import).
from tailor.cli import run, advise, reproduce, crosscheck, compare, sweep, report, plot, importer  # noqa: E402, F401, I001
