"""The SWP advisor's answers decided on the packet engine (SWP §3.3, §5.2; docs/advisor.md,
"Least capacity on the packet engine" and "Advice that holds").

The fast model proposes, the packet engine disposes. :func:`packet_advice` takes the model's
report (``tailor._core.advise``) and, per answer, runs the packet engine over seeds through
the sweep machinery (tailor.swp_packet.points), searching (tailor.swp_packet.search):

- ``least=True`` (``tailor advise --min-capacity --engine packet``): the least capacity
  per discipline on the packet engine, the model's answer only the search's start;
- ``least=False`` (the default: advice that holds): the model's answer is re-checked;
  where an SLO fails the search continues on the packet engine from it — Algorithm 1 on the
  packet engine's losses for weights, capacities upward then a bisection for a least
  capacity — until every SLO holds or the search says it cannot.

Each answer gains ``engine``, ``model_form``, ``host_scaling``, ``packet_runs``, ``holds``
(every SLO held on every seed at the answer; None: not decided) and
``model_capacity_bps``; ``packet`` holds its SLOs on the packet engine (per SLO the worst
seed's value, met only when met on every seed), ``packet_search`` every capacity tried.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Optional

from tailor import _core
from tailor.decision import RULE, Probe, Reporter, check_slos, describe, scenario_slos
from tailor.scenario import Scenario
from tailor.store import Store
from tailor.swp_packet.points import HOST_SCALINGS, PacketPlan, Setting, quantize
from tailor.swp_packet.search import ITERATIONS, MAX_FACTOR, Found, Search, Trial

__all__ = ["packet_advice", "HOST_SCALINGS", "DEFAULT_SEEDS", "DEFAULT_CONFIRM_SEEDS", "DEFAULT_TOLERANCE"]

#: Seeds per setting, and the capacity search's relative precision, on the packet engine.
DEFAULT_SEEDS = 3
DEFAULT_TOLERANCE = 0.02
#: Seeds an answer must hold on before it is given: an SLO that binds at an answer held on
#: n seeds holds on a fresh one with probability at least n / (n + 1), and 19 is the least
#: n for 95 % (docs/advisor.md, "Why n seeds promise n / (n + 1)").
DEFAULT_CONFIRM_SEEDS = 19
#: What an answer held on n seeds promises, as reports state it.
PROMISE = (
    "an SLO that binds at an answer held on n seeds holds on a fresh seed with probability at least "
    'n / (n + 1): 75 % for 3, 95 % for 19 (docs/advisor.md, "Why n seeds promise n / (n + 1)")'
)


def packet_advice(
    report: dict[str, Any],
    sc: Scenario,
    *,
    least: bool,
    seeds: int,
    out: Path,
    host_scaling: str = "scaled",
    tolerance: float = DEFAULT_TOLERANCE,
    jobs: Optional[int] = None,
    ray: Optional[str] = None,
    reporter: Optional[Reporter] = None,
    progress: Optional[Callable[[dict[str, Any]], Any]] = None,
    confirm_seeds: Optional[int] = None,
    keep: str = "all",
) -> None:
    """Decides the model's ``report`` (for ``sc``, its seed the first of ``seeds``) on the
    packet engine, in place (see the module's doc); the points go to the store ``out``,
    kept whole or as summaries only (``keep``, tailor.store.KEEPS).
    ``confirm_seeds`` (default :data:`DEFAULT_CONFIRM_SEEDS`; 0 or at most ``seeds``: none):
    a least capacity found must also hold on that many seeds (the search's and the next
    ones), else the search moves up on them all; weights at a capacity are searched on
    them all. Each answer says on how many seeds it held (``held_on_seeds``)."""
    slos = scenario_slos(sc, list(sc.overrides))
    check_slos(sc, slos)
    first = int(report["seed"])
    plan = PacketPlan(
        sc, slos, range(first, first + seeds), Store(out), float(report["nominal_bps"]), host_scaling, jobs, ray, keep
    )
    _check_settings(plan, report)
    cache: dict[tuple[float, bool], list[float]] = {}

    def weights_at(c: float, fair: bool) -> list[float]:
        key = (quantize(c), fair)
        if key not in cache:
            a = json.loads(
                _core.advise_weights(
                    str(sc.path),
                    key[0],
                    fair,
                    seed=first,
                    overrides=list(sc.overrides),
                    model_form=report.get("model_form"),
                    host_scaling=host_scaling,
                )
            )
            cache[key] = a["weights"]
        return cache[key]

    more = None
    if confirm_seeds is None:
        confirm_seeds = DEFAULT_CONFIRM_SEEDS
    if confirm_seeds > seeds:
        more = PacketPlan(
            sc, slos, range(first, first + confirm_seeds), plan.store, plan.nominal_bps, host_scaling, jobs, ray, keep
        )
    search = Search(plan, weights_at, tolerance, reporter, progress=progress, confirm=more)
    counts = [plan.counts] + ([more.counts] if more is not None else [])
    form = report.get("model_form", "calibrated")
    for entry in report["capacity"]:
        _capacity(plan, search, entry, least)
        entry.update(engine="packet" if least else "model", model_form=form, host_scaling=host_scaling)
        entry["packet_runs"] = sum(c.get(entry["strategy"], {}).get("points", 0) for c in counts)
    if report.get("weights") is not None:
        _weights(more or plan, search.confirm or search, report["weights"])
        report["weights"].update(engine="model", model_form=form, host_scaling=host_scaling)
        report["weights"]["packet_runs"] = sum(n["points"] for c in counts for n in c.values())
    report["packet_engine"] = {
        "rule": RULE,
        "seeds": list(plan.seeds),
        "confirm_seeds": list(more.seeds) if more else None,
        "promise": PROMISE,
        "store": str(plan.store.dir),
        "keep": keep,
        "tolerance": tolerance,
        "iterations": ITERATIONS,
        "host_scaling": host_scaling,
        **{k: sum(n[k] for c in counts for n in c.values()) for k in ("run", "cached", "failed")},
    }


def _check_settings(plan: PacketPlan, report: dict[str, Any]) -> None:
    """Every discipline asked, read by the engine at the nominal capacity before anything runs."""
    n = len(plan.classes)
    for entry in report["capacity"] or [report["weights"]]:
        d = entry["strategy"]
        plan.check(
            Setting(
                d,
                weights=(1.0,) * n if d in ("drr", "hierarchical") else None,
                levels=tuple(entry.get("levels") or [0] * n) if d == "priority" else None,
                only=0 if d == "static" else None,
            ),
            plan.nominal_bps,
        )


def _capacity(plan: PacketPlan, search: Search, entry: dict[str, Any], least: bool) -> None:
    d = entry["strategy"]
    model = entry["capacity_bps"]
    entry["model_capacity_bps"] = model
    entry["model_weights"] = entry.get("weights")
    if model is None and not least:
        entry.update(holds=None, packet=None, packet_search=None)
        entry["packet_note"] = "no feasible capacity found by the model"
        return
    # The floor: the offered load as drawn (the model's; a short lognormal sample may
    # offer less than its rate as written), below which no queue is stable.
    offered = float(entry["offered_bps"]) or plan.offered_bps
    if d == "static":
        _static(plan, search, entry, least, offered / plan.offered_bps)
        return
    start = model if model is not None else offered * 1.25
    f = search.least(
        d,
        start,
        downward=least,
        floor=offered,
        limit=offered * MAX_FACTOR,
        levels=entry.get("levels"),
        weights=entry.get("weights"),
    )
    _answer(plan, entry, f, model)


def _static(plan: PacketPlan, search: Search, entry: dict[str, Any], least: bool, drawn: float) -> None:
    """Each class alone on a FIFO link, its own search; the answer is the sum. A class's
    floor is its rate as written times ``drawn`` (the sample's offered load over the written one)."""
    own = entry.get("class_capacity_bps") or [None] * len(plan.classes)
    founds = []
    for k, bps in enumerate(plan.class_bps):
        start = own[k] if own[k] is not None else bps * 1.25
        founds.append(search.least("static", start, downward=least, floor=bps * drawn, limit=bps * MAX_FACTOR, only=k))
    caps = [f.capacity_bps for f in founds]
    holds = [_holds(f) for f in founds]
    entry["packet_search"] = [_search_json(f) for f in founds]
    shown = [f.trials[0] if _holds(f) is False and f.outcome in ("undecided", "error") else f.answer for f in founds]
    entry["packet"] = [v for t in shown if t is not None and t.probes for v in _verdicts(plan, t, entry)] or None
    entry["holds"] = False if False in holds else (None if None in holds else True)
    entry["held_on_seeds"] = _held_on(founds) if entry["holds"] else None
    if entry["holds"] is None:
        entry["packet_note"] = "the packet engine did not decide: " + "; ".join(
            f.why for f in founds if f.holds is None
        )
        return  # the model's answer stands, not verified
    if all(c is not None for c in caps):
        entry["class_capacity_bps"] = caps
        entry["capacity_bps"] = sum(caps)  # type: ignore[arg-type]
    elif any(f.outcome == "not_found" for f in founds):
        entry["class_capacity_bps"] = None
        entry["capacity_bps"] = None


def _held_on(founds: list[Found]) -> Optional[int]:
    """On how many seeds the answer held (the fewest over a static answer's classes), when
    every search's answer held: the search's seeds, or the confirmation's."""
    if not founds or any(f.holds is not True or f.answer is None or not f.answer.probes for f in founds):
        return None
    return min(len(f.answer.probes[-1].runs) for f in founds)  # type: ignore[union-attr]


def _holds(f: Found) -> Optional[bool]:
    """A search's verdict on its answer; an undecided search from a start the packet engine
    rejected does not hold (the start is what would be printed)."""
    if f.outcome in ("undecided", "error") and f.trials and f.trials[0].verdict == "fail":
        return False
    return f.holds


def _answer(plan: PacketPlan, entry: dict[str, Any], f: Found, model: Optional[float]) -> None:
    entry["holds"] = f.holds
    entry["held_on_seeds"] = _held_on([f])
    entry["packet_search"] = _search_json(f)
    t = f.answer
    entry["packet"] = _verdicts(plan, t, entry) if t is not None and t.probes else None
    if f.outcome in ("undecided", "error"):
        first = f.trials[0] if f.trials else None
        if first is not None and first.verdict == "fail" and model is not None:
            # The model's answer failed and the search on from it could not decide: the
            # answer shown is the model's, NOT holding, with the SLOs it missed.
            entry["holds"], entry["held_on_seeds"] = False, None
            entry["packet"] = _verdicts(plan, first, entry)
            entry["packet_note"] = f"the model's answer fails; the search on from it did not decide: {f.why}"
        else:  # not decided: the model's answer stands, shown as not verified (holds None)
            entry["packet_note"] = f"the packet engine did not decide: {f.why}"
        return
    entry["capacity_bps"] = f.capacity_bps
    if t is not None and t.setting.weights is not None:
        entry["weights"] = list(t.setting.weights)


def _weights(plan: PacketPlan, search: Search, w: dict[str, Any]) -> None:
    """Weights mode: the model's weights at the scenario's capacity, continued on the packet
    engine's losses where a class misses."""
    d = w["strategy"]
    w["model_weights"] = list(w["weights"])
    t = search.trial(d, plan.nominal_bps, weights=w["weights"])
    f = Found("held" if t.verdict == "pass" else t.verdict, plan.nominal_bps, None, t, [t], t.why)
    w["holds"] = f.holds
    w["held_on_seeds"] = _held_on([f])
    w["packet_search"] = _search_json(f)
    w["packet"] = _verdicts(plan, t, w)
    w["weights"] = list(t.setting.weights or w["weights"])
    if t.verdict in ("undecided", "error"):
        w["packet_note"] = f"the packet engine did not decide: {t.why}"


def _search_json(f: Found) -> dict[str, Any]:
    return {
        "outcome": f.outcome,
        "capacity_bps": f.capacity_bps,
        "failed_at_bps": f.failed_at_bps,
        "why": f.why,
        "holds": f.holds,
        "trials": [t.to_json() for t in f.trials],
    }


def _verdicts(plan: PacketPlan, t: Trial, entry: dict[str, Any]) -> list[dict[str, Any]]:
    """Each class's SLOs at a trial's last probe, across seeds: the worst seed's value, met
    when met on every seed, missed when missed on one, else not judged (the shared rule)."""
    p: Probe = t.probes[-1]
    slos = plan.slos_of(t.setting)
    texts = {(v["class"], i): s["sli"] for v in entry.get("verdicts") or [] for i, s in enumerate(v["slo"])}
    out = []
    for name in dict.fromkeys(s.cls for s in slos):
        rows = []
        for k, s in enumerate(slos):
            if s.cls != name:
                continue
            vals = [r.values[k] for r in p.runs]
            got = [v for v in vals if v is not None]
            worst = max(got) if got else None
            mets = [r.met[k] for r in p.runs]
            met = False if False in mets else (None if None in mets else True)
            reason = next((r.reasons[k] for r in p.runs if r.met[k] is None), None)
            rows.append(
                {
                    "sli": texts.get((name, s.index), describe(s)),
                    "threshold": s.threshold,
                    "value": worst,
                    "loss": None if worst is None else (worst - s.threshold) / s.threshold,
                    "met": met,
                    "count": min(r.counts[k] for r in p.runs),
                    "per_seed": vals,
                    **({"reason": f"{reason} (a seed)"} if met is None and reason else {}),
                }
            )
        losses = [r["loss"] for r in rows if r["loss"] is not None]
        out.append(
            {
                "class": name,
                "slo": rows,
                "loss": max(losses) if losses else 0.0,
                "met": all(r["met"] is True for r in rows),
                "judged": all(r["met"] is not None for r in rows),
            }
        )
    return out
