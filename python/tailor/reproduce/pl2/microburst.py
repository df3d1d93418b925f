"""PL2 §B, Fig. 3: microbursts. Five senders at about 18 Gbps each into one receiver of
the rack (``rack``), every message small enough to go in one RTT, under RDS (Homa-like,
61 KiB blind) and under raw Ethernet over PL2: message latency (p50, p99, p99.9), drops
and the largest switch queue.

The paper gives neither the sizes nor the arrival process. tailor draws sizes uniformly
from one packet to 61 KiB (the rack's BDP: every message fits in one RTT) and Poisson
arrivals at 18 Gbps of message bytes per sender (90 % of the receiver's link in all).
Percentiles pool the seeds' messages; drops are summed and the largest queue is the
largest any seed saw (the JSON also gives the spread across seeds).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import polars as pl
import typer

from tailor.errors import OptionError
from tailor.outdir import staged
from tailor.reproduce.pl2 import rack, runs
from tailor.reproduce.pl2.paper import MICROBURST
from tailor.reproduce.registry import Out, Plan

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COLUMNS", "SCHEMES", "options", "run", "render"]

#: The columns of microburst.csv.
COLUMNS = ("scheme", "p50_us", "p99_us", "p999_us", "messages", "drops", "max_queue_bytes")
SCHEMES = ("pl2", "rds")
SENDERS = 5
RECEIVER = 5
GBPS_PER_SENDER = 18
#: Simulated ms per seed: the quick form's 20 ms give about 7,000 messages (p99.9 from
#: 7 samples above it); the full form's 200 ms about 70,000 per seed.
FORMS = {"quick": 20, "full": 200}
#: Sizes: uniform from one 1,500 B packet to 61 KiB (linear between the two points).
SIZES_CDF = "# Written by tailor reproduce pl2-microburst: messages within one RTT of the rack (61 KiB),\n" \
            "# uniform from one packet.\n1500 0\n62464 1\n"


def scenario(scheme: str, length_ms: int, seed: int) -> str:
    cls = f"""[[class]]
name = "burst"
sizes_cdf = "below-rtt.cdf"
interpolation = "linear"
arrival = "poisson"
rate = "{GBPS_PER_SENDER * SENDERS}Gbps"
pattern = "n_to_1"
senders = "0..{SENDERS}"
receiver = {RECEIVER}
until = "{length_ms}ms"
"""
    # Messages still in flight at the end are not cut off: the run goes on 5 ms longer.
    return rack.scenario(scheme, cls, stop=f"{length_ms + 5}ms", seed=seed)


def options(
    quick: Annotated[bool, typer.Option("--quick", help="20 ms per scheme, one seed (seconds in all).")] = False,
    seeds: Annotated[int, typer.Option(help="Seeds per scheme (their messages are pooled).")] = 1,
    out: Out = None,
) -> Plan:
    """PL2 Fig. 3: message latency, drops and switch queue under 5 x 18 Gbps microbursts,
    RDS against raw Ethernet over PL2, beside the paper's."""
    if not 1 <= seeds <= 20:
        raise OptionError(f"--seeds: {seeds}; accepted: 1 to 20")
    form = "quick" if quick else "full"
    length = FORMS[form]
    pts = [runs.Pl2Point(f"{s}", seed, scenario(s, length, seed), (length + 5) * 1000, files=(("below-rtt.cdf", SIZES_CDF),))
           for s in SCHEMES for seed in range(1, seeds + 1)]
    default = Path("runs") / ("pl2-microburst-quick" if quick else "pl2-microburst")
    return Plan(out or default, lambda out, say: run(pts, form, out, say))


def _row(scheme: str, dirs: list[Path]) -> dict[str, Any]:
    lat = runs.latencies_us(dirs)
    sums = [runs.summary(d) for d in dirs]
    sent_packets = [int(runs.ports(d).filter(pl.col("role") == "host_nic")["sent_packets"].sum()) for d in dirs]
    drops = [s["network"]["drops"] for s in sums]
    return {
        "scheme": scheme,
        "p50_us": runs.rank(lat, 0.5),
        "p99_us": runs.rank(lat, 0.99),
        "p999_us": runs.rank(lat, 0.999),
        "messages": len(lat),
        "drops": sum(drops),
        "max_queue_bytes": max(s["network"]["max_queue_bytes"] for s in sums),
        "drop_fraction": sum(drops) / max(1, sum(sent_packets)),
        "incomplete": sum(s["messages"]["incomplete"] for s in sums),
        "seeds": len(dirs),
        "spread": {"drops": runs.spread(drops), "max_queue_bytes": runs.spread([s["network"]["max_queue_bytes"] for s in sums])},
    }


def run(points: list[runs.Pl2Point], form: str, out: Path, say: Any) -> dict:
    """Runs the points into ``out`` (written whole once complete): scenarios, runs,
    microburst.csv and microburst.json."""
    with staged(out, "reproduction", name="pl2-microburst") as work:
        dirs = runs.run(points, work, f"tailor reproduce pl2-microburst, {form} form", say)
        rows = [_row(s, [dirs[p] for p in points if p.name == s]) for s in SCHEMES]
        pl.DataFrame([{c: r[c] for c in COLUMNS} for r in rows]).write_csv(work / "microburst.csv")
        report = {"reproduction": "pl2-microburst", "form": form, "length_ms": FORMS[form], "rows": rows}
        (work / "microburst.json").write_text(json.dumps(report, indent=1))
    return report


def render(report: dict[str, Any], console: Console) -> None:
    """Fig. 3's reading, paper / tailor."""
    from rich import box
    from rich.table import Table

    t = Table(title=f"PL2 Fig. 3: 5 x {GBPS_PER_SENDER} Gbps microbursts into one receiver, paper / tailor "
                    f"({report['form']} form, {report['length_ms']} ms per seed)", title_justify="left",
              box=box.SIMPLE_HEAD)
    for c in ("scheme", "p50 µs", "p99 µs", "p99.9 µs", "p99.9 / p99", "drops (fraction)", "max queue", "messages"):
        t.add_column(c, justify="left" if c == "scheme" else "right")
    for r in report["rows"]:
        p = MICROBURST[r["scheme"]]
        ratio = r["p999_us"] / r["p99_us"] if r["p99_us"] else float("nan")
        paper_p99 = "—" if p["p99_us"] is None else f"~{p['p99_us']:.0f}"
        paper_ratio = "~1" if r["scheme"] == "pl2" else f"~{p['p999_over_p99']:.0f}"
        paper_q = "—" if p["max_queue_bytes"] is None else f"≤ {p['max_queue_bytes'] / 1024:.0f} KiB"
        t.add_row(rack.scheme_label(r["scheme"]), f"— / {r['p50_us']:.1f}", f"{paper_p99} / {r['p99_us']:.1f}",
                  f"— / {r['p999_us']:.1f}", f"{paper_ratio} / {ratio:.1f}",
                  f"~{p['drop_fraction']:.1%} / {r['drops']:,} ({r['drop_fraction']:.2%})",
                  f"{paper_q} / {r['max_queue_bytes'] / 1024:.0f} KiB", f"{r['messages']:,}")
    console.print(t)
    console.print("The paper's figure is not tabulated: its text gives RDS's p99 (the buffer's worth of "
                  "queueing), the p99.9 / p99 ratios, RDS's drops and PL2's largest queue. Sizes uniform "
                  "from 1,500 B to 61 KiB (not given by the paper). docs/reproductions-pl2.md.", highlight=False)
