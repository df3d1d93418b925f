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

**The decision at one load.** Each seed is one run (the seed draws arrivals, sizes and
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

import contextlib
import hashlib
import json
import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import Decimal, InvalidOperation
from typing import Any, Callable, ContextManager, Optional, Sequence

from tailor import _core
from tailor.errors import PointsFailed, ScenarioError
from tailor.scenario import Override, Scenario
from tailor.stats import bootstrap_ci, samples_needed
from tailor.store import PointSpec, Store
from tailor.sweep import Listener, run_points
from tailor.transport_advisor.candidates import Candidate

__all__ = ["Axis", "Slo", "SeedRun", "Probe", "Bisection", "Outcome", "Plan", "scenario_slos", "search", "Reporter"]

#: Makes a progress listener for one round: (description, number of points).
Reporter = Callable[[str, int], ContextManager[Optional[Listener]]]
#: Loads are rounded to this many decimals, so that a rerun asks for the same points.
DECIMALS = 4


@dataclass(frozen=True)
class Slo:
    """One SLO of the scenario: its class, its position among the class's SLOs, the
    statistic (``mean`` or ``pN``), the bound and the size range as written."""

    cls: str
    index: int
    stat: str
    threshold: float
    max_size: Optional[str] = None
    min_size: Optional[str] = None
    metric: str = "slowdown"

    @property
    def needed(self) -> int:
        """Messages in range per seed for the SLI to be a result (a mean needs one)."""
        return 1 if self.stat == "mean" else samples_needed(float(self.stat[1:]))


def scenario_slos(sc: Scenario, overrides: Sequence[Override]) -> list[Slo]:
    """The SLOs of the scenario as resolved with ``overrides``, class by class (a
    latency bound, ``"50us"``, in nanoseconds as the summary gives it)."""
    doc = tomllib.loads(_core.resolve(str(sc.path), list(overrides))["document"])
    out = []
    for c in doc.get("class", []):
        for i, s in enumerate(c.get("slo", [])):
            t = s.get("threshold")
            threshold = float(t) if isinstance(t, (int, float)) else parse_ns(str(t))
            out.append(Slo(c.get("name", ""), i, str(s.get("sli")), threshold, s.get("max_size"), s.get("min_size"),
                           str(s.get("metric", "slowdown"))))
    return out


_TIME = re.compile(r"^([0-9_]+(?:\.[0-9_]+)?)\s*(ps|ns|us|ms|s)$")


def parse_ns(text: str) -> float:
    """``"50us"`` -> 50000.0 (the scenario reader has accepted it already)."""
    m = _TIME.match(text.strip())
    scale = {"ps": 1e-3, "ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
    return float(m.group(1).replace("_", "")) * scale[m.group(2)] if m else float("nan")


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
    links = {"star": ("link",), "dumbbell": ("host_link", "trunk")}.get(topo.get("kind"), ("host_link", "fabric_link"))
    return tuple((f"topology.{name}.rate", parse_rate(topo[name]["rate"])) for name in links)


_RATE = re.compile(r"^([0-9_]+(?:\.[0-9_]+)?)\s*(bps|Kbps|Mbps|Gbps|Tbps)$")


def parse_rate(text: str) -> int:
    """``"10Gbps"`` -> 10_000_000_000 (the scenario reader has accepted it already)."""
    m = _RATE.match(text.strip())
    scale = {"bps": 1, "Kbps": 10**3, "Mbps": 10**6, "Gbps": 10**9, "Tbps": 10**12}
    try:
        return int(Decimal(m.group(1).replace("_", "")) * scale[m.group(2)]) if m else 0
    except InvalidOperation:
        return 0


# -- one probe: a load, every seed ----------------------------------------------------


@dataclass
class SeedRun:
    """One seed's run at a probe: its point, and the SLIs and counts in SLO order."""

    seed: int
    point: str
    values: list[Optional[float]] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    #: The engine's verdict per SLO (None: not judged) and why it is not judged.
    met: list[Optional[bool]] = field(default_factory=list)
    reasons: list[Optional[str]] = field(default_factory=list)
    incomplete: int = 0
    wall_s: float = 0.0
    events: int = 0
    error: Optional[str] = None


@dataclass
class Probe:
    """A load run on every seed, and its verdict: ``pass``, ``fail``, ``undecided``
    (too few samples) or ``error`` (a point failed to run); ``why`` names the SLO and seed."""

    x: float
    runs: list[SeedRun]
    verdict: str = ""
    why: str = ""

    def judge(self, slos: Sequence[Slo]) -> None:
        errors = [r for r in self.runs if r.error]
        if errors:
            self.verdict, self.why = "error", f"seed {errors[0].seed}: {errors[0].error}"
            return
        missed, short = [], []
        for k in range(len(slos)):
            for r in self.runs:
                if r.met[k] is False:
                    missed.append((k, r, r.values[k]))
                elif r.met[k] is None:
                    short.append((k, r, r.counts[k]))
        if missed:
            k, r, v = max(missed, key=lambda m: (m[2] if m[2] is not None else math.inf) / slos[m[0]].threshold)
            value = f" = {v:.3g} > {slos[k].threshold:g}" if v is not None else f" > {slos[k].threshold:g}"
            unfinished = " (counting messages unfinished at the stop)" if r.incomplete else ""
            self.verdict, self.why = "fail", f"{describe(slos[k])}{value} on seed {r.seed}{unfinished}"
        elif short:
            k, r, n = min(short, key=lambda m: m[2] / slos[m[0]].needed)
            self.verdict = "undecided"
            self.why = f"{describe(slos[k])}: not judged on seed {r.seed}: {r.reasons[k] or 'no message in range'}"
        else:
            self.verdict, self.why = "pass", ""

    def sli(self, k: int) -> dict[str, Any]:
        """SLO ``k`` across seeds: mean, 95 % bootstrap interval of the mean (none for one
        seed), worst seed, the fewest messages in range on a seed, each seed's value."""
        vals = [r.values[k] for r in self.runs]
        got = [v for v in vals if v is not None]
        ci = bootstrap_ci(got) if len(got) >= 2 else None
        return {
            "mean": sum(got) / len(got) if got else None,
            "ci_low": ci[0] if ci else None,
            "ci_high": ci[1] if ci else None,
            "worst": max(got) if got else None,
            "min_count": min(r.counts[k] for r in self.runs) if self.runs and not any(r.error for r in self.runs) else None,
            "per_seed": vals,
        }


def describe(s: Slo) -> str:
    """``w3: p99 slowdown of messages <= 9700B`` (the SLO's SLI as the scenario writes it)."""
    rng = ""
    if s.min_size and s.max_size:
        rng = f" of messages in ({s.min_size}, {s.max_size}]"
    elif s.max_size:
        rng = f" of messages <= {s.max_size}"
    elif s.min_size:
        rng = f" of messages > {s.min_size}"
    return f"{s.cls}: {s.stat} {s.metric}{rng}"


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
            why = "" if lo is None or lo.verdict == "pass" else (
                f"yet fails at {self.lo:g} ({lo.why}): the SLIs do not rise with the load here")
            self.outcome = Outcome("all_pass", self.hi, None, why)
        elif lo is not None and lo.verdict == "fail":
            self.outcome = Outcome("none_pass", None, self.lo, f"at {self.lo:g}: {lo.why}")
        elif self.passed is not None and self.failed is not None and self.failed < self.passed:
            self.outcome = Outcome("found", self.passed, self.failed, "a load passed above one that failed: "
                                   "the SLIs do not rise with the load here")
        elif self.passed is not None and self.failed is not None and self.failed - self.passed <= self.tolerance + 1e-9:
            self.outcome = Outcome("found", self.passed, self.failed, f"at {self.failed:g}: {self.probes[self.failed].why}")


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
        return [*self.sc.overrides, *c.overrides, ("name", f"{self.sc.name}-{c.name}"), *self.axis.overrides(x),
                ("seed", seed)]

    def spec(self, c: Candidate, x: float, seed: int) -> PointSpec:
        params: dict[str, Any] = {"candidate": c.name, "load": x, "seed": seed}
        if self.axis.capacity:
            params["capacity"] = round(self.axis.factor(x), 6)
        return PointSpec.resolve(self.sc.path, self.overrides(c, x, seed), "packet", params)


def search(plan: Plan, candidates: Sequence[Candidate], bounds: tuple[float, float], tolerance: float,
           reporter: Optional[Reporter] = None) -> dict[str, Bisection]:
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
        failures = _run(plan, list(specs.values()), f"round {rnd}: {what}", reporter)
        for n, xs in asks.items():
            states[n].record([_probe(plan, x, [(s, specs[(n, x, s)]) for s in plan.seeds], failures) for x in xs])
    return states


def _run(plan: Plan, specs: list[PointSpec], what: str, reporter: Optional[Reporter]) -> dict[str, str]:
    """Runs one round's points; the failed ones' messages by point id."""
    ctx = reporter(what, len(specs)) if reporter else contextlib.nullcontext(None)
    with ctx as listener:
        try:
            run_points(plan.store, specs, jobs=plan.jobs, ray=plan.ray, listener=listener)
        except PointsFailed as e:
            by_params = {json.dumps(s.params, default=str): s.id for s in specs}
            return {by_params[p]: m for p, m in e.failures.items() if p in by_params}
    return {}


def _probe(plan: Plan, x: float, seeds: list[tuple[int, PointSpec]], failures: dict[str, str]) -> Probe:
    runs = []
    for seed, spec in seeds:
        r = SeedRun(seed, spec.id)
        if spec.id in failures:
            r.error = failures[spec.id]
        else:
            _read(plan, spec.id, r)
        runs.append(r)
    p = Probe(x, runs)
    p.judge(plan.slos)
    return p


def _read(plan: Plan, id: str, r: SeedRun) -> None:
    """Fills ``r`` from point ``id``'s summary.json (checked against its manifest)."""
    meta = plan.store.check(id, ("summary.json",))
    summary = json.loads((plan.store.dir / "points" / id / "summary.json").read_text())
    r.wall_s = float(meta.get("wall_s") or 0.0)
    r.events = int(summary.get("events") or 0)
    r.incomplete = int(summary["messages"]["incomplete"])
    for s in plan.slos:
        reports = summary["classes"][s.cls].get("slo") or []
        rep = reports[s.index] if s.index < len(reports) else {}
        r.values.append(rep.get("value"))
        r.counts.append(int(rep.get("count") or 0))
        r.met.append(_verdict(rep, s, r.incomplete))
        n = int(rep.get("count") or 0)
        r.reasons.append(rep.get("reason") or (f"{n} messages, {s.needed} needed" if r.met[-1] is None else None))


def _verdict(rep: dict[str, Any], s: Slo, incomplete: int) -> Optional[bool]:
    """The engine's verdict on one SLO; for a point a tailor before verdicts counted
    unfinished and too few messages (no ``incomplete`` per SLO), the rule applied here:
    not judged with too few messages, missed with any message unfinished."""
    if "incomplete" in rep:
        return rep.get("met")
    if incomplete:
        return False
    if int(rep.get("count") or 0) < s.needed or rep.get("value") is None:
        return None
    return bool(rep.get("met"))


def _manifest(plan: Plan, c: Candidate, manifests: dict[str, dict[str, Any]], specs: list[PointSpec]) -> None:
    """Records the candidate's points as a sweep of the store (axes load and seed), so
    ``tailor.open(store)`` and its summaries see them as any sweep's."""
    m = manifests.get(c.name)
    if m is None:
        text = json.dumps([plan.sc.name, plan.sc.resolve()["config"], list(c.overrides), plan.axis.capacity_load,
                           plan.seeds], sort_keys=True, default=str)
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


def check_slos(sc: Scenario, slos: Sequence[Slo]) -> None:
    """A scenario the advisor can judge has at least one SLO."""
    if not slos:
        raise ScenarioError(str(sc.path), "class", "no class has an SLO; accepted: at least one class with "
                            'slo = [{ sli = "p99", max_size = "9700B", threshold = 3.0 }] (docs/scenario.md, "SLOs")')
