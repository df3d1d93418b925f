"""Reproductions of the papers' experiments, each printed beside the paper's numbers.

One sub-package per paper (``swp/``, ``homa/``), each declaring its reproductions in its
``REPRODUCTIONS`` (:class:`tailor.reproduce.registry.Reproduction`); this module gathers
them by name. ``tailor reproduce NAME`` and ``tailor reproduce --list`` are generated from
:data:`REPRODUCTIONS`: a paper's reproductions reach the CLI by the one line below.
``scenarios`` writes the scenario files they run, as TOML a user can rerun.
"""

from __future__ import annotations

from tailor.reproduce import homa, hull, pl2, swp
from tailor.reproduce.registry import Reproduction

__all__ = ["REPRODUCTIONS", "Reproduction"]


def _by_name(*papers: tuple[Reproduction, ...]) -> dict[str, Reproduction]:
    named: dict[str, Reproduction] = {}
    for r in (r for paper in papers for r in paper):
        if r.name in named:
            raise ValueError(f"two reproductions are named {r.name!r}")
        named[r.name] = r
    return named


#: Every reproduction by its name (the command ``tailor reproduce NAME``), in the order listed.
REPRODUCTIONS: dict[str, Reproduction] = _by_name(
    swp.REPRODUCTIONS, homa.REPRODUCTIONS, hull.REPRODUCTIONS, pl2.REPRODUCTIONS
)
