"""The transport advisor's search: per candidate, the highest load at which every SLO
holds, by bisection on the packet engine over seeds (docs/advisor.md, "Which transport
meets my SLO?").

**What is varied.** The scenario's total offered load, through the derived ``load`` key
(docs/scenario.md, "Overrides"): every class's ``load`` is multiplied by one factor so
that they sum to the value, keeping their proportions, each a fraction of its reference
link as the scenario says (``load_basis`` payload or wire). With ``--min-capacity`` the
traffic is fixed at a load L and every link's rate is multiplied by f instead; the
classes' loads become L / f of the faster links, so the search over u = L / f is the same
bisection and the answer is f = L / u.

**The decision at one load** is tailor.decision's rule, shared with the SWP searches
on the packet engine. Each seed is one run (the seed draws arrivals, sizes and
endpoints; at one seed every load has the same messages, the gaps scaled, and so does
every candidate when the load counts payload bytes: common random numbers). Each seed's
verdict on each SLO is the engine's, the one ``tailor run`` prints (docs/results.md,
"SLO verdicts"): not judged with fewer than ``samples_needed(p)`` messages in the SLO's
range (p99: 100), or with messages in range unfinished at the stop (a ``[run] stop``
reached, or messages lost) unless they alone miss it. A load passes when every SLO holds
on every seed, fails when one is missed on a seed, and is undecided otherwise.

**The bisection.** The first round runs the bounds LO and HI together. HI passes: the
answer is "at least HI". LO fails: "none at or above LO". Otherwise the midpoint of the
highest passing and the lowest failing load is run, until they are within the tolerance;
the answer is the highest load that passed, a load that was run, never an interpolation.
An undecided load or a point that failed to run ends that candidate's search, saying
why. Every round runs the probes of every candidate still searching at once, through the
sweep machinery (tailor.sweep.run_points), into one result store: rerunning the same
command finds the finished points there and runs only the others.
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Optional, Sequence

# The decision rule and what it reads live in tailor.decision, shared with the SWP
# searches on the packet engine; they are named here too for the callers that import them so.
from tailor.decision import (  # noqa: F401
    Probe,
    Reporter,
    SeedRun,
    Slo,
    _verdict,
    check_slos,
    describe,
    parse_rate,
    probe,
    run_round,
    scenario_slos,
)
from tailor.errors import ScenarioError
from tailor.scenario import Override, Scenario
from tailor.store import PointSpec, Store
from tailor.transport_advisor.candidates import Candidate

__all__ = ["Axis", "Slo", "SeedRun", "Probe", "Bisection", "Outcome", "Plan", "scenario_slos", "search", "Reporter"]

#: Loads are rounded to this many decimals, so that a rerun asks for the same points.
DECIMALS = 4


@dataclass(frozen=True)
class Axis:
    """What one probe sets: the load (load mode), or at ``capacity_load`` L the load u of
    links scaled by L / u (capacity mode; ``rates`` are the link-rate keys and their bps)."""

    capacity_load: Optional[float] = None
    rates: tuple[tuple[str, int], ...] = ()

    @property
    def capacity(self) -> bool:
        return self.capacity_load is not None

    def factor(self, u: float) -> float:
        """Capacity mode: the links' rate as a multiple of the scenario's at utilisation u."""
        assert self.capacity_load is not None
        return self.capacity_load / u

    def overrides(self, u: float) -> list[Override]:
        if self.capacity_load is None:
            return [("load", u)]
        f = self.factor(u)
        return [("load", u), *((k, f"{max(1, round(bps * f))}bps") for k, bps in self.rates)]


def rate_keys(sc: Scenario) -> tuple[tuple[str, int], ...]:
    """The scenario's link-rate keys (by topology kind) and their rates in bps."""
    doc = tomllib.loads(sc.resolve()["document"])
    topo = doc.get("topology", {})
    if topo.get("kind") == "graph":
        raise ScenarioError(
            str(sc.path),
            "topology.kind",
            "is a graph, whose cables' rates are in its file, not keys a capacity search can scale; "
            "accepted: a parameterised topology with --min-capacity",
        )
    links = {"star": ("link",), "dumbbell": ("host_link", "trunk")}.get(topo.get("kind"), ("host_link", "fabric_link"))
    return tuple((f"topology.{name}.rate", parse_rate(topo[name]["rate"])) for name in links)


# -- the bisection --------------------------------------------------------------------


@dataclass
class Outcome:
    """Where a candidate's search ended: ``found`` (``answer`` passes, ``failed_at``
    fails, within the tolerance), ``all_pass`` (the highest load passes), ``none_pass``
    (the lowest fails), ``undecided`` (too few samples at a probe it needed) or ``error``."""

    kind: str
    answer: Optional[float] = None
    failed_at: Optional[float] = None
    why: str = ""


class Bisection:
    """The search of one candidate over loads in [lo, hi], to ``tolerance``."""

    def __init__(self, lo: float, hi: float, tolerance: float) -> None:
        self.lo, self.hi, self.tolerance = lo, hi, tolerance
        self.probes: dict[float, Probe] = {}
        self.passed: Optional[float] = None
        self.failed: Optional[float] = None
        self.outcome: Optional[Outcome] = None

    def next_loads(self) -> list[float]:
        """The loads to run in the next round (none once the search has ended)."""
        if self.outcome is not None:
            return []
        if not self.probes:
            return [self.hi, self.lo]
        assert self.passed is not None and self.failed is not None
        return [round((self.passed + self.failed) / 2, DECIMALS)]

    def record(self, probes: Sequence[Probe]) -> None:
        """The probes of one round, judged."""
        for p in probes:
            self.probes[p.x] = p
        bad = [p for p in probes if p.verdict in ("error", "undecided")]
        if bad:
            p = min(bad, key=lambda p: p.x)
            self.outcome = Outcome(p.verdict, self.passed, self.failed, f"at {p.x:g}: {p.why}")
            return
        for p in probes:
            if p.verdict == "pass":
                self.passed = p.x if self.passed is None else max(self.passed, p.x)
            else:
                self.failed = p.x if self.failed is None else min(self.failed, p.x)
        self._decide()

    def _decide(self) -> None:
        hi, lo = self.probes.get(self.hi), self.probes.get(self.lo)
        if hi is not None and hi.verdict == "pass":
            why = (
                ""
                if lo is None or lo.verdict == "pass"
                else (f"yet fails at {self.lo:g} ({lo.why}): the SLIs do not rise with the load here")
            )
            self.outcome = Outcome("all_pass", self.hi, None, why)
        elif lo is not None and lo.verdict == "fail":
            self.outcome = Outcome("none_pass", None, self.lo, f"at {self.lo:g}: {lo.why}")
        elif self.passed is not None and self.failed is not None and self.failed < self.passed:
            self.outcome = Outcome(
                "found",
                self.passed,
                self.failed,
                "a load passed above one that failed: the SLIs do not rise with the load here",
            )
        elif self.passed is not None and self.failed is not None and self.failed - self.passed <= self.tolerance + 1e-9:
            self.outcome = Outcome(
                "found", self.passed, self.failed, f"at {self.failed:g}: {self.probes[self.failed].why}"
            )


# -- running rounds -------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """What every probe shares: the scenario, the SLOs, the seeds, the axis and the store."""

    sc: Scenario
    slos: tuple[Slo, ...]
    seeds: tuple[int, ...]
    axis: Axis
    store: Store
    jobs: Optional[int] = None
    ray: Optional[str] = None

    def overrides(self, c: Candidate, x: float, seed: int) -> list[Override]:
        """The scenario's keys at one point: the candidate's, its name, the probe's, the seed."""
        return [
            *self.sc.overrides,
            *c.overrides,
            ("name", f"{self.sc.name}-{c.name}"),
            *self.axis.overrides(x),
            ("seed", seed),
        ]

    def spec(self, c: Candidate, x: float, seed: int) -> PointSpec:
        params: dict[str, Any] = {"candidate": c.name, "load": x, "seed": seed}
        if self.axis.capacity:
            params["capacity"] = round(self.axis.factor(x), 6)
        return PointSpec.resolve(self.sc.path, self.overrides(c, x, seed), "packet", params)


def search(
    plan: Plan,
    candidates: Sequence[Candidate],
    bounds: tuple[float, float],
    tolerance: float,
    reporter: Optional[Reporter] = None,
) -> dict[str, Bisection]:
    """Runs every candidate's bisection, a round at a time; returns them, ended."""
    states = {c.name: Bisection(bounds[0], bounds[1], tolerance) for c in candidates}
    by_name = {c.name: c for c in candidates}
    manifests: dict[str, dict[str, Any]] = {}
    rnd = 0
    while asks := {n: xs for n, st in states.items() if (xs := st.next_loads())}:
        rnd += 1
        specs = {(n, x, s): plan.spec(by_name[n], x, s) for n, xs in asks.items() for x in xs for s in plan.seeds}
        for n in asks:
            _manifest(plan, by_name[n], manifests, [sp for (m, _, _), sp in specs.items() if m == n])
        what = "; ".join(f"{n} at {', '.join(f'{x:g}' for x in xs)}" for n, xs in asks.items())
        failures = run_round(plan.store, list(specs.values()), f"round {rnd}: {what}", reporter, plan.jobs, plan.ray)
        for n, xs in asks.items():
            states[n].record(
                [probe(plan.store, plan.slos, x, [(s, specs[(n, x, s)]) for s in plan.seeds], failures) for x in xs]
            )
    return states


def _manifest(plan: Plan, c: Candidate, manifests: dict[str, dict[str, Any]], specs: list[PointSpec]) -> None:
    """Records the candidate's points as a sweep of the store (axes load and seed), so
    ``tailor.open(store)`` and its summaries see them as any sweep's."""
    m = manifests.get(c.name)
    if m is None:
        text = json.dumps(
            [plan.sc.name, plan.sc.resolve()["config"], list(c.overrides), plan.axis.capacity_load, plan.seeds],
            sort_keys=True,
            default=str,
        )
        m = manifests[c.name] = {
            "name": f"advise-{plan.sc.name}-{c.name}-{hashlib.sha256(text.encode()).hexdigest()[:10]}",
            "scenario": f"{plan.sc.name}-{c.name}",
            "scenario_file": os.fspath(plan.sc.path),
            "base_overrides": [[k, v] for k, v in [*plan.sc.overrides, *c.overrides]],
            "axes": {"load": [], "seed": list(plan.seeds)},
            "engine": "packet",
            "advisor": {"candidate": c.name, "capacity_load": plan.axis.capacity_load},
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "points": [],
        }
    for s in specs:
        if s.params["load"] not in m["axes"]["load"]:
            m["axes"]["load"] = sorted([*m["axes"]["load"], s.params["load"]])
        m["points"].append({"id": s.id, "params": s.params})
    plan.store.create()
    plan.store.add_sweep(m["name"], m)
