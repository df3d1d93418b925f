"""The decision at one setting of a packet-engine search, over seeds: one rule for every
search that asks whether a scenario's SLOs hold (docs/advisor.md, "The decision at a
setting"): the transport advisor's load and capacity bisections, and the SWP capacity
and weight searches on the packet engine (tailor.swp_packet; SWP §3.3, §5.2).

**The rule.** Each seed is one run of the packet engine. Each seed's verdict on each SLO is
the engine's, the one ``tailor run`` prints (docs/results.md, "SLO verdicts"): not judged
with fewer than ``samples_needed(p)`` messages in the SLO's range (p99: 100), or with
messages in range unfinished at the stop (a ``[run] stop`` reached, or messages lost) unless
they alone miss it. A setting passes when every SLO holds on every seed, fails when one is
missed on a seed, and is undecided otherwise. The p99 of a seed is the engine's order
statistic, not a mean over seeds with an interval: "holds on every seed" asks the worst of
n seeds to be within the bound, which a bootstrap interval of the mean over three seeds
could not promise (docs/advisor.md says why).

Points run through the sweep machinery (tailor.sweep.run_points: the local pool or Ray,
into a result store that a later call reuses); :func:`run_round` runs one round of them
and :func:`probe` reads a setting's seeds back and judges them.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import tomllib
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any, Callable, ContextManager, Optional, Sequence

from tailor import _core
from tailor.errors import PointsFailed, ScenarioError
from tailor.parse import time_ns
from tailor.result import Result
from tailor.scenario import Override, Scenario
from tailor.stats import bootstrap_ci, samples_needed
from tailor.store import PointSpec, Store
from tailor.sweep import Listener, run_points

__all__ = [
    "RULE",
    "Reporter",
    "Tally",
    "Slo",
    "SeedRun",
    "Probe",
    "scenario_slos",
    "check_slos",
    "describe",
    "parse_rate",
    "run_round",
    "probe",
    "read_point",
]

#: The decision rule across seeds, as reports state it.
RULE = (
    "an SLO holds at a setting when it holds on every seed, each seed judged by the engine's rule: only with "
    "enough messages in the SLO's range (a pN needs 100 / (100 - N): p99 100), and with messages in range "
    "unfinished at the stop only when they alone miss it or it holds even if they never finish"
)

#: Makes a progress listener for one round: (description, number of points).
Reporter = Callable[[str, int], ContextManager[Optional[Listener]]]


class Tally:
    """Counts the points of every round (cached, run, failed) and passes the events on to the
    listener ``reporter(outer)`` makes per round."""

    def __init__(self) -> None:
        self.counts = {"points": 0, "run": 0, "cached": 0, "failed": 0}
        self.inner: Any = None

    def cached(self, point: str, params: dict[str, Any]) -> None:
        self.counts["points"] += 1
        self.counts["cached"] += 1
        if self.inner:
            self.inner.cached(point, params)

    def started(self, point: str, params: dict[str, Any]) -> None:
        if self.inner:
            self.inner.started(point, params)

    def finished(self, point: str, params: dict[str, Any], wall_s: float) -> None:
        self.counts["points"] += 1
        self.counts["run"] += 1
        if self.inner:
            self.inner.finished(point, params, wall_s)

    def failed(self, point: str, params: dict[str, Any], message: str) -> None:
        self.counts["points"] += 1
        self.counts["failed"] += 1
        if self.inner:
            self.inner.failed(point, params, message)

    def reporter(self, outer: Optional[Reporter]) -> Reporter:
        @contextlib.contextmanager
        def make(what: str, total: int) -> Any:
            if outer is None:
                self.inner = None
                yield self
                return
            with outer(what, total) as inner:
                self.inner = inner
                yield self

        return make


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
            threshold = float(t) if isinstance(t, (int, float)) else time_ns(str(t))
            out.append(
                Slo(
                    c.get("name", ""),
                    i,
                    str(s.get("sli")),
                    threshold,
                    s.get("max_size"),
                    s.get("min_size"),
                    str(s.get("metric", "slowdown")),
                )
            )
    return out


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
            "min_count": min(r.counts[k] for r in self.runs)
            if self.runs and not any(r.error for r in self.runs)
            else None,
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


# -- running and reading points -------------------------------------------------------


def run_round(
    store: Store,
    specs: list[PointSpec],
    what: str,
    reporter: Optional[Reporter],
    jobs: Optional[int] = None,
    ray: Optional[str] = None,
) -> dict[str, str]:
    """Runs one round's points (those not in the store already); the failed ones'
    messages by point id."""
    ctx = reporter(what, len(specs)) if reporter else contextlib.nullcontext(None)
    with ctx as listener:
        try:
            run_points(store, specs, jobs=jobs, ray=ray, listener=listener)
        except PointsFailed as e:
            by_params = {json.dumps(s.params, default=str): s.id for s in specs}
            return {by_params[p]: m for p, m in e.failures.items() if p in by_params}
    return {}


def probe(
    store: Store, slos: Sequence[Slo], x: float, seeds: Sequence[tuple[int, PointSpec]], failures: dict[str, str]
) -> Probe:
    """The setting ``x`` run on every seed (``(seed, point)``), read back and judged."""
    runs = []
    for seed, spec in seeds:
        r = SeedRun(seed, spec.id)
        if spec.id in failures:
            r.error = failures[spec.id]
        else:
            read_point(store, slos, spec.id, r)
        runs.append(r)
    p = Probe(x, runs)
    p.judge(slos)
    return p


def read_point(store: Store, slos: Sequence[Slo], id: str, r: SeedRun) -> None:
    """Fills ``r`` from point ``id``'s summary.json (checked against its manifest)."""
    meta = store.check(id, ("summary.json",))
    summary = Result(store.dir / "points" / id).summary
    r.wall_s = float(meta.get("wall_s") or 0.0)
    r.events = int(summary.get("events") or 0)
    r.incomplete = int(summary["messages"]["incomplete"])
    for s in slos:
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


def check_slos(sc: Scenario, slos: Sequence[Slo]) -> None:
    """A scenario the advisor can judge has at least one SLO."""
    if not slos:
        raise ScenarioError(
            str(sc.path),
            "class",
            "no class has an SLO; accepted: at least one class with "
            'slo = [{ sli = "p99", max_size = "9700B", threshold = 3.0 }] (docs/scenario.md, "SLOs")',
        )
