"""The transport advisor's input: a scenario's ``[advise]`` table and its candidates
(docs/advisor.md, "Which transport meets my SLO?").

A candidate is a transport with the switch and host settings it needs, on the
scenario's network::

    [advise]
    transports = ["dctcp"]           # the default of --transports
    seeds = 3                        # the scenario's seed and the next ones
    loads = [0.1, 0.9]               # the search's bounds on the total offered load
    tolerance = 0.02                 # stop when passing and failing loads are this close

    [advise.candidate.dctcp]
    transport = { kind = "dctcp", init_cwnd = "bdp" }   # replaces [transport] whole
    switch = { ecn_threshold = "65KB" }                  # sets these keys of [switch]

``transport`` replaces the scenario's ``[transport]`` whole (its ``kind`` defaults to the
candidate's name); ``switch``, ``host`` and ``routing`` set their keys in the scenario's
tables of those names, adding or changing, never removing: a scenario's own tables hold
what every candidate shares (the fabric), and each candidate adds what its scheme needs.
What a scheme always needs comes from its transport's registry entry (``needs``: Homa's
eight strict levels and an idle-link NIC, NDP's trimming 8-packet queues, DCTCP's one path
per flow, ...) and is set first, so a candidate gives only what differs; its own keys win,
and ``defaults = false`` in its table sets none of them. A name given to ``--transports``
without a table of its own is "the scenario's network with ``[transport] kind = NAME``,
that transport's defaults and what it needs".

The engine's strict reader checks ``[advise]`` like every table (its keys and values,
each candidate's shape and transport kind: ``crates/tailor/src/scenario/advise.rs``), so
``tailor run`` and ``tailor check`` refuse a typo in it as ``tailor advise`` does; this
module reads the values it accepted. Every candidate is then applied to the scenario and
read by the engine before anything runs; an error names the file and the candidate's key
(``advise.candidate.pfabric.switch.scheduler``).
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

from tailor import _core
from tailor.errors import OptionError, ScenarioError
from tailor.scenario import Override, Scenario, check

__all__ = ["Candidate", "AdviseTable", "read_advise", "resolve_candidates", "registry_names", "SECTIONS"]

#: What a candidate table may hold: the scenario table each one sets.
SECTIONS = ("transport", "switch", "host", "routing")
#: The scenario tables a transport's registry entry (``needs``) may set.
NEEDS = ("switch", "host", "routing")
#: A name given to ``--transports`` names files and scenarios: letters, digits, ``_`` and
#: ``-`` (as ``[advise] transports``, ``scenario::advise``).
NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
#: Defaults of the search when neither ``[advise]`` nor an option gives them.
DEFAULT_SEEDS = 3
DEFAULT_LOADS = (0.1, 0.9)
DEFAULT_TOLERANCE = 0.02
#: The most seeds per load (each is a run at every load probed): ``--seeds`` as
#: ``[advise] seeds`` (``scenario::advise::MAX_SEEDS``).
MAX_SEEDS = 100


@dataclass(frozen=True)
class Candidate:
    """One transport to try: its name, its transport kind, and the scenario keys it sets
    (``overrides``, applied after the scenario's own). ``table`` says whether the scenario
    defines it (``[advise.candidate.NAME]``) or it is a registry name with its defaults;
    ``needed`` lists the keys set from the transport's registry entry (not the candidate's)."""

    name: str
    kind: str
    overrides: tuple[Override, ...]
    table: bool
    needed: tuple[str, ...] = ()

    def describe(self) -> str:
        """One line: what the candidate changes in the scenario."""
        if not self.overrides:
            return f"[transport] kind = {self.kind!r}, defaults"
        return ", ".join(f"{k} = {_toml_value(v)}" for k, v in self.overrides)


@dataclass(frozen=True)
class AdviseTable:
    """A scenario's ``[advise]`` table, checked (every field None when absent)."""

    transports: Optional[tuple[str, ...]]
    seeds: Optional[int]
    loads: Optional[tuple[float, float]]
    tolerance: Optional[float]
    #: name -> {section -> table}
    candidates: dict[str, dict[str, dict[str, Any]]]
    #: Whether the scenario has an ``[advise]`` table (``tailor advise`` then asks about transports).
    present: bool = True


def _toml_value(v: Any) -> str:
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + " }"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return str(v)


def registry_names() -> list[str]:
    """The transports this build has (``tailor._core.transports()``)."""
    return [t["name"] for t in _core.transports()]


def registry_needs(kind: str) -> dict[str, dict[str, Any]]:
    """What transport ``kind`` needs of the network, from its registry entry: the keys of
    ``[switch]``, ``[host]`` and ``[routing]`` it sets (empty for an unknown kind)."""
    entry = next((t for t in _core.transports() if t["name"] == kind), None)
    return tomllib.loads(entry["needs"]) if entry is not None else {}


def _err(file: Path, key: str, message: str) -> ScenarioError:
    return ScenarioError(str(file), key, message)


def read_advise(path: Path) -> AdviseTable:
    """The ``[advise]`` table of the scenario file at ``path``, once the engine's reader
    has checked the file (its ``[advise]`` included; raises ScenarioError as it does)."""
    check(path)
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    t = doc.get("advise")
    if t is None:
        return AdviseTable(None, None, None, None, {}, present=False)
    loads = t.get("loads")
    return AdviseTable(
        transports=tuple(t["transports"]) if "transports" in t else None,
        seeds=t.get("seeds"),
        loads=(float(loads[0]), float(loads[1])) if loads is not None else None,
        tolerance=float(t["tolerance"]) if "tolerance" in t else None,
        candidates=dict(t.get("candidate", {})),
    )


def _kind(v: Any) -> str:
    return {
        dict: "a table",
        list: "an array",
        str: "a string",
        bool: "a boolean",
        int: "an integer",
        float: "a number",
    }.get(type(v), type(v).__name__)


def _seeds(file: Optional[Path], key: str, v: Any) -> Optional[int]:
    if v is None:
        return None
    if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= MAX_SEEDS:
        raise _where(file, key, f"{v!r} is out of range; accepted: an integer from 1 to {MAX_SEEDS} (seeds per load)")
    return v


def _loads(file: Optional[Path], key: str, v: Any) -> Optional[tuple[float, float]]:
    if v is None:
        return None
    nums = (
        isinstance(v, (list, tuple))
        and len(v) == 2
        and all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in v)
    )
    if not nums or not 0 < v[0] < v[1]:
        raise _where(file, key, f"{v!r} is not accepted; accepted: two loads [LO, HI] with 0 < LO < HI")
    return float(v[0]), float(v[1])


def _tolerance(file: Optional[Path], key: str, v: Any) -> Optional[float]:
    if v is None:
        return None
    if not isinstance(v, (int, float)) or isinstance(v, bool) or not 0.001 <= v <= 0.5:
        raise _where(file, key, f"{v!r} is out of range; accepted: a load from 0.001 to 0.5")
    return float(v)


def _where(file: Optional[Path], key: str, message: str) -> Exception:
    """A scenario error at ``key`` of ``file``, or an option error for ``--key``."""
    return _err(file, key, message) if file is not None else OptionError(f"{key}: {message}")


def check_option(key: str, v: Any, what: str) -> Any:
    """An option given on the command line or to the API, checked as its ``[advise]`` key."""
    return {"seeds": _seeds, "loads": _loads, "tolerance": _tolerance}[what](None, key, v)


def _candidate(
    name: str, tables: Optional[dict[str, dict[str, Any]]], registry: list[str], file: Path, table_names: Sequence[str]
) -> Candidate:
    if tables is None:
        if name not in registry:
            have = f"; or a candidate of {file}'s [advise.candidate]: {', '.join(table_names)}" if table_names else ""
            raise OptionError(
                f"--transports: unknown transport '{name}'; accepted: the transports of this build "
                f"({', '.join(registry)}){have}"
            )
        needs = registry_needs(name)
        needed = [(f"{section}.{key}", value) for section in NEEDS for key, value in needs.get(section, {}).items()]
        return Candidate(
            name, name, (("transport", {"kind": name}), *needed), table=False, needed=tuple(k for k, _ in needed)
        )
    transport = dict(tables.get("transport", {"kind": name}))
    transport.setdefault("kind", name)
    kind = transport["kind"]  # a transport of this build: the engine's reader checked it
    needs = registry_needs(kind) if tables.get("defaults", True) else {}
    overrides: list[Override] = [("transport", transport)]
    needed = []
    for section in NEEDS:
        own = tables.get(section, {})
        # The transport's needs first, each unless the candidate gives that key itself.
        for key, value in needs.get(section, {}).items():
            if key not in own:
                overrides.append((f"{section}.{key}", value))
                needed.append(f"{section}.{key}")
        for key, value in own.items():
            overrides.append((f"{section}.{key}", value))
    return Candidate(name, kind, tuple(overrides), table=True, needed=tuple(needed))


def resolve_candidates(
    sc: Scenario, names: Optional[Sequence[str]], advise: AdviseTable, probes: Sequence[Sequence[Override]]
) -> list[Candidate]:
    """The candidates asked for (``names``, else ``[advise] transports``), each applied to
    the scenario with each of ``probes`` (the search's extreme points) and read by the
    engine, so that a candidate that cannot run is refused before anything runs."""
    asked = list(names) if names else list(advise.transports or [])
    if not asked:
        raise OptionError(
            f"--transports: none given, and {sc.path} has no [advise] transports; accepted: "
            "names such as --transports homa,dctcp"
        )
    if len(set(asked)) != len(asked):
        raise OptionError(f"--transports: a name is given twice in {','.join(asked)}; accepted: distinct names")
    registry = registry_names()
    out = []
    for name in asked:
        if not NAME.match(name):
            raise OptionError(f"--transports: '{name}' is not a name; accepted: letters, digits, _ and -")
        c = _candidate(name, advise.candidates.get(name), registry, sc.path, list(advise.candidates))
        for probe in probes:
            _check_applied(sc, c, probe)
        out.append(c)
    return out


def _check_applied(sc: Scenario, c: Candidate, probe: Sequence[Override]) -> None:
    """Reads the scenario with the candidate's keys and a probe's; an error is located at
    the candidate's key when the candidate set it."""
    try:
        _core.check(str(sc.path), [*sc.overrides, *c.overrides, *probe])
    except ScenarioError as e:
        raise _located(sc.path, c, e) from None


def _located(file: Path, c: Candidate, e: ScenarioError) -> ScenarioError:
    if e.file != str(file):  # a size table or trace: its own file and line
        return e
    at = f"advise.candidate.{c.name}"
    key = e.key_path
    section, _, rest = key.partition(".")

    def sets(k: str) -> bool:
        return k == key or key.startswith(k + ".")

    if any(sets(k) for k in c.needed):
        where = f"[advise.candidate.{c.name}]" if c.table else f"a table [advise.candidate.{c.name}]"
        return ScenarioError(
            e.file,
            key,
            f"{e.message} (set for candidate {c.name} because {c.kind} needs it; "
            f"defaults = false in {where} sets none of {c.kind}'s needs)",
        )
    mine = c.table and ((section == "transport") or any(sets(k) for k, _ in c.overrides if k != "transport"))
    if mine:
        return ScenarioError(e.file, f"{at}.{key}", e.message)
    if section == "transport" and not c.table:
        return ScenarioError(
            e.file,
            key,
            f'{e.message} (candidate {c.name} is [transport] kind = "{c.kind}" '
            f"and nothing else: give it a table [advise.candidate.{c.name}] with that key)",
        )
    set_keys = [k for k, _ in c.overrides if k != "transport"]
    note = (
        f" (with candidate {c.name}'s settings: {', '.join(set_keys)}; a candidate sets keys of the scenario's "
        "[switch], [host] and [routing] and cannot remove one: keep what only some schemes need out of those "
        "tables)"
        if set_keys
        else f' (with candidate {c.name}: [transport] kind = "{c.kind}")'
    )
    return ScenarioError(e.file, key, e.message + note)
