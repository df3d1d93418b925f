"""PL2 §D.4: the unsolicited-burst threshold t, swept, at two values of the ToR's drop
threshold T. The paper: "All our testbed experiments are run on a setting of t = 15.
Sweeping through t = 10 up to t = 25 does not show statistically significant changes to
loss rates or latency (of course, setting t to large values like 35 does lead to loss)".
It gives T only as T ≫ t.

t counts timeslots in both: the paper's timeslot is one MTU's transmission (1,500 B,
120 ns at 100 Gbps), tailor's one full frame's (1,538 B with Ethernet's framing, 123 ns),
and both counters count packets, so the paper's t maps to the same number in tailor. What
a count means differs in one way: tailor gives a packet's slot at the receiver's port back
when it leaves the port (docs/pl2.md), so the chosen timeslot compared with t includes the
packets queued there.

Two workloads, raw Ethernet over PL2 on the paper's rack (``rack``), K = 4:

- ``w4``: §F.3's 3-way incast of W4 at 85 % (``sweep``), where unsolicited bursts go out
  between large messages' scheduled ones: loss, latency, the queue;
- ``incast``: §F.4's 5-way incast at line rate (Fig. 11a, n = 5), the experiment the paper
  calls lossless, whose 60 threads start within a few µs.

For each T in ``--thresholds`` (default: tailor's 512, and 64, at which W4 loses packets at
t = 35 and not up to 25, as the paper says) every t runs several seeds; a t with T < t + K - 1
is refused by the scenario check (docs/pl2.md) and left out. The full form's t reach
T - K + 1 = 509, where loss starts at T = 512.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import polars as pl
import typer

from tailor import parse
from tailor.errors import OptionError
from tailor.outdir import staged
from tailor.reproduce import cells
from tailor.reproduce.pl2 import incast, runs, sweep
from tailor.reproduce.registry import Out, Plan
from tailor.result import Result

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COLUMNS", "WORKLOADS", "TS", "THRESHOLDS", "options", "run", "render"]

WORKLOADS = ("w4", "incast")
TS = (0, 10, 15, 20, 25, 35, 50, 100, 200, 480, 509)
THRESHOLDS = (512, 64)
K = 4
INCAST_SENDERS = 5
#: The mean-over-seeds columns, each with cells.columns' interval and counts.
_MEANS = ("goodput_gbps", "unsolicited_fraction", "max_queue_bytes", "incomplete")
#: The columns of t_sweep.csv: one row per workload, T and t, estimates across the seeds.
COLUMNS = (
    "workload",
    "threshold",
    "t",
    "seeds",
    "messages",
    "drops_most",
    "drops_total",
    *(
        c
        for k in (*_MEANS, *(x[0] for x in sweep.LATENCY))
        for c in (k, f"{k}_lo", f"{k}_hi", f"{k}_n", f"{k}_seeds", f"{k}_judged")
    ),
)
#: (the t values, W4's ms of arrivals, the incast's µs, seeds) by form.
FORMS = {"quick": ((0, 15, 35), 3, 500, 3), "full": (TS, 20, 2_000, 5)}


def options(
    quick: Annotated[
        bool, typer.Option("--quick", help="t = 0, 15, 35; W4 for 3 ms, the incast for 0.5 ms; 3 seeds.")
    ] = False,
    ts: Annotated[
        str | None,
        typer.Option(
            help="The t values, comma-separated, 0 to 1,000 (0: no unsolicited "
            "bursts; default 0,10,15,20,25,35,50,100,200,480,509)."
        ),
    ] = None,
    thresholds: Annotated[
        str, typer.Option(help="The ToR's T values, comma-separated, 4 to 100,000 (tailor's default is 512).")
    ] = ",".join(map(str, THRESHOLDS)),
    seeds: Annotated[
        int | None,
        typer.Option(
            help="Seeds per point (default: 3 quick, 5 full); the table gives "
            "the mean over seeds and its bootstrap interval."
        ),
    ] = None,
    out: Out = None,
) -> Plan:
    """PL2 §D.4: the unsolicited-burst threshold t swept at two drop thresholds T, on W4's
    3-way incast (§F.3) and the 5-way incast of Fig. 11a: loss, latency and queue, beside
    the paper's "t = 10 to 25 no change, 35 leads to loss"."""
    form = "quick" if quick else "full"
    default_ts, w4_ms, incast_us, default_seeds = FORMS[form]
    t_values = default_ts if ts is None else tuple(parse.integers("--ts", ts, 0, 1_000))
    t_big = tuple(parse.integers("--thresholds", thresholds, 4, 100_000))
    if seeds is not None:
        cells.check_seeds(seeds)
    pts = []
    for big in t_big:
        for t in t_values:
            if big < t + K - 1:
                continue
            keys = {"unsolicited_below": t, "threshold": big}
            for seed in range(1, (seeds or default_seeds) + 1):
                pts += [
                    runs.Pl2Point(f"w4-{big}-{t}", seed, sweep.w4_scenario(w4_ms, seed, **keys), w4_ms * 1_200),
                    runs.Pl2Point(
                        f"incast-{big}-{t}",
                        seed,
                        incast.scenario("pl2", "incast", INCAST_SENDERS, incast_us, seed=seed, **keys),
                        incast_us,
                    ),
                ]
    if not pts:
        raise OptionError(f"--ts and --thresholds: no pair with T >= t + {K - 1}; accepted: T at least t + K - 1")
    default = Path("runs") / ("pl2-t-sweep-quick" if quick else "pl2-t-sweep")
    return Plan(out or default, lambda out, say: run(pts, form, out, say))


def _seed(workload: str, run_dir: Path, form: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """One seed's row and latencies (µs) of a point."""
    _, w4_ms, incast_us, _ = FORMS[form]
    if workload == "w4":
        return sweep.measure_w4(run_dir, w4_ms)
    s = Result(run_dir).summary
    io = incast._measure(run_dir, "incast", INCAST_SENDERS, incast_us)
    counters = s.get("transport_counters", {})
    bursts = counters.get("pl2_bursts", 0)
    m = pl.read_parquet(run_dir / "messages.parquet")
    lat = ((m["finish_ns"] - m["start_ns"]) / 1e3).to_numpy()
    row = {
        "goodput_gbps": io["throughput_gbps"],
        "messages": io["messages"],
        "drops": io["drops"],
        "unsolicited_drops": io["unsolicited_drops"],
        "incomplete": s["messages"]["incomplete"],
        "unsolicited_fraction": counters.get("pl2_unsolicited_bursts", 0) / bursts if bursts else 0.0,
        "max_queue_bytes": s["network"]["max_queue_bytes"],
    }
    return row, {"all": lat, "small": lat[:0]}


def run(points: list[runs.Pl2Point], form: str, out: Path, say: Any) -> dict:
    """Runs the points into ``out`` (written whole once complete): scenarios, runs,
    t_sweep.csv (one row per workload, T and t) and t_sweep.json (every seed too)."""
    with staged(out, "reproduction", name="pl2-t-sweep") as work:
        dirs = runs.run(points, work, f"tailor reproduce pl2-t-sweep, {form} form", say)
        rows, seed_rows = [], []
        for name in dict.fromkeys(p.name for p in points):
            workload, big, t = name.split("-")
            pairs = [(p.seed, *_seed(workload, dirs[p], form)) for p in points if p.name == name]
            point = {"workload": workload, "threshold": int(big), "t": int(t)}
            seed_rows += [{**point, "seed": seed, **r} for seed, r, _ in pairs]
            rows.append(
                {
                    **point,
                    "seeds": len(pairs),
                    "messages": sum(r["messages"] for _, r, _ in pairs),
                    **sweep.estimates([r for _, r, _ in pairs], [x for _, _, x in pairs], _MEANS),
                }
            )
        pl.DataFrame([{c: r[c] for c in COLUMNS} for r in rows]).write_csv(work / "t_sweep.csv")
        report = {
            "reproduction": "pl2-t-sweep",
            "form": form,
            "w4_ms": FORMS[form][1],
            "incast_us": FORMS[form][2],
            "rows": rows,
            "seed_rows": seed_rows,
        }
        (work / "t_sweep.json").write_text(json.dumps(report, indent=1))
    return report


def _paper(t: int) -> str:
    """§D.4's reading of t."""
    if t == 15:
        return "the setting"
    if 10 <= t <= 25:
        return "no change"
    if t >= 35:
        return "loss"
    return "—"


def render(report: dict[str, Any], console: Console) -> None:
    """One table per T, a row per t: W4's loss, latency and queue, the incast's loss."""
    from rich import box
    from rich.table import Table

    at = {(r["workload"], r["threshold"], r["t"]): r for r in report["rows"]}
    seeds = report["rows"][0]["seeds"]
    for big in dict.fromkeys(r["threshold"] for r in report["rows"]):
        t_values = sorted(r["t"] for r in report["rows"] if r["threshold"] == big and r["workload"] == "w4")
        tab = Table(
            title=f"PL2 §D.4: t swept at T = {big}{' (tailor default)' if big == 512 else ''}, K = {K}, raw "
            f"Ethernet over PL2 ({report['form']} form, {seeds} seeds; W4 3-way incast at 85 %, "
            f"{report['w4_ms']} ms of arrivals; {INCAST_SENDERS}-way incast at line rate, "
            f"{report['incast_us']} µs)",
            title_justify="left",
            box=box.SIMPLE_HEAD,
        )
        for c in (
            "t",
            "paper",
            "W4 drops (most / all seeds)",
            "W4 unsolicited bursts",
            "W4 p50 µs",
            "W4 p99 µs",
            "W4 p99 of ≤ 1,500 B µs",
            "W4 largest queue KB",
            "incast drops (most / all)",
        ):
            tab.add_column(c, justify="left" if c in ("t", "paper") else "right")
        for t in t_values:
            w, i = at[("w4", big, t)], at.get(("incast", big, t))
            est = {k: cells.restore(k, w, p) for k, p, _ in sweep.LATENCY}
            tab.add_row(
                f"{t}" + (" (off)" if t == 0 else ""),
                _paper(t),
                f"{w['drops_most']:,} / {w['drops_total']:,}",
                f"{w['unsolicited_fraction']:.1%}",
                cells.text(est["p50_us"], ",.1f"),
                cells.text(est["p99_us"], ",.0f"),
                cells.text(est["small_p99_us"], ",.1f"),
                f"{w['max_queue_bytes'] / 1e3:,.1f}",
                "" if i is None else f"{i['drops_most']:,} / {i['drops_total']:,}",
            )
        console.print(tab)
    console.print(
        "§D.4 gives no numbers: t = 15 in every experiment, t = 10 to 25 'no statistically significant "
        "changes to loss rates or latency', t = 35 'does lead to loss'; T only as T ≫ t. t in timeslots "
        "(tailor's: a 1,538 B frame, 123 ns; the paper's: 1,500 B, 120 ns). Unsolicited bursts: share of "
        "W4's bursts, mean over seeds; largest queue: mean over seeds of each seed's. "
        f"docs/reproductions-pl2.md.\n{cells.legend()}",
        highlight=False,
    )
