"""What tailor reproduce swp-capacity reports from its least capacities (SWP §5.2,
Fig. 8-9): per experiment and per variant (engine, model form, host scaling), the
extra capacity one discipline needs over another, as the mean over scenarios (the
paper's "on average"), the median, a 95 % bootstrap interval of the mean over scenarios
(tailor.stats), the scenarios used and those where a search found no capacity; and the
CDF data of the capacities (Fig. 8(a)) and of the savings.

A comparison uses the scenarios where both searches found a capacity; the others are
counted as "not found", never dropped silently.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from tailor import stats

#: "A bursty class with a tight SLO" (Fig. 8(b), 9(b)): the extraction kept "burstiness
#: 1.7" (Fig. 8(d)) and "threshold 4".
BURSTY_SIGMA = 1.7
TIGHT_SLO = 4.0

#: (numerator, denominator) disciplines as capacity.csv names them.
COMPARISONS = {
    "fifo_vs_weights": ("fifo", "weights"),
    "fifo_vs_weights_fq": ("fifo", "weights_fq"),
    "static_vs_fifo": ("static", "fifo"),
}
LABELS = {
    "fifo_vs_weights": "FIFO vs SWP weights",
    "fifo_vs_weights_fq": "FIFO vs SWP weights + FQ",
    "static_vs_fifo": "static vs FIFO",
}


def _tight_bursty(ps: list[dict]) -> bool:
    return any(p["sigma"] >= BURSTY_SIGMA and p["slo"] <= TIGHT_SLO for p in ps)


def _tight(ps: list[dict]) -> bool:
    return any(p["slo"] <= TIGHT_SLO for p in ps)


def _all_tight_bursty(ps: list[dict]) -> bool:
    return all(p["slo"] <= TIGHT_SLO and p["sigma"] >= BURSTY_SIGMA for p in ps)


@dataclass(frozen=True)
class Experiment:
    """A figure of §5.2: its scenarios (classes, and which of them) and the paper's means."""

    name: str
    classes: int
    keep: Callable[[list[dict]], bool]
    what: str
    paper: dict[str, Any]


EXPERIMENTS = (
    Experiment(
        "Fig. 8",
        3,
        lambda ps: True,
        "all 3-class scenarios",
        {"fifo_vs_weights": 44.0, "fifo_vs_weights_fq": 247.0, "static_vs_fifo": "about 0"},
    ),
    Experiment(
        "Fig. 8(b)",
        3,
        _tight_bursty,
        f"a class with sigma >= {BURSTY_SIGMA} and SLO <= {TIGHT_SLO:g}",
        {"fifo_vs_weights": 62.0},
    ),
    Experiment("Fig. 8(c)", 3, _tight, f"a class with SLO <= {TIGHT_SLO:g}", {}),
    Experiment("Fig. 8(d)", 3, _all_tight_bursty, f"every class SLO <= {TIGHT_SLO:g} and sigma >= {BURSTY_SIGMA}", {}),
    Experiment(
        "Fig. 9", 5, lambda ps: True, "all 5-class scenarios", {"fifo_vs_weights": 65.0, "static_vs_fifo": "> 0"}
    ),
    Experiment(
        "Fig. 9(b)",
        5,
        _tight_bursty,
        f"a class with sigma >= {BURSTY_SIGMA} and SLO <= {TIGHT_SLO:g}",
        {"fifo_vs_weights": 79.0},
    ),
)


#: The variant that searches every scenario (tailor.reproduce.swp.capacity.MAIN): the
#: calibrated model with host links fixed, the reading §5.2's text supports
#: (docs/advisor.md, "Capacity scaling: both readings").
MAIN = ("model", "calibrated", "fixed")


def _key(row: dict) -> tuple[str, str, str]:
    return row["engine"], row["model_form"], row["host_scaling"]


def savings(
    rows: list[dict],
    scenarios: set[str],
    variant: tuple[str, str, str],
    num: str,
    den: str,
) -> tuple[list[float], int]:
    """The extra capacity (%) of ``num`` over ``den`` per scenario of ``scenarios`` where
    both were found, and how many of the scenarios searched had either not found."""
    cap: dict[tuple[str, str], dict] = {
        (r["scenario"], r["discipline"]): r for r in rows if _key(r) == variant and r["scenario"] in scenarios
    }
    vals, missing = [], 0
    for sc in sorted(scenarios):
        a, b = cap.get((sc, num)), cap.get((sc, den))
        if a is None or b is None:
            continue  # not searched with this variant (e.g. the packet engine's subset)
        if a["found"] and b["found"]:
            vals.append(100.0 * (a["capacity_gbps"] / b["capacity_gbps"] - 1.0))
        else:
            missing += 1
    return vals, missing


def describe(vals: list[float], missing: int) -> dict[str, Any]:
    """Mean, median, 95 % bootstrap interval of the mean, scenarios used, not found, and
    how many savings are negative (the denominator needed more: for SWP weights, an
    optimizer failure, since weights can mimic FIFO)."""
    ci = stats.bootstrap_ci(vals) if vals else None
    return {
        "mean": sum(vals) / len(vals) if vals else None,
        "median": stats.percentile(vals, 50) if vals else None,
        "ci": list(ci) if ci else None,
        "n": len(vals),
        "not_found": missing,
        "negative": sum(v < 0 for v in vals),
    }


def summarize(rows: list[dict], params: dict[str, list[dict]], refused: set[str]) -> list[dict]:
    """Per experiment, variant and comparison: :func:`describe` of the savings, and for a
    variant other than :data:`MAIN` the main variant's mean on the same scenarios
    (``main_same``: another variant may search a subset). ``params``: each scenario's
    class parameters; ``refused``: scenarios not searched."""
    variants = sorted({_key(r) for r in rows})
    searched = {v: {r["scenario"] for r in rows if _key(r) == v} for v in variants}
    out = []
    for e in EXPERIMENTS:
        chosen = {s for s, ps in params.items() if len(ps) == e.classes and e.keep(ps)}
        judged = chosen - refused
        for v in variants:
            for comp, (num, den) in COMPARISONS.items():
                vals, missing = savings(rows, judged, v, num, den)
                same = savings(rows, judged & searched[v], MAIN, num, den)[0] if v != MAIN else []
                out.append(
                    {
                        "experiment": e.name,
                        "engine": v[0],
                        "model_form": v[1],
                        "host_scaling": v[2],
                        "comparison": comp,
                        "scenarios": len(chosen),
                        "refused": len(chosen & refused),
                        "paper": e.paper.get(comp),
                        **describe(vals, missing),
                        "values": vals,
                        "main_same": sum(same) / len(same) if same else None,
                        "main": list(MAIN),
                    }
                )
    return out


def write_csv(rows: list[dict], path: Path, columns: tuple[str, ...]) -> None:
    """capacity.csv: one row per scenario, discipline and variant, found or not."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(columns)
        for r in sorted(
            rows,
            key=lambda r: (
                r["classes"],
                r["scenario"],
                r["engine"],
                r["model_form"],
                r["host_scaling"],
                r["discipline"],
            ),
        ):
            cells = dict(
                r,
                capacity_gbps="" if r["capacity_gbps"] is None else f"{r['capacity_gbps']:.4f}",
                offered_gbps=f"{r['offered_gbps']:.4f}",
                found="true" if r["found"] else "false",
            )
            w.writerow([cells[c] for c in columns])


def write_cdf(rows: list[dict], summary: list[dict], path: Path) -> None:
    """capacity_cdf.csv: the CDF of each discipline's least capacity (Fig. 8(a): series =
    the discipline, value in Gbps) and of each saving (series = the comparison, value in
    %), per experiment and variant; rank-th of n values at fraction rank / n."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["experiment", "engine", "model_form", "host_scaling", "series", "rank", "fraction", "value"])
        for classes in (3, 5):
            for v in sorted({_key(r) for r in rows if r["classes"] == classes}):
                for d in ("fifo", "weights", "weights_fq", "static"):
                    vals = sorted(
                        r["capacity_gbps"]
                        for r in rows
                        if r["classes"] == classes and _key(r) == v and r["discipline"] == d and r["found"]
                    )
                    _cdf_rows(w, f"Fig. {8 if classes == 3 else 9}(a)", v, d, vals)
        for s in summary:
            _cdf_rows(
                w,
                s["experiment"],
                (s["engine"], s["model_form"], s["host_scaling"]),
                s["comparison"],
                sorted(s["values"]),
            )


def _cdf_rows(w: Any, experiment: str, v: tuple[str, str, str], series: str, vals: list[float]) -> None:
    for i, x in enumerate(vals):
        w.writerow([experiment, *v, series, i + 1, f"{(i + 1) / len(vals):.6f}", f"{x:.4f}"])


def cell(s: Optional[dict]) -> str:
    """A table cell: mean [interval], median, scenarios used and not found."""
    if s is None:
        return "–"
    if not s["n"]:
        return f"no scenario\n({s['not_found']} not found)" if s["not_found"] else "no scenario"
    ci = f" [{s['ci'][0]:+.0f}, {s['ci'][1]:+.0f}]" if s["ci"] else ""
    nf = f", {s['not_found']} not found" if s["not_found"] else ""
    neg = f", {s['negative']} below 0" if s.get("negative") else ""
    main = s.get("main") or ("", "?", "?")
    same = f"\n({main[1]}, {main[2]} on these: {s['main_same']:+.0f} %)" if s.get("main_same") is not None else ""
    return f"{s['mean']:+.0f} %{ci}\nmedian {s['median']:+.0f} %, n {s['n']}{nf}{neg}{same}"


def paper_cell(x: Any) -> str:
    if x is None:
        return "–"
    return f"{x:+.0f} %" if isinstance(x, (int, float)) and math.isfinite(x) else str(x)
