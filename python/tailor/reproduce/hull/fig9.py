"""HULL Fig. 9 (§4.4, eq. 5): the phantom queue's switch latency against the number of
long flows, with 1,500-byte and 300-byte packets.

Eq. 5 says the headroom a phantom queue needs grows with the number of flows and shrinks
with the link's speed in packets: at a fixed RTT, a faster link carries more packets per
RTT, so the same headroom absorbs more flows. The paper emulated a faster link by cutting
the MTU to 300 bytes (the bandwidth-delay product five times as many packets, "effectively
emulating a 5Gbps link") and ran the phantom queue at 800 Mbps ("Remark 5": its receiver NIC
dropped at 300-byte packets at higher rates). Its claim, in the text: "the latency with the
PQ is much lower with the smaller packet size at all number of flows".

tailor runs §4.3's setup (``testbed.pq_scenario``: long DCTCP flows into S5, the testbed's
pacer, the phantom queue on S5's port at 800 Mbps marking at 1 KB) with 1 to 8 flows and
TCP's payload per packet at 1,448 B (an MTU of 1,500) or 248 B (an MTU of 300: 52 bytes of
IP and TCP with timestamps). The probe is unchanged (one 1,446-byte packet every ms): it
measures what waits ahead of it. Each point runs ``--seeds`` seeds (3 by default); the
table gives means over seeds and p99 with its interval across them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import polars as pl
import typer

from tailor.outdir import staged
from tailor.reproduce import cells
from tailor.reproduce.hull import runs
from tailor.reproduce.hull.pacing import _common, _p99, _points
from tailor.reproduce.hull.testbed import pq_scenario
from tailor.reproduce.registry import Out, Plan

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COLUMNS", "MSS", "FORMS", "scenario", "options", "run", "render"]

#: The columns of fig9.csv, one row per seed.
COLUMNS = ("mtu", "flows", "seed", "throughput_mbps", "switch_latency_avg_us", "switch_latency_p99_us", "probes")
#: TCP's payload per packet for each MTU (IP 20, TCP 20, timestamps 12).
MSS = {1500: 1448, 300: 248}
DRAIN_MBPS = 800
#: (flow counts, run length in ms) by form.
FORMS = {"quick": ((2, 8), 150), "full": ((1, 2, 3, 4, 5, 6, 7, 8), 1000)}


def scenario(mtu: int, flows: int, length_ms: int) -> str:
    """§4.3's phantom-queue scenario at 800 Mbps with ``flows`` long flows and TCP's
    payload per packet for ``mtu``."""
    text = pq_scenario(DRAIN_MBPS, "1KB", True, length_ms, flows=flows)
    return text.replace("[transport]\n", f'[transport]\nmss = "{MSS[mtu]}B"\n', 1)


def options(
    quick: Annotated[bool, typer.Option("--quick", help="2 and 8 flows, 150 ms runs.")] = False,
    seeds: cells.Seeds = 3,
    out: Out = None,
) -> Plan:
    """HULL Fig. 9: switch latency with a phantom queue against the number of long flows,
    1,500- and 300-byte packets."""
    cells.check_seeds(seeds)
    form = "quick" if quick else "full"
    flows, length = FORMS[form]
    pts = [
        runs.HullPoint(f"mtu{mtu}-{n}", seed, scenario(mtu, n, length), length * 1000)
        for mtu in MSS
        for n in flows
        for seed in range(1, seeds + 1)
    ]
    default = Path("runs") / ("hull-fig9-quick" if quick else "hull-fig9")
    return Plan(out or default, lambda out, say: run(pts, form, out, say))


def run(points: list[runs.HullPoint], form: str, out: Path, say: Any) -> dict:
    """Runs the points into ``out`` (written whole once complete): scenarios, runs,
    fig9.csv and fig9.json."""
    with staged(out, "reproduction", name="hull-fig9") as work:
        dirs = runs.run(points, work, f"tailor reproduce hull-fig9, {form} form", say)
        rows = []
        for p in points:
            mtu, n = p.name.removeprefix("mtu").split("-")
            rows.append({"mtu": int(mtu), "flows": int(n), "seed": p.seed, **_common(dirs[p])})
        pl.DataFrame(rows).select(COLUMNS).write_csv(work / "fig9.csv")
        pts = _points(rows, ("mtu", "flows"))
        report = {
            "reproduction": "hull-fig9",
            "form": form,
            "length_ms": FORMS[form][1],
            "rows": rows,
            "points": pts,
            "claim": claim(pts),
        }
        (work / "fig9.json").write_text(json.dumps(report, indent=1))
    return report


def claim(points: list[dict[str, Any]]) -> dict[str, Any]:
    """The paper's: with 300-byte packets the phantom queue's latency is much lower at every
    number of flows. Judged on the mean latency; "much" read as at most half."""
    at = {(p["mtu"], p["flows"]): p for p in points}
    flows = sorted({p["flows"] for p in points})
    ratios = {n: at[(300, n)]["switch_latency_avg_us"] / at[(1500, n)]["switch_latency_avg_us"] for n in flows}
    return {
        "ratios": ratios,
        "lower_everywhere": all(r < 1 for r in ratios.values()),
        "half_or_less_everywhere": all(r <= 0.5 for r in ratios.values()),
    }


def render(report: dict[str, Any], console: Console) -> None:
    from rich import box
    from rich.table import Table

    at = {(p["mtu"], p["flows"]): p for p in report["points"]}
    flows = sorted({p["flows"] for p in report["points"]})
    t = Table(
        title=f"HULL Fig. 9: phantom queue at {DRAIN_MBPS} Mbps, long flows into S5 ({report['form']} form, "
        f"{report['length_ms']} ms runs): switch latency mean / p99 µs; throughput Mbps",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    t.add_column("flows", justify="right")
    for mtu in MSS:
        t.add_column(f"MTU {mtu:,}", justify="right")
    t.add_column("mean, 300 / 1,500", justify="right")
    for n in flows:
        row = [f"{n}"]
        for mtu in MSS:
            p = at[(mtu, n)]
            row.append(f"{p['switch_latency_avg_us']:.1f} / {_p99(p)}; {p['throughput_mbps']:.0f}")
        row.append(f"{report['claim']['ratios'][n]:.2f}")
        t.add_row(*row)
    console.print(t)
    c = report["claim"]
    verdict = (
        "holds: at most half at every count"
        if c["half_or_less_everywhere"]
        else "lower at every count, not by half everywhere"
        if c["lower_everywhere"]
        else "DOES NOT HOLD"
    )
    console.print(
        f'paper: "the latency with the PQ is much lower with the smaller packet size at all number of '
        f'flows"; ours: {verdict}. Means over seeds, p99 [its 95 % interval across seeds]; '
        "docs/reproductions-hull.md.",
        highlight=False,
        markup=False,
    )
