"""The registry of reproductions: what ``tailor reproduce`` offers, generated from here.

Each paper's sub-package (``swp/``) declares its reproductions as :class:`Reproduction`
values; ``tailor.reproduce.REPRODUCTIONS`` gathers them, and the CLI makes one
``tailor reproduce NAME`` command of each and lists them with ``--list``. A reproduction
is the paper and figure it reproduces, how long it takes, its options (a function whose
typer-annotated parameters are the command's options and which returns a :class:`Plan`)
and how its report is printed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Callable, Optional

import typer

from tailor.parse import check_time

__all__ = ["Reproduction", "Plan", "Out", "check_until"]

#: What a reproduction reports as it goes (one line each).
Say = Callable[[str], None]


@dataclass(frozen=True)
class Plan:
    """A reproduction ready to run, its options checked: where it writes (the ``--out``
    given, or its default directory) and what runs there."""

    out: Path
    run: Callable[[Path, Say], dict[str, Any]]


@dataclass(frozen=True)
class Reproduction:
    """One experiment of a paper, reproduced: ``tailor reproduce NAME``.

    ``quick`` and ``full`` are wall times measured on a 2-core machine (each paper's
    ``__init__`` says where and when): ``quick`` with ``--quick`` where the reproduction has
    it, else with the defaults; ``full`` with ``full_options``, the options that give the
    paper's scale.
    ``options``' parameters are the command's options (typer annotations; its docstring
    is the command's help) and it returns the :class:`Plan`, raising
    :class:`~tailor.errors.OptionError` for a bad value before anything is written.
    ``render`` prints the report ``Plan.run`` returned."""

    name: str
    paper: str
    figure: str
    summary: str
    example: str
    quick: str
    full: str
    full_options: str
    options: Callable[..., Plan]
    render: Callable[[dict[str, Any], Any], None]


Out = Annotated[
    Optional[Path],
    typer.Option(
        help="Keep scenarios, runs and data here (default: runs/<reproduction>). Written whole once complete; "
        "an earlier run of this reproduction there is replaced (its own files only), another one's refused.",
        show_default=False,
    ),
]


def check_until(until: str) -> None:
    """``--until``: a positive time with its unit (docs/scenario.md, "Units")."""
    check_time("--until", until)
