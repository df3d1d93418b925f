"""PL2 §F.4, Fig. 11a and 12: throughput and loss under persistent incast and outcast.
n hosts (incast) send 6,000 B messages (four 1,500 B packets) at line rate each to one
receiver, or one host sends them to n receivers (outcast), for n = 1 to 5, over raw
Ethernet alone and over PL2 with 12 sending threads per host (§F.4's 12 flows).

``delivered_fraction`` is the data the receivers got over the data the senders' NICs put
on the wire (RSVs left out); ``throughput_gbps`` is the receivers' goodput (message
bytes), the incast's one link or the outcast's n links together, over the whole run
(the first bytes arrive within microseconds); ``drops`` counts every drop, PL2's
unsolicited packets dropped above T included.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import polars as pl
import typer

from tailor import parse
from tailor.outdir import staged
from tailor.reproduce import cells
from tailor.reproduce.pl2 import rack, runs
from tailor.reproduce.pl2.paper import INCAST, OUTCAST
from tailor.reproduce.registry import Out, Plan
from tailor.result import Result
from tailor.stats import Estimate

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COLUMNS", "SCHEMES", "PATTERNS", "options", "run", "render"]

#: The columns of incast_outcast.csv.
COLUMNS = ("scheme", "pattern", "senders", "seed", "delivered_fraction", "throughput_gbps", "drops")
SCHEMES = ("raw", "pl2")
PATTERNS = ("incast", "outcast")
MESSAGE = 6_000
#: Message bytes per 1,538 B frame.
GOODPUT = 1_500 / 1_538
#: Simulated µs per point, the n, and the seeds (a seed moves the periodic arrivals' phases
#: and draws the host delays).
FORMS = {"quick": (500, (1, 3, 5), 3), "full": (5_000, (1, 2, 3, 4, 5), 3)}


def scenario(
    scheme: str,
    pattern: str,
    n: int,
    length_us: int,
    host_delay: str = "0ns",
    seed: int = 1,
    *,
    record: str = "",
    **pl2: int,
) -> str:
    """n senders into host 5, or host 0 to n receivers; every sender at line rate.
    ``record`` is a ``[record]`` table (Fig. 11b's queues); ``pl2`` K, t or T for
    ``rack.scenario`` (the sweeps)."""
    line = 100 * GOODPUT
    if pattern == "incast":
        ends = f'pattern = "n_to_1"\nsenders = "0..{n}"\nreceiver = 5'
        rate = line * n
    else:
        ends = f'pattern = "all_to_all"\nsenders = [0]\nreceivers = "1..={n}"'
        rate = line
    cls = f"""[[class]]
name = "{pattern}"
sizes_fixed = "{MESSAGE}B"
arrival = "periodic"
rate = "{round(rate * 1e9)}bps"
{ends}
until = "{length_us}us"
"""
    return rack.scenario(
        scheme, cls, stop=f"{length_us}us", threads=12, host_delay=host_delay, seed=seed, record=record, **pl2
    )


def options(
    quick: Annotated[
        bool, typer.Option("--quick", help="n = 1, 3, 5 for 0.5 ms each, 3 seeds (seconds in all).")
    ] = False,
    host_delay: Annotated[
        str,
        typer.Option(
            help="Extra time per RSV-GRT exchange: a time, or prototype_hw / prototype_sw (the prototype's "
            "measured exchanges, docs/pl2.md)."
        ),
    ] = "0ns",
    out: Out = None,
) -> Plan:
    """PL2 Fig. 11a / 12: incast and outcast of 6,000 B messages from 1 to 5 hosts at line
    rate, raw Ethernet against raw Ethernet over PL2, beside the paper's."""
    parse.check_time("--host-delay", host_delay, also=("prototype_hw", "prototype_sw"), positive=False)
    form = "quick" if quick else "full"
    length, ns, seeds = FORMS[form]
    pts = [
        runs.Pl2Point(f"{s}-{p}-{n}", seed, scenario(s, p, n, length, host_delay, seed), length)
        for s in SCHEMES
        for p in PATTERNS
        for n in ns
        for seed in range(1, seeds + 1)
    ]
    default = Path("runs") / ("pl2-incast-outcast-quick" if quick else "pl2-incast-outcast")
    return Plan(out or default, lambda out, say: run(pts, form, out, say, host_delay))


def _measure(run_dir: Path, pattern: str, n: int, length_us: int) -> dict[str, Any]:
    ports = runs.ports(run_dir)
    s = Result(run_dir).summary
    senders = range(n) if pattern == "incast" else [0]
    receivers = [5] if pattern == "incast" else list(range(1, n + 1))
    rsv_bytes = 64 * s["network"].get("pl2", {}).get("rsv", 0)
    nic = ports.filter(pl.col("port").is_in([2 * h for h in senders]))
    to = ports.filter(pl.col("port").is_in([2 * h + 1 for h in receivers]))
    sent = int(nic["sent_bytes"].sum()) - rsv_bytes
    got = int(to["sent_bytes"].sum())
    # Goodput from the receivers' ports over the whole run: their first bytes reach them
    # within a few µs of the start.
    seconds = s["sim_ns"] / 1e9
    return {
        "delivered_fraction": got / sent if sent else 0.0,
        "throughput_gbps": got * GOODPUT * 8 / seconds / 1e9,
        "drops": s["network"]["drops"],
        "messages": s["messages"]["completed"],
        "unsolicited_drops": s["network"].get("pl2", {}).get("unsolicited_drops", 0),
    }


def run(points: list[runs.Pl2Point], form: str, out: Path, say: Any, host_delay: str = "0ns") -> dict:
    """Runs the points into ``out`` (written whole once complete): scenarios, runs,
    incast_outcast.csv and incast_outcast.json."""
    length = FORMS[form][0]
    with staged(out, "reproduction", name="pl2-incast-outcast") as work:
        dirs = runs.run(points, work, f"tailor reproduce pl2-incast-outcast, {form} form", say)
        seed_rows, rows = [], []
        for name in dict.fromkeys(p.name for p in points):
            scheme, pattern, n = name.split("-")
            mine = [
                {
                    "scheme": scheme,
                    "pattern": pattern,
                    "senders": int(n),
                    "seed": p.seed,
                    **_measure(dirs[p], pattern, int(n), length),
                }
                for p in points
                if p.name == name
            ]
            seed_rows += mine
            rows.append(
                {
                    "scheme": scheme,
                    "pattern": pattern,
                    "senders": int(n),
                    "seeds": len(mine),
                    **{
                        c: v
                        for k in ("delivered_fraction", "throughput_gbps")
                        for c, v in cells.columns(k, Estimate.of_values([(r[k], 1) for r in mine])).items()
                    },
                    "drops": max(r["drops"] for r in mine),
                    "unsolicited_drops": max(r["unsolicited_drops"] for r in mine),
                }
            )
        pl.DataFrame([{c: r[c] for c in COLUMNS} for r in seed_rows]).write_csv(work / "incast_outcast.csv")
        report = {
            "reproduction": "pl2-incast-outcast",
            "form": form,
            "length_us": length,
            "host_delay": host_delay,
            "rows": rows,
            "seed_rows": seed_rows,
        }
        (work / "incast_outcast.json").write_text(json.dumps(report, indent=1))
    return report


def render(report: dict[str, Any], console: Console) -> None:
    """Fig. 11a (incast) and Fig. 12 (outcast), paper / tailor: means over seeds [95 % interval]."""
    from rich import box
    from rich.table import Table

    ns = sorted({r["senders"] for r in report["rows"]})
    at = {(r["scheme"], r["pattern"], r["senders"]): r for r in report["rows"]}
    for pattern in PATTERNS:
        who = "senders into one receiver" if pattern == "incast" else "receivers of one sender"
        t = Table(
            title=f"PL2 {'Fig. 11a' if pattern == 'incast' else 'Fig. 12'}: {pattern}, n {who}; delivered "
            f"fraction and goodput (Gbps), paper / tailor ({report['form']} form, "
            f"{report['length_us']} µs, host delay {report['host_delay']}, {report['rows'][0]['seeds']} "
            f"seeds: mean [95 % interval]; drops: the most in a seed)",
            title_justify="left",
            box=box.SIMPLE_HEAD,
        )
        t.add_column("scheme")
        for n in ns:
            t.add_column(f"n = {n}", justify="right")
        for s in SCHEMES:
            row = []
            for n in ns:
                r = at.get((s, pattern, n))
                if r is None:
                    row.append("")
                    continue
                paper = _paper(s, pattern, n)
                frac, gbps = (
                    cells.text(cells.restore(k, r, None), f)
                    for k, f in (("delivered_fraction", ".2f"), ("throughput_gbps", ".1f"))
                )
                row.append(f"{paper} / {frac}, {gbps}; drops {r['drops']:,}")
            t.add_row(rack.scheme_label(s), *row)
        console.print(t)
    console.print(
        "The paper's figures are not tabulated: its text gives raw Ethernet's 1/n and line rate, PL2's "
        "80 Gbps for one server, 96-97 Gbps in incast and 90 Gbps in outcast (§F.4, §G); — where it "
        f"gives nothing. docs/reproductions-pl2.md.\n{cells.legend()}",
        highlight=False,
    )


def _paper(scheme: str, pattern: str, n: int) -> str:
    if pattern == "incast":
        p = INCAST[scheme]
        return f"{p['delivered_fraction'](n):.2f}, {p['throughput_gbps'](n):.0f}"
    if scheme == "pl2":
        return f"1.00, {OUTCAST['pl2']['throughput_gbps']:.0f}"
    return "—"
