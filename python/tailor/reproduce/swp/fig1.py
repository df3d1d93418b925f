"""SWP Fig. 1 (§2.1): the limits of priority scheduling.

Two independent classes share a 100 Gbps bottleneck (10 us RTT), both with Homa W3 sizes
and log-normal (sigma 2) inter-arrivals, HPCC-like congestion control starting at line
rate with one BDP. The foreground uses 10 % of the link, the background 20-80 %. The SLO
is a p99 slowdown <= 2.5 for messages below the BDP (125 KB). Four configurations:

(a) one shared FIFO queue;
(b) strict priority for the foreground;
(c) per-class FIFO queues with weights, the foreground getting just enough weight to
    meet its SLO against background at 80 % (SWP's baseline weight);
(d) the same with fair queueing inside each class.

The paper's figure is not in the text; its claims are, and each is checked here.

Each point runs on ``--seeds`` seeds (3 by default; the weights are searched once, on the
first): a p99 is the mean over seeds of each seed's SLO value, with its interval across
seeds, and a claim resting on a p99 some seed judged on fewer than 100 messages reads "not
judged" (``tailor.reproduce.cells``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Callable, Optional

import typer

import tailor
from tailor.errors import OptionError, RunError
from tailor.outdir import staged
from tailor.reproduce import cells
from tailor.reproduce.registry import Out, Plan, check_until
from tailor.reproduce.scenarios import Bottleneck, Class, Slo
from tailor.stats import Estimate

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from rich.console import Console

BG_LOADS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
SLO = 2.5
CONFIGS = ("fifo", "priority", "weight", "fq")
TITLES = {
    "fifo": "(a) shared FIFO",
    "priority": "(b) strict priority",
    "weight": "(c) one weight",
    "fq": "(d) weight + fair queueing",
}


@dataclass(frozen=True)
class Setup:
    engine: str = "model"
    transport: str = "hpcc"
    #: Traffic per point (simulated).
    until: str = "11ms"
    #: Seeds per point (1, 2, ...).
    seeds: int = 3


def scenario(cfg: str, bg_load: float, setup: Setup, weights: dict[str, float]) -> Bottleneck:
    small = (Slo(SLO, max_size="125KB"),)
    fg_w = weights.get(cfg)
    classes = (
        Class(
            "fg",
            "w3",
            2.0,
            "0..16",
            load=0.1,
            slos=small,
            weight=fg_w if fg_w is not None else None,
            priority=0 if cfg == "priority" else None,
        ),
        Class(
            "bg",
            "w3",
            2.0,
            "16..32",
            load=bg_load,
            slos=small,
            weight=(1.0 - fg_w) if fg_w is not None else None,
            priority=1 if cfg == "priority" else None,
        ),
    )
    scheduler = {"fifo": "fifo", "priority": "strict_priority", "weight": "drr", "fq": "hierarchical"}[cfg]
    return Bottleneck(
        name=f"swp-fig1-{cfg}-bg{round(bg_load * 100)}",
        classes=classes,
        hosts=32,
        scheduler=scheduler,
        transport=setup.transport,
        # HPCC maps to SWP-H with HPCC's own eta on the model; another transport is told to.
        model_preset=None if setup.transport == "hpcc" else "swp-h",
        until=setup.until,
        comment=f"SWP Fig. 1 {TITLES[cfg]}: foreground 10 %, background {bg_load:.0%}, W3 sizes, sigma 2.",
    )


def foreground_weight(cfg: str, setup: Setup, out: Path) -> float:
    """The least foreground weight meeting its SLO against always-backlogged background at
    80 % (SWP Algorithm 1's baseline), for per-class FIFO ('weight') or fair queueing ('fq')."""
    sc = scenario(cfg, 0.8, setup, {cfg: 0.5})
    path = out / f"{sc.name}-search.toml"
    path.write_text(sc.toml())
    a = tailor.advise(path, disciplines=["drr" if cfg == "weight" else "hierarchical"], recheck=False)
    return float(a.report["weights"]["baselines"][0])


def run(out: Optional[Path] = None, setup: Setup = Setup(), say: Callable[[str], None] = print) -> dict:
    """Runs the reproduction into ``out`` (default: ``runs/swp-fig1-<engine>``): scenarios,
    runs, ``fig1.json`` and the figure, written whole once complete (tailor.outdir)."""
    out = Path(out) if out is not None else default_dir(setup)
    with staged(out, "reproduction", name="swp-fig1") as work:
        report = _run(work, setup, say)
        from tailor.plot import save

        report["plots"] = [str(out / p.name) for p in save(figure(report), work / "fig1")]
        (work / "fig1.json").write_text(json.dumps(report, indent=2))
    return report


def default_dir(setup: Setup) -> Path:
    return Path("runs") / f"swp-fig1-{setup.engine}"


def options(
    out: Out = None,
    engine: Annotated[str, typer.Option(help="'model' (the SWP fast model, as the paper) or 'packet'.")] = "model",
    until: Annotated[str, typer.Option(help="Simulated traffic per point (a time, e.g. 11ms).")] = "11ms",
    seeds: cells.Seeds = 3,
) -> Plan:
    """SWP Fig. 1: foreground p99 slowdown under FIFO, priority, one weight, weight + fair
    queueing, background 20-80 %; checks each of the paper's claims."""
    if engine not in ("model", "packet"):
        raise OptionError(f"--engine: unknown value '{engine}'; accepted: model, packet")
    check_until(until)
    cells.check_seeds(seeds)
    setup = Setup(engine=engine, until=until, seeds=seeds)
    return Plan(out or default_dir(setup), lambda out, say: run(out, setup, say))


def _run(out: Path, setup: Setup, say: Callable[[str], None]) -> dict:
    weights = {cfg: foreground_weight(cfg, setup, out) for cfg in ("weight", "fq")}
    say(
        f"foreground weight meeting p99 <= {SLO} at 80 % background: per-class FIFO {weights['weight']:.3f}, "
        f"with fair queueing {weights['fq']:.3f}"
    )
    runs, rows = [], []
    for cfg in CONFIGS:
        for load in BG_LOADS:
            sc = scenario(cfg, load, setup, weights)
            path = out / f"{sc.name}.toml"
            path.write_text(sc.toml())
            per_seed = [
                _one(path, out / "runs" / f"{sc.name}-s{seed}", seed, setup) for seed in range(1, setup.seeds + 1)
            ]
            runs += [{"config": cfg, "bg_load": load, **r} for r in per_seed]
            row = {"config": cfg, "bg_load": load}
            for k in ("fg", "bg"):
                e = Estimate.of_values([(r[f"{k}_p99"], r[f"{k}_count"]) for r in per_seed], 99)
                row.update(cells.columns(f"{k}_p99", e))
            rows.append(row)
            say(
                f"{TITLES[cfg]:28s} bg {load:.0%}: fg p99 {row['fg_p99']:.2f}, bg p99 {row['bg_p99']:.2f} "
                f"(mean of {setup.seeds} seed{'s' if setup.seeds > 1 else ''})"
            )
    return {
        "engine": setup.engine,
        "transport": setup.transport,
        "seeds": setup.seeds,
        "weights": weights,
        "rows": rows,
        "runs": runs,
        "claims": claims(rows, weights),
    }


def _one(path: Path, out: Path, seed: int, setup: Setup) -> dict[str, Any]:
    """One seed of a point: each class's SLO value (p99 slowdown below 125 KB) and count."""
    r = tailor.run(path, out=out, engine=setup.engine, seed=seed)
    cls = r.summary["classes"]
    got = {"seed": seed}
    for k in ("fg", "bg"):
        slo = cls[k]["slo"][0]
        if slo["value"] is None:
            raise RunError(
                f"{path}: class {k} completed no message below 125 KB with seed {seed}; give the "
                "reproduction more time (--until)"
            )
        got[f"{k}_p99"], got[f"{k}_count"] = slo["value"], slo["count"]
    return got


def claims(rows: list[dict], weights: dict[str, float]) -> list[dict]:
    """The paper's statements about Fig. 1, each with whether our numbers (means over
    seeds) bear it out: ``holds`` is None (not judged) where a p99 it reads rests on fewer
    than 100 messages in some seed."""
    at = {(r["config"], r["bg_load"]): r for r in rows}
    lo, hi = BG_LOADS[0], BG_LOADS[-1]
    fg = lambda c: [at[(c, x)]["fg_p99"] for x in BG_LOADS]  # noqa: E731

    def judged(*pts):
        return all(r.get(f"{k}_p99_judged", True) for c, x in pts for r in [at[(c, x)]] for k in ("fg", "bg"))

    every = lambda c: [(c, x) for x in BG_LOADS]  # noqa: E731
    found = [
        {
            "claim": "(a) FIFO: at low load both classes meet the SLO",
            "holds": at[("fifo", lo)]["fg_p99"] <= SLO and at[("fifo", lo)]["bg_p99"] <= SLO,
        },
        {
            "claim": "(a) FIFO: at high background load the foreground misses it",
            "holds": at[("fifo", hi)]["fg_p99"] > SLO,
        },
        {
            "claim": "(b) priority: the foreground meets the SLO at every background load",
            "holds": all(v <= SLO for v in fg("priority")),
        },
        {
            "claim": "(b) priority: the background's small-message tail is far worse than under FIFO",
            "holds": at[("priority", hi)]["bg_p99"] > at[("fifo", hi)]["bg_p99"],
        },
        {
            "claim": "(c) one weight: the foreground meets the SLO up to 80 % background",
            "holds": all(v <= SLO for v in fg("weight")),
        },
        {
            "claim": "(d) fair queueing: the foreground needs less weight than with per-class FIFO",
            "holds": weights["fq"] < weights["weight"],
        },
        {
            "claim": "(d) fair queueing: the background even outperforms the foreground",
            "holds": at[("fq", hi)]["bg_p99"] < at[("fq", hi)]["fg_p99"],
        },
    ]
    # The points each claim reads, in the same order.
    reads = [
        [("fifo", lo)],
        [("fifo", hi)],
        every("priority"),
        [("priority", hi), ("fifo", hi)],
        every("weight"),
        [("weight", hi), ("fq", hi)],
        [("fq", hi)],
    ]
    return [{**c, "holds": c["holds"] if judged(*pts) else None} for c, pts in zip(found, reads, strict=True)]


def render(report: dict, console: Console) -> None:
    from rich import box
    from rich.table import Table

    t = Table(
        title=f"SWP Fig. 1 on the {report['engine']} engine: p99 slowdown of messages <= 125 KB (SLO {SLO}), "
        "foreground / background",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    t.add_column("background load", justify="right")
    for cfg in CONFIGS:
        t.add_column(TITLES[cfg], justify="right")
    at = {(r["config"], r["bg_load"]): r for r in report["rows"]}
    for load in BG_LOADS:
        row = []
        for cfg in CONFIGS:
            r = at[(cfg, load)]
            flag = "" if r["fg_p99"] <= SLO else " !"
            if "fg_p99_n" in r:
                fg, bg = (cells.text(cells.restore(f"{k}_p99", r, 99), ".2f") for k in ("fg", "bg"))
            else:  # a report written before seeds (one value a point)
                fg, bg = f"{r['fg_p99']:.2f}", f"{r['bg_p99']:.2f}"
            row.append(f"{fg}{flag} / {bg}")
        t.add_row(f"{load:.0%}", *row)
    console.print(t)
    w = report["weights"]
    console.print(
        f"foreground weight: (c) {w['weight']:.3f}, (d) {w['fq']:.3f}   (! = foreground misses its SLO, by the mean)\n"
        f"{cells.legend((99,))}",
        highlight=False,
    )
    c = Table(
        title="the paper's claims (the figure itself is not in the text)", title_justify="left", box=box.SIMPLE_HEAD
    )
    c.add_column("claim")
    c.add_column("ours")
    for claim in report["claims"]:
        c.add_row(claim["claim"], {True: "holds", False: "DOES NOT HOLD", None: "not judged"}[claim["holds"]])
    console.print(c)
    if report.get("plots"):
        console.print(f"plot: {', '.join(report['plots'])}", highlight=False)


def figure(report: Mapping[str, Any]) -> Figure:
    """SWP Fig. 1 as we reproduce it (the report of :func:`run`): per configuration, the
    foreground's and the background's p99 slowdown of messages up to the BDP against the
    background load, with the SLO. The paper's figure is not in its text (only its claims
    are), so there is no paper curve to overlay."""
    from tailor.errors import DataError
    from tailor.plot_style import _color, _figure

    try:
        rows, engine = report["rows"], report["engine"]
    except (KeyError, TypeError):
        raise DataError("not a swp-fig1 report (needs rows, engine)") from None
    fig, axes = _figure(width=13, height=3.8, ncols=len(CONFIGS))
    top = max([SLO, *(r[k] for r in rows for k in ("fg_p99", "bg_p99"))]) * 1.08
    for ax, cfg in zip(axes, CONFIGS, strict=True):
        part = sorted((r for r in rows if r["config"] == cfg), key=lambda r: r["bg_load"])
        loads = [r["bg_load"] for r in part]
        ax.plot(loads, [r["fg_p99"] for r in part], marker="o", color=_color(0), label="foreground (10 %)")
        ax.plot(loads, [r["bg_p99"] for r in part], marker="s", color=_color(1), linestyle="--", label="background")
        ax.axhline(SLO, color="black", linewidth=0.8, linestyle=":", label=f"SLO {SLO:g}")
        ax.set_ylim(0, top)
        ax.set_title(TITLES[cfg], fontsize="medium")
        ax.set_xlabel("background load (fraction of link capacity)")
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("p99 slowdown, messages ≤ 125 KB")
    axes[0].legend(fontsize="small")
    fig.suptitle(f"SWP Fig. 1 on the {engine} engine", fontsize="medium")
    return fig
