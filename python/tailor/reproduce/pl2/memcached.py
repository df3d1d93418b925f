"""PL2 §F.2, Fig. 5-8: memcached under background incast. One client (host 0) reads from
one server (host 1) continuously: 64 B GETs, 4 KiB values, one request outstanding on one
TCP connection (a closed loop: ``[[class]] outstanding``). Background traffic from 0 to
4 hosts goes to the client, so the values compete with it on the client's link: with one
host it is the memcached server itself, then hosts 2, 3 and 4 join (§F.2.1). The
background is 1 MB messages on 12 persistent connections per host (TCP: one per sending
thread) or datagrams (UDP), offered as the text loads the client's link:

- TCP (§F.2.1): one host "utilizes around 50 % of the downlink" (50 Gbps); from two hosts
  on "the load on the receiving link increases to 80-90 %": 85 Gbps in all, shared evenly
  by the hosts. What each scheme carries is measured (the text: PL2's background carries
  1-5 Gbps more than Cubic's).
- UDP (§F.2.2): 50 Gbps per host, more than the link from two hosts on (without congestion
  control; "PL2 keeps the UDP background traffic from 2-4 hosts within 75-90 Gbps").

Schemes, as the paper pairs them:

- TCP background (Fig. 5-6): memcached and background both TCP over PL2 (congestion
  control off), or both TCP Cubic;
- UDP background (Fig. 7-8): UDP over PL2 with memcached TCP over PL2, or UDP with
  memcached over TCP Cubic.

Memcached's TCP over PL2 has its own sending thread at each end (a class's own
transport: one application), the background hosts 12 threads each. Latency is the RPC's
(request start to the value's last byte). Each point runs several seeds: a percentile is
computed per seed and printed as the mean with a 95 % bootstrap interval across seeds,
only where every seed has the RPCs it needs (100 for a p99: ``tailor.stats``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import polars as pl
import typer

from tailor.errors import DataError
from tailor.outdir import staged
from tailor.reproduce import cells
from tailor.reproduce.pl2 import rack, runs
from tailor.reproduce.pl2.paper import MEMCACHED
from tailor.reproduce.registry import Out, Plan
from tailor.result import Result
from tailor.stats import Estimate, percentile, samples_needed

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COLUMNS", "PAIRS", "options", "run", "render"]

#: The columns of memcached.csv.
COLUMNS = (
    "scheme",
    "background",
    "hosts",
    "seed",
    "offered_gbps",
    "rpcs_per_s",
    "p50_us",
    "p99_us",
    "rpcs",
    "background_gbps",
    "background_done_gbps",
    "drops",
)
#: (the paper's pairing, background scheme, memcached's scheme).
PAIRS = {
    "tcp": (("pl2", "pl2-tcp", "pl2-tcp"), ("cubic", "cubic", "cubic")),
    "udp": (("pl2", "pl2-udp", "pl2-tcp"), ("no-pl2", "udp", "cubic")),
}
CLIENT, SERVER = 0, 1
#: §F.2.1: one background host loads the client's link to about 50 %, more hosts to 80-90 %.
ONE_HOST_GBPS, TCP_GBPS = 50, 85
#: §F.2.2: UDP background per host (beyond the link from two hosts on).
UDP_GBPS_PER_HOST = 50
#: Simulated ms per point, the background host counts and the seeds.
FORMS = {"quick": (5, (0, 1, 4), 3), "full": (50, (0, 1, 2, 3, 4), 5)}


def offered_gbps(background: str, hosts: int) -> float:
    """Background message bytes offered in all (module doc)."""
    if hosts == 0:
        return 0.0
    if background.endswith("udp"):
        return float(UDP_GBPS_PER_HOST * hosts)
    return float(ONE_HOST_GBPS if hosts == 1 else TCP_GBPS)


def scenario(background: str, memcached: str, hosts: int, length_ms: int, seed: int = 1) -> str:
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
rate = "{offered_gbps(background, hosts):g}Gbps"
pattern = "n_to_1"
senders = {senders}
receiver = {CLIENT}
{"connections = 12" if "udp" not in background else ""}
until = "{length_ms}ms"
"""
    return rack.scenario(background, classes, stop=f"{length_ms + 1}ms", threads=12, seed=seed)


def options(
    quick: Annotated[
        bool, typer.Option("--quick", help="0, 1 and 4 background hosts, 5 ms each, 3 seeds (seconds in all).")
    ] = False,
    out: Out = None,
) -> Plan:
    """PL2 Fig. 5-8: memcached GETs (64 B keys, 4 KiB values) under TCP or UDP background
    incast from 0 to 4 hosts, with and without PL2, beside the paper's."""
    form = "quick" if quick else "full"
    length, counts, seeds = FORMS[form]
    pts = [
        runs.Pl2Point(f"{bg}-{name}-{k}", seed, scenario(bgs, mcs, k, length, seed), length * 1000)
        for bg, pair in PAIRS.items()
        for name, bgs, mcs in pair
        for k in counts
        for seed in range(1, seeds + 1)
    ]
    default = Path("runs") / ("pl2-memcached-quick" if quick else "pl2-memcached")
    return Plan(out or default, lambda out, say: run(pts, form, out, say))


def _measure(run_dir: Path, hosts: int, length_ms: int, background: str) -> tuple[dict[str, Any], pl.Series | None]:
    s = Result(run_dir).summary
    try:
        lat = runs.latencies_us([run_dir], "memcached")
    except DataError:  # no RPC completed: the paper's "fails to complete"
        lat = None
    ports = runs.ports(run_dir)
    to_client = ports.filter(pl.col("port") == 2 * CLIENT + 1)
    gbps = float(to_client["sent_bytes"].sum()) * 8 / (s["sim_ns"] / 1e9) / 1e9
    n = 0 if lat is None else len(lat)
    return {
        "rpcs_per_s": n / (length_ms / 1e3),
        "p50_us": None if lat is None else percentile(lat, 50),
        "p99_us": None if lat is None or n < samples_needed(99) else percentile(lat, 99),
        "rpcs": n,
        # The client's link carries the values and the background: what is not memcached's,
        # over the whole run (the arrivals' window and 1 ms after it), in message bytes.
        "background_gbps": max(0.0, gbps - n * 4096 * 8 / rack.GOODPUT["cubic"] / (s["sim_ns"] / 1e9) / 1e9)
        * rack.GOODPUT[background]
        if hosts
        else 0.0,
        # What the background got done: its messages completed by the run's end, over the
        # arrivals' window. The link's count above also holds PL2's RSV and GRT packets
        # and every retransmission, so over PL2 it reads above what was offered.
        "background_done_gbps": _done_gbps(run_dir, length_ms) if hosts else 0.0,
        "drops": s["network"]["drops"],
    }, lat


def _done_gbps(run_dir: Path, length_ms: int) -> float:
    m = pl.read_parquet(run_dir / "messages.parquet", columns=["class", "size_bytes"])
    done = m.filter(pl.col("class") == "background")["size_bytes"].sum()
    return float(done) * 8 / (length_ms / 1e3) / 1e9


def _point(rows: list[dict[str, Any]], lats: list[pl.Series | None]) -> dict[str, Any]:
    """One point across its seeds."""
    first = rows[0]
    # A seed with too few RPCs (none: the paper's "fails to complete") leaves a percentile out.
    samples = [[] if x is None else x.to_numpy() for x in lats]
    est = {"p50_us": Estimate.of_samples(samples, 50), "p99_us": Estimate.of_samples(samples, 99)}
    est |= {
        k: Estimate.of_values([(r[k], 1) for r in rows])
        for k in ("rpcs_per_s", "background_gbps", "background_done_gbps", "drops")
    }
    return {
        "scheme": first["scheme"],
        "background": first["background"],
        "hosts": first["hosts"],
        "offered_gbps": first["offered_gbps"],
        "seeds": len(rows),
        **{c: v for k, e in est.items() for c, v in cells.columns(k, e).items()},
    }


def run(points: list[runs.Pl2Point], form: str, out: Path, say: Any) -> dict:
    """Runs the points into ``out`` (written whole once complete): scenarios, runs,
    memcached.csv (per seed) and memcached.json (across seeds)."""
    length = FORMS[form][0]
    with staged(out, "reproduction", name="pl2-memcached") as work:
        dirs = runs.run(points, work, f"tailor reproduce pl2-memcached, {form} form", say)
        seed_rows, points_out = [], []
        for name in dict.fromkeys(p.name for p in points):
            bg, rest = name.split("-", 1)
            scheme, k = rest.rsplit("-", 1)[0], int(rest.rsplit("-", 1)[1])
            bgs = next(b for n_, b, _ in PAIRS[bg] if n_ == scheme)
            rows, lats = [], []
            for p in (p for p in points if p.name == name):
                row, lat = _measure(dirs[p], k, length, bgs)
                rows.append(
                    {
                        "scheme": scheme,
                        "background": bg,
                        "hosts": k,
                        "seed": p.seed,
                        "offered_gbps": offered_gbps(bgs, k),
                        **row,
                    }
                )
                lats.append(lat)
            seed_rows += rows
            points_out.append(_point(rows, lats))
        pl.DataFrame([{c: r[c] for c in COLUMNS} for r in seed_rows]).write_csv(work / "memcached.csv")
        report = {
            "reproduction": "pl2-memcached",
            "form": form,
            "length_ms": length,
            "rows": points_out,
            "seed_rows": seed_rows,
        }
        (work / "memcached.json").write_text(json.dumps(report, indent=1))
    return report


#: The percentile each estimate of a point is (None: a mean over seeds).
_P = {
    "p50_us": 50,
    "p99_us": 99,
    "rpcs_per_s": None,
    "background_gbps": None,
    "background_done_gbps": None,
    "drops": None,
}


def render(report: dict[str, Any], console: Console) -> None:
    """Fig. 5-8's reading, paper / tailor: means over seeds [95 % interval] n = fewest RPCs
    in a seed."""
    from rich import box
    from rich.table import Table

    hosts = sorted({r["hosts"] for r in report["rows"]})
    at = {(r["background"], r["scheme"], r["hosts"]): r for r in report["rows"]}
    for bg, pair in PAIRS.items():
        t = Table(
            title=f"PL2 Fig. {'5-6' if bg == 'tcp' else '7-8'}: memcached under {bg.upper()} background incast "
            f"({report['form']} form, {report['length_ms']} ms, {report['rows'][0]['seeds']} seeds): p99 "
            f"(paper / tailor) and p50 RPC latency µs, thousand RPCs/s, background Gbps offered → "
            f"done (its messages completed), drops (mean a seed)",
            title_justify="left",
            box=box.SIMPLE_HEAD,
        )
        t.add_column("background hosts")
        for name, _, _ in pair:
            t.add_column(name, justify="right")
        for k in hosts:
            row = []
            for name, _, _ in pair:
                r = at.get((bg, name, k))
                if r is None:
                    row.append("")
                    continue
                e = {c: cells.restore(c, r, p) for c, p in _P.items()}
                said = MEMCACHED.get((bg, name, k), "—")
                row.append(
                    f"p99 {said} / {cells.text(e['p99_us'], ',.0f')}\np50 {cells.text(e['p50_us'], ',.1f')}\n"
                    f"{r['rpcs_per_s'] / 1e3:.0f}k/s; {r['offered_gbps']:.0f} → "
                    f"{cells.text(e['background_done_gbps'], '.1f')}; drops {r['drops']:,.0f}"
                )
            t.add_row(str(k), *row)
        console.print(t)
    console.print(
        "The paper's figures are not tabulated: its text gives the p99 with 4 background hosts (TCP: Cubic "
        "127 µs, PL2 56 µs; UDP: PL2 25 µs, without PL2 seconds) and PL2's 8 % lower throughput without "
        f"background; — where it gives nothing. docs/reproductions-pl2.md.\n{cells.legend()}",
        highlight=False,
    )
