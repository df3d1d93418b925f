"""Which transport meets my SLO? For each candidate transport, the highest load at which
every SLO of a scenario holds, or the least capacity at a given load, found by bisection
on the packet engine over seeds (docs/advisor.md, "Which transport meets my SLO?").

    >>> import tailor
    >>> a = tailor.advise_transports("scenarios/advise/w3-rpc-slo.toml")   # its [advise] candidates
    >>> a.ranking                 # the candidates that reached a verdict, best first
    >>> a.answer("homa")          # the highest load meeting every SLO
    >>> a.render(console)         # the ranked table; a.figure(): SLI vs load per transport

``candidates`` reads the scenario's ``[advise]`` table and checks every candidate;
``search`` runs the bisection through the sweep machinery into a result store;
``report`` draws the answer (table, JSON, plot).
"""

from __future__ import annotations

import os
import time
import tomllib
from pathlib import Path
from typing import Any, Optional, Sequence

from tailor.decision import Reporter, Tally, check_slos, scenario_slos
from tailor.errors import OptionError, ScenarioError
from tailor.outdir import check_file
from tailor.parse import time_ns
from tailor.pool import ray_module
from tailor.run import SEED_MAX
from tailor.scenario import Scenario
from tailor.store import Store
from tailor.transport_advisor.candidates import (
    DEFAULT_LOADS,
    DEFAULT_SEEDS,
    DEFAULT_TOLERANCE,
    Candidate,
    check_option,
    read_advise,
    resolve_candidates,
)
from tailor.transport_advisor.report import TransportAdvice, build_report
from tailor.transport_advisor.search import Axis, Plan, rate_keys, search

__all__ = ["advise_transports", "check_advise", "TransportAdvice", "Candidate", "QUICK_TOLERANCE"]

#: The quick form: one seed, and at least this tolerance.
QUICK_TOLERANCE = 0.05


def advise_transports(
    scenario: "Scenario | str | os.PathLike[str]",
    transports: Optional[Sequence[str]] = None,
    *,
    seeds: Optional[int] = None,
    loads: Optional[tuple[float, float]] = None,
    tolerance: Optional[float] = None,
    min_capacity: bool = False,
    load: Optional[float] = None,
    quick: bool = False,
    out: "str | os.PathLike[str] | None" = None,
    jobs: Optional[int] = None,
    ray: Optional[str] = None,
    reporter: Optional[Reporter] = None,
) -> TransportAdvice:
    """Ranks ``transports`` (names of the registry or of the scenario's
    ``[advise.candidate]`` tables; default the scenario's ``[advise] transports``) by the
    highest load at which every SLO holds, or with ``min_capacity`` by the least link
    capacity meeting them at ``load`` (default the scenario's total load).

    ``seeds`` per load (the scenario's seed and the next ones), ``loads`` the bounds
    (LO, HI) and ``tolerance`` the bisection's stop, each defaulting to the scenario's
    ``[advise]`` value, then 3, (0.1, 0.9), 0.02. ``quick``: one seed and a tolerance of
    at least 0.05. Points go to the store ``out`` (default ``sweeps/advise-<name>``) and
    are reused by a later call; the advice is written there as ``advice.json``,
    ``advice.png`` and ``advice.svg`` (``advice-capacity.*`` with ``min_capacity``,
    ``-quick`` added in the quick form). ``jobs`` and ``ray`` are the sweep's
    (docs/sweeps.md, "Execution"); ``reporter(what, points)`` makes a progress listener
    per round. Raises ScenarioError or OptionError (nothing written or run) for a bad
    scenario, candidate or option."""
    sc = scenario if isinstance(scenario, Scenario) else Scenario.load(scenario)
    table = read_advise(sc.path)
    n_seeds = check_option("--seeds", seeds, "seeds") or table.seeds or DEFAULT_SEEDS
    bounds = check_option("--loads", loads, "loads") or table.loads or DEFAULT_LOADS
    tol = check_option("--tolerance", tolerance, "tolerance") or table.tolerance or DEFAULT_TOLERANCE
    if quick:
        n_seeds, tol = 1, max(tol, QUICK_TOLERANCE)
    if tol >= bounds[1] - bounds[0]:
        raise OptionError(
            f"--tolerance: {tol:g} is not below the width of the loads {bounds[0]:g}-{bounds[1]:g}; "
            "accepted: a tolerance below HI - LO"
        )
    if jobs is not None and jobs < 1:
        raise OptionError(f"--jobs: {jobs} is out of range; accepted: 1 or more")
    if ray:
        ray_module(ray)
    doc = tomllib.loads(sc.resolve()["document"])
    _refuse_class_transports(sc, doc)
    axis = _axis(sc, doc, min_capacity, load)
    candidates = resolve_candidates(sc, transports, table, [axis.overrides(bounds[0]), axis.overrides(bounds[1])])
    slos = scenario_slos(sc, list(sc.overrides))
    check_slos(sc, slos)
    if sc.seed + n_seeds - 1 > SEED_MAX:
        raise OptionError(
            f"--seeds: seeds {sc.seed} to {sc.seed + n_seeds - 1} pass 2^63 - 1; accepted: fewer seeds "
            "or a lower scenario seed"
        )
    store = Store(out if out is not None else Path("sweeps") / f"advise-{sc.name}")
    stem = ("advice-capacity" if min_capacity else "advice") + ("-quick" if quick else "")
    for ext in ("json", "png", "svg"):
        check_file(store.dir / f"{stem}.{ext}")
    plan = Plan(sc, tuple(slos), tuple(range(sc.seed, sc.seed + n_seeds)), axis, store, jobs, ray)
    tally = Tally()
    t0 = time.perf_counter()
    states = search(plan, candidates, bounds, tol, tally.reporter(reporter))
    report = build_report(
        plan,
        candidates,
        states,
        bounds=bounds,
        tolerance=tol,
        quick=quick,
        tally=tally.counts,
        wall_s=time.perf_counter() - t0,
        traffic=_traffic(doc),
    )
    advice = TransportAdvice(report)
    report["files"] = [str(p) for p in (store.dir / f"{stem}.{e}" for e in ("json", "png", "svg"))]
    advice.write(store.dir, stem)
    return advice


def check_advise(sc: Scenario) -> list[str]:
    """What ``tailor check`` checks of the transport advisor's input: the scenario file's
    ``[advise]`` table and every candidate it names or defines, applied to the scenario at
    both load bounds and read by the engine, as ``advise --transports`` does before it runs
    anything (and its SLOs, which the advisor needs). Returns the candidates' names, none
    without an ``[advise]`` table; raises ScenarioError as ``advise`` would."""
    table = read_advise(sc.path)
    if not table.present:
        return []
    doc = tomllib.loads(sc.resolve()["document"])
    _refuse_class_transports(sc, doc)
    check_slos(sc, scenario_slos(sc, list(sc.overrides)))
    names = list(dict.fromkeys([*(table.transports or ()), *table.candidates]))
    if not names:
        return []
    bounds = table.loads or DEFAULT_LOADS
    axis = Axis()
    return [
        c.name for c in resolve_candidates(sc, names, table, [axis.overrides(bounds[0]), axis.overrides(bounds[1])])
    ]


def _refuse_class_transports(sc: Scenario, doc: dict[str, Any]) -> None:
    for i, c in enumerate(doc.get("class", [])):
        if "transport" in c:
            raise ScenarioError(
                str(sc.path),
                f"class[{i}].transport",
                "the transport advisor gives every class each "
                "candidate's transport; accepted: classes without a transport of their own (they use "
                "[transport])",
            )


def _axis(sc: Scenario, doc: dict[str, Any], min_capacity: bool, load: Optional[float]) -> Axis:
    if not min_capacity:
        if load is not None:
            raise OptionError(
                "--load: only with --min-capacity (the load at which the least capacity is sought); "
                "without it the advisor searches the load"
            )
        return Axis()
    if load is None:
        loads = [c.get("load") for c in doc.get("class", [])]
        if not loads or not all(isinstance(x, (int, float)) for x in loads):
            raise ScenarioError(
                str(sc.path),
                "class",
                "--min-capacity needs the scenario's load; accepted: classes with load = (or give --load)",
            )
        load = float(sum(loads))
    if not (isinstance(load, (int, float)) and 0 < load <= 64):
        raise OptionError(f"--load: {load!r} is out of range; accepted: a total offered load above 0")
    return Axis(float(load), rate_keys(sc))


def _traffic(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per class, how much traffic it generates as written (``until``, ``messages``) and
    the run's warm-up, for the "generate more" note of an undecided search."""
    warmup = doc.get("run", {}).get("warmup")
    warmup_ns = time_ns(str(warmup)) if warmup is not None else 0.0
    return {
        c.get("name", ""): {"until": c.get("until"), "messages": c.get("messages"), "warmup_ns": warmup_ns}
        for c in doc.get("class", [])
    }
