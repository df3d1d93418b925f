"""HULL Fig. 2 (§3.1, "Importance of stable rate control"): two long-lived flows from two
servers into a third, a phantom queue on the congested port marking at 6 KB with its drain
rate swept, the hardware pacer on, for TCP-ECN (TCP with RFC 3168 ECN: a mark halves the
window) and DCTCP: the throughput (left) and the average switch latency with its p99
(right).

The paper prints no value of the figure. Its text: "Compared to the baseline [Table 1], a
significant latency reduction occurs for both TCP-ECN and DCTCP"; "for both schemes, the
throughput is lower than intended by the PQ drain rate"; "TCP-ECN loses considerably more
throughput than DCTCP at all PQ drain rates. The gap between TCP-ECN's throughput and the
PQ drain rate is ~17–26 % of the line rate, while it is ~6–8 % for DCTCP". Those ranges
and Table 1 are printed beside ours, and each claim is checked on the across-seed
intervals.

The setup is Fig. 5's (``testbed.pq_scenario``: the 1 Gbps testbed, S2 and S3 into S5, the
testbed pacer), the phantom queue marking at 6 KB, at Fig. 5's drain rates (600-950 Mbps;
the paper does not list Fig. 2's). TCP-ECN is the testbed's TCP with ``ecn = "rfc3168"``
(docs/transport.md); Table 1's two baselines (TCP-DropTail, DCTCP-30K, two flows) run
beside it. The full form also runs both schemes without the pacer (``paced`` false), the
experiment behind what docs/reproductions-hull.md says of the difference.

Throughput is the link into S5 less the probe's 12 Mbps; the gap is (drain rate −
throughput) / line rate. Each point runs ``--seeds`` seeds (3 by default): means over
seeds with their 95 % bootstrap interval, and the probes each latency rests on.
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
from tailor.reproduce.hull.paper import TABLE1
from tailor.reproduce.hull.testbed import pq_scenario, scheme_label, static_scenario
from tailor.reproduce.registry import Out, Plan
from tailor.stats import Estimate

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COLUMNS", "SCHEMES", "BASELINES", "FORMS", "PAPER_GAP_PCT", "scenario", "options", "run", "render"]

#: Fig. 2's schemes, and Table 1's baseline each is compared with.
SCHEMES = {"tcp-ecn": "tcp-droptail", "dctcp": "dctcp-30k"}
_LABELS = {"tcp-ecn": "TCP-ECN", "dctcp": "DCTCP"}
BASELINES = tuple(SCHEMES.values())
#: §3.1: the gap between throughput and the drain rate, % of the line rate.
PAPER_GAP_PCT = {"tcp-ecn": (17.0, 26.0), "dctcp": (6.0, 8.0)}
LINE_MBPS = 1000.0
PROBE_MBPS = 12.0
THRESHOLD = "6KB"
#: (drain rates in Mbps, run length in ms, unpaced runs too) by form.
FORMS = {"quick": ((700, 950), 150, False), "full": ((600, 700, 800, 900, 950), 2000, True)}
#: Each statistic: (percentile or None for a mean, rests on the run's probes).
_STATS = {
    "throughput_mbps": (None, False),
    "gap_pct": (None, False),
    "switch_latency_avg_us": (None, True),
    "switch_latency_p99_us": (99.0, True),
}
#: The columns of fig2.csv: one row per scheme, pacing and drain rate (baselines: drain
#: empty, paced false), each statistic with its interval, samples and seeds (``cells``).
COLUMNS = (
    "scheme",
    "paced",
    "drain_mbps",
    "probes",
    *(f"{s}{x}" for s in _STATS for x in ("", "_lo", "_hi", "_n", "_seeds", "_judged")),
    "paper_gap_pct_low",
    "paper_gap_pct_high",
)


def scenario(scheme: str, drain_mbps: int, paced: bool, length_ms: int, flows: int = 2) -> str:
    """Two (or ``flows``) long flows into S5 through a phantom queue at ``drain_mbps``
    marking at 6 KB, for ``tcp-ecn`` (the testbed's TCP with RFC 3168 ECN) or ``dctcp``."""
    text = pq_scenario(drain_mbps, THRESHOLD, paced, length_ms, flows=flows)
    if scheme == "tcp-ecn":
        ecn = text.replace('[transport]\nkind = "dctcp"\n', '[transport]\nkind = "tcp"\necn = "rfc3168"\n', 1)
        if ecn == text:
            raise ValueError("the testbed's transport table is not the one fig2 rewrites")
        text = ecn.replace("DCTCP-PQ950-Pacer", "TCP-ECN with a phantom queue", 1)
    return text


def options(
    quick: Annotated[
        bool, typer.Option("--quick", help="Drain rates 700 and 950 Mbps, paced only, 150 ms runs.")
    ] = False,
    seeds: cells.Seeds = 3,
    out: Out = None,
) -> Plan:
    """HULL Fig. 2: throughput and switch latency of TCP-ECN and DCTCP as the phantom
    queue's drain rate varies (6 KB threshold, paced), beside Table 1's baselines."""
    cells.check_seeds(seeds)
    form = "quick" if quick else "full"
    drains, length, unpaced = FORMS[form]
    pacing = (True, False) if unpaced else (True,)
    pts = [
        runs.HullPoint(f"{s}-{'paced' if p else 'unpaced'}-{d}", seed, scenario(s, d, p, length), length * 1000)
        for s in SCHEMES
        for p in pacing
        for d in drains
        for seed in range(1, seeds + 1)
    ]
    pts += [
        runs.HullPoint(f"{b}-baseline", seed, static_scenario(b, 2, length), length * 1000)
        for b in BASELINES
        for seed in range(1, seeds + 1)
    ]
    default = Path("runs") / ("hull-fig2-quick" if quick else "hull-fig2")
    return Plan(out or default, lambda out, say: run(pts, form, out, say))


def _measure(run_dir: Path, drain: int | None) -> dict[str, float]:
    lat = runs.switch_latency(run_dir)
    thr = runs.throughput_mbps(run_dir) - PROBE_MBPS
    m = {
        "throughput_mbps": thr,
        "switch_latency_avg_us": lat["avg"],
        "switch_latency_p99_us": lat["p99"],
        "probes": lat["count"],
    }
    if drain is not None:
        m["gap_pct"] = 100 * (drain - thr) / LINE_MBPS
    return m


def _row(key: tuple[str, bool, int | None], vals: list[dict[str, float]]) -> dict[str, Any]:
    scheme, paced, drain = key
    paper = PAPER_GAP_PCT.get(scheme, (None, None))
    row: dict[str, Any] = {
        "scheme": scheme,
        "paced": paced,
        "drain_mbps": drain,
        "probes": int(sum(v["probes"] for v in vals)),
        "paper_gap_pct_low": paper[0],
        "paper_gap_pct_high": paper[1],
    }
    for stat, (p, probes) in _STATS.items():
        per_seed = [(v.get(stat), v["probes"] if probes else 1) for v in vals]
        row |= cells.columns(stat, Estimate.of_values(per_seed, p))
    return row


def run(points: list[runs.HullPoint], form: str, out: Path, say: Any) -> dict:
    """Runs the points into ``out`` (written whole once complete): scenarios, runs,
    fig2.csv and fig2.json (every seed too)."""
    with staged(out, "reproduction", name="hull-fig2") as work:
        dirs = runs.run(points, work, f"tailor reproduce hull-fig2, {form} form", say)
        by: dict[tuple[str, bool, int | None], list[dict]] = {}
        for p in points:
            if p.name.endswith("-baseline"):
                key: tuple[str, bool, int | None] = (p.name.removesuffix("-baseline"), False, None)
            else:
                scheme, pacing, drain = p.name.rsplit("-", 2)
                key = (scheme, pacing == "paced", int(drain))
            by.setdefault(key, []).append(_measure(dirs[p], key[2]) | {"seed": p.seed})
        rows = [_row(k, v) for k, v in by.items()]
        pl.DataFrame(
            [{c: r[c] for c in COLUMNS} for r in rows],
            schema_overrides={"drain_mbps": pl.Int64},
            infer_schema_length=None,
        ).write_csv(work / "fig2.csv")
        report = {
            "reproduction": "hull-fig2",
            "form": form,
            "length_ms": FORMS[form][1],
            "rows": rows,
            "per_seed": {f"{k[0]}-{k[1]}-{k[2]}": v for k, v in by.items()},
            "claims": claims(rows),
        }
        (work / "fig2.json").write_text(json.dumps(report, indent=1))
    return report


def claims(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """§3.1's claims on the paced points: TCP-ECN's gap above DCTCP's at every drain rate
    (judged on the intervals: "above" when TCP-ECN's lower end clears DCTCP's upper end,
    "overlap" when they meet), both below the drain rate, and both schemes' mean latency
    below their baseline's (ours, and the paper's Table 1)."""
    at = {(r["scheme"], r["paced"], r["drain_mbps"]): r for r in rows}
    drains = sorted({r["drain_mbps"] for r in rows if r["drain_mbps"] is not None})

    def lo(r: dict[str, Any], k: str) -> float:
        return r[f"{k}_lo"] if r[f"{k}_lo"] is not None else r[k]

    def hi(r: dict[str, Any], k: str) -> float:
        return r[f"{k}_hi"] if r[f"{k}_hi"] is not None else r[k]

    gap = {}
    for d in drains:
        e, c = at[("tcp-ecn", True, d)], at[("dctcp", True, d)]
        gap[d] = (
            "above"
            if lo(e, "gap_pct") > hi(c, "gap_pct")
            else "below"
            if hi(e, "gap_pct") < lo(c, "gap_pct")
            else "overlap"
        )
    below_drain = all(at[(s, True, d)]["gap_pct"] > 0 for s in SCHEMES for d in drains)
    lower = {}
    for s, b in SCHEMES.items():
        base = at[(b, False, None)]["switch_latency_avg_us"]
        paper = TABLE1[b]["latency_avg_us"]
        worst = max(at[(s, True, d)]["switch_latency_avg_us"] for d in drains)
        lower[s] = {
            "worst_mean_us": worst,
            "our_baseline_us": base,
            "paper_baseline_us": paper,
            "below_both": worst < base and worst < paper,
        }
    return {"tcp_ecn_gap_vs_dctcp": gap, "throughput_below_drain": below_drain, "latency_below_baseline": lower}


def render(report: dict[str, Any], console: Console) -> None:
    """One table: per scheme, pacing and drain rate, throughput, the gap with the paper's
    range, mean and p99 switch latency; Table 1's baselines below; then the claims."""
    from rich import box
    from rich.table import Table

    t = Table(
        title=f"HULL Fig. 2: two long flows, phantom queue marking at {THRESHOLD} ({report['form']} form, "
        f"{report['length_ms']} ms runs); paper's gap = its text's range (the figure has no values)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for c in (
        "scheme",
        "PQ drain Mbps",
        "throughput Mbps",
        "gap % of line: paper / ours",
        "mean latency µs",
        "p99 latency µs",
    ):
        t.add_column(c, justify="left" if c == "scheme" else "right")
    for r in report["rows"]:
        if r["drain_mbps"] is None:
            continue
        label = _LABELS[r["scheme"]] + ("" if r["paced"] else " unpaced")
        paper = f"{r['paper_gap_pct_low']:g}–{r['paper_gap_pct_high']:g}" if r["paced"] else "—"
        t.add_row(
            label,
            f"{r['drain_mbps']}",
            _text(r, "throughput_mbps", None, ".0f"),
            f"{paper} / {_text(r, 'gap_pct', None, '.1f')}",
            _text(r, "switch_latency_avg_us", None, ".1f"),
            _text(r, "switch_latency_p99_us", 99.0, ".1f"),
        )
    for b in BASELINES:
        r = next(r for r in report["rows"] if r["scheme"] == b)
        p = TABLE1[b]
        t.add_row(
            f"{scheme_label(b)} (Table 1)",
            "—",
            f"{p['throughput_mbps']:.0f} / {_text(r, 'throughput_mbps', None, '.0f')}",
            "—",
            f"{p['latency_avg_us']:g} / {_text(r, 'switch_latency_avg_us', None, '.1f')}",
            f"{p['latency_p99_us']:g} / {_text(r, 'switch_latency_p99_us', 99.0, '.1f')}",
        )
    console.print(t)
    c = report["claims"]
    gaps = ", ".join(f"{d}: {v}" for d, v in c["tcp_ecn_gap_vs_dctcp"].items())
    lat = "; ".join(
        f"{_LABELS[s]} worst mean {v['worst_mean_us']:.1f} µs against {v['our_baseline_us']:.1f} (ours) and "
        f"{v['paper_baseline_us']:g} (paper) {'— lower' if v['below_both'] else '— NOT lower'}"
        for s, v in c["latency_below_baseline"].items()
    )
    console.print(
        f"paper: TCP-ECN loses considerably more throughput than DCTCP at every drain rate; ours (paced, "
        f"TCP-ECN's gap against DCTCP's intervals): {gaps}. Throughput below the drain rate everywhere: "
        f"{'yes' if c['throughput_below_drain'] else 'NO'}. Latency against Table 1's baseline: {lat}.",
        highlight=False,
        markup=False,
    )
    console.print(
        "Ours: " + cells.legend((99,)) + ". Baselines: paper / ours. docs/reproductions-hull.md.",
        highlight=False,
        markup=False,
    )


def _text(r: dict[str, Any], key: str, p: float | None, spec: str) -> str:
    return cells.text(cells.restore(key, r, p), spec)
