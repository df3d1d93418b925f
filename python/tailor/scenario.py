"""A scenario file, parsed and checked by the engine."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tailor import _core

#: An override: a dotted key path (``class[1].load``, ``switch.scheduler``) and its value.
Override = tuple[str, Any]


def check(path: str | os.PathLike[str], overrides: list[Override] | None = None) -> dict[str, Any]:
    """Parses the scenario at ``path`` (with ``overrides`` applied) and returns its
    description (a dict).

    Raises :class:`tailor.errors.ScenarioError` naming the file and key path of the first
    problem.
    """
    return _core.check(os.fspath(path), list(overrides or []))


@dataclass(frozen=True)
class Scenario:
    """A scenario file that parses, with the keys changed by :meth:`with_`.

    ``info`` is what :func:`check` returned for the file with ``overrides`` applied.
    """

    path: Path
    info: dict[str, Any] = field(repr=False)
    overrides: tuple[Override, ...] = ()

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Scenario:
        return cls(Path(path), check(path))

    def with_(self, changes: Mapping[str, Any] | None = None, /, **keys: Any) -> Scenario:
        """This scenario with keys changed, checked at once (docs/scenario.md, "Overrides").

        Keys are dotted paths, given as a mapping (``{"switch.scheduler": "drr",
        "class[0].load": 0.4}``) or as keyword arguments for top-level keys
        (``load=0.5`` sets the total offered load, scaling every class; ``seed=3``).
        A key set twice keeps its last value.
        """
        merged = dict(self.overrides)
        for k, v in [*(changes or {}).items(), *keys.items()]:
            merged.pop(k, None)
            merged[k] = v
        overrides = tuple(merged.items())
        return Scenario(self.path, check(self.path, list(overrides)), overrides)

    def resolve(self) -> dict[str, Any]:
        """What identifies this scenario as run: {info, document (the TOML after
        overrides), identity (the text a result store hashes), inputs (trace files)}."""
        return _core.resolve(os.fspath(self.path), list(self.overrides))

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
