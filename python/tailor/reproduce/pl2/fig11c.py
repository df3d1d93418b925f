"""PL2 §F.4, Fig. 11c: TCP over PL2 against TCP Cubic in Fig. 11a's incast. n hosts (1 to
5) each offer line rate to one receiver on 12 persistent TCP connections (§F.4's 12 flows
per host), each connection a worker that takes the next message when its send has returned
(``connection_choice = "available"``, docs/pl2.md, "Workers"). The paper: "TCP cubic
experiences 233, 313, 404 retransmissions for 2, 3, and 4 host incasts. In the case of
congestion controlled TCP traffic, traffic over PL2 sees the same (or higher) throughput as
the baseline"; TCP over PL2 runs with congestion control off (§E) and loses nothing.

The messages are the raw experiment's 6,000 B ("the experiment settings mimic the raw
Ethernet experiment"), which TCP (1,448 B of payload a segment) cuts into four full
segments and a 208 B one; and 5,792 B, four full segments, the paper's "4 MTU sized
packets" in TCP's terms. Under PL2 every segment books a full timeslot, so the short one
costs a fifth of the slots for 3.5 % of the bytes (docs/reproductions-pl2.md measures it).

Per seed: goodput, the bytes of the messages completed per second of the run (counted from
the start: a count from a later point credits a message stalled by an RTO across it with
all its bytes, and read up to 106 Gbps for Cubic); the receiver's link's wire rate
(retransmissions and headers included); TCP's retransmissions and timeouts; drops. The paper ran 24 million messages per host: its retransmissions per
million messages are printed beside ours.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import polars as pl
import typer

from tailor.errors import OptionError
from tailor.outdir import staged
from tailor.reproduce import cells
from tailor.reproduce.pl2 import rack, runs
from tailor.reproduce.pl2.paper import FIG11C
from tailor.reproduce.registry import Out, Plan
from tailor.result import Result
from tailor.stats import Estimate

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COLUMNS", "VARIANTS", "options", "run", "render"]

#: (scheme, message bytes): TCP over PL2 and Cubic, with the raw experiment's 6,000 B and
#: with four full segments.
VARIANTS = (("pl2-tcp", 6_000), ("pl2-tcp", 5_792), ("cubic", 6_000), ("cubic", 5_792))
RECEIVER = 5
PORT = 2 * RECEIVER + 1
CONNECTIONS = 12
_MEANS = ("goodput_gbps", "wire_gbps", "retransmits", "retransmits_per_million", "timeouts")
#: The columns of fig11c.csv: one row per scheme, message size and n, estimates across the seeds.
COLUMNS = (
    "scheme",
    "message_bytes",
    "senders",
    "seeds",
    "messages",
    "drops_most",
    *(c for k in _MEANS for c in (k, f"{k}_lo", f"{k}_hi", f"{k}_n", f"{k}_seeds", f"{k}_judged")),
)
#: Simulated µs per point, the n, and the seeds.
FORMS = {"quick": (2_000, (1, 2, 4), 3), "full": (20_000, (1, 2, 3, 4, 5), 3)}


def scenario(scheme: str, size: int, n: int, length_us: int, seed: int, cubic_window: str | None = None) -> str:
    """n hosts into host 5, each offering line rate in TCP's payload on 12 connections;
    Cubic's connections with a fixed receive window of ``cubic_window`` if given."""
    line = 100e9 * 1_448 / 1_538
    cls = f"""[[class]]
name = "incast"
sizes_fixed = "{size}B"
arrival = "periodic"
rate = "{round(line * n)}bps"
pattern = "n_to_1"
senders = "0..{n}"
receiver = {RECEIVER}
connections = {CONNECTIONS}
connection_choice = "available"
until = "{length_us}us"
"""
    text = rack.scenario(scheme, cls, stop=f"{length_us}us", threads=CONNECTIONS, seed=seed)
    if scheme == "cubic" and cubic_window is not None:
        # docs/transport.md, "Receive window": a fixed window, no auto-tuning.
        window = f'rwnd = {{ autotune = false, initial = "{cubic_window}" }}\n'
        text = text.replace('kind = "cubic"\n', f'kind = "cubic"\n{window}', 1)
    return text


def options(
    quick: Annotated[
        bool, typer.Option("--quick", help="n = 1, 2, 4 for 2 ms each, 3 seeds (seconds in all).")
    ] = False,
    cubic_window: Annotated[
        str | None,
        typer.Option(
            help="A fixed receive window for each Cubic connection, such as 32KB (default: none advertised, the "
            "window is Cubic's own)."
        ),
    ] = None,
    out: Out = None,
) -> Plan:
    """PL2 Fig. 11c: TCP over PL2 against TCP Cubic in an incast from 1 to 5 hosts, 12
    connections each: goodput and retransmissions, beside the paper's."""
    if cubic_window is not None and not re.fullmatch(r"[1-9]\d*(B|KB|KiB|MB|MiB)", cubic_window):
        raise OptionError(f"--cubic-window: '{cubic_window}'; accepted: a size such as 32KB (B, KB, KiB, MB, MiB)")
    form = "quick" if quick else "full"
    length, ns, seeds = FORMS[form]
    pts = [
        runs.Pl2Point(f"{s}-{size}-{n}", seed, scenario(s, size, n, length, seed, cubic_window), length)
        for s, size in VARIANTS
        for n in ns
        for seed in range(1, seeds + 1)
    ]
    default = Path("runs") / ("pl2-fig11c-quick" if quick else "pl2-fig11c")
    return Plan(out or default, lambda out, say: run(pts, form, out, say, cubic_window))


def _measure(run_dir: Path) -> dict[str, Any]:
    s = Result(run_dir).summary
    m = pl.read_parquet(run_dir / "messages.parquet")
    end = s["sim_ns"]
    wire = int(runs.ports(run_dir).filter(pl.col("port") == PORT)["sent_bytes"].sum())
    c = s.get("transport_counters", {})
    retransmits = c.get("retransmits", 0)
    return {
        "goodput_gbps": float(m["size_bytes"].sum()) * 8 / end,
        "wire_gbps": wire * 8 / end,
        "messages": m.height,
        "retransmits": retransmits,
        "retransmits_per_million": retransmits / m.height * 1e6 if m.height else 0.0,
        "timeouts": c.get("timeouts", 0),
        "drops": s["network"]["drops"],
    }


def run(points: list[runs.Pl2Point], form: str, out: Path, say: Any, cubic_window: str | None = None) -> dict:
    """Runs the points into ``out`` (written whole once complete): scenarios, runs,
    fig11c.csv (one row per scheme, size and n) and fig11c.json (every seed too)."""
    with staged(out, "reproduction", name="pl2-fig11c") as work:
        dirs = runs.run(points, work, f"tailor reproduce pl2-fig11c, {form} form", say)
        rows, seed_rows = [], []
        for name in dict.fromkeys(p.name for p in points):
            scheme, size, n = name.rsplit("-", 2)
            mine = [
                {"scheme": scheme, "message_bytes": int(size), "senders": int(n), "seed": p.seed, **_measure(dirs[p])}
                for p in points
                if p.name == name
            ]
            seed_rows += mine
            row: dict[str, Any] = {
                "scheme": scheme,
                "message_bytes": int(size),
                "senders": int(n),
                "seeds": len(mine),
                "messages": sum(r["messages"] for r in mine),
                "drops_most": max(r["drops"] for r in mine),
            }
            for k in _MEANS:
                row |= cells.columns(k, Estimate.of_values([(r[k], 1) for r in mine]))
            rows.append(row)
        pl.DataFrame([{c: r[c] for c in COLUMNS} for r in rows]).write_csv(work / "fig11c.csv")
        report = {
            "reproduction": "pl2-fig11c",
            "form": form,
            "length_us": FORMS[form][0],
            "cubic_window": cubic_window,
            "rows": rows,
            "seed_rows": seed_rows,
        }
        (work / "fig11c.json").write_text(json.dumps(report, indent=1))
    return report


def _paper(scheme: str, n: int) -> tuple[str, str]:
    """The paper's retransmissions and per million messages (24 million per host)."""
    if scheme != "cubic":
        return "0", "0"
    r = FIG11C["cubic_retransmits"].get(n)
    if r is None:
        return "—", "—"
    return f"{r:,}", f"{r / (n * FIG11C['messages_per_host']) * 1e6:.1f}"


def render(report: dict[str, Any], console: Console) -> None:
    """Fig. 11c, paper / tailor: a row per scheme, message size and n."""
    from rich import box
    from rich.table import Table

    t = Table(
        title=f"PL2 Fig. 11c: TCP over PL2 against TCP Cubic, n-way incast, 12 connections per host "
        f"({report['form']} form, {report['length_us']:,} µs, {report['rows'][0]['seeds']} seeds; Cubic's "
        f"receive window {report.get('cubic_window') or 'not advertised'})",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for c in (
        "scheme",
        "message",
        "n",
        "goodput Gbps",
        "wire Gbps",
        "retransmits (paper's run / ours)",
        "per million messages (paper / ours)",
        "timeouts",
        "drops",
    ):
        t.add_column(c, justify="left" if c == "scheme" else "right")
    for r in report["rows"]:
        e = {k: cells.restore(k, r, None) for k in _MEANS}
        paper, per_m = _paper(r["scheme"], r["senders"])
        t.add_row(
            rack.scheme_label(r["scheme"]),
            f"{r['message_bytes']:,} B",
            str(r["senders"]),
            cells.text(e["goodput_gbps"], ".1f"),
            cells.text(e["wire_gbps"], ".1f"),
            f"{paper} / {cells.text(e['retransmits'], ',.0f')}",
            f"{per_m} / {cells.text(e['retransmits_per_million'], ',.1f')}",
            cells.text(e["timeouts"], ",.1f"),
            f"{r['drops_most']:,}",
        )
    console.print(t)
    console.print(
        "The paper's throughputs are not given as numbers: its text says TCP over PL2 gets the same or "
        "more than Cubic, without loss, and gives Cubic's retransmissions over runs of 24 million messages "
        "per host (per million: ours over the messages our shorter run completed). Goodput: message bytes "
        "completed per second of the run; wire: the receiver's link, retransmissions included. "
        f"Drops: the most in a seed. docs/reproductions-pl2.md.\n{cells.legend()}",
        highlight=False,
    )
