"""Homa Fig. 14 (§5.2): where the tail delay of short messages comes from, W1-W5 at 80 %
network load on the paper's fabric.

Each point runs its workload's shipped scenario with ``[record] waits = true``: for every
message, the time its (last) packet waited behind a less important packet already on a link
(*preemption lag*) and the rest of its waiting (*queueing*), at its sender and every port
(``waits.csv``, docs/results.md). As the paper: the short messages are the smallest 20 % of
messages for W1-W4 and the one-packet messages (at most 1,442 bytes) for W5; the bar is the
mean over those of them whose slowdown is near the 99th percentile (between their 98.5th and
99.5th percentiles). The paper's claim: "tail latency is almost entirely due to link-level
preemption lag". Its bars are in a figure, not in its text, so the claim is what is checked.

Each workload runs on ``--seeds`` seeds (3 by default); the table gives the mean over seeds
with its interval (``tailor.reproduce.cells``). A bar rests on the messages near p99, so it
is a result only where every seed has the 100 short messages a p99 needs; the claim is
checked on those workloads alone, and the others are named as unjudged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Callable

import polars as pl
import typer

import tailor
from tailor.outdir import staged
from tailor.reproduce import cells
from tailor.reproduce.homa.fig12 import LENGTHS_MS
from tailor.reproduce.homa.points import length_us, parse_workloads, run_points, scenario_file
from tailor.reproduce.registry import Out, Plan
from tailor.stats import Estimate, percentile

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COLUMNS", "options", "run", "render", "bar", "summarise"]

Say = Callable[[str], None]

COLUMNS = (
    "workload",
    "seed",
    "short_messages",
    "near_p99",
    "p99_slowdown",
    "extra_ns",
    "preemption_lag_ns",
    "queueing_ns",
    "lag_percent",
)
#: The largest one-packet message (W5's short messages).
ONE_PACKET = 1442
#: The band of short messages a bar averages: slowdown between these percentiles.
BAND = (98.5, 99.5)


@dataclass(frozen=True)
class WPoint:
    workload: str
    seed: int
    until_us: int

    @property
    def name(self) -> str:
        return f"fig14-{self.workload.lower()}-80"

    @property
    def until(self) -> str:
        return f"{self.until_us}us"


def write_scenario(p: WPoint, dir: Path, why: str) -> Path:
    src = scenario_file("homa", p.workload, 0.8)
    sc = tailor.Scenario.load(src).with_({"class[0].until": p.until, "record.waits": True})
    path = dir / f"{p.name}.toml"
    path.write_text(
        f'# {src.name} with class[0].until = "{p.until}", record.waits = true ({why}).\n' + sc.resolve()["document"]
    )
    return path


def options(
    workloads: Annotated[str, typer.Option(help="Workloads, comma-separated (W1..W5).")] = "W1,W2,W3,W4,W5",
    quick: Annotated[bool, typer.Option("--quick", help="homa-fig12's quick lengths.")] = False,
    seeds: cells.Seeds = 3,
    out: Out = None,
) -> Plan:
    """Homa Fig. 14: preemption lag against queueing in short messages' tail delay."""
    cells.check_seeds(seeds)
    form = "quick" if quick else "full"
    pts = [
        WPoint(w, seed, length_us(LENGTHS_MS[form], w, 0.8))
        for w in parse_workloads(workloads)
        for seed in range(1, seeds + 1)
    ]
    default = Path("runs") / ("homa-fig14-quick" if quick else "homa-fig14")
    return Plan(out or default, lambda out, say: run(pts, form, out, say))


def bar(messages: pl.DataFrame, waits: pl.DataFrame, workload: str) -> dict[str, Any]:
    """One workload's bar from a run's messages (id, size_bytes, slowdown, ideal_ns,
    start_ns, finish_ns) and waits."""
    m = messages.join(waits.select("id", "preemption_lag_ns", "queueing_ns"), on="id")
    if workload == "W5":
        short = m.filter(pl.col("size_bytes") <= ONE_PACKET)
    else:
        cut = percentile(m["size_bytes"], 20)
        short = m.filter(pl.col("size_bytes") <= cut)
    s = short["slowdown"].to_numpy()
    lo, hi = percentile(s, BAND[0]), percentile(s, BAND[1])
    near = short.filter((pl.col("slowdown") >= lo) & (pl.col("slowdown") <= hi))
    extra = (near["finish_ns"] - near["start_ns"] - near["ideal_ns"]).mean() or 0.0
    lag, queueing = near["preemption_lag_ns"].mean() or 0.0, near["queueing_ns"].mean() or 0.0
    return {
        "workload": workload,
        "short_messages": short.height,
        "near_p99": near.height,
        "p99_slowdown": percentile(s, 99),
        "extra_ns": extra,
        "preemption_lag_ns": lag,
        "queueing_ns": queueing,
        "lag_percent": 100 * lag / (lag + queueing) if lag + queueing > 0 else 0.0,
    }


def run(points: list[WPoint], form: str, out: Path, say: Say) -> dict:
    with staged(out, "reproduction", name="homa-fig14") as work:
        dirs = run_points(points, work, f"tailor reproduce homa-fig14, {form} form", say, write=write_scenario)
        rows = []
        for p in points:
            msgs = pl.read_parquet(
                dirs[p] / "messages.parquet",
                columns=["id", "size_bytes", "slowdown", "ideal_ns", "start_ns", "finish_ns"],
            )
            rows.append({**bar(msgs, pl.read_csv(dirs[p] / "waits.csv"), p.workload), "seed": p.seed})
        pl.DataFrame(rows).select(COLUMNS).write_csv(work / "fig14.csv")
        report = {"reproduction": "homa-fig14", "form": form, "rows": rows, "workloads": summarise(rows)}
        (work / "fig14.json").write_text(json.dumps(report, indent=1))
    return report


#: The percentile each column's judgement rests on: the p99 itself, and the bar's band,
#: whose upper edge is the short messages' p99.5 (200 of them a seed).
_P = {
    "p99_slowdown": 99.0,
    "extra_ns": BAND[1],
    "preemption_lag_ns": BAND[1],
    "queueing_ns": BAND[1],
    "lag_percent": BAND[1],
}


def summarise(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per workload, across its seeds: each statistic as an estimate (``cells.columns``),
    counting a seed's short messages against the percentile it rests on (``_P``). A bar is
    a mean over the few messages in its band (about 1 % of the short ones); its interval
    across seeds says how much that few moves it."""
    out = []
    for w in dict.fromkeys(r["workload"] for r in rows):
        rs = [r for r in rows if r["workload"] == w]
        est = {k: Estimate.of_values([(r[k], r["short_messages"]) for r in rs], p) for k, p in _P.items()}
        out.append(
            {
                "workload": w,
                "near_p99": min(r["near_p99"] for r in rs),
                **{c: v for k, e in est.items() for c, v in cells.columns(k, e).items()},
            }
        )
    return out


def _cell(s: dict[str, Any], key: str, spec: str) -> str:
    return cells.text(cells.restore(key, s, _P[key]), spec)


def render(report: dict[str, Any], console: Console) -> None:
    from rich import box
    from rich.table import Table

    t = Table(
        title=f"Homa Fig. 14: sources of tail delay for short messages, 80 % load ({report['form']} form)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for c in (
        "workload",
        "near p99",
        "p99 slowdown",
        "delay over ideal (ns)",
        "preemption lag (ns)",
        "queueing (ns)",
        "lag share (%)",
    ):
        t.add_column(c, justify="left" if c == "workload" else "right")
    for s in report["workloads"]:
        t.add_row(
            s["workload"],
            f"{s['near_p99']:,}",
            _cell(s, "p99_slowdown", ".2f"),
            _cell(s, "extra_ns", ",.0f"),
            _cell(s, "preemption_lag_ns", ",.0f"),
            _cell(s, "queueing_ns", ",.0f"),
            _cell(s, "lag_percent", ".0f"),
        )
    console.print(t)
    judged = [s for s in report["workloads"] if s["lag_percent_judged"]]
    unjudged = ", ".join(s["workload"] for s in report["workloads"] if not s["lag_percent_judged"])
    claim = (
        f"ours: preemption lag is {min(s['lag_percent'] for s in judged):.0f} % or more of the short messages' "
        f"waiting near p99 in {', '.join(s['workload'] for s in judged)}"
        if judged
        else "ours: no workload judged"
    )
    console.print(
        f'  paper: "tail latency is almost entirely due to link-level preemption lag"; {claim}'
        f"{f' (not judged: {unjudged}, fewer than 200 short messages in a seed)' if unjudged else ''}. "
        "Short: the smallest 20 % (W1-W4), one-packet messages (W5); near p99: slowdown between their "
        f"98.5th and 99.5th percentiles (fewest in a seed); a bar needs 200 short messages a seed.\n  {cells.legend((99, 99.5))}",
        highlight=False,
    )
