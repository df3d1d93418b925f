"""Packet-engine points of the SWP searches: the scenario at a capacity, with a discipline,
its weights or levels, and a seed (SWP §3.3, §5.2; docs/advisor.md, "Advice that holds").

A point is the scenario file with overrides, run by the sweep machinery into a result store
(tailor.sweep.run_points), so a second search into the same store reuses every point
already run, and a killed one resumes:

- **capacity** C: the links' rates multiplied by f = C / nominal, the bottleneck the model
  ran at. ``host_scaling = "scaled"``: every link (what follows a link's rate — a window
  written as ``"bdp"`` — follows). ``"fixed"``: only a dumbbell's ``trunk``; the host links
  keep their rate. The traffic stays the same bytes at the same instants (a class written
  with ``load``, a fraction of its host link, is written as the rate it offers), as the
  model's search keeps it (SWP §5.2: the bandwidth at the bottleneck varies, the load not).
- **discipline**: ``switch.scheduler`` (fifo, drr, hierarchical, strict_priority), with
  each class's ``weight`` (drr, hierarchical; floored at a thousandth of the largest, as
  the Rust re-check does, so no DRR quantum grows without bound) or ``priority``
  (strict priority, the model's levels); a key the discipline would refuse is removed.
- **static**: the class alone on a FIFO link (the ``class`` array replaced by that class).
- **seed**: the point's own; at one seed every capacity and setting replays the same
  messages (common random numbers).

``keep`` says what the store keeps of each point (tailor.store.KEEPS): ``all`` every file,
``summary`` summary.json and its SLO verdicts only — what :meth:`PacketPlan.evaluate` reads
back (tailor.decision.read_point), so a search's answer is the same either way and a
second search reuses either kind (docs/advisor.md, "Reproductions", for the bytes).
"""

from __future__ import annotations

import copy
import tomllib
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from tailor import _core
from tailor.decision import Probe, Reporter, Slo, Tally, parse_rate, probe, run_round
from tailor.errors import OptionError, ScenarioError
from tailor.scenario import Override, Scenario
from tailor.store import KEEPS, PointSpec, Store

__all__ = ["Setting", "PacketPlan", "HOST_SCALINGS", "SCHEDULER"]

HOST_SCALINGS = ("scaled", "fixed")
#: The switch scheduler each discipline runs with.
SCHEDULER = {
    "fifo": "fifo",
    "drr": "drr",
    "hierarchical": "hierarchical",
    "priority": "strict_priority",
    "static": "fifo",
}
#: Capacities are rounded to this many bps, weights to this many decimals, so that a rerun
#: of the same search asks for the same points.
CAPACITY_QUANTUM = 1000
WEIGHT_DECIMALS = 6
#: Seeds per wave when a search's probe may stop at its first missed SLO (a confirmation
#: on 19 seeds: 4, 4, 4, 4, 3). Four keeps two to four cores busy; more waves in parallel
#: would spend runs on settings already failed.
WAVE = 4


@dataclass(frozen=True)
class Setting:
    """What the bottleneck does at a point: a discipline with its weights (drr,
    hierarchical) or levels (priority), or for static the one class ``only`` alone."""

    discipline: str
    weights: Optional[tuple[float, ...]] = None
    levels: Optional[tuple[int, ...]] = None
    only: Optional[int] = None


def quantize(capacity_bps: float) -> float:
    return float(max(CAPACITY_QUANTUM, round(capacity_bps / CAPACITY_QUANTUM) * CAPACITY_QUANTUM))


def _links(sc: Scenario, topo: dict[str, Any], host_scaling: str) -> tuple[str, ...]:
    """The topology's link tables that follow the capacity."""
    kind = topo.get("kind")
    if host_scaling == "fixed":
        if kind != "dumbbell":
            raise OptionError(
                f"--host-scaling fixed: {sc.path} has a {kind} topology, with no bottleneck link of its "
                "own; accepted: a dumbbell (its trunk is the bottleneck), or --host-scaling scaled"
            )
        return ("trunk",)
    if kind == "graph":
        raise OptionError(
            f"{sc.path}: topology.kind: is a graph, whose cables' rates are in its file, not keys the capacity "
            "search can scale; accepted: a parameterised topology"
        )
    return {"star": ("link",), "dumbbell": ("host_link", "trunk")}.get(kind, ("host_link", "fabric_link"))


class PacketPlan:
    """What every point of one search shares: the scenario as resolved, its SLOs, the seeds,
    the store, how capacity scales the links, and how the points run (jobs, Ray)."""

    def __init__(
        self,
        sc: Scenario,
        slos: Sequence[Slo],
        seeds: Sequence[int],
        store: Store,
        nominal_bps: float,
        host_scaling: str = "scaled",
        jobs: Optional[int] = None,
        ray: Optional[str] = None,
        keep: str = "all",
    ) -> None:
        if host_scaling not in HOST_SCALINGS:
            raise OptionError(f"--host-scaling: unknown value {host_scaling!r}; accepted: {', '.join(HOST_SCALINGS)}")
        if keep not in KEEPS:
            raise OptionError(f"--keep: unknown value {keep!r}; accepted: {', '.join(KEEPS)}")
        self.keep = keep
        self.sc, self.slos, self.seeds, self.store = sc, tuple(slos), tuple(seeds), store
        self.nominal_bps, self.host_scaling, self.jobs, self.ray = nominal_bps, host_scaling, jobs, ray
        doc = tomllib.loads(sc.resolve()["document"])
        topo = doc.get("topology", {})
        self.rates = tuple((f"topology.{n}.rate", parse_rate(topo[n]["rate"])) for n in _links(sc, topo, host_scaling))
        host_bps = _core.check(str(sc.path), list(sc.overrides))["host_rate_bps"]
        self.classes = [_absolute(sc, i, c, host_bps) for i, c in enumerate(doc.get("class", []))]
        #: Each class's mean offered rate (bps): the floor of the capacity searches.
        self.class_bps = [parse_rate(c["rate"]) for c in self.classes]
        #: Points run and found in the store, per search (discipline) and in all.
        self.counts: dict[str, dict[str, int]] = {}

    @property
    def offered_bps(self) -> float:
        return float(sum(self.class_bps))

    def slos_of(self, s: Setting) -> tuple[Slo, ...]:
        """The SLOs a setting is judged on: static's class alone has only its own."""
        if s.only is None:
            return self.slos
        name = self.classes[s.only]["name"]
        return tuple(x for x in self.slos if x.cls == name)

    def overrides(self, s: Setting, capacity_bps: float, seed: int) -> list[Override]:
        f = capacity_bps / self.nominal_bps
        classes = []
        for k, c in enumerate(self.classes):
            if s.only is not None and k != s.only:
                continue
            c = copy.deepcopy(c)
            c.pop("weight", None)
            c.pop("priority", None)
            if s.weights is not None:
                top = max(s.weights)
                c["weight"] = round(max(s.weights[k], top * 1e-3), WEIGHT_DECIMALS)
            if s.levels is not None:
                c["priority"] = int(s.levels[k])
            classes.append(c)
        keys: list[Override] = [*self.sc.overrides, ("class", classes), ("switch.scheduler", SCHEDULER[s.discipline])]
        keys += [(k, f"{max(1, round(bps * f))}bps") for k, bps in self.rates]
        return [*keys, ("seed", seed)]

    def spec(self, s: Setting, capacity_bps: float, seed: int) -> PointSpec:
        params: dict[str, Any] = {
            "discipline": s.discipline,
            "capacity_bps": capacity_bps,
            "seed": seed,
            "host_scaling": self.host_scaling,
        }
        if s.weights is not None:
            params["weights"] = [round(w, WEIGHT_DECIMALS) for w in s.weights]
        if s.levels is not None:
            params["levels"] = list(s.levels)
        if s.only is not None:
            params["class"] = self.classes[s.only]["name"]
        return PointSpec.resolve(self.sc.path, self.overrides(s, capacity_bps, seed), "packet", params, self.keep)

    def check(self, s: Setting, capacity_bps: float) -> None:
        """Reads a point as the engine would, so a setting it refuses stops the search
        before anything runs."""
        _core.check(str(self.sc.path), self.overrides(s, capacity_bps, self.seeds[0]))

    def evaluate(
        self, asks: Sequence[tuple[Setting, float]], what: str, reporter: Optional[Reporter], early: bool = False
    ) -> list[Probe]:
        """Runs each (setting, capacity) on every seed in one round; each judged by the
        shared rule (tailor.decision) on the setting's SLOs. ``early`` (one ask): the seeds
        run in waves of :data:`WAVE`, and a setting missed on a seed of one wave is judged
        failed without the waves after it: the verdict is the one every seed would give
        (a miss outranks a seed not judged)."""
        if not asks:
            return []
        if early and len(asks) == 1 and len(self.seeds) > WAVE:
            return [self._in_waves(*asks[0], what, reporter)]
        specs = {(i, seed): self.spec(s, c, seed) for i, (s, c) in enumerate(asks) for seed in self.seeds}
        failures = self._round(asks[0][0].discipline, list(specs.values()), what, reporter)
        return [
            probe(self.store, self.slos_of(s), c, [(seed, specs[(i, seed)]) for seed in self.seeds], failures)
            for i, (s, c) in enumerate(asks)
        ]

    def _in_waves(self, s: Setting, c: float, what: str, reporter: Optional[Reporter]) -> Probe:
        # The waves are fixed positions in the seed list, not "the seeds not yet in the
        # store" or the core count, so a failed probe's runs (from which Algorithm 1 takes
        # its next losses) are the same on every machine and on a resumed search.
        specs = [(seed, self.spec(s, c, seed)) for seed in self.seeds]
        failures: dict[str, str] = {}
        for start in range(0, len(specs), WAVE):
            failures.update(self._round(s.discipline, [sp for _, sp in specs[start : start + WAVE]], what, reporter))
            p = probe(self.store, self.slos_of(s), c, specs[: start + WAVE], failures)
            if p.verdict in ("fail", "error"):
                break
        return p

    def _round(self, key: str, specs: list[PointSpec], what: str, reporter: Optional[Reporter]) -> dict[str, str]:
        counted = Tally()
        failures = run_round(self.store, specs, what, counted.reporter(reporter), self.jobs, self.ray)
        mine = self.counts.setdefault(key, {"points": 0, "run": 0, "cached": 0, "failed": 0})
        for k, n in counted.counts.items():
            mine[k] += n
        return failures


def _absolute(sc: Scenario, i: int, c: dict[str, Any], host_bps: int) -> dict[str, Any]:
    """Class ``i``'s table with its offered traffic as a rate (bps), so that scaling the
    links leaves the traffic as it is: ``load`` (a fraction of its host link, payload bytes)
    becomes that rate."""
    c = dict(c)
    if "rate" in c:
        return c
    if "load" not in c:
        raise ScenarioError(
            str(sc.path),
            f"class[{i}]",
            "the SWP packet searches need each class's offered rate; "
            "accepted: a class with rate or load (not a trace or a closed loop)",
        )
    if c.get("load_basis", "payload") != "payload":
        raise ScenarioError(
            str(sc.path),
            f"class[{i}].load_basis",
            "the SWP packet searches keep the payload rate "
            "while the links scale; accepted: payload (or give the class a rate)",
        )
    c["rate"] = f"{round(float(c.pop('load')) * host_bps)}bps"
    c.pop("load_basis", None)
    c.pop("exact_load", None)
    return c
