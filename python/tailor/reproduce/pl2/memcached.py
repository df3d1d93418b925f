"""PL2 §F.2, Fig. 5-8: memcached under background incast. One client (host 0) reads from
one server (host 1) continuously: 64 B GETs, 4 KiB values, one request outstanding on one
TCP connection (a closed loop: ``[[class]] outstanding``). Background traffic from 0 to
4 hosts goes to the client, so the values compete with it on the client's link: with one
host it is the memcached server itself, then hosts 2, 3 and 4 join (§F.2.1). Each
background host offers 50 Gbps of 1 MB messages on 12 persistent connections (TCP: one per
sending thread) or
as datagrams (UDP): the paper's one host "utilizes around 50 % of the downlink", and two
or more load it to "80-90 %" and beyond (the rates are not given).

Schemes, as the paper pairs them:

- TCP background (Fig. 5-6): memcached and background both TCP over PL2 (congestion
  control off), or both TCP Cubic;
- UDP background (Fig. 7-8): UDP over PL2 with memcached TCP over PL2, or UDP with
  memcached over TCP Cubic.

Memcached's TCP over PL2 has its own sending thread at each end (a class's own
transport: one application), the background hosts 12 threads each. Latency is the RPC's
(request start to the value's last byte); percentiles need 100 RPCs and more (the quick
form gives a few hundred at the highest load).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import polars as pl
import typer

from tailor.outdir import staged
from tailor.reproduce.pl2 import rack, runs
from tailor.reproduce.pl2.paper import MEMCACHED
from tailor.reproduce.registry import Out, Plan

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COLUMNS", "PAIRS", "options", "run", "render"]

#: The columns of memcached.csv.
COLUMNS = ("scheme", "background", "hosts", "rpcs_per_s", "p50_us", "p99_us", "rpcs", "background_gbps", "drops")
#: (the paper's pairing, background scheme, memcached's scheme).
PAIRS = {
    "tcp": (("pl2", "pl2-tcp", "pl2-tcp"), ("cubic", "cubic", "cubic")),
    "udp": (("pl2", "pl2-udp", "pl2-tcp"), ("no-pl2", "udp", "cubic")),
}
CLIENT, SERVER = 0, 1
#: Message bytes each background host offers.
BACKGROUND_GBPS = 50
#: Simulated ms per point, and the background host counts.
FORMS = {"quick": (5, (0, 1, 4)), "full": (50, (0, 1, 2, 3, 4))}


def scenario(background: str, memcached: str, hosts: int, length_ms: int) -> str:
    mc_transport = rack.transport(memcached, threads=1).strip().replace("\n", ", ")
    classes = f"""[[class]]
name = "memcached"
sizes_fixed = "64B"
response_sizes_fixed = "4KiB"
outstanding = 1
pattern = "n_to_1"
senders = [{CLIENT}]
receiver = {SERVER}
connections = 1
until = "{length_ms}ms"
transport = {{ {mc_transport} }}
"""
    if hosts:
        senders = [SERVER] + list(range(2, hosts + 1))
        classes += f"""
[[class]]
name = "background"
sizes_fixed = "1MB"
arrival = "periodic"
rate = "{BACKGROUND_GBPS * hosts}Gbps"
pattern = "n_to_1"
senders = {senders}
receiver = {CLIENT}
{"connections = 12" if "udp" not in background else ""}
until = "{length_ms}ms"
"""
    return rack.scenario(background, classes, stop=f"{length_ms + 1}ms", threads=12)


def options(
    quick: Annotated[bool, typer.Option("--quick", help="0, 1 and 4 background hosts, 5 ms each (seconds in all).")] = False,
    out: Out = None,
) -> Plan:
    """PL2 Fig. 5-8: memcached GETs (64 B keys, 4 KiB values) under TCP or UDP background
    incast from 0 to 4 hosts, with and without PL2, beside the paper's."""
    form = "quick" if quick else "full"
    length, counts = FORMS[form]
    pts = [runs.Pl2Point(f"{bg}-{name}-{k}", 1, scenario(bgs, mcs, k, length), length * 1000)
           for bg, pair in PAIRS.items() for name, bgs, mcs in pair for k in counts]
    default = Path("runs") / ("pl2-memcached-quick" if quick else "pl2-memcached")
    return Plan(out or default, lambda out, say: run(pts, form, out, say))


def _measure(run_dir: Path, hosts: int, length_ms: int) -> dict[str, Any]:
    s = runs.summary(run_dir)
    try:
        lat = runs.latencies_us([run_dir], "memcached")
    except Exception:  # noqa: BLE001 - no RPC completed: the paper's "fails to complete"
        lat = None
    ports = runs.ports(run_dir)
    to_client = ports.filter(pl.col("port") == 2 * CLIENT + 1)
    gbps = float(to_client["sent_bytes"].sum()) * 8 / (s["sim_ns"] / 1e9) / 1e9
    n = 0 if lat is None else len(lat)
    return {
        "rpcs_per_s": n / (length_ms / 1e3),
        "p50_us": None if lat is None else runs.rank(lat, 0.5),
        "p99_us": None if lat is None or n < 100 else runs.rank(lat, 0.99),
        "rpcs": n,
        # The client's link carries the values and the background: what is not memcached's.
        "background_gbps": max(0.0, gbps - n * 4096 * 8 / (length_ms / 1e3) / 1e9) if hosts else 0.0,
        "drops": s["network"]["drops"],
    }


def run(points: list[runs.Pl2Point], form: str, out: Path, say: Any) -> dict:
    """Runs the points into ``out`` (written whole once complete): scenarios, runs,
    memcached.csv and memcached.json."""
    length = FORMS[form][0]
    with staged(out, "reproduction", name="pl2-memcached") as work:
        dirs = runs.run(points, work, f"tailor reproduce pl2-memcached, {form} form", say)
        rows = []
        for p in points:
            bg, name, k = p.name.split("-", 1)[0], p.name.split("-", 1)[1].rsplit("-", 1)[0], int(p.name.rsplit("-", 1)[1])
            rows.append({"scheme": name, "background": bg, "hosts": k, **_measure(dirs[p], k, length)})
        pl.DataFrame([{c: r[c] for c in COLUMNS} for r in rows]).write_csv(work / "memcached.csv")
        report = {"reproduction": "pl2-memcached", "form": form, "length_ms": length, "rows": rows}
        (work / "memcached.json").write_text(json.dumps(report, indent=1))
    return report


def _us(x: float | None) -> str:
    return "—" if x is None else f"{x:.1f}"


def render(report: dict[str, Any], console: Console) -> None:
    """Fig. 5-8's reading, paper / tailor."""
    from rich import box
    from rich.table import Table

    hosts = sorted({r["hosts"] for r in report["rows"]})
    at = {(r["background"], r["scheme"], r["hosts"]): r for r in report["rows"]}
    for bg, pair in PAIRS.items():
        t = Table(title=f"PL2 Fig. {'5-6' if bg == 'tcp' else '7-8'}: memcached under {bg.upper()} background incast: "
                        f"p99 / p50 RPC latency (µs), thousand RPCs/s, background Gbps; paper / tailor "
                        f"({report['form']} form, {report['length_ms']} ms)", title_justify="left", box=box.SIMPLE_HEAD)
        t.add_column("scheme")
        for k in hosts:
            t.add_column(f"{k} background hosts", justify="right")
        for name, _, _ in pair:
            cells = []
            for k in hosts:
                r = at.get((bg, name, k))
                if r is None:
                    cells.append("")
                    continue
                paper = MEMCACHED.get((bg, name, k))
                said = "—" if paper is None else paper
                cells.append(f"{said} / {_us(r['p99_us'])}, {_us(r['p50_us'])}; {r['rpcs_per_s'] / 1e3:.0f}k; "
                             f"{r['background_gbps']:.0f}")
            t.add_row(name, *cells)
        console.print(t)
    console.print("The paper's figures are not tabulated: its text gives the p99 with 4 background hosts (TCP: Cubic "
                  "127 µs, PL2 56 µs; UDP: PL2 25 µs, without PL2 seconds) and PL2's 8 % lower throughput without "
                  "background. — where it gives nothing; p99 needs 100 RPCs. docs/reproductions-pl2.md.", highlight=False)
