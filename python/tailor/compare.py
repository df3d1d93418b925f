"""``tailor compare SCENARIO``: the fast model against the packet engine, same flows.

SWP §5.1 judges its model against a packet simulator on one bottleneck along two axes
(Fig. 6, Fig. 7): the 99th-percentile slowdown of short flows (smaller than one
bandwidth-delay product) and the mean slowdown of long flows, per size bin. This module
runs one scenario on both engines with the same seed — the workload generator is seeded
identically, so both see the same messages, which is checked here — and compares per
size bin of the scenario (its ``bins``, merged into about ``max_bins`` bins of similar
counts when there are more, as :meth:`tailor.Result.table` does).

Each engine's slowdown is against its own ideal, as its summary reports it: the packet
engine's counts headers, the model's is SWP's RTT + S / C (docs/model.md); a lone flow has
slowdown 1 on both. Errors are relative to the packet engine (model / packet - 1).

Targets (issue 4, SWP §5.1): a short bin's p99 within 10 %, a long bin's mean within 10 %;
a bin that straddles the BDP is judged on both; bins of fewer than ``MIN_FLOWS`` flows are
reported but not judged (a p99 of a few dozen flows is their maximum).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import polars as pl

from tailor import _core, fmt
from tailor.errors import RunError
from tailor.outdir import staged
from tailor.result import Result, _stats
from tailor.run import run as run_scenario
from tailor.scenario import Scenario

__all__ = ["compare", "render", "bin_rows", "SHORT_P99_TOLERANCE", "LONG_MEAN_TOLERANCE", "MIN_FLOWS"]

SHORT_P99_TOLERANCE = 0.10
LONG_MEAN_TOLERANCE = 0.10
MIN_FLOWS = 100

#: The columns that identify a message (its id is engine-specific bookkeeping).
IDENTITY = ["class", "src", "dst", "size_bytes", "start_ns"]


def compare(
    scenario: Scenario | str | os.PathLike[str],
    seed: int | None = None,
    out: str | os.PathLike[str] | None = None,
    max_bins: int = 14,
) -> dict[str, Any]:
    """Runs ``scenario`` on the packet engine and on the model; returns the comparison.

    A scenario outside the model's scope (no one bottleneck that every class's traffic
    crosses, docs/model.md) raises ScenarioError before either engine runs.

    With ``out`` the two result directories are kept as ``out/packet`` and ``out/model``
    (``out`` is written whole once both ran, and replaces only an earlier comparison's
    files: tailor.outdir); without it they go to a temporary directory that is removed.
    """
    sc = scenario if isinstance(scenario, Scenario) else Scenario.load(scenario)
    # Outside the model's scope there is nothing to compare: say so before the packet run.
    _core.model_scope(os.fspath(sc.path), list(sc.overrides))
    seed = sc.seed if seed is None else seed
    if out is not None:
        with staged(out, "compare") as work:
            run_scenario(sc, seed=seed, out=work / "packet", engine="packet")
            run_scenario(sc, seed=seed, out=work / "model", engine="model")
        return compare_results(Result(Path(out) / "packet"), Result(Path(out) / "model"), max_bins)
    work = Path(tempfile.mkdtemp(prefix="tailor-compare-"))
    try:
        packet = run_scenario(sc, seed=seed, out=work / "packet", engine="packet")
        model = run_scenario(sc, seed=seed, out=work / "model", engine="model")
        return compare_results(packet, model, max_bins)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def compare_results(packet: Result, model: Result, max_bins: int = 14) -> dict[str, Any]:
    """The comparison of two result directories of one scenario and seed."""
    ps, ms = packet.summary, model.summary
    if ms.get("engine") != "model" or ps.get("engine", "packet") != "packet":
        raise RunError(f"{model.dir}: expected a model result beside a packet result in {packet.dir}")
    if "model" not in ms:
        raise RunError(f"{model.dir / 'summary.json'}: no 'model' block (written by an older tailor); run it again")
    bdp = float(ms["model"]["bdp_bytes"])
    names = list(ps["classes"]) + (["all"] if len(ps["classes"]) > 1 else [])
    classes = {}
    for name in names:
        rows = bin_rows(packet, model, name, bdp, max_bins)
        classes[name] = {"bins": rows}
    messages = same_messages(packet, model)
    misses = [
        f"{name} {b['size']}: {', '.join(b['misses'])}"
        for name, c in classes.items()
        if name != "all"
        for b in c["bins"]
        if b["misses"]
    ]
    if not messages["identical"]:
        misses.insert(0, "the engines did not see the same messages")
    return {
        "scenario": ps["scenario"],
        "scenario_file": ps["scenario_file"],
        "seed": ps["seed"],
        "bdp_bytes": bdp,
        "model": ms["model"],
        "messages": messages,
        "wall_seconds": {
            "packet": ps["wall_seconds"],
            "model": ms["wall_seconds"],
            "speedup": ps["wall_seconds"] / max(ms["wall_seconds"], 1e-9),
        },
        "targets": {"short_p99": SHORT_P99_TOLERANCE, "long_mean": LONG_MEAN_TOLERANCE, "min_flows": MIN_FLOWS},
        "classes": classes,
        "pass": not misses,
        "misses": misses,
    }


def same_messages(packet: Result, model: Result) -> dict[str, Any]:
    """Whether both engines saw the same messages (class, endpoints, size, start).

    Only completed messages are recorded, so when an engine left some incomplete its
    list may be shorter by exactly that many; everything it did record must be in the
    other's list.
    """
    counts = {
        e: {k: r.summary["messages"][k] for k in ("generated", "completed", "incomplete")}
        for e, r in (("packet", packet), ("model", model))
    }
    p = packet.messages.select(IDENTITY).sort(IDENTITY)
    m = model.messages.select(IDENTITY).sort(IDENTITY)
    only_p = p.join(m, on=IDENTITY, how="anti").height
    only_m = m.join(p, on=IDENTITY, how="anti").height
    complete = counts["packet"]["incomplete"] == 0 and counts["model"]["incomplete"] == 0
    identical = (
        counts["packet"]["generated"] == counts["model"]["generated"]
        and only_p <= counts["model"]["incomplete"]
        and only_m <= counts["packet"]["incomplete"]
        and (not complete or p.equals(m))
    )
    return {**counts, "only_packet": only_p, "only_model": only_m, "identical": identical}


def _kind(lower: int, upper: int | None, bdp: float) -> str:
    if upper is not None and upper <= bdp:
        return "short"
    if lower >= bdp:
        return "long"
    return "mixed"


def _engine_bins(result: Result, name: str, max_bins: int) -> list[tuple[int, int | None, int, float, float]]:
    report = result.summary["overall"] if name == "all" else result.summary["classes"][name]
    return [(r.lower, r.upper, r.count, r.mean, r.p99) for r in result._rows(name, report, max_bins)]


def _error(model: float | None, packet: float | None) -> float | None:
    """The model's relative error; None when either engine has no message in the bin."""
    return model / packet - 1 if model is not None and packet else None


def bin_rows(packet: Result, model: Result, name: str, bdp: float, max_bins: int = 14) -> list[dict[str, Any]]:
    """Per size bin of class ``name`` ("all" for every class): both engines' count, mean
    and p99 slowdown, the relative errors and the targets the bin is judged on."""
    p_bins = _engine_bins(packet, name, max_bins)
    m_bins = {(lo, hi): (n, mean, p99) for lo, hi, n, mean, p99 in _engine_bins(model, name, max_bins)}
    if set(m_bins) != {(lo, hi) for lo, hi, *_ in p_bins}:
        # The engines' non-empty bins differ (an engine left messages incomplete): use the
        # packet engine's bins for both, computed from the messages.
        df = model.summarised() if name == "all" else model.summarised().filter(pl.col("class") == name)
        m_bins = {}
        for lo, hi, *_ in p_bins:
            r = _stats(df, lo, hi)
            m_bins[(lo, hi)] = (r.count, r.mean, r.p99)
    rows = []
    for lo, hi, n, mean, p99 in p_bins:
        mn, mmean, mp99 = m_bins[(lo, hi)]
        kind = _kind(lo, hi, bdp)
        row = {
            "lower_bytes": lo,
            "upper_bytes": hi,
            "size": fmt.size_bin(lo, hi),
            "kind": kind,
            "count": n,
            "model_count": mn,
            "packet": {"mean": mean, "p99": p99},
            "model": {"mean": mmean, "p99": mp99},
            "mean_error": _error(mmean, mean),
            "p99_error": _error(mp99, p99),
            "judged": [],
            "misses": [],
        }
        if n >= MIN_FLOWS and mn > 0:
            if kind in ("short", "mixed"):
                row["judged"].append("p99")
                if abs(row["p99_error"]) > SHORT_P99_TOLERANCE:
                    row["misses"].append(f"p99 {fmt.change(row['p99_error'])}")
            if kind in ("long", "mixed"):
                row["judged"].append("mean")
                if abs(row["mean_error"]) > LONG_MEAN_TOLERANCE:
                    row["misses"].append(f"mean {fmt.change(row['mean_error'])}")
        rows.append(row)
    return rows


def render(report: dict[str, Any], console: Any) -> None:
    """Prints the comparison as tables (rich)."""
    from rich.table import Table

    msgs = report["messages"]
    w = report["wall_seconds"]
    for name, c in report["classes"].items():
        t = Table(
            title=f"{report['scenario']} (seed {report['seed']}), class {name}: model vs packet engine "
            f"(BDP {fmt.size(report['bdp_bytes'])})"
        )
        for col in ("size", "kind", "count", "mean pkt", "mean model", "err", "p99 pkt", "p99 model", "err", "verdict"):
            t.add_column(col, justify="left" if col in ("size", "kind", "verdict") else "right")
        for b in c["bins"]:
            verdict = (
                fmt.NONE
                if not b["judged"]
                else (
                    "[red]MISS " + ", ".join(b["misses"]) + "[/red]"
                    if b["misses"]
                    else "[green]ok[/green] " + "+".join(b["judged"])
                )
            )
            t.add_row(
                b["size"],
                b["kind"],
                f"{b['count']:,}",
                fmt.stat(b["packet"]["mean"]),
                fmt.stat(b["model"]["mean"]),
                fmt.change(b["mean_error"]),
                fmt.stat(b["packet"]["p99"]),
                fmt.stat(b["model"]["p99"]),
                fmt.change(b["p99_error"]),
                verdict,
            )
        console.print(t)
    same = "identical" if msgs["identical"] else "[red]DIFFERENT[/red]"
    console.print(
        f"messages: {msgs['packet']['generated']:,} generated on each engine, lists {same}; "
        f"wall: packet {w['packet']:.2f} s, model {w['model']:.3f} s ({w['speedup']:.0f}x)",
        highlight=False,
    )
    t = report["targets"]
    head = "[green]PASS[/green]" if report["pass"] else "[red]FAIL[/red]"
    console.print(
        f"{head}: short bins p99 within {t['short_p99']:.0%}, long bins mean within {t['long_mean']:.0%} "
        f"(bins of >= {t['min_flows']} flows)" + ("" if report["pass"] else f"; misses: {'; '.join(report['misses'])}"),
        highlight=False,
    )
