"""Homa Fig. 17-20 (§5.2, "Configuration policies"): how Homa's configuration choices move
its tail, each on the workload the paper found most sensitive, at 80 % network load on
the paper's fabric (scenarios/homa/w<N>-80.toml with the overrides below).

- Fig. 17, W1: 1 to 7 unscheduled levels, one scheduled level. Paper: one unscheduled level
  makes p99 more than 2.5x worse for most sizes; a second level helps more than 80 % of
  messages.
- Fig. 18, W3: two unscheduled levels with the cutoff between them at 100 B ... 4,000 B.
  Paper: up to about 2,000 B the smaller messages pay nothing; 4,000 B penalises about 90 %
  of messages. The paper's balancing rule "would select 1,930 B"; the authors' simulator's
  own algorithm gives 2,339 B (docs/homa.md, "Levels"): both are run.
- Fig. 19, W4: 4 or 7 scheduled levels, one unscheduled. Paper: little difference in latency.
- Fig. 20, W4: unscheduled limits from one packet to four RTTbytes. Paper: messages between
  the limit and RTTbytes suffer about 2.5x.

Each setting's messages go to the authors' buckets (``bins``); ``sensitivity.csv`` has one
row per (figure, setting, bucket). Each setting runs ``--seeds`` seeds (3 by default): a
bucket's statistic is the mean over seeds of each seed's, with the bootstrap interval across
seeds (``bins.combine``), and a bucket is judged when every seed has 100 messages in it. The
claims are checked on those means over the judged buckets, weighting each bucket by its
share of messages.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Callable

import polars as pl
import typer

import tailor
from tailor import parse
from tailor.outdir import staged
from tailor.reproduce import cells
from tailor.reproduce.homa.bins import combine, read_runs
from tailor.reproduce.homa.fig12 import LENGTHS_MS
from tailor.reproduce.homa.points import length_us, run_points, scenario_file
from tailor.reproduce.registry import Out, Plan
from tailor.stats import percentile

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COLUMNS", "SETTINGS", "options", "run", "render", "claims"]

Say = Callable[[str], None]

#: (figure, setting, workload, overrides): every run.
SETTINGS: tuple[tuple[str, str, str, dict[str, Any]], ...] = (
    *(
        (
            ("fig17", f"{u} unscheduled", "W1", {"transport.unscheduled_levels": u, "transport.scheduled_levels": 1})
            for u in range(1, 8)
        )
    ),
    *(
        (
            (
                "fig18",
                f"cutoff {c} B",
                "W3",
                {"transport.unscheduled_levels": 2, "transport.unscheduled_cutoffs": [f"{c}B"]},
            )
            for c in (100, 500, 1000, 1930, 2339, 4000)
        )
    ),
    *(
        (
            ("fig19", f"{s} scheduled", "W4", {"transport.unscheduled_levels": 1, "transport.scheduled_levels": s})
            for s in (4, 7)
        )
    ),
    *(
        (
            ("fig20", f"{b} B blind", "W4", {"transport.unscheduled_bytes": f"{b}B"})
            for b in (1442, 5000, 9328, 20000, 40000)
        )
    ),
)
FIGURES = ("fig17", "fig18", "fig19", "fig20")
COLUMNS = (
    "figure",
    "setting",
    "workload",
    "size_upper_bytes",
    "count_percent",
    "median_slowdown",
    "p99_slowdown",
    "p99_slowdown_lo",
    "p99_slowdown_hi",
    "messages",
    "seeds",
    "judged",
)


@dataclass(frozen=True)
class SPoint:
    figure: str
    setting: str
    workload: str
    seed: int
    until_us: int

    @property
    def name(self) -> str:
        return f"{self.figure}-{self.setting.replace(' ', '-')}"

    @property
    def until(self) -> str:
        return f"{self.until_us}us"


def overrides(p: SPoint) -> dict[str, Any]:
    return next(o for f, s, _, o in SETTINGS if (f, s) == (p.figure, p.setting))


def write_scenario(p: SPoint, dir: Path, why: str) -> Path:
    src = scenario_file("homa", p.workload, 0.8)
    over = {**overrides(p), "class[0].until": p.until}
    path = dir / f"{p.name}.toml"
    said = ", ".join(f"{k} = {json.dumps(v)}" for k, v in over.items())
    path.write_text(
        f"# {src.name} with {said} ({why}).\n" + tailor.Scenario.load(src).with_(over).resolve()["document"]
    )
    return path


def parse_figures(text: str) -> list[str]:
    return parse.choices("--figures", text, FIGURES, "figure")


def options(
    figures: Annotated[str, typer.Option(help="Figures, comma-separated (fig17..fig20).")] = "fig17,fig18,fig19,fig20",
    quick: Annotated[bool, typer.Option("--quick", help="homa-fig12's quick lengths; fewer buckets judged.")] = False,
    seeds: cells.Seeds = 3,
    out: Out = None,
) -> Plan:
    """Homa Fig. 17-20: unscheduled levels, cutoffs, scheduled levels, blind bytes."""
    cells.check_seeds(seeds)
    form = "quick" if quick else "full"
    figs = parse_figures(figures)
    pts = [
        SPoint(f, s, w, seed, length_us(LENGTHS_MS[form], w, 0.8))
        for f, s, w, _ in SETTINGS
        if f in figs
        for seed in range(1, seeds + 1)
    ]
    default = Path("runs") / ("homa-sensitivity-quick" if quick else "homa-sensitivity")
    return Plan(out or default, lambda out, say: run(pts, form, out, say))


def run(points: list[SPoint], form: str, out: Path, say: Say) -> dict:
    with staged(out, "reproduction", name="homa-sensitivity") as work:
        dirs = run_points(points, work, f"tailor reproduce homa-sensitivity, {form} form", say, write=write_scenario)
        rows = []
        for key in dict.fromkeys((p.figure, p.setting, p.workload) for p in points):
            runs = [p for p in points if (p.figure, p.setting, p.workload) == key]
            per_seed, totals, _, _ = read_runs(runs, dirs)
            for row in combine(per_seed, totals):
                lo, hi = row.get("p99_slowdown_ci") or (None, None)
                rows.append(
                    {
                        "figure": key[0],
                        "setting": key[1],
                        "workload": key[2],
                        **row,
                        "p99_slowdown_lo": lo,
                        "p99_slowdown_hi": hi,
                        "seeds": len(runs),
                    }
                )
        pl.DataFrame(
            [{c: r[c] for c in COLUMNS} for r in rows],
            schema_overrides={"p99_slowdown_lo": pl.Float64, "p99_slowdown_hi": pl.Float64},
        ).write_csv(work / "sensitivity.csv")
        report = {
            "reproduction": "homa-sensitivity",
            "form": form,
            "rows": rows,
            "claims": claims(rows, {p.figure for p in points}),
        }
        (work / "sensitivity.json").write_text(json.dumps(report, indent=1))
    return report


def _ratio(rows: list[dict], fig: str, a: str, b: str, lo: int = 0, hi: int | None = None) -> list[tuple[float, float]]:
    """(p99 of setting a / p99 of setting b, share of messages) per bucket judged in both
    whose upper bound is in (lo, hi]."""

    def of(s: str) -> dict[int, dict]:
        return {r["size_upper_bytes"]: r for r in rows if r["figure"] == fig and r["setting"] == s and r["judged"]}

    ra, rb = of(a), of(b)
    return [
        (ra[k]["p99_slowdown"] / rb[k]["p99_slowdown"], rb[k]["count_percent"])
        for k in ra
        if k in rb and lo < k <= (hi or k)
    ]


def _share(pairs: list[tuple[float, float]], test: Callable[[float], bool]) -> float | None:
    total = sum(w for _, w in pairs)
    return None if not total else 100 * sum(w for r, w in pairs if test(r)) / total


def _median(pairs: list[tuple[float, float]]) -> float | None:
    """The nearest-rank median of the pairs' ratios (``tailor.stats.percentile``)."""
    return percentile([r for r, _ in pairs], 50) if pairs else None


def claims(rows: list[dict], figs: set[str]) -> dict[str, str]:
    """Each figure's claim, checked: the paper's words and what we measured."""
    out = {}
    if "fig17" in figs:
        worse = _ratio(rows, "fig17", "1 unscheduled", "7 unscheduled")
        helped = _ratio(rows, "fig17", "2 unscheduled", "1 unscheduled")
        out["fig17"] = (
            f"paper: one unscheduled level > 2.5x worse p99 for most sizes; ours: > 2.5x for "
            f"{_fmt(_share(worse, lambda r: r > 2.5))} of messages (median ratio {_fmt_x(_median(worse))}). "
            f"Paper: a second level helps > 80 % of messages; ours: {_fmt(_share(helped, lambda r: r < 1))}"
        )
    if "fig18" in figs:
        parts = []
        for c in (1930, 2339, 4000):
            small = _ratio(rows, "fig18", f"cutoff {c} B", "cutoff 1000 B", hi=1000)
            allm = _ratio(rows, "fig18", f"cutoff {c} B", "cutoff 1000 B")
            parts.append(
                f"{c:,} B: p99 of messages <= 1 KB x{_fmt_x(_median(small))} of the 1,000 B cutoff's, "
                f"{_fmt(_share(allm, lambda r: r > 1.05))} of all messages > 5 % worse"
            )
        out["fig18"] = "paper: up to ~2,000 B free for small messages, 4,000 B hurts ~90 %; ours: " + "; ".join(parts)
    if "fig19" in figs:
        r = _ratio(rows, "fig19", "4 scheduled", "7 scheduled")
        out["fig19"] = (
            f"paper: 4 scheduled levels about as good as 7; ours: p99 ratio 4/7 median {_fmt_x(_median(r))}, "
            f"within 10 % for {_fmt(_share(r, lambda x: abs(x - 1) <= 0.1))} of messages"
        )
    if "fig20" in figs:
        parts = []
        for b in (1442, 5000):
            r = _ratio(rows, "fig20", f"{b} B blind", "9328 B blind", lo=b, hi=9328)
            parts.append(f"limit {b} B: messages of {b}-9,328 B p99 x{_fmt_x(_median(r))}")
        out["fig20"] = "paper: messages between the limit and RTTbytes ~2.5x worse; ours: " + "; ".join(parts)
    return out


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.0f} %"


def _fmt_x(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def render(report: dict[str, Any], console: Console) -> None:
    from rich import box
    from rich.table import Table

    for fig in FIGURES:
        rows = [r for r in report["rows"] if r["figure"] == fig]
        if not rows:
            continue
        settings = list(dict.fromkeys(r["setting"] for r in rows))
        first = [r for r in rows if r["setting"] == settings[0]]
        cum, picks = 0.0, []
        for r in first:
            cum += r["count_percent"]
            if not picks or cum >= 10 * (len(picks) + 1) - 1e-9:
                picks.append(r["size_upper_bytes"])
        t = Table(
            title=f"Homa {fig.replace('fig', 'Fig. ')}, {rows[0]['workload']} at 80 %: p99 slowdown at each "
            f"10 % of messages ({report['form']} form)",
            title_justify="left",
            box=box.SIMPLE_HEAD,
        )
        t.add_column("setting")
        for b in picks[:10]:
            t.add_column(f"≤ {b:,} B", justify="right")
        at = {(r["setting"], r["size_upper_bytes"]): r for r in rows}
        for s in settings:
            t.add_row(s, *(_cell(at[(s, b)]) for b in picks[:10]))
        console.print(t)
        console.print("  " + report["claims"].get(fig, ""), highlight=False)
    seeds = max((r["seeds"] for r in report["rows"]), default=0)
    console.print(
        f"each cell: the mean over {seeds} seed(s) of each seed's p99 [95 % interval across seeds]; a bucket "
        "with fewer than 100 messages in a seed is no result: its p99 is shown in parentheses and the "
        "claims leave it out.",
        highlight=False,
        markup=False,
    )


def _cell(r: dict[str, Any]) -> str:
    if r["p99_slowdown"] is None:
        return ""
    if not r["judged"]:
        return f"({r['p99_slowdown']:.2f})"
    lo, hi = r["p99_slowdown_lo"], r["p99_slowdown_hi"]
    return f"{r['p99_slowdown']:.2f}" + (f" [{lo:.2f}–{hi:.2f}]" if lo is not None else "")
