"""SWP §5.2, Fig. 8-9: the least link capacity meeting every class's SLO, per discipline,
over random scenarios drawn from the paper's Table 4 (tailor reproduce swp-capacity).

Per class: sizes from Google / Facebook Hadoop / Alibaba storage, log-normal burstiness
sigma ~ U[1, 2], mean rate ~ U[5, 10] Gbps (3 classes, Fig. 8) or U[3, 6] Gbps (5 classes,
Fig. 9), SLO threshold s ~ U[3, 8] on the p99 slowdown of messages up to the BDP
(125 KB) and 2s above; 10 us RTT, DCTCP. Each scenario has its own traffic seed and is
written as a dumbbell, so both host scalings run from one file. Its horizon is the
least that gives every judged SLO range 100 messages (tailor.reproduce.swp.horizon); a
range that needs more than the cap is not judged, and counted.

Per scenario and variant (engine, model form, host scaling; searches.py) the advisor
searches the least capacity for shared FIFO, SWP weights with per-class FIFO, SWP
weights with fair queueing inside each class, and static per-class provisioning.
Writes capacity.csv (one row per scenario, discipline and variant), capacity.json,
capacity_cdf.csv and the figure; prints per experiment (Fig. 8, 8(b)-(d), 9, 9(b)) the
paper's mean beside each variant's mean, interval, median and counts (savings.py).

The paper's averages (150 scenarios): FIFO needs +44 % (3 classes) and +65 % (5 classes)
capacity over SWP per-class FIFO weights, +247 % over SWP with fair queueing (3 classes),
+62 % (3 classes) and +79 % (5 classes) over SWP weights when a bursty class has a tight
SLO (Fig. 8(b), 9(b)).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Callable, Optional

import typer

from tailor.errors import OptionError
from tailor.outdir import staged
from tailor.reproduce.registry import Out, Plan
from tailor.reproduce.scenarios import Class, Dumbbell, Slo
from tailor.reproduce.swp import horizon, savings, searches

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from rich.console import Console

SIZES = ("google", "hadoop", "alistorage")
#: The advisor's names of the disciplines searched (capacity.csv: searches.DISCIPLINES).
STRATEGIES = tuple(searches.DISCIPLINES)


@dataclass(frozen=True)
class Form:
    """The scale of a run: scenarios per experiment (searched with the model calibrated and
    host links fixed: :data:`MAIN`), the horizon's cap (ms), and how many of each
    experiment's scenarios every other model variant (``subset``) and the packet engine
    (``packet``) also search."""

    n: int
    cap_ms: float
    subset: int
    packet: int


#: ``--quick``: not a result (2 scenarios per experiment, horizons capped at 30 ms, the
#: model only); the full form is `make validate`'s (the cap and the packet engine's
#: subset chosen by cost: docs/advisor.md, "Reproductions"; 4 packet scenarios per
#: experiment, in two scalings, are 16 searches of about 80 CPU-s (3 classes) and 150 (5
#: classes) each, 1,840 CPU-s, with their points kept as summaries: about 180 MB). The
#: other model variants' subset: 25 scenarios per experiment, so that the whole fits an
#: hour of two idle cores (measured with 40: 8,000 CPU-s, 67 minutes; 25 saves about
#: 1,250 of them).
FORMS = {"quick": Form(n=2, cap_ms=30.0, subset=2, packet=0), "full": Form(n=150, cap_ms=100.0, subset=25, packet=4)}
#: The variant that searches every scenario: the calibrated model, host links fixed (the
#: reading §5.2's text supports; docs/advisor.md, "Capacity scaling: both readings").
MAIN = searches.Variant(*savings.MAIN)
#: Shortest horizon (ms): below it a run is mostly the transient of empty queues.
MIN_HORIZON_MS = 10.0

#: Traffic of a computed horizon starts at START and is judged from WARMUP on (the
#: queues start empty); the horizon is the judged part.
START_MS, WARMUP_MS = 1.0, 2.0
#: Senders per class, on the dumbbell's left; the receiver is alone on its right.
SENDERS = 8


def draw(
    rng: random.Random, index: int, n_classes: int, until: Optional[str] = "21ms", *, cap_ms: float = math.inf
) -> tuple[Dumbbell, list[dict]]:
    """Scenario ``index`` of an experiment: Table 4's ranges drawn from ``rng``, then an
    independent traffic seed (the scenario's ``seed``), written as a dumbbell (PLAN25:
    senders left, one receiver right, 100 Gbps everywhere nominally, base RTT 10 us) so
    one file serves both host scalings of ``tailor advise``.

    With ``until`` a time every class runs that long with both its SLOs. With
    ``until=None`` the horizon is computed (tailor.reproduce.swp.horizon): the least
    that gives every SLO range 100 messages after the warm-up with about 99 %
    probability, over the ranges that need no more than ``cap_ms``; an SLO whose range
    needs more is left out of the scenario and marked ``judged: False`` in the class's
    params (never silently: the reproduction counts them)."""
    lo, hi = (5.0, 10.0) if n_classes == 3 else (3.0, 6.0)
    params = [
        {
            "sizes": rng.choice(SIZES),
            "sigma": round(rng.uniform(1.0, 2.0), 2),
            "rate_gbps": round(rng.uniform(lo, hi), 2),
            "slo": round(rng.uniform(3.0, 8.0), 2),
        }
        for _ in range(n_classes)
    ]
    seed = rng.randrange(1, 2**31)
    start, warmup = "1ms", None
    for p in params:
        need = {
            r: horizon.range_horizon_s(p["sizes"], p["sigma"], p["rate_gbps"], r == "small") * 1e3
            for r in ("small", "large")
        }
        p["needs_ms"] = {r: round(v, 3) for r, v in need.items()}
        p["judged"] = {r: until is not None or v <= cap_ms for r, v in need.items()}
    if until is None:
        judged = [v for p in params for r, v in p["needs_ms"].items() if p["judged"][r]]
        horizon_ms = max(MIN_HORIZON_MS, math.ceil(max(judged, default=0.0) * 10) / 10)
        start, warmup = f"{START_MS:g}ms", f"{WARMUP_MS:g}ms"
        until = f"{WARMUP_MS + horizon_ms:.1f}ms"
    classes = []
    for k, p in enumerate(params):
        slos = []
        if p["judged"]["small"]:
            slos.append(Slo(p["slo"], max_size="125KB"))
        if p["judged"]["large"]:
            slos.append(Slo(2 * p["slo"], min_size="125KB"))
        classes.append(
            Class(
                name=f"c{k}",
                sizes=p["sizes"],
                sigma=p["sigma"],
                senders=f"{k * SENDERS}..{(k + 1) * SENDERS}",
                rate=f"{round(p['rate_gbps'] * 1000)}Mbps",
                slos=tuple(slos),
            )
        )
    sc = Dumbbell(
        name=f"swp-capacity-{n_classes}c-{index:03d}",
        classes=tuple(classes),
        left=SENDERS * n_classes,
        scheduler="drr",
        seed=seed,
        until=until,
        start=start,
        warmup=warmup,
        comment=f"SWP §5.2 random scenario {index} ({n_classes} classes, Table 4), traffic seed {seed}.",
    )
    return sc, params


def refused(params: list[dict]) -> bool:
    """A scenario with a class none of whose SLO ranges can be judged under the cap is not
    searched (the advisor needs an SLO per class, and a class without one would give its
    weight away): counted as not judged."""
    return any(not any(p["judged"].values()) for p in params)


def run(
    n: int = FORMS["full"].n,
    classes: tuple[int, ...] = (3, 5),
    seed: int = 1,
    cap_ms: float = FORMS["full"].cap_ms,
    variants: Optional[list[searches.Variant]] = None,
    subset: int = FORMS["full"].subset,
    packet: int = FORMS["full"].packet,
    packet_seeds: int = 3,
    jobs: Optional[int] = None,
    ray: Optional[str] = None,
    quick: bool = False,
    out: Optional[Path] = None,
    say: Callable[[str], None] = print,
) -> dict:
    """Runs the reproduction into ``out`` (default :func:`default_dir`): scenarios,
    ``capacity.csv``, ``capacity.json``, ``capacity_cdf.csv`` and the figure, written
    whole once complete (tailor.outdir). Of each experiment's scenarios, the first
    ``subset`` are searched with every model variant and the first ``packet`` on the packet
    engine, when ``variants`` include them; every one with :data:`MAIN`."""
    variants = variants if variants is not None else [MAIN]
    out = Path(out) if out is not None else default_dir(classes)
    with staged(out, "reproduction", name="swp-capacity") as work:
        report = _run(n, classes, seed, cap_ms, variants, (subset, packet), packet_seeds, jobs, ray, work, say)
        report["quick"] = quick
        from tailor.plot import save

        report["plots"] = [str(out / p.name) for p in save(figure(report), work / "capacity")]
        savings.write_csv(report["rows"], work / "capacity.csv", searches.COLUMNS)
        savings.write_cdf(report["rows"], report["summary"], work / "capacity_cdf.csv")
        (work / "capacity.json").write_text(json.dumps(report, indent=2))
    return report


def default_dir(classes: tuple[int, ...] | int = (3, 5)) -> Path:
    ks = (classes,) if isinstance(classes, int) else tuple(classes)
    return Path("runs") / ("swp-capacity" if len(ks) != 1 else f"swp-capacity-{ks[0]}")


def _run(
    n: int,
    classes: tuple[int, ...],
    seed: int,
    cap_ms: float,
    variants: list[searches.Variant],
    subsets: tuple[int, int],
    packet_seeds: int,
    jobs: Optional[int],
    ray: Optional[str],
    work: Path,
    say: Callable[[str], None],
) -> dict:
    (work / "scenarios").mkdir()
    scenarios, tasks = {}, []
    for k in classes:
        # One generator per experiment: Fig. 9's scenarios do not depend on how many Fig. 8 has.
        rng = random.Random(f"{seed}/{k}")
        for i in range(n):
            sc, params = draw(rng, i, k, None, cap_ms=cap_ms)
            path = work / "scenarios" / f"{sc.name}.toml"
            path.write_text(sc.toml())
            scenarios[sc.name] = {
                "scenario": sc.name,
                "classes": k,
                "seed": sc.seed,
                "until": sc.until,
                "params": params,
                "refused": refused(params),
            }
            if scenarios[sc.name]["refused"]:
                continue
            for v in variants:
                if i >= (subsets[1] if v.engine == "packet" else n if v == MAIN else subsets[0]):
                    continue
                t = searches.task(path, scenarios[sc.name], v, packet_seeds, work)
                t["cost"] = float(sc.until.removesuffix("ms")) * k * (20 if v.engine == "packet" else 1)
                tasks.append(t)
    nref = sum(s["refused"] for s in scenarios.values())
    say(
        f"{len(scenarios)} scenarios ({', '.join(f'{n} of {k} classes' for k in classes)}), "
        f"{nref} not judged (a class with no SLO range reaching 100 messages within {cap_ms:g} ms); "
        f"searched: {_coverage([v.__dict__ for v in variants], n, *subsets)}"
    )
    rows, failures, cost, per_search = [], [], {}, []
    for r in searches.run_all(tasks, jobs, ray, say):
        if "error" in r:
            failures.append(r)
            continue
        rows.extend(r["rows"])
        per_search.append(
            {
                "id": r["id"],
                "cpu_s": round(r["cpu_s"], 3),
                "wall_s": round(r["wall_s"], 3),
                "until": scenarios[r["id"].split("|")[0]]["until"],
            }
        )
        c = cost.setdefault(r["id"].split("|", 1)[1], {"searches": 0, "cpu_s": 0.0, "wall_s": 0.0, "unjudged": 0})
        c["searches"] += 1
        c["cpu_s"] += r["cpu_s"]
        c["wall_s"] += r["wall_s"]
        c["unjudged"] += r["unjudged"]
    params = {s["scenario"]: s["params"] for s in scenarios.values()}
    refused_names = {s["scenario"] for s in scenarios.values() if s["refused"]}
    slos = [p["judged"][r] for s in scenarios.values() for p in s["params"] for r in ("small", "large")]
    return {
        "n": n,
        "classes": list(classes),
        "seed": seed,
        "cap_ms": cap_ms,
        "subset": subsets[0],
        "packet": subsets[1],
        "per_search": per_search,
        "packet_seeds": packet_seeds,
        "variants": [v.__dict__ for v in variants],
        "scenarios": list(scenarios.values()),
        "rows": rows,
        "failures": failures,
        "cost": cost,
        "slos": {"judged": sum(slos), "not_judged": len(slos) - sum(slos)},
        "summary": savings.summarize(rows, params, refused_names),
    }


def _coverage(variants: list[dict], n: int, subset: int, packet: int) -> str:
    """Which variant searched how many scenarios of each experiment, in words."""

    def label(v: dict) -> str:
        return searches.Variant(**v).label

    def count(v: dict) -> int:
        return min(n, packet if v["engine"] == "packet" else n if searches.Variant(**v) == MAIN else subset)

    return "; ".join(f"{label(v)} on {'all ' if count(v) == n else 'the first '}{count(v)}" for v in variants) + (
        " scenario(s) of each experiment"
    )


def options(
    n: Annotated[
        Optional[int],
        typer.Option(
            help="Random scenarios per experiment (the paper: 150; default: the form's).", min=1, show_default=False
        ),
    ] = None,
    classes: Annotated[
        Optional[list[int]],
        typer.Option(
            help="Classes per scenario: 3 (Fig. 8) and/or 5 (Fig. 9); repeat for both (the default).",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the scenario generator.", min=0, max=2**31 - 1)] = 1,
    cap: Annotated[
        Optional[float],
        typer.Option(
            help="Longest horizon in ms (default: the form's); an SLO range needing more is not judged.",
            min=1.0,
            show_default=False,
        ),
    ] = None,
    engine: Annotated[
        Optional[list[str]],
        typer.Option(
            help="model and/or packet (repeat; default: every one this build has, packet on --packet scenarios).",
            show_default=False,
        ),
    ] = None,
    model_form: Annotated[
        Optional[list[str]],
        typer.Option(help="calibrated and/or paper (repeat; default: every one this build has).", show_default=False),
    ] = None,
    host_scaling: Annotated[
        Optional[list[str]],
        typer.Option(help="scaled and/or fixed (repeat; default: every one this build has).", show_default=False),
    ] = None,
    subset: Annotated[
        Optional[int],
        typer.Option(
            help="Scenarios per experiment also searched by the model variants "
            "other than calibrated with host links fixed (default: the "
            "form's).",
            min=0,
            show_default=False,
        ),
    ] = None,
    packet: Annotated[
        Optional[int],
        typer.Option(
            help="Scenarios per experiment also searched on the packet engine (default: the form's).",
            min=0,
            show_default=False,
        ),
    ] = None,
    seeds: Annotated[int, typer.Option(help="Packet engine: seeds per capacity tried.", min=1)] = 3,
    jobs: Annotated[
        Optional[int], typer.Option(help="Worker processes (default: one per core).", min=1, show_default=False)
    ] = None,
    ray: Annotated[
        Optional[str],
        typer.Option(help="Run the searches on Ray: 'local', 'auto' or ray://HOST:PORT.", show_default=False),
    ] = None,
    quick: Annotated[
        bool,
        typer.Option(
            "--quick",
            help="2 scenarios per experiment, horizons up to 30 ms, the "
            "model calibrated with host links fixed unless asked for others (seconds; "
            "not a result).",
        ),
    ] = False,
    out: Out = None,
) -> Plan:
    """SWP Fig. 8-9: least capacity per discipline over random scenarios (Table 4)."""
    ks = tuple(dict.fromkeys([classes] if isinstance(classes, int) else (classes or [3, 5])))
    for k in ks:
        if k not in (3, 5):
            raise OptionError(f"--classes: {k} is not accepted; accepted: 3, 5")
    form = FORMS["quick" if quick else "full"]
    have = searches.supported()
    if quick:  # the main variant only, unless asked for others
        have = {"engine": (MAIN.engine,), "model_form": (MAIN.form,), "host_scaling": (MAIN.scaling,)}
    vs = searches.variants(
        engine or list(have["engine"]),
        model_form or list(have["model_form"]),
        host_scaling or list(have["host_scaling"]),
    )
    if ray is not None:
        from tailor import pool

        pool.ray_module(ray)
    kw = dict(
        n=n or form.n,
        classes=ks,
        seed=seed,
        cap_ms=cap or form.cap_ms,
        variants=vs,
        subset=form.subset if subset is None else subset,
        packet=form.packet if packet is None else packet,
        packet_seeds=seeds,
        jobs=jobs,
        ray=ray,
        quick=quick,
    )
    return Plan(out or default_dir(ks), lambda out, say: run(**kw, out=out, say=say))  # type: ignore[arg-type]


def render(report: dict, console: Console) -> None:
    from rich import box
    from rich.table import Table

    if report.get("quick"):
        console.print("--quick: a few short scenarios to show the machinery; NOT a result.", highlight=False)
    by: dict[tuple, dict] = {}
    for s in report["summary"]:
        by[(s["experiment"], s["comparison"], s["engine"], s["model_form"], s["host_scaling"])] = s
    cols = [
        ("model", "calibrated", "model calibrated"),
        ("model", "paper", "model paper-literal"),
        ("packet", "", "packet engine"),
    ]
    for scaling in sorted(searches.SCALINGS, key=lambda x: x != MAIN.scaling):  # the main variant's first
        present = [c for c in cols if any(k[2:] == (c[0], c[1], scaling) for k in by)]
        if not present:
            continue
        t = Table(
            title=f"SWP §5.2: extra capacity, mean [95 % interval over scenarios], median; host links "
            f"{'scaled with the capacity' if scaling == 'scaled' else 'fixed at 100 Gbps'}",
            title_justify="left",
            box=box.SIMPLE_HEAD,
            show_lines=True,
        )
        for name in ("experiment", "comparison", "paper", *(c[2] for c in present)):
            t.add_column(name, justify="left" if name in ("experiment", "comparison") else "right")
        for e in savings.EXPERIMENTS:
            if e.classes not in report["classes"]:
                continue
            first = next(
                (by[k] for c in present if (k := (e.name, "fifo_vs_weights", c[0], c[1], scaling)) in by), None
            )
            if first is None:
                continue
            head = f"{e.name}: {e.what}\n{first['scenarios']} scenarios"
            head += f", {first['refused']} not judged" if first["refused"] else ""
            if not first["scenarios"]:
                t.add_row(head, "(none in this sample)", "", *("" for _ in present))
                continue
            for i, comp in enumerate(savings.COMPARISONS):
                t.add_row(
                    head if i == 0 else "",
                    savings.LABELS[comp],
                    savings.paper_cell(e.paper.get(comp)),
                    *(savings.cell(by.get((e.name, comp, c[0], c[1], scaling))) for c in present),
                )
        console.print(t)
    missing = [c[2] for c in cols if not any(k[2:4] == c[:2] for k in by)]
    if missing:
        console.print(
            f"not run: {', '.join(missing)} (not asked for, or not in this build's tailor.advise)", highlight=False
        )
    console.print(
        f"searched: {_coverage(report['variants'], report['n'], report['subset'], report['packet'])}", highlight=False
    )
    nref = sum(s["refused"] for s in report["scenarios"])
    console.print(
        f"SLO ranges judged {report['slos']['judged']}, not judged {report['slos']['not_judged']} (fewer "
        f"than 100 messages expected within {report['cap_ms']:g} ms); scenarios not judged: {nref}",
        highlight=False,
    )
    for f in report["failures"]:
        console.print(f"search failed: {f['id'].replace('|', ' ')}: {f['error']}", highlight=False)
    if report.get("plots"):
        console.print(f"plot: {', '.join(report['plots'])}", highlight=False)


def figure(report: Mapping[str, Any]) -> Figure:
    """Fig. 8(a)/9(a): the CDF of each discipline's least capacity (:data:`MAIN`'s),
    and the CDF of FIFO's extra capacity over SWP weights per variant."""
    from matplotlib.figure import Figure  # not pyplot: a figure no global state keeps alive

    from tailor.errors import DataError

    try:
        rows, summary, ks = report["rows"], report["summary"], report["classes"]
    except (KeyError, TypeError):
        raise DataError("not a swp-capacity report (needs rows, summary, classes)") from None
    fig = Figure(figsize=(11, 4 * len(ks)))
    axes = fig.subplots(len(ks), 2, squeeze=False)
    keys = {(r["engine"], r["model_form"], r["host_scaling"]) for r in rows}
    main = (MAIN.engine, MAIN.form, MAIN.scaling)
    first = main if main in keys else min(keys, default=None)
    for row, k in zip(axes, ks, strict=True):
        for d in searches.DISCIPLINES.values():
            vals = sorted(
                r["capacity_gbps"]
                for r in rows
                if r["classes"] == k
                and r["found"]
                and r["discipline"] == d
                and (r["engine"], r["model_form"], r["host_scaling"]) == first
            )
            if vals:
                _cdf(row[0], vals, d)
        row[0].set(
            xlabel="least capacity (Gbps)",
            ylabel="fraction of scenarios",
            title=f"Fig. {8 if k == 3 else 9}(a): {k} classes, {' '.join(x for x in first or () if x)}",
        )
        for s in summary:
            if s["experiment"] == f"Fig. {8 if k == 3 else 9}" and s["comparison"] == "fifo_vs_weights" and s["n"]:
                label = " ".join(x for x in (s["engine"], s["model_form"], s["host_scaling"]) if x)
                _cdf(row[1], sorted(s["values"]), label)
        paper = 44.0 if k == 3 else 65.0
        row[1].axvline(paper, color="gray", linestyle="--", label=f"paper's mean +{paper:.0f} %")
        row[1].set(
            xlabel="FIFO's extra capacity over SWP weights (%)",
            ylabel="fraction of scenarios",
            title=f"{k} classes: CDF of the saving",
        )
        for ax in row:
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _cdf(ax: Any, vals: list[float], label: str) -> None:
    """The empirical CDF of sorted ``vals``, from 0 at the first value to 1 at the last."""
    ax.step([vals[0], *vals], [0.0, *((i + 1) / len(vals) for i in range(len(vals)))], where="post", label=label)
