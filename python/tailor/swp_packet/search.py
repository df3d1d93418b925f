"""The SWP searches on the packet engine (SWP §3.3, §5.2; docs/advisor.md, "Least capacity
on the packet engine" and "Advice that holds").

**At one capacity** (:meth:`Search.trial`) a setting is run on every seed and judged by the
shared rule (tailor.decision): it holds when every SLO holds on every seed. FIFO and strict
priority: one such probe. Weights (drr, hierarchical): the weights are the fast model's
Algorithm 1 answer at that capacity (``tailor._core.advise_weights``), run on the packet
engine; while a class misses, Algorithm 1 continues from them on the packet engine's
losses — per class the largest of SWP eq. 1 over its SLOs, each SLO's value the worst
seed's — with the model search's own step (``tailor._core.transfer``), at most
``iterations`` times, and fails when no class has slack to give.

**Over capacities** (:meth:`Search.least`) feasibility is taken to be monotone in C, as the
model's search and SWP's take it. From a start (the model's answer) the search steps up
(the start fails) or, when asked for the least capacity, down (the start holds), by a
factor that grows 1.1, 1.21, 1.46, ... until the answer is bracketed between a capacity
that fails and one that holds, then bisects until they are within the tolerance
(relative to the holding one). The answer is always a capacity that was run and held,
never an interpolation. In the advice loop (``downward=False``) a start that holds is the
answer: the model's answer is kept when the packet engine confirms it.

An undecided probe (an SLO not judged on a seed) or a failed run ends the search: at the
start with no answer; later with the holding capacity found so far, saying why the
bisection stopped short.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from tailor import _core, fmt
from tailor.decision import Probe, Reporter
from tailor.errors import Cancelled
from tailor.swp_packet.points import PacketPlan, Setting, quantize

__all__ = ["Trial", "Found", "Search", "class_losses", "ITERATIONS", "STEP"]

#: Algorithm 1 iterations on the packet engine's losses at one capacity.
ITERATIONS = 4
#: The first step of the bracketing search, as a factor of the capacity.
STEP = 1.1
#: The search gives up above this multiple of the offered load (the model's limit).
MAX_FACTOR = 64.0


@dataclass
class Trial:
    """A capacity run on the packet engine: its verdict, and every probe (weights: one
    per Algorithm 1 iteration, the last the setting judged)."""

    capacity_bps: float
    verdict: str
    why: str
    setting: Setting
    probes: list[Probe] = field(default_factory=list)
    model_weights: Optional[list[float]] = None

    def to_json(self) -> dict[str, Any]:
        return {
            "capacity_bps": self.capacity_bps,
            "verdict": self.verdict,
            "why": self.why,
            "weights": list(self.setting.weights) if self.setting.weights else None,
            "model_weights": self.model_weights,
            "iterations": len(self.probes),
            "points": [r.point for p in self.probes for r in p.runs],
        }


@dataclass
class Found:
    """Where a search ended. ``outcome``: ``found`` (``capacity_bps`` holds, ``failed_at_bps``
    fails, within the tolerance unless ``why`` says the bisection stopped short), ``held``
    (the start holds: the advice loop's answer), ``floor`` (holds down to the offered
    load), ``not_found`` (fails up to the limit), ``undecided`` or ``error`` at the start."""

    outcome: str
    capacity_bps: Optional[float]
    failed_at_bps: Optional[float]
    answer: Optional[Trial]
    trials: list[Trial]
    why: str = ""

    @property
    def holds(self) -> Optional[bool]:
        """Every SLO held on every seed at the answer (None: the packet engine could not decide)."""
        if self.outcome in ("undecided", "error"):
            return None
        return self.answer is not None and self.answer.verdict == "pass"


def class_losses(plan: PacketPlan, p: Probe, setting: Setting) -> list[float]:
    """Per class of the setting, SWP eq. 1's loss on the packet engine: the largest over its
    SLOs of (worst seed's value - bound) / bound (0 when no SLO had a value)."""
    slos = plan.slos_of(setting)
    out = []
    for c in plan.classes:
        ks = [k for k, s in enumerate(slos) if s.cls == c["name"]]
        if setting.only is not None and not ks:
            continue
        worst = [
            (max(v for r in p.runs if (v := r.values[k]) is not None) - slos[k].threshold) / slos[k].threshold
            for k in ks
            if any(r.values[k] is not None for r in p.runs)
        ]
        out.append(max(worst) if worst else 0.0)
    return out


class Search:
    """The packet-engine searches of one advice: ``weights_at(c, fair)`` gives the model's
    Algorithm 1 weights at a capacity, ``reporter`` makes a progress listener per round."""

    def __init__(
        self,
        plan: PacketPlan,
        weights_at: Callable[[float, bool], list[float]],
        tolerance: float,
        reporter: Optional[Reporter] = None,
        iterations: int = ITERATIONS,
        progress: Optional[Callable[[dict[str, Any]], Any]] = None,
        confirm: Optional[PacketPlan] = None,
    ) -> None:
        self.plan, self.weights_at, self.tolerance = plan, weights_at, tolerance
        self.reporter, self.iterations, self.progress = reporter, iterations, progress
        #: The same search on more seeds, which an answer must also hold on (None: none).
        self.confirm = (
            None if confirm is None else Search(confirm, weights_at, tolerance, reporter, iterations, progress)
        )

    def _probe(self, s: Setting, c: float, what: str) -> Probe:
        # The advisor's progress callback sees each packet round as a "recheck" event, as it
        # saw the Rust re-check's; a false answer stops the search.
        if self.progress is not None and not self.progress(
            {"kind": "recheck", "strategy": s.discipline, "capacity_bps": c}
        ):
            raise Cancelled("the run was cancelled by the caller")
        return self.plan.evaluate([(s, c)], f"{s.discipline}: {what}", self.reporter, early=True)[0]

    def trial(
        self,
        discipline: str,
        c: float,
        *,
        levels: Optional[list[int]] = None,
        only: Optional[int] = None,
        weights: Optional[list[float]] = None,
    ) -> Trial:
        """Capacity ``c`` on the packet engine (see the module's doc); ``weights`` start
        Algorithm 1 instead of the model's answer at ``c``."""
        at = fmt.rate(c)
        if discipline not in ("drr", "hierarchical"):
            s = Setting(discipline, levels=tuple(levels) if levels else None, only=only)
            p = self._probe(s, c, f"{at}" + (f", class {self.plan.classes[only]['name']}" if only is not None else ""))
            return Trial(c, p.verdict, p.why, s, [p])
        model = list(weights) if weights else self.weights_at(c, discipline == "hierarchical")
        w = model
        t = Trial(c, "", "", Setting(discipline, weights=tuple(w)), model_weights=model)
        for it in range(self.iterations + 1):
            t.setting = Setting(discipline, weights=tuple(w))
            p = self._probe(
                t.setting,
                c,
                f"{at}, weights {' '.join(f'{x:.3f}' for x in w)}" + (f" (packet iteration {it})" if it else ""),
            )
            t.probes.append(p)
            t.verdict, t.why = p.verdict, p.why
            if p.verdict != "fail":
                return t
            losses = class_losses(self.plan, p, t.setting)
            if not any(x < 0 for x in losses):
                t.why += "; no class has slack to give (Algorithm 1 on the packet engine's losses)"
                return t
            if it < self.iterations:
                w = _core.transfer(list(w), losses)
        t.why += f"; still after {self.iterations} Algorithm 1 iterations on the packet engine's losses"
        return t

    def least(
        self,
        discipline: str,
        start: float,
        *,
        downward: bool,
        floor: float,
        limit: float,
        levels: Optional[list[int]] = None,
        only: Optional[int] = None,
        weights: Optional[list[float]] = None,
    ) -> Found:
        """The least capacity at which ``discipline`` holds, searched from ``start`` (see the
        module's doc); ``floor`` (the offered load) is never run below, ``limit`` never above.
        With confirmation seeds, an answer that held on the search's seeds is then searched
        on from upward on them all: it holds on every one, or the search moves up."""
        f = self._least(
            discipline, start, downward=downward, floor=floor, limit=limit, levels=levels, only=only, weights=weights
        )
        if self.confirm is None or f.holds is not True or f.answer is None or f.capacity_bps is None:
            return f
        w = list(f.answer.setting.weights) if f.answer.setting.weights else None
        g = self.confirm._least(
            discipline, f.capacity_bps, downward=False, floor=floor, limit=limit, levels=levels, only=only, weights=w
        )
        n = len(self.confirm.plan.seeds)
        if g.outcome == "held":
            f.trials += g.trials
            f.answer = g.answer
            f.why = (f"{f.why}; " if f.why else "") + f"confirmed on {n} seeds"
            return f
        if g.outcome in ("undecided", "error"):
            f.trials += g.trials
            first = g.trials[0] if g.trials else None
            if first is not None and first.verdict == "fail":
                # The answer failed on a seed of the confirmation and no capacity above it
                # could be decided: it is shown with that failure, never as holding.
                f.answer = first
                f.why = f"{fmt.rate(f.capacity_bps)} fails on one of {n} seeds ({first.why}); {g.why}"
                return f
            f.why = (f"{f.why}; " if f.why else "") + f"not confirmed on {n} seeds: {g.why}"
            return f
        g.trials = f.trials + g.trials
        g.why = f"{fmt.rate(f.capacity_bps)} fails on one of {n} seeds; " + g.why
        return g

    def _least(
        self,
        discipline: str,
        start: float,
        *,
        downward: bool,
        floor: float,
        limit: float,
        levels: Optional[list[int]] = None,
        only: Optional[int] = None,
        weights: Optional[list[float]] = None,
    ) -> Found:
        trials: list[Trial] = []

        def run(c: float, w: Optional[list[float]] = None) -> Trial:
            t = self.trial(discipline, c, levels=levels, only=only, weights=w)
            trials.append(t)
            return t

        lo_c = quantize(floor * 1.02)
        first = run(quantize(min(max(start, lo_c), limit)), weights)
        if first.verdict in ("undecided", "error"):
            return Found(first.verdict, None, None, first, trials, f"at {fmt.rate(first.capacity_bps)}: {first.why}")
        step = STEP
        lo: Optional[Trial] = None
        hi: Optional[Trial] = None
        if first.verdict == "pass":
            hi = first
            if not downward:
                return Found("held", hi.capacity_bps, None, hi, trials)
            while lo is None:
                c = quantize(max(hi.capacity_bps / step, lo_c))
                if c >= hi.capacity_bps:
                    return Found(
                        "floor",
                        hi.capacity_bps,
                        None,
                        hi,
                        trials,
                        f"holds down to {fmt.rate(c)}, just above the offered load",
                    )
                t = run(c)
                if t.verdict in ("undecided", "error"):
                    return Found("found", hi.capacity_bps, None, hi, trials, f"stopped at {fmt.rate(c)}: {t.why}")
                if t.verdict == "pass":
                    hi = t
                else:
                    lo = t
                step *= step
        else:
            lo = first
            while hi is None:
                if lo.capacity_bps >= limit:
                    return Found(
                        "not_found", None, lo.capacity_bps, None, trials, f"fails up to {fmt.rate(limit)}: {lo.why}"
                    )
                t = run(quantize(min(lo.capacity_bps * step, limit)))
                if t.verdict in ("undecided", "error"):
                    return Found(t.verdict, None, lo.capacity_bps, t, trials, f"at {fmt.rate(t.capacity_bps)}: {t.why}")
                if t.verdict == "pass":
                    hi = t
                else:
                    lo = t
                step *= step
        return self._bisect(run, lo, hi, trials)

    def _bisect(self, run: Callable[[float], Trial], lo: Trial, hi: Trial, trials: list[Trial]) -> Found:
        while (hi.capacity_bps - lo.capacity_bps) / hi.capacity_bps > self.tolerance:
            mid = quantize(0.5 * (lo.capacity_bps + hi.capacity_bps))
            if mid in (lo.capacity_bps, hi.capacity_bps):
                break
            t = run(mid)
            if t.verdict in ("undecided", "error"):
                return Found(
                    "found",
                    hi.capacity_bps,
                    lo.capacity_bps,
                    hi,
                    trials,
                    f"the bisection stopped at {fmt.rate(mid)}: {t.why}",
                )
            if t.verdict == "pass":
                hi = t
            else:
                lo = t
        return Found("found", hi.capacity_bps, lo.capacity_bps, hi, trials, f"at {fmt.rate(lo.capacity_bps)}: {lo.why}")


def limit_of(offered_bps: float) -> float:
    return offered_bps * MAX_FACTOR
