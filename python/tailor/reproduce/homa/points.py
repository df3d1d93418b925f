"""The points of the Homa reproductions: which scenario each runs, for how long, and the
runs themselves.

A point is (transport, workload, load, seed). Its scenario is the shipped file on the
paper's fabric, ``scenarios/homa/w<N>-<load %>.toml`` for Homa and for the SRPT oracle
(run with ``--engine oracle``), ``scenarios/homa/<T>-w<N>-<load %>.toml`` for a baseline
transport T (pfabric, pias, phost, ndp), with the generation end
``class[0].until`` set to the point's length. The file run is written into the
reproduction's directory with that length, so every number can be rerun with
``tailor run``. The points run through the shared runner (``tailor.reproduce.runner``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tailor
from tailor import _core, fmt, parse
from tailor.errors import OptionError
from tailor.reproduce import runner
from tailor.reproduce.homa.buckets import WORKLOADS

__all__ = [
    "Point",
    "LOADS",
    "ORACLE",
    "scenario_dir",
    "scenario_file",
    "transports_with_scenarios",
    "run_points",
    "maximum_text",
]

Say = Callable[[str], None]

#: The loads of the paper's Fig. 12 (a) and (b).
LOADS = (0.5, 0.8)
#: The SRPT oracle's name in the reproductions' tables (the authors' data's "SRPT-Oracle"):
#: Homa's scenario run with ``--engine oracle`` (docs/oracle.md), the lower bound the paper
#: plotted beside the transports.
ORACLE = "srpt-oracle"


@dataclass(frozen=True)
class Point:
    transport: str
    workload: str
    load: float
    seed: int
    #: Generated traffic (the class's ``until``), in microseconds.
    until_us: int
    #: The network load (wire basis) the point is run at instead of its file's, ``load``
    #: staying its label: at most the transport's highest sustainable (``sustainable.py``).
    offered: float | None = None

    @property
    def name(self) -> str:
        return f"{self.transport}-{self.workload.lower()}-{round(self.load * 100)}"

    @property
    def until(self) -> str:
        return f"{self.until_us}us"


def length_us(lengths_at_80: dict[str, float], workload: str, load: float) -> int:
    """The generation length of ``workload`` at ``load``, from its length at 80 % (ms):
    scaled by 0.8 / load so that a point has as many messages at either load."""
    return round(lengths_at_80[workload] * 1000 * 0.8 / load)


def lengths_text(lengths_at_80: dict[str, float], workloads: Sequence[str], loads: Sequence[float]) -> str:
    """``W3 20 ms`` or, for two loads, ``W3 20 ms (80 %) / 32 ms (50 %)``, per workload."""

    def one(w: str) -> str:
        at = [f"{fmt.time(length_us(lengths_at_80, w, x) * 1000)} ({x:.0%})" for x in sorted(loads, reverse=True)]
        return f"{w} " + " / ".join(at) if len(at) > 1 else f"{w} {at[0].split(' (')[0]}"

    return ", ".join(one(w) for w in workloads)


def parse_workloads(text: str) -> list[str]:
    """``--workloads``: a comma-separated list of W1..W5 (any case)."""
    return parse.choices("--workloads", text, WORKLOADS, "workload", case=str.upper)


def parse_loads(text: str) -> list[float]:
    """``--loads``: a comma-separated list of the paper's loads, 0.5 and 0.8."""
    accepted = ", ".join(f"{x:g}" for x in LOADS) + " (comma-separated)"
    return sorted(parse.numbers("--loads", text, accepted, lambda x: x in LOADS, "a load with scenarios"))


def parse_transports(text: str) -> list[str]:
    """``--transports``: a comma-separated list of transport names (lowercase; the SRPT
    oracle as ``srpt-oracle``)."""
    if not parse.split(text):
        raise OptionError(f"--transports: none given; accepted: {', '.join(transports_with_scenarios())}")
    return list(dict.fromkeys(t.lower() for t in parse.split(text)))


def scenario_dir() -> Path:
    """``scenarios/homa``: the first found walking up from the current directory, else
    the one beside this package's source tree (an editable install)."""
    for d in (Path.cwd(), *Path.cwd().parents):
        if (d / "scenarios" / "homa" / "w3-80.toml").is_file():
            return d / "scenarios" / "homa"
    return Path(__file__).resolve().parents[4] / "scenarios" / "homa"


def scenario_file(transport: str, workload: str, load: float) -> Path:
    stem = f"{workload.lower()}-{round(load * 100)}.toml"
    return scenario_dir() / (stem if transport in ("homa", ORACLE) else f"{transport}-{stem}")


def engine_of(transport: str) -> str:
    """The engine a point of ``transport`` runs on: the oracle's own, else the packet engine."""
    return "oracle" if transport == ORACLE else "packet"


def transports_with_scenarios() -> list[str]:
    """The engine's transports (``tailor._core.transports()``) that have a scenario on the
    paper's fabric."""
    names = [t["name"] for t in _core.transports()] + [ORACLE]
    return [t for t in names if any(scenario_file(t, w, x).is_file() for w in WORKLOADS for x in LOADS)]


def check_transports(transports: Sequence[str], workloads: Sequence[str], loads: Sequence[float]) -> None:
    """``--transports``: each one the engine has, with a scenario for every point asked."""
    accepted = transports_with_scenarios()
    for t in transports:
        if t not in accepted:
            raise OptionError(
                f"--transports: '{t}' has no scenarios on the paper's fabric in {scenario_dir()}; accepted: "
                f"{', '.join(accepted) or 'none found'} (the engine's transports with scenarios there)"
            )
        for w in workloads:
            for x in loads:
                if not scenario_file(t, w, x).is_file():
                    raise OptionError(f"--transports: '{t}' has no scenario {scenario_file(t, w, x)}")


def write_scenario(point: Point, dir: Path, why: str) -> Path:
    """The point's scenario with its length, as a file a user can rerun."""
    src = scenario_file(point.transport, point.workload, point.load)
    changes: dict[str, Any] = {"class[0].until": point.until}
    if point.offered is not None:
        changes |= {"class[0].load": point.offered, "class[0].load_basis": "wire"}
    sc = tailor.Scenario.load(src).with_(changes)
    if sc.info["transport"] != point.transport and not (point.transport == ORACLE and sc.info["transport"] == "homa"):
        raise OptionError(f"--transports: {src} runs {sc.info['transport']}, not {point.transport}")
    path = dir / f"{point.name}.toml"
    capped = (
        ""
        if point.offered is None
        else f", class[0].load = {point.offered:g} on the wire basis (the smaller of {point.load:g} and its highest "
        "sustainable load)"
    )
    head = f'# {src.name} with class[0].until = "{point.until}"{capped} ({why}).\n'
    path.write_text(head + sc.resolve()["document"])
    return path


def run_points(
    points: Sequence[Any], work: Path, why: str, say: Say, write: Callable[[Any, Path, str], Path] = write_scenario
) -> dict[Any, Path]:
    """The shared runner (:func:`tailor.reproduce.runner.run_points`) with the Homa
    points' scenario writer by default and their engine: the SRPT oracle's points on the
    oracle, every other (the cluster's, fig14's and sensitivity's carry no transport) on
    the packet engine."""
    return runner.run_points(
        points, work, why, say, write=write, engine=lambda p: engine_of(getattr(p, "transport", "homa"))
    )


def maximum_text(m: dict[str, Any]) -> str:
    """A highest sustainable load across seeds (``homa-fig15``, ``homa-max-load``): "> 90%"
    when every seed stayed above the loads run; else the mean of the seeds' maxima with its
    interval, and how many seeds stayed above (the mean is over the others)."""
    above, seeds, top = m["seeds_above"], m["max_load_seeds"], m["highest_load_run"]
    if above == seeds:
        return f"> {top:.0%}"
    ci = f" [{m['max_load_lo']:.0%}–{m['max_load_hi']:.0%}]" if m["max_load_lo"] is not None else ""
    rest = f" ({above} of {seeds} seeds > {top:.0%})" if above else ""
    return f"{m['max_load']:.0%}{ci}{rest}"
