"""The transport advisor's answer for people and programs: the ranked table (rich), the
JSON report and the plot of SLI against load per transport (docs/advisor.md).

The report is plain data (``TransportAdvice.report``, what ``--json`` prints); the table
and the plot are drawn from it alone, so a saved ``advice.json`` can be drawn again.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Optional, Sequence

from rich import box
from rich.console import Console
from rich.table import Table

from tailor import fmt
from tailor.decision import RULE, Probe, Slo, describe
from tailor.parse import time_ns
from tailor.transport_advisor.candidates import Candidate
from tailor.transport_advisor.search import Bisection, Plan

__all__ = ["TransportAdvice", "build_report", "RULE"]


#: How each outcome reads in the table (load mode, capacity mode).
_OUTCOME = {
    "found": ("", ""),
    "all_pass": ("every SLO holds at the highest load tried", "every SLO holds at the least capacity tried"),
    "none_pass": ("an SLO fails at the lowest load tried", "an SLO fails at the most capacity tried"),
    "undecided": ("undecided: an SLO not judged", "undecided: an SLO not judged"),
    "error": ("a run failed", "a run failed"),
}


def _slo_json(s: Slo) -> dict[str, Any]:
    return {
        "class": s.cls,
        "index": s.index,
        "slo": describe(s),
        "stat": s.stat,
        "threshold": s.threshold,
        "max_size": s.max_size,
        "min_size": s.min_size,
        "needed": s.needed,
    }


def _probe_json(plan: Plan, p: Probe) -> dict[str, Any]:
    out: dict[str, Any] = {
        "load": p.x,
        "verdict": p.verdict,
        "why": p.why,
        "points": [r.point for r in p.runs],
        "wall_s": sum(r.wall_s for r in p.runs),
        "slis": [p.sli(k) for k in range(len(plan.slos))],
    }
    if plan.axis.capacity:
        out["capacity"] = plan.axis.factor(p.x)
    return out


def _worst_loss(probe: Optional[dict[str, Any]], slos: Sequence[dict[str, Any]]) -> float:
    """The largest (worst seed - bound) / bound over the SLOs at a probe (SWP's loss)."""
    if probe is None:
        return math.inf
    losses = [
        (s["worst"] - o["threshold"]) / o["threshold"]
        for s, o in zip(probe["slis"], slos, strict=True)
        if s["worst"] is not None
    ]
    return max(losses) if losses else math.inf


def _rank_key(c: dict[str, Any], slos: Sequence[dict[str, Any]]) -> tuple[int, float, float]:
    at = next((p for p in c["probes"] if p["load"] == c["answer"]), None)
    order = {"all_pass": 0, "found": 1, "none_pass": 2}[c["outcome"]]
    return order, -(c["answer"] or 0.0), _worst_loss(at, slos)


def build_report(
    plan: Plan,
    candidates: Sequence[Candidate],
    states: dict[str, Bisection],
    *,
    bounds: tuple[float, float],
    tolerance: float,
    quick: bool,
    tally: dict[str, int],
    wall_s: float,
    traffic: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    """The advice as plain data (what ``--json`` prints)."""
    slos = [_slo_json(s) for s in plan.slos]
    rows = []
    for c in candidates:
        st = states[c.name]
        o = st.outcome
        assert o is not None
        probes = [_probe_json(plan, st.probes[x]) for x in sorted(st.probes)]
        at = next((p for p in probes if p["load"] == o.answer), None)
        row: dict[str, Any] = {
            "name": c.name,
            "transport": c.kind,
            "from_table": c.table,
            "settings": {k: v for k, v in c.overrides},
            "rank": None,
            "outcome": o.kind,
            "answer": o.answer,
            "failed_at": o.failed_at,
            "why": o.why,
            "at_answer": at["slis"] if at else None,
            "probes": probes,
            "runs": sum(len(p["points"]) for p in probes),
            "wall_s": sum(p["wall_s"] for p in probes),
        }
        if plan.axis.capacity:
            row["capacity"] = plan.axis.factor(o.answer) if o.answer is not None else None
            row["capacity_failed_at"] = plan.axis.factor(o.failed_at) if o.failed_at is not None else None
        if o.kind == "undecided":
            row["needs"] = _needs(plan, st, traffic)
        rows.append(row)
    ranked = sorted(
        (r for r in rows if r["outcome"] in ("found", "all_pass", "none_pass")), key=lambda r: _rank_key(r, slos)
    )
    for i, r in enumerate(ranked):
        r["rank"] = i + 1
    rows = ranked + [r for r in rows if r["rank"] is None]
    return {
        "scenario": plan.sc.name,
        "file": str(plan.sc.path),
        "mode": "capacity" if plan.axis.capacity else "load",
        "capacity_load": plan.axis.capacity_load,
        "rates": {k: bps for k, bps in plan.axis.rates} if plan.axis.capacity else None,
        "rule": RULE,
        "seeds": list(plan.seeds),
        "bounds": list(bounds),
        "tolerance": tolerance,
        "quick": quick,
        "slos": slos,
        "candidates": rows,
        "ranking": [r["name"] for r in ranked],
        "store": str(plan.store.dir),
        "points": tally["points"],
        "run": tally["run"],
        "cached": tally["cached"],
        "failed": tally["failed"],
        "wall_s": wall_s,
    }


def _more(traffic: Optional[dict[str, Any]], factor: float) -> Optional[str]:
    """The class's traffic ``factor`` times longer, as a scenario key: ``messages = 104``,
    or ``until = "7250us"`` (the part after the warm-up, which is judged, ``factor`` times longer)."""
    if not traffic:
        return None
    if isinstance(traffic.get("messages"), int):
        return f"messages = {math.ceil(traffic['messages'] * factor)} (now {traffic['messages']})"
    if traffic.get("until") is not None:
        until = time_ns(str(traffic["until"]))
        if math.isfinite(until):
            w = traffic["warmup_ns"]
            return f'until = "{math.ceil((w + (until - w) * factor) / 1e3)}us" (now "{traffic["until"]}")'
    return None


def _needs(plan: Plan, st: Bisection, traffic: dict[str, dict[str, Any]]) -> Optional[dict[str, Any]]:
    """For an undecided search: how much more traffic the probe that had too few messages
    needs (the count in range grows in proportion to the traffic generated)."""
    p = next((st.probes[x] for x in sorted(st.probes) if st.probes[x].verdict == "undecided"), None)
    if p is None:
        return None
    rows = [(k, r.counts[k]) for k, s in enumerate(plan.slos) for r in p.runs if r.counts[k] < s.needed]
    if not rows:  # enough messages, some unfinished at the stop: more traffic would not help
        return None
    k, n = min(rows, key=lambda t: t[1] / plan.slos[t[0]].needed)
    s = plan.slos[k]
    factor = math.inf if n == 0 else s.needed / n
    return {
        "load": p.x,
        "slo": describe(s),
        "count": n,
        "needed": s.needed,
        "factor": None if math.isinf(factor) else factor,
        "suggest": None if math.isinf(factor) else _more(traffic.get(s.cls), factor),
    }


class TransportAdvice:
    """What :func:`tailor.advise_transports` found; ``report`` is the plain data."""

    def __init__(self, report: dict[str, Any]) -> None:
        self.report = report

    @property
    def ranking(self) -> list[str]:
        """Candidates that reached a verdict, best first."""
        return list(self.report["ranking"])

    @property
    def decided(self) -> bool:
        """Every candidate's search ended with a verdict (no undecided load, no failed run):
        what the command's exit status says."""
        return all(c["outcome"] in ("found", "all_pass", "none_pass") for c in self.report["candidates"])

    @property
    def nothing_meets(self) -> bool:
        """Every candidate's search decided that every SLO is not met anywhere in the
        bounds: no transport works (the command exits 3)."""
        cands = self.report["candidates"]
        return bool(cands) and all(c["outcome"] == "none_pass" for c in cands)

    def candidate(self, name: str) -> dict[str, Any]:
        for c in self.report["candidates"]:
            if c["name"] == name:
                return c
        raise KeyError(f"{name!r} was not a candidate")

    def answer(self, name: str) -> Optional[float]:
        """The highest load meeting every SLO (capacity mode: the least capacity factor),
        None when there is none in the bounds or the search did not decide."""
        c = self.candidate(name)
        return c["capacity"] if self.report["mode"] == "capacity" else c["answer"]

    def to_json(self) -> str:
        return json.dumps(self.report, indent=2)

    # -- the table ----------------------------------------------------------------

    def render(self, console: Console) -> None:
        r = self.report
        cap = r["mode"] == "capacity"
        seeds = r["seeds"]
        seeds_text = f"seed {seeds[0]}" if len(seeds) == 1 else f"seeds {seeds[0]}-{seeds[-1]}"
        lo, hi = r["bounds"]
        if cap:
            head = (
                f"least capacity meeting every SLO at load {r['capacity_load']:g}: {r['scenario']}, {seeds_text}; "
                f"links x{r['capacity_load'] / hi:.3g} to x{r['capacity_load'] / lo:.3g} (utilisation {lo:g}-{hi:g}, "
                f"to {r['tolerance']:g})"
            )
        else:
            head = (
                f"highest load meeting every SLO: {r['scenario']}, {seeds_text}; load {lo:g} to {hi:g}, "
                f"to {r['tolerance']:g}"
            )
        t = Table(title=head, title_justify="left", box=box.SIMPLE_HEAD)
        for name, justify in [
            ("#", "right"),
            ("transport", "left"),
            ("least capacity" if cap else "highest load", "right"),
            ("fails at", "right"),
            ("SLO", "left"),
            ("SLI: mean [95 % interval]", "right"),
            ("worst seed", "right"),
            ("messages", "right"),
            ("runs", "right"),
        ]:
            t.add_column(name, justify=justify)  # type: ignore[arg-type]
        for c in r["candidates"]:
            self._rows(t, c, cap)
        console.print(t)
        self._notes(console)

    def _answer_text(self, c: dict[str, Any], cap: bool) -> tuple[str, str]:
        r = self.report
        if cap:
            ans = f"x{c['capacity']:.3g}" if c["capacity"] is not None else fmt.NONE
            fail = f"x{c['capacity_failed_at']:.3g}" if c.get("capacity_failed_at") is not None else fmt.NONE
            if c["outcome"] == "all_pass":
                ans = f"<= {ans}"
            elif c["outcome"] == "none_pass":
                ans = f"> x{r['capacity_load'] / r['bounds'][0]:.3g}"
            return ans, fail
        ans = f"{c['answer']:g}" if c["answer"] is not None else fmt.NONE
        fail = f"{c['failed_at']:g}" if c["failed_at"] is not None else fmt.NONE
        if c["outcome"] == "all_pass":
            ans = f">= {ans}"
        elif c["outcome"] == "none_pass":
            ans = f"< {r['bounds'][0]:g}"
        return ans, fail

    def _rows(self, t: Table, c: dict[str, Any], cap: bool) -> None:
        ans, fail = self._answer_text(c, cap)
        slis = c["at_answer"] or [None] * len(self.report["slos"])
        for k, (slo, s) in enumerate(zip(self.report["slos"], slis, strict=False)):
            first = k == 0
            if s is None:
                sli = worst = count = fmt.NONE
            else:
                ci = "" if s["ci_low"] is None else f" [{s['ci_low']:.3g}, {s['ci_high']:.3g}]"
                sli = fmt.stat(s["mean"], ".3g") + ci
                worst = fmt.stat(s["worst"], ".3g")
                count = f"{s['min_count']:,}" if s["min_count"] is not None else fmt.NONE
            t.add_row(
                str(c["rank"]) if first and c["rank"] else "",
                c["name"] if first else "",
                ans if first else "",
                fail if first else "",
                f"{slo['slo']}, at most {slo['threshold']:g}",
                sli,
                worst,
                count,
                str(c["runs"]) if first else "",
            )
        if c["outcome"] not in ("found",) or c["why"]:
            text = _OUTCOME[c["outcome"]][1 if cap else 0]
            why = f"{text}: {c['why']}" if text and c["why"] else (text or c["why"])
            t.add_row("", "", "", "", f"[dim]{why}[/dim]", "", "", "", "")

    def _notes(self, console: Console) -> None:
        r = self.report
        console.print(
            f"rule: {r['rule']}; mean and a 95 % bootstrap interval over seeds at the answer (none with one seed).",
            highlight=False,
        )
        for c in r["candidates"]:
            n = c.get("needs")
            if not n:
                continue
            more = (
                f"generate at least {math.ceil(n['factor'] * 100) / 100:g}x the traffic"
                if n["factor"]
                else "no message fell in its range: check its sizes"
            )
            how = f" ({n['suggest']})" if n.get("suggest") else ""
            console.print(
                f"{c['name']}: at {n['load']:g}, {n['slo']} had {n['count']} messages on a seed, "
                f"{n['needed']} needed: {more}{how}, or raise the lowest load.",
                highlight=False,
            )
        console.print(
            f"{r['points']} points: {r['run']} run, {r['cached']} found in {r['store']}/"
            + (f", {r['failed']} failed" if r["failed"] else "")
            + f"; {fmt.duration(r['wall_s'])}",
            highlight=False,
        )

    # -- the plot -------------------------------------------------------------------

    def figure(self) -> Any:
        """SLI against load per transport, one panel per SLO: the mean over seeds with
        bars from the best to the worst seed, the bound dashed, each answer ringed."""
        from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

        from tailor.plot_style import _MARKERS, _color, _figure

        r = self.report
        n = len(r["slos"])
        fig, _ = _figure(height=3.2 * n + 0.8, ncols=0)
        axes = [fig.add_subplot(n, 1, i + 1) for i in range(n)]
        cap = r["mode"] == "capacity"
        for k, (ax, slo) in enumerate(zip(axes, r["slos"], strict=True)):
            for i, c in enumerate(r["candidates"]):
                _curve(ax, c, k, slo["needed"], cap, _color(i), _MARKERS[i % len(_MARKERS)])
            ax.axhline(slo["threshold"], color="0.3", linestyle="--", linewidth=1, label=f"SLO: {slo['threshold']:g}")
            # Only the first panel has a legend: each bound is also named on its line.
            ax.annotate(
                f"SLO: {slo['slo']} at most {slo['threshold']:g}",
                (0.995, slo["threshold"]),
                xycoords=("axes fraction", "data"),
                ha="right",
                va="bottom",
                fontsize="x-small",
                color="0.3",
            )
            ax.set_yscale("log")
            ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
            ax.yaxis.set_minor_formatter(NullFormatter())
            ax.set_ylabel(slo["slo"] + (" (ns)" if slo["slo"].split(": ", 1)[-1].split()[1:2] == ["latency"] else ""))
            ax.grid(True, which="major", alpha=0.3)
            ax.set_xlabel(
                "link capacity (x the scenario's)" if cap else "total offered load (fraction of link capacity)"
            )
        axes[0].legend(fontsize="small")
        seeds = len(r["seeds"])
        axes[0].set_title(
            f"{r['scenario']}: SLI vs {'capacity' if cap else 'load'} per transport, mean over {seeds} "
            f"seed{'s' if seeds > 1 else ''}\nbars: best to worst seed; hollow: too few messages in a "
            "seed; ringed: the answer",
            fontsize="small",
        )
        return fig

    def write(self, out: Path, stem: str) -> list[Path]:
        """``stem.json``, ``stem.png`` and ``stem.svg`` into ``out`` (only files tailor wrote
        are replaced; every target is checked before any is written)."""
        from tailor.outdir import check_file, write_file
        from tailor.plot import save

        files = [out / f"{stem}.{e}" for e in ("json", "png", "svg")]
        for f in files:
            check_file(f)
        text = self.to_json() + "\n"
        written = [write_file(files[0], lambda tmp: tmp.write_text(text, encoding="utf-8"))]
        return written + save(self.figure(), out / stem)


def _curve(ax: Any, c: dict[str, Any], k: int, needed: int, cap: bool, color: Any, marker: str) -> None:
    """One candidate's probes for SLO ``k``: hollow where a seed had fewer than ``needed``
    messages in the SLO's range."""
    xs, ys, lo, hi, hollow = [], [], [], [], []
    for p in c["probes"]:
        s = p["slis"][k]
        if s["mean"] is None:
            continue
        x = p["capacity"] if cap else p["load"]
        got = [v for v in s["per_seed"] if v is not None]
        xs.append(x)
        ys.append(s["mean"])
        lo.append(s["mean"] - min(got))
        hi.append(max(got) - s["mean"])
        hollow.append(s["min_count"] is not None and s["min_count"] < needed)
    if not xs:
        return
    order = sorted(range(len(xs)), key=lambda j: xs[j])
    pick = lambda v: [v[j] for j in order]  # noqa: E731
    xs, ys, lo, hi, hollow = pick(xs), pick(ys), pick(lo), pick(hi), pick(hollow)
    ax.errorbar(
        xs,
        ys,
        yerr=[lo, hi],
        color=color,
        marker=marker,
        markersize=4,
        capsize=3,
        label=c["name"],
        markerfacecolor=color,
    )
    for x, y, h in zip(xs, ys, hollow, strict=True):
        if h:
            ax.plot([x], [y], marker=marker, markersize=7, color="white", markeredgecolor=color)
    ans = c.get("capacity") if cap else c["answer"]
    if ans is not None:
        at = next((y for x, y in zip(xs, ys, strict=True) if abs(x - ans) < 1e-9), None)
        if at is not None:
            ax.plot([ans], [at], marker="o", markersize=12, markerfacecolor="none", markeredgecolor=color)
