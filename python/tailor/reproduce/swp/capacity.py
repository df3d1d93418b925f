"""SWP §5.2, Fig. 8-9: the least link capacity meeting every class's SLO, per discipline,
over random scenarios drawn from the paper's Table 4.

Per class: sizes from Google (W3) / Facebook Hadoop / Alibaba storage, log-normal
burstiness sigma ~ U[1, 2], mean rate ~ U[5, 10] Gbps (3 classes) or U[3, 6] Gbps (5
classes), SLO threshold s ~ U[3, 8] on the p99 slowdown of messages up to the BDP
(125 KB) and 2s above. 10 us RTT, DCTCP (the model's SWP-D). For each scenario the
advisor searches the least capacity for shared FIFO, SWP weights with per-class FIFO,
SWP weights with fair queueing inside each class, and static per-class provisioning; a
sample of the answers is re-checked on the packet engine.

The paper's averages (150 scenarios): FIFO needs +44 % (3 classes) and +65 % (5 classes)
capacity over SWP per-class FIFO weights, +247 % over SWP with fair queueing (3 classes),
+79 % over SWP weights when a bursty class has a tight SLO (5 classes, Fig. 9(b)).
"""

from __future__ import annotations

import csv
import json
import random
import statistics
from pathlib import Path
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Callable, Optional

import typer

import tailor
from tailor import fmt
from tailor.advise import slos_met
from tailor.errors import OptionError
from tailor.outdir import staged
from tailor.reproduce.registry import Out, Plan, check_until
from tailor.reproduce.scenarios import Bottleneck, Class, Slo
from tailor.run import SEED_MAX

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from rich.console import Console

SIZES = ("google", "hadoop", "alistorage")
STRATEGIES = ("fifo", "drr", "hierarchical", "static")
#: "A bursty class with a tight SLO" (Fig. 8(b), 9(b)); the thresholds' values were lost
#: in the text extraction except "burstiness 1.7" in Fig. 8(d) and "threshold 4".
BURSTY_SIGMA = 1.7
TIGHT_SLO = 4.0

PAPER = {
    3: {"fifo_vs_drr": 44.0, "fifo_vs_fq": 247.0},
    5: {"fifo_vs_drr": 65.0, "fifo_vs_drr_tight_bursty": 79.0},
}


def draw(rng: random.Random, index: int, n_classes: int, until: str) -> tuple[Bottleneck, list[dict]]:
    lo, hi = (5.0, 10.0) if n_classes == 3 else (3.0, 6.0)
    params = []
    classes = []
    per = 8
    for k in range(n_classes):
        p = {
            "sizes": rng.choice(SIZES),
            "sigma": round(rng.uniform(1.0, 2.0), 2),
            "rate_gbps": round(rng.uniform(lo, hi), 2),
            "slo": round(rng.uniform(3.0, 8.0), 2),
        }
        params.append(p)
        classes.append(
            Class(
                name=f"c{k}",
                sizes=p["sizes"],
                sigma=p["sigma"],
                senders=f"{k * per}..{(k + 1) * per}",
                rate=f"{round(p['rate_gbps'] * 1000)}Mbps",
                slos=(Slo(p["slo"], max_size="125KB"), Slo(2 * p["slo"], min_size="125KB")),
            )
        )
    sc = Bottleneck(
        name=f"swp-capacity-{n_classes}c-{index:03d}",
        classes=tuple(classes),
        hosts=per * n_classes,
        scheduler="drr",
        until=until,
        comment=f"SWP §5.2 random scenario {index} ({n_classes} classes, Table 4).",
    )
    return sc, params


def run(
    n: int = 10,
    n_classes: int = 3,
    seed: int = 1,
    recheck: int = 3,
    until: str = "21ms",
    tolerance: float = 0.02,
    out: Optional[Path] = None,
    say: Callable[[str], None] = print,
) -> dict:
    """Runs the reproduction into ``out`` (default: ``runs/swp-capacity-<classes>``):
    scenarios, ``capacity.json``, ``capacity_cdf.csv`` and the figure, written whole
    once complete (tailor.outdir)."""
    out = Path(out) if out is not None else default_dir(n_classes)
    with staged(out, "reproduction", name="swp-capacity") as work:
        report = _run(n, n_classes, seed, recheck, until, tolerance, work, say)
        from tailor.plot import save

        report["plots"] = [str(out / p.name) for p in save(figure(report), work / "capacity")]
        _write_data(report, work)
    return report


def default_dir(n_classes: int) -> Path:
    return Path("runs") / f"swp-capacity-{n_classes}"


def options(
    n: Annotated[int, typer.Option(help="Random scenarios (the paper used 150).", min=1)] = 10,
    classes: Annotated[int, typer.Option(help="Classes per scenario: 3 (Fig. 8) or 5 (Fig. 9).")] = 3,
    seed: Annotated[int, typer.Option(help="Seed of the scenario generator.", min=0, max=SEED_MAX)] = 1,
    recheck: Annotated[int, typer.Option(help="Re-check this many scenarios' answers on the packet engine.", min=0)] = 3,
    until: Annotated[str, typer.Option(help="Simulated traffic per scenario (a time).")] = "21ms",
    out: Out = None,
) -> Plan:
    """SWP Fig. 8-9: least capacity per discipline over random scenarios (Table 4)."""
    if classes not in (3, 5):
        raise OptionError(f"--classes: {classes} is not accepted; accepted: 3, 5")
    check_until(until)
    return Plan(
        out or default_dir(classes),
        lambda out, say: run(n=n, n_classes=classes, seed=seed, recheck=recheck, until=until, out=out, say=say),
    )


def _run(n: int, n_classes: int, seed: int, recheck: int, until: str, tolerance: float, out: Path,
         say: Callable[[str], None]) -> dict:
    rng = random.Random(seed)
    scenarios = []
    for i in range(n):
        sc, params = draw(rng, i, n_classes, until)
        path = out / f"{sc.name}.toml"
        path.write_text(sc.toml())
        a = tailor.advise(
            path, min_capacity=True, disciplines=list(STRATEGIES), recheck=i < recheck, tolerance=tolerance
        )
        caps = {c["strategy"]: c for c in a.report["capacity"]}
        row = {
            "scenario": sc.name,
            "params": params,
            "offered_gbps": a.report["offered_bps"] / 1e9,
            "capacity_gbps": {s: (caps[s]["capacity_bps"] or caps[s]["limit_bps"]) / 1e9 for s in STRATEGIES},
            "found": {s: caps[s]["capacity_bps"] is not None for s in STRATEGIES},
            "tight_bursty": any(p["sigma"] >= BURSTY_SIGMA and p["slo"] <= TIGHT_SLO for p in params),
            "packet": {
                s: _packet_fraction(caps[s]["packet"]) for s in STRATEGIES if caps[s]["packet"] is not None
            },
            "model_seconds": a.report["model_seconds"],
        }
        scenarios.append(row)
        c = row["capacity_gbps"]
        say(
            f"{sc.name}: offered {row['offered_gbps']:.1f} Gbps; least capacity FIFO {c['fifo']:.1f}, "
            f"SWP weights {c['drr']:.1f}, + fair queueing {c['hierarchical']:.1f}, static {c['static']:.1f} Gbps"
            + (f"; packet re-check {_fmt_packet(row['packet'])}" if row["packet"] else "")
        )
    report = {"n": n, "classes": n_classes, "seed": seed, "until": until, "scenarios": scenarios,
              "summary": summarize(scenarios), "paper": PAPER[n_classes]}
    return report


def _write_data(report: dict, out: Path) -> None:
    """``capacity.json`` and ``capacity_cdf.csv`` (strategy, rank, fraction, capacity_gbps)."""
    (out / "capacity.json").write_text(json.dumps(report, indent=2))
    with open(out / "capacity_cdf.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["strategy", "rank", "fraction", "capacity_gbps"])
        for s in STRATEGIES:
            vals = sorted(r["capacity_gbps"][s] for r in report["scenarios"])
            for i, v in enumerate(vals):
                w.writerow([s, i + 1, (i + 1) / len(vals), f"{v:.3f}"])


def _packet_fraction(verdicts: list[dict]) -> dict:
    met, judged = slos_met(verdicts)
    return {"met": met, "of": judged}


def _fmt_packet(p: dict) -> str:
    return ", ".join(f"{s} {v['met']}/{v['of']}" for s, v in p.items())


def _excess(rows: list[dict], a: str, b: str) -> Optional[float]:
    """Mean over scenarios of capacity(a) / capacity(b) - 1, in percent, over the
    scenarios where both searches found a capacity."""
    r = [x["capacity_gbps"][a] / x["capacity_gbps"][b] - 1 for x in rows if x["found"][a] and x["found"][b]]
    return 100 * statistics.fmean(r) if r else None


def summarize(rows: list[dict]) -> dict:
    tight = [r for r in rows if r["tight_bursty"]]
    packet = [v for r in rows for v in r["packet"].values()]
    by = {s: [v for r in rows for k, v in r["packet"].items() if k == s] for s in STRATEGIES}
    frac = lambda vs: (sum(v["met"] for v in vs) / sum(v["of"] for v in vs)) if vs and sum(v["of"] for v in vs) else None  # noqa: E731
    return {
        "fifo_vs_drr": _excess(rows, "fifo", "drr"),
        "fifo_vs_fq": _excess(rows, "fifo", "hierarchical"),
        "static_vs_drr": _excess(rows, "static", "drr"),
        "static_vs_fifo": _excess(rows, "static", "fifo"),
        "fifo_vs_drr_tight_bursty": _excess(tight, "fifo", "drr"),
        "tight_bursty_scenarios": len(tight),
        "not_found": {s: sum(not r["found"][s] for r in rows) for s in STRATEGIES},
        "packet_slos_met": frac(packet),
        "packet_slos_met_by_strategy": {s: frac(by[s]) for s in STRATEGIES},
    }


def render(report: dict, console: Console) -> None:
    from rich import box
    from rich.table import Table

    s, paper = report["summary"], report["paper"]
    pct = lambda x: fmt.change(None if x is None else x / 100, 0)  # noqa: E731 (x: a percentage)
    t = Table(
        title=f"SWP Fig. {8 if report['classes'] == 3 else 9}: extra capacity, mean over {report['n']} random "
        f"{report['classes']}-class scenarios (the paper: 150)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for col in ("comparison", "paper", "tailor"):
        t.add_column(col, justify="left" if col == "comparison" else "right")
    t.add_row("FIFO vs SWP per-class FIFO weights", pct(paper.get("fifo_vs_drr")), pct(s["fifo_vs_drr"]))
    t.add_row("FIFO vs SWP weights + fair queueing", pct(paper.get("fifo_vs_fq")), pct(s["fifo_vs_fq"]))
    t.add_row(
        f"FIFO vs SWP weights, a bursty class (sigma >= {BURSTY_SIGMA}) with a tight SLO (<= {TIGHT_SLO:g})",
        pct(paper.get("fifo_vs_drr_tight_bursty")),
        pct(s["fifo_vs_drr_tight_bursty"]) + f" ({s['tight_bursty_scenarios']} scenarios)",
    )
    t.add_row("static provisioning vs SWP weights", fmt.NONE, pct(s["static_vs_drr"]))
    t.add_row("static provisioning vs FIFO", "> 0 (5 classes)", pct(s["static_vs_fifo"]))
    console.print(t)
    if s["packet_slos_met"] is not None:
        by = ", ".join(f"{k} {v:.0%}" for k, v in s["packet_slos_met_by_strategy"].items() if v is not None)
        console.print(
            f"packet-engine re-check of the recommended settings: {s['packet_slos_met']:.0%} of SLOs hold ({by})",
            highlight=False,
        )
    missing = {k: v for k, v in s["not_found"].items() if v}
    if missing:
        console.print(f"no feasible capacity up to 64x the offered load: {missing}", highlight=False)
    if report.get("plots"):
        console.print(f"plot, ours beside the paper's: {', '.join(report['plots'])}", highlight=False)


#: The comparisons the table reports, in its order, as the figure labels them.
_LABELS = {
    "fifo_vs_drr": "FIFO vs\nSWP weights",
    "fifo_vs_fq": "FIFO vs SWP\nweights + FQ",
    "fifo_vs_drr_tight_bursty": "FIFO vs SWP weights,\nbursty + tight SLO",
    "static_vs_drr": "static vs\nSWP weights",
    "static_vs_fifo": "static vs\nFIFO",
}


def figure(report: Mapping[str, Any]) -> Figure:
    """SWP Fig. 8/9: the mean extra capacity of each discipline, the paper's beside ours
    (the report of :func:`run`)."""
    from tailor.errors import DataError
    from tailor.figures import overlay

    try:
        summary, paper, n, k = report["summary"], report["paper"], report["n"], report["classes"]
    except (KeyError, TypeError):
        raise DataError("not a swp-capacity report (needs summary, paper, n, classes)") from None
    ours = {_LABELS[key]: summary.get(key) for key in _LABELS}
    theirs = {_LABELS[key]: paper.get(key) for key in _LABELS}
    return overlay(
        ours, theirs, labels=("tailor", "paper (150 scenarios)"), kind="bar", ylabel="extra capacity (%)",
        title=f"SWP Fig. {8 if k == 3 else 9}: mean extra capacity, {k} classes, {n} random scenarios",
    )
