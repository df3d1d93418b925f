"""A scenario file, parsed and checked by the engine."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tailor import _core


def check(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Parses the scenario at ``path`` and returns its description (a dict).

    Raises :class:`tailor.errors.ScenarioError` naming the file and key path of the first
    problem.
    """
    return _core.check(os.fspath(path))


@dataclass(frozen=True)
class Scenario:
    """A scenario file that parses. ``info`` is what :func:`check` returned."""

    path: Path
    info: dict[str, Any] = field(repr=False)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Scenario:
        return cls(Path(path), check(path))

    @property
    def name(self) -> str:
        return self.info["name"]

    @property
    def seed(self) -> int:
        return self.info["seed"]

    @property
    def classes(self) -> list[str]:
        return list(self.info["classes"])

    def describe(self) -> str:
        """One line: name, topology, hosts, transport and classes."""
        i = self.info
        gbps = i["host_rate_bps"] / 1e9
        return (
            f"{i['name']}: {i['topology']} of {i['hosts']} hosts at {gbps:g} Gbps, "
            f"{i['transport']}, classes {', '.join(i['classes'])}, seed {i['seed']}"
        )
