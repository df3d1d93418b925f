"""The advisor from Python: switch weights that meet every class's SLO, or the least
capacity that can, per discipline (SWP §3.3, §5.2), re-checked on the packet engine.

    >>> import tailor
    >>> a = tailor.advise("scenarios/swp/two-class.toml")
    >>> a.weights            # {'rpc': 0.21, 'bulk': 0.79}
    >>> a.render()           # the table `tailor advise` prints
    >>> a.passed             # every check passed, the model's and the packet engine's
    >>> a.rejected           # the SLOs the packet engine's re-checks found missed

The search itself runs in Rust (``tailor._core.advise``) on the fast model; this module
shapes its report for people.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from rich import box
from rich.console import Console
from rich.table import Table

from tailor import _core, fmt
from tailor.decision import Reporter
from tailor.errors import DisciplineError, OptionError, ScenarioError
from tailor.run import SEED_MAX
from tailor.scenario import Scenario
from tailor.store import KEEPS

__all__ = [
    "DISCIPLINES",
    "HOST_SCALINGS",
    "MODEL_FORMS",
    "Advice",
    "Rejection",
    "advise",
    "check_samples",
    "describe_event",
]

#: The disciplines the advisor compares, by their command-line names.
DISCIPLINES = {
    "fifo": "shared FIFO",
    "drr": "per-class FIFO, SWP weights",
    "hierarchical": "SWP weights + fair queueing in each class",
    "priority": "strict priority (tightest SLO first)",
    "static": "static per-class provisioning",
}

#: The fast model's forms (docs/model.md, "The paper-literal form").
MODEL_FORMS = ("calibrated", "paper")

#: How a capacity other than the scenario's is read (docs/advisor.md, "Capacity scaling:
#: both readings").
HOST_SCALINGS = ("scaled", "fixed")


@dataclass(frozen=True)
class Rejection:
    """An SLO the packet engine's re-check found missed: the answer's discipline and
    capacity, the class, the SLI and its value against the bound."""

    discipline: str
    capacity_bps: float
    class_name: str
    sli: str
    value: float
    threshold: float

    def __str__(self) -> str:
        return (
            f"{DISCIPLINES[self.discipline]} at {fmt.rate(self.capacity_bps)}: class {self.class_name}, "
            f"{short_sli(self.sli)} = {self.value:.3f} > {self.threshold:.3g}"
        )


@dataclass(frozen=True)
class Advice:
    """What ``advise`` found; ``report`` is the engine's JSON report as a dict.

    ``passed`` is what the command's exit status says: every check passed — the model
    meets every SLO with the weights found (weights mode) and the packet engine's
    re-check of every answer holds (``rechecked``, ``rejected``)."""

    report: dict[str, Any]

    @property
    def weights(self) -> Optional[dict[str, float]]:
        """Weights mode: the recommended weight per class."""
        w = self.report.get("weights")
        if w is None:
            return None
        return {v["class"]: x for v, x in zip(w["verdicts"], w["weights"], strict=True)}

    @property
    def met(self) -> Optional[bool]:
        """Weights mode: whether the model says every class meets its SLOs with the
        recommended weights."""
        w = self.report.get("weights")
        return None if w is None else all(v["met"] for v in w["verdicts"])

    @property
    def rechecked(self) -> Optional[bool]:
        """Whether every answer decided on the packet engine holds there (``holds``: every
        SLO on every seed); None when the packet engine decided no answer (``recheck=False``,
        or no capacity found). An answer the packet engine could not decide (an SLO not
        judged) counts as not holding."""
        checked = [
            a for a in _answers(self.report) if a.get("packet_search") is not None and a.get("capacity_bps") is not None
        ]
        return None if not checked else all(a.get("holds") is True for a in checked)

    @property
    def rejected(self) -> list[Rejection]:
        """The SLOs the packet engine found missed at the answers given (an answer the
        search corrected is not listed: the answer given is the corrected one)."""
        return [
            Rejection(strategy, cap, v["class"], slo["sli"], slo["value"], slo["threshold"])
            for strategy, cap, packet in self._packet_checks()
            for v in packet
            for slo in v["slo"]
            if slo["met"] is False
        ]

    @property
    def passed(self) -> bool:
        """Every check passed: the model's verdict (weights mode) and every answer held on
        the packet engine."""
        return self.met is not False and self.rechecked is not False

    @property
    def packet_runs(self) -> int:
        """Packet-engine runs the answers took (found in the store or run)."""
        pe = self.report.get("packet_engine")
        return 0 if pe is None else int(pe["run"]) + int(pe["cached"])

    @property
    def unjudged(self) -> list[tuple[str, str, str, str]]:
        """The SLOs the model or a re-check could not judge (``met`` null: too few
        messages in range; docs/results.md, "SLO verdicts"), as (answer, engine, class,
        reason): the search decided on their values anyway (SWP eq. 1), so an answer that
        rests on them is shown so."""
        return [
            (a["strategy"], engine, v["class"], f"{slo['sli']}: {slo.get('reason') or 'no message in range'}")
            for a in _answers(self.report)
            for engine, verdicts in (("model", a.get("verdicts") or []), ("packet", a.get("packet") or []))
            for v in verdicts
            for slo in v["slo"]
            if slo["met"] is None
        ]

    @property
    def nothing_meets(self) -> bool:
        """Minimum-capacity mode: no discipline found a capacity meeting every SLO up to
        the search's limit (the command exits 3)."""
        caps = self.report.get("capacity") or []
        return bool(caps) and all(c["capacity_bps"] is None for c in caps)

    def _packet_checks(self) -> list[tuple[str, float, list[dict[str, Any]]]]:
        return [
            (a["strategy"], a["capacity_bps"], a["packet"])
            for a in _answers(self.report)
            if a.get("packet") is not None and a.get("capacity_bps") is not None
        ]

    def capacity(self, discipline: str) -> Optional[float]:
        """Minimum-capacity mode: the least capacity (bps) found for a discipline."""
        for c in self.report["capacity"]:
            if c["strategy"] == discipline:
                return c["capacity_bps"]
        raise KeyError(f"{discipline!r} was not searched")

    def to_json(self) -> str:
        """The engine's report with the verdicts above: ``passed``, ``rechecked``,
        ``rejected`` (a list of :class:`Rejection` fields) and ``unjudged``."""
        verdicts = {
            "passed": self.passed,
            "rechecked": self.rechecked,
            "rejected": [dataclasses.asdict(x) for x in self.rejected],
            "unjudged": [dict(zip(("strategy", "engine", "class", "reason"), u, strict=False)) for u in self.unjudged],
        }
        return json.dumps({**self.report, **verdicts}, indent=2)

    def render(self, console: Console) -> None:
        r = self.report
        console.print(
            f"advise: {r['scenario']} (seed {r['seed']}), link {fmt.rate(r['nominal_bps'])}, "
            f"offered {fmt.rate(r['offered_bps'])}, {r['messages']:,} messages",
            highlight=False,
        )
        if r["weights"] is not None:
            _render_weights(r["weights"], console)
        if r["capacity"]:
            _render_capacity(r["capacity"], console)
        rejected = self.rejected
        if rejected:
            console.print(f"the packet engine rejects {len(rejected)} SLO(s):", highlight=False)
            for x in rejected:
                console.print(f"  {x}", highlight=False)
        unjudged = self.unjudged
        if unjudged:
            console.print(
                f"not judged, {len(unjudged)} SLO verdict(s): the search went by their values, too few "
                'messages to be a result (docs/results.md, "SLO verdicts"):',
                highlight=False,
            )
            for strategy, engine, cls, why in unjudged:
                console.print(f"  {DISCIPLINES.get(strategy, strategy)}, {engine}: {cls}: {why}", highlight=False)
        pe = r.get("packet_engine")
        if pe is not None:
            seeds = pe["confirm_seeds"] or pe["seeds"]
            console.print(
                f"packet engine: seeds {seeds[0]}-{seeds[-1]}, {self.packet_runs} runs ({pe['run']} run, "
                f"{pe['cached']} found in {pe['store']}/"
                + (f", {pe['failed']} failed" if pe["failed"] else "")
                + (", kept as summaries only" if pe.get("keep") == "summary" else "")
                + f"); rule: {pe['rule']}"
                + (f"; {pe['promise']}" if pe.get("promise") else ""),
                highlight=False,
            )
        console.print(f"fast model {r['model_seconds']:.2f} s", highlight=False)


def short_sli(sli: str) -> str:
    """'p99 slowdown of messages in (0 B, 125000 B]' -> 'p99 slowdown <= 125 KB'."""
    m = re.fullmatch(r"(.*) of messages in \((\d+) B, (inf|\d+ B)\]", sli)
    if m is None:
        return sli
    what, lo, hi = m.group(1), int(m.group(2)), m.group(3)
    if hi == "inf":
        return f"{what} > {fmt.size(lo)}"
    hi_b = int(hi.split()[0])
    return f"{what} <= {fmt.size(hi_b)}" if lo == 0 else f"{what} ({fmt.size(lo)}, {fmt.size(hi_b)}]"


def _mark(slo: dict[str, Any]) -> str:
    return fmt.verdict(slo)[0]


def slos_met(verdicts: list[dict[str, Any]]) -> tuple[int, int]:
    """Of the SLOs a packet-engine re-check judged (``met`` not null: enough messages in
    range, none left unfinished), how many held: (met, judged)."""
    judged = [s for v in verdicts for s in v["slo"] if s["met"] is not None]
    return sum(bool(s["met"]) for s in judged), len(judged)


def _verdict_rows(
    table: Table, model: list[dict], packet: Optional[list[dict]], weights: Optional[list[float]]
) -> None:
    for k, cv in enumerate(model):
        pv = packet[k] if packet is not None else None
        for i, slo in enumerate(cv["slo"]):
            ps = pv["slo"][i] if pv is not None else None
            table.add_row(
                cv["class"] if i == 0 else "",
                (fmt.stat(weights[k], ".3f") if weights is not None else "") if i == 0 else "",
                short_sli(slo["sli"]),
                f"<= {slo['threshold']:.3g}",
                fmt.stat(slo["value"], ".3f"),
                fmt.stat(slo["loss"], "+.3f"),
                _mark(slo),
                fmt.stat(ps["value"], ".3f") if ps else fmt.NONE,
                fmt.stat(ps["loss"], "+.3f") if ps else fmt.NONE,
                _mark(ps) if ps else fmt.NONE,
            )


def _slo_table(title: str, with_weight: bool) -> Table:
    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    for name, justify in [
        ("class", "left"),
        ("weight" if with_weight else "", "right"),
        ("SLI", "left"),
        ("SLO", "right"),
        ("model", "right"),
        ("loss", "right"),
        ("", "left"),
        ("packet, worst seed", "right"),
        ("loss ", "right"),
        (" ", "left"),
    ]:
        t.add_column(name, justify=justify)  # type: ignore[arg-type]
    return t


def _render_weights(w: dict[str, Any], console: Console) -> None:
    steps = len(w["trajectory"])
    outcome = {
        "met": "every SLO met",
        "no_slack": "NOT MET: no class had slack to give; showing the closest point",
        "timed_out": "NOT MET: iteration limit reached; showing the closest point",
    }
    title = (
        f"{DISCIPLINES[w['strategy']]} at {fmt.rate(w['capacity_bps'])}: {outcome.get(w['outcome'], w['outcome'])} "
        f"(evaluation {w['chosen'] + 1} of {steps}); baselines " + " ".join(f"{b:.3f}" for b in w["baselines"])
    )
    t = _slo_table(title, with_weight=True)
    _verdict_rows(t, w["verdicts"], w["packet"], w["weights"])
    console.print(t)
    if w.get("model_weights") is not None and w["model_weights"] != w["weights"]:
        console.print(
            "the model's weights " + " ".join(f"{x:.3f}" for x in w["model_weights"]) + " missed an SLO on "
            "the packet engine; Algorithm 1 went on from them on the packet engine's losses",
            highlight=False,
        )
    console.print(
        f"packet engine: {_packet_text(w)}"
        + (f" ({w['packet_search']['why']})" if w.get("holds") is False and w.get("packet_search") else ""),
        highlight=False,
    )


def _packet_text(a: dict[str, Any]) -> str:
    """How the packet engine judged an answer: it holds, it does NOT hold, or not decided."""
    if a.get("holds") is True:
        n = a.get("held_on_seeds")
        return f"holds{f' on {n} seeds' if n else ''} ({a.get('packet_runs', 0)} runs)"
    if a.get("holds") is False and a.get("packet"):
        met, judged = slos_met(a["packet"])
        return f"NOT HOLDING: {met}/{judged} SLOs met"
    if a.get("packet_note"):
        return str(a["packet_note"])
    return fmt.NONE if a.get("packet_search") is None else "NOT DECIDED"


def _render_capacity(caps: list[dict[str, Any]], console: Console) -> None:
    ref = next((c["capacity_bps"] for c in caps if c["strategy"] == "drr" and c["capacity_bps"]), None)
    packet = any(c.get("engine") == "packet" for c in caps)
    checked = any(c.get("above_fifo") for c in caps)
    t = Table(
        title="least capacity meeting every SLO" + (", searched on the packet engine" if packet else ""),
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    names = ["discipline", "capacity", "x offered", "vs SWP weights", "model's answer", "packet engine", "setting"]
    for name in names:
        t.add_column(name, justify="left" if name in ("discipline", "setting", "packet engine") else "right")
    if checked:
        t.add_column("model's FIFO check", no_wrap=True)
    for c in caps:
        cap = c["capacity_bps"]
        if c.get("weights"):
            setting = "weights " + " ".join(f"{x:.3f}" for x in c["weights"])
        elif c.get("class_capacity_bps"):
            setting = "per class " + " ".join(fmt.rate(x) for x in c["class_capacity_bps"])
        elif c.get("levels"):
            setting = "levels " + " ".join(str(x) for x in c["levels"])
        else:
            setting = ""
        shown = fmt.rate(cap) if cap is not None else f"> {fmt.rate(c['limit_bps'])}"
        if cap is not None and c.get("holds") is None and c.get("packet_search") is not None:
            shown += " (not verified)"
        model = c.get("model_capacity_bps", cap)
        t.add_row(
            DISCIPLINES[c["strategy"]],
            shown,
            f"{cap / c['offered_bps']:.2f}" if cap and c["offered_bps"] > 0 else fmt.NONE,
            fmt.change(cap / ref - 1, 0) if cap and ref else fmt.NONE,
            fmt.rate(model) if model is not None else "none found",
            _packet_text(c),
            setting,
            *([_fifo_check_text(c.get("above_fifo"))] if checked else []),
        )
    console.print(t)
    for c in caps:
        search = c.get("packet_search")
        if isinstance(search, dict) and search.get("why") and c.get("holds") is not True:
            console.print(f"  {DISCIPLINES[c['strategy']]}: {search['why']}", highlight=False)


def _fifo_check_text(a: Optional[dict[str, Any]]) -> str:
    """The model's check of a weighted answer above shared FIFO's least capacity
    (``above_fifo``; docs/advisor.md, "The check against shared FIFO"), in a cell: FIFO's
    capacity, how many of the grid's weight vectors meet every SLO there, the best worst
    loss (and, where none met, the compass search's from it); ``fixed`` (an optimizer failure,
    searched again below FIFO's) with the first answer."""
    if not a:
        return ""
    text = f"FIFO {fmt.rate(a['fifo_bps'])}: {a['grid_met']}/{a['grid_points']} meet, best {a['best_worst_loss']:+.3f}"
    if a.get("refine_points"):
        text += f", {a['refine_points']} more from it: {a['refined_worst_loss']:+.3f}"
    if a["fixed"]:
        first = fmt.rate(a["search_bps"]) if a.get("search_bps") is not None else "none"
        return f"fixed (was {first}); {text}"
    return text


def describe_event(e: dict[str, Any]) -> str:
    """One line for a progress event of the search; a step of a weighted answer's check
    against shared FIFO (``check == "fifo"``) says so, with whose answer it checks."""
    if e.get("check") == "fifo":
        inner = describe_event({k: v for k, v in e.items() if k not in ("check", "of")})
        return f"fifo check ({DISCIPLINES.get(e['of'], e['of'])}): {inner}"
    s = DISCIPLINES.get(e["strategy"], e["strategy"])
    at = fmt.rate(e["capacity_bps"])
    if e["kind"] == "baselines":
        return f"{s} at {at}: baseline weights (each class against backlogged others)"
    if e["kind"] == "iteration":
        worst = max(e["losses"]) if e["losses"] else 0.0
        return f"{s} at {at}: iteration {e['iteration'] + 1}, worst loss {worst:+.3f}"
    if e["kind"] == "probe":
        hi = "?" if e["hi_bps"] is None else fmt.rate(e["hi_bps"])
        return f"{s}: trying {at} (answer in ({fmt.rate(e['lo_bps'])}, {hi}])"
    return f"{s} at {at}: re-checking on the packet engine"


def check_samples(sc: Scenario) -> None:
    """Raises ScenarioError naming every SLO whose size range is expected to get fewer
    messages over the scenario's horizon than its statistic needs (a p99: 100;
    ``_core.slo_counts``, docs/advisor.md "Too few messages to judge"), with the count
    expected, the count needed and the ``until`` that would give it: no seed could judge
    such an SLO, so a search would only report it not judged, after minutes of runs."""
    short = [e for e in json.loads(_core.slo_counts(str(sc.path), list(sc.overrides))) if e["expected"] < e["needed"]]
    if not short:
        return

    def one(e: dict[str, Any]) -> str:
        end = {"until": "until", "stop": "[run] stop", "messages": "its last message"}[e["limited_by"]]
        if not e["until_needed_ns"]:
            gives = "no message size of the class falls in its range"
        elif e["limited_by"] == "messages":
            gives = f"messages = {math.ceil(e['needed'] / e['share'])} after the warm-up would give them"
        else:
            gives = (
                f"until = {_until(e['until_needed_ns'])}"
                + (" and a [run] stop after it" if end != "until" else "")
                + " would give them"
            )
        return (
            f"class {e['class']}, {short_sli(e['sli'])}: {e['expected']:.1f} messages expected from "
            f"{fmt.time(e['from_ns'])} to {end} at {fmt.time(e['to_ns'])}, {e['needed']} needed ({gives})"
        )

    needs = [e["until_needed_ns"] for e in short if e["until_needed_ns"]]
    first = short[0]
    raise ScenarioError(
        str(sc.path),
        f"class[{first['class_index']}].slo[{first['slo_index']}]",
        f"too few messages to judge {len(short)} SLO(s), even in the mean: "
        + "; ".join(one(e) for e in short)
        + "; accepted: a horizon that gives each SLO the messages it needs"
        + (f" (until = {_until(max(needs))} for all)" if needs else "")
        + ", or --allow-unjudged to search anyway (those SLOs are then reported not judged)",
    )


def _until(ns: float) -> str:
    """A class's ``until`` as a scenario writes it, rounded up: ``"182ms"``."""
    return f'"{math.ceil(ns / 1e6)}ms"' if ns >= 1e6 else f'"{math.ceil(ns / 1e3)}us"'


def _check_packet_seeds(first: int, seeds: int, confirm_seeds: Optional[int], packet: bool) -> None:
    """Refused before anything runs: ``confirm_seeds`` out of range, or (when the packet
    engine runs) its seeds, from ``first``, passing the engine's largest seed."""
    if confirm_seeds is not None and not (0 <= confirm_seeds <= 100):
        raise OptionError(
            f"--confirm-seeds: {confirm_seeds} is out of range; accepted: an integer from 0 (none) to 100"
        )
    last = first + max(seeds, confirm_seeds or 0) - 1
    if packet and last > SEED_MAX:
        raise OptionError(
            f"--seeds: the packet engine's seeds {first} to {last} pass 2^63 - 1; accepted: fewer seeds "
            "or a lower --seed"
        )


def advise(
    scenario: "Scenario | str | os.PathLike[str]",
    *,
    seed: Optional[int] = None,
    min_capacity: bool = False,
    disciplines: Optional[Sequence[str]] = None,
    recheck: bool = True,
    tolerance: Optional[float] = None,
    progress: Optional[Callable[[dict[str, Any]], Any]] = None,
    engine: str = "model",
    seeds: Optional[int] = None,
    out: "str | os.PathLike[str] | None" = None,
    ray: Optional[str] = None,
    workers: Optional[int] = None,
    host_scaling: str = "scaled",
    model_form: Optional[str] = None,
    reporter: Optional[Reporter] = None,
    confirm_seeds: Optional[int] = None,
    keep: str = "all",
    allow_unjudged: bool = True,
) -> Advice:
    """Runs the advisor on a scenario file.

    Without ``min_capacity``: Algorithm 1's weights at the scenario's capacity for one
    weighted discipline (``"drr"`` or ``"hierarchical"``; default the scenario's own).
    With it: the least capacity per discipline (default all of :data:`DISCIPLINES`).

    ``engine="model"`` (the default): the fast model searches, then each answer is decided
    on the packet engine over ``seeds`` seeds (default 3) and, where an SLO fails, the
    search continues there until every SLO holds or it cannot (``recheck=False``: the
    model's answer only). ``engine="packet"`` (with ``min_capacity``): the least capacity
    per discipline found on the packet engine, the model's answer only the start.
    Packet points go to the result store ``out`` (default ``sweeps/advise-<name>``),
    reused by a later call; ``workers`` and ``ray`` are the sweep's; ``reporter(what,
    points)`` makes a progress listener per round; ``host_scaling`` says which links a
    capacity scales (``scaled``: all; ``fixed``: a dumbbell's trunk). ``tolerance``: the
    capacity searches' relative precision (default 0.01 on the model, 0.02 on the packet
    engine). ``confirm_seeds`` (default 19; 0: none): an answer found on ``seeds`` seeds must
    also hold on this many, which makes an SLO that binds there hold on a fresh seed with
    probability at least 95 % (docs/advisor.md, "Why n seeds promise n / (n + 1)"). Each answer says ``holds``; the result's ``passed`` whether every one held.
    ``model_form``: ``"calibrated"`` or ``"paper"`` (default: the scenario's ``[model] form``,
    docs/model.md "The paper-literal form"); ``host_scaling`` is read by the model too
    (docs/advisor.md "Capacity scaling: both readings"). Raises ScenarioError for a scenario
    outside the fast model's scope (docs/model.md), OptionError or DisciplineError for a bad
    option (nothing run). ``keep``: each packet run's every file (``"all"``) or its summary
    and verdicts only (``"summary"``, a tenth of the bytes, the same answer).
    ``allow_unjudged=False`` (the command line's default): refused before anything runs
    when an SLO's range expects too few messages to judge (:func:`check_samples`).
    """
    from tailor.swp_packet import DEFAULT_SEEDS, DEFAULT_TOLERANCE, packet_advice

    names = list(dict.fromkeys(disciplines or []))
    _check_options(names, min_capacity, seed, tolerance, engine, recheck, seeds, host_scaling, workers, model_form)
    sc = _checked_scenario(
        scenario, seed, seeds, confirm_seeds, keep, allow_unjudged, ray, packet=engine == "packet" or recheck
    )
    text = _core.advise(
        str(sc.path),
        seed=seed,
        min_capacity=min_capacity,
        strategies=names or None,
        recheck=False,
        progress=progress,
        tolerance=0.01 if tolerance is None else tolerance,
        overrides=list(sc.overrides),
        model_form=model_form,
        host_scaling=host_scaling,
    )
    report = json.loads(text)
    if engine == "packet" or recheck:
        n = DEFAULT_SEEDS if seeds is None else seeds
        store = Path(out) if out is not None else Path("sweeps") / f"advise-{sc.name}"
        packet_advice(
            report,
            sc,
            least=engine == "packet",
            seeds=n,
            out=store,
            host_scaling=host_scaling,
            tolerance=DEFAULT_TOLERANCE if tolerance is None else tolerance,
            jobs=workers,
            ray=ray,
            reporter=reporter,
            progress=progress,
            confirm_seeds=confirm_seeds,
            keep=keep,
        )
    else:
        for a in _answers(report):
            a.update(
                engine="model",
                model_form=report["model_form"],
                host_scaling=report["host_scaling"],
                packet_runs=0,
                holds=None,
                model_capacity_bps=a["capacity_bps"],
                packet_note="not requested (--no-recheck): the model's answer alone",
            )
    return Advice(report)


def _checked_scenario(
    scenario: "Scenario | str | os.PathLike[str]",
    seed: Optional[int],
    seeds: Optional[int],
    confirm_seeds: Optional[int],
    keep: str,
    allow_unjudged: bool,
    ray: Optional[str],
    *,
    packet: bool,
) -> Scenario:
    """The scenario, loaded, after every refusal that must come before anything runs: ``keep``,
    SLOs too rare to judge (unless allowed), the packet seeds, and Ray's availability."""
    from tailor.swp_packet import DEFAULT_CONFIRM_SEEDS, DEFAULT_SEEDS

    if keep not in KEEPS:
        raise OptionError(f"--keep: unknown value {keep!r}; accepted: {', '.join(KEEPS)}")
    sc = scenario if isinstance(scenario, Scenario) else Scenario.load(scenario)
    if not allow_unjudged:
        _core.model_scope(str(sc.path), list(sc.overrides))  # a scenario out of scope says so first
        check_samples(sc)
    _check_packet_seeds(
        sc.seed if seed is None else seed,
        DEFAULT_SEEDS if seeds is None else seeds,
        DEFAULT_CONFIRM_SEEDS if confirm_seeds is None else confirm_seeds,
        packet=packet,
    )
    if ray:
        from tailor.pool import ray_module

        ray_module(ray)
    return sc


def _answers(report: dict[str, Any]) -> list[dict[str, Any]]:
    return ([report["weights"]] if report.get("weights") is not None else []) + list(report.get("capacity") or [])


def _check_options(
    names: list[str],
    min_capacity: bool,
    seed: Optional[int],
    tolerance: Optional[float],
    engine: str,
    recheck: bool,
    seeds: Optional[int],
    host_scaling: str,
    workers: Optional[int],
    model_form: Optional[str],
) -> None:
    for n in names:
        if n not in DISCIPLINES:
            raise DisciplineError(f"--discipline: unknown discipline '{n}'; accepted: {', '.join(DISCIPLINES)}")
    if not min_capacity and (len(names) > 1 or any(n not in ("drr", "hierarchical") for n in names)):
        raise DisciplineError(
            "--discipline: without --min-capacity the advisor finds weights; accepted: drr, hierarchical"
        )
    if seed is not None and not (0 <= seed < 2**63):
        raise OptionError(f"--seed: {seed} is out of range; accepted: 0 to 2^63 - 1 (what a scenario file holds)")
    if tolerance is not None and not (0.0 < tolerance < 0.5):
        raise OptionError(f"--tolerance: {tolerance} is out of range; accepted: above 0 and below 0.5")
    if engine not in ("model", "packet"):
        raise OptionError(f"--engine: unknown value {engine!r}; accepted: model, packet")
    if engine == "packet" and not min_capacity:
        raise OptionError(
            "--engine packet: only with --min-capacity (the least capacity searched on the packet "
            "engine); weights are searched on the model and decided on the packet engine by default"
        )
    if engine == "packet" and not recheck:
        raise OptionError("--no-recheck: not with --engine packet, which decides every answer on the packet engine")
    if seeds is not None and not (1 <= seeds <= 100):
        raise OptionError(f"--seeds: {seeds} is out of range; accepted: an integer from 1 to 100 (seeds per setting)")
    if model_form is not None and model_form not in MODEL_FORMS:
        raise OptionError(f"--model-form: unknown form '{model_form}'; accepted: {', '.join(MODEL_FORMS)}")
    if host_scaling not in HOST_SCALINGS:
        raise OptionError(f"--host-scaling: unknown reading '{host_scaling}'; accepted: {', '.join(HOST_SCALINGS)}")
    if workers is not None and workers < 1:
        raise OptionError(f"--jobs: {workers} is out of range; accepted: 1 or more")
