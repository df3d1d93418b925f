"""Issue 26, item 1: what TCP over PL2 can carry of W3 (PL2 §F.3.1: 81 Gbps, against TCP
Cubic's 43), with and without TCP's coalescing and the generator's pool of workers.

Runs `pl2-traces`' W3 scenario (3 senders into one receiver, 11 threads and 11
connections per sender) for TCP (congestion control off) over PL2, or TCP Cubic
(`--scheme cubic`), at several offered loads, in four variants: `coalesce` "off" or
"nagle" crossed with `connection_choice` "random" or "available". Prints, per run: the
load offered; goodput (message bytes completed per second of the arrivals' window); the
payload carried (bytes acknowledged per second of the run); the PL2 timeslot bytes
booked per payload byte (every data packet that passed the ToR with a timeslot,
scheduled or unsolicited, retransmissions included, books one of 1,538 B; payload =
bytes acknowledged); data packets per message; retransmissions; messages unfinished;
messages that waited for a worker; p50 / p99 latency of the completed ones.

    .venv/bin/python scripts/pl2_tcp_w3.py [--ms 10] [--loads 0.8,0.9,1.0] [--out DIR]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import polars as pl
from tailor.reproduce.pl2 import traces
from tailor.result import Result
from tailor.stats import percentile

SLOT = 1538
VARIANTS = (("off", "random"), ("nagle", "random"), ("off", "available"), ("nagle", "available"))


def text(load: float, coalesce: str, choice: str, ms: int, scheme: str = "pl2-tcp") -> str:
    t = traces.scenario("W3", scheme, ms).replace("load = 0.8", f"load = {load}")
    t = t.replace('min_rto = "1ms" }', f'min_rto = "1ms", coalesce = "{coalesce}" }}')
    if scheme == "cubic":
        t = t.replace('min_rto = "1ms"\n', f'min_rto = "1ms"\ncoalesce = "{coalesce}"\n')
    return t.replace('connection_choice = "available"', f'connection_choice = "{choice}"')


def measure(run: Path, ms: int) -> dict:
    s = Result(run).summary
    c = s["transport_counters"]
    m = pl.read_parquet(run / "messages.parquet")
    lat = ((m["finish_ns"] - m["start_ns"]) / 1e3).sort()
    tors = s["network"].get("pl2") or {}
    # Packets that passed the ToR with a timeslot: scheduled and unsolicited (0 without PL2).
    booked = tors.get("scheduled_packets", 0) + tors.get("unsolicited_packets", 0)
    return {
        "offered_gbps": (float(m["size_bytes"].sum()) + s["messages"]["incomplete_bytes"]) * 8 / (ms / 1e3) / 1e9,
        "goodput_gbps": float(m["size_bytes"].sum()) * 8 / (ms / 1e3) / 1e9,
        # Payload acknowledged per second of the whole run (the arrivals' window and the
        # 20 % after it): what the connections carried, finished messages or not.
        "carried_gbps": c["acked_bytes"] * 8 / (ms * 1.2 / 1e3) / 1e9,
        "booked_per_byte": booked * SLOT / c["acked_bytes"],
        "packets_per_message": c["data_packets"] / s["messages"]["generated"],
        "retransmits": c["retransmits"],
        "unfinished": s["messages"]["incomplete"],
        "messages": s["messages"]["generated"],
        "p50_us": percentile(lat, 50),
        "p99_us": percentile(lat, 99) if len(lat) >= 100 else None,
        "waits": c.get("connection_waits", 0),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ms", type=int, default=10, help="arrivals' window, ms")
    ap.add_argument("--loads", default="0.8,0.9,1.0")
    ap.add_argument("--scheme", default="pl2-tcp", choices=("pl2-tcp", "cubic"))
    ap.add_argument("--out", type=Path, default=Path("target/pl2-tcp-w3"))
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    tailor = Path(sys.executable).parent / "tailor"
    rows = []
    for load in (float(x) for x in a.loads.split(",")):
        for coalesce, choice in VARIANTS:
            name = f"{a.scheme}-{load}-{coalesce}-{choice}"
            sc = a.out / f"{name}.toml"
            sc.write_text(text(load, coalesce, choice, a.ms, a.scheme))
            subprocess.run(
                [str(tailor), "run", str(sc), "-q", "--out", str(a.out / name)], check=True, stdout=subprocess.DEVNULL
            )
            r = {"load": load, "coalesce": coalesce, "choice": choice, **measure(a.out / name, a.ms)}
            rows.append(r)
            p99 = "—" if r["p99_us"] is None else f"{r['p99_us']:,.0f}"
            print(
                f"load {load:.2f} {coalesce:5} {choice:9}: offered {r['offered_gbps']:5.1f}, goodput "
                f"{r['goodput_gbps']:5.1f}, carried {r['carried_gbps']:5.1f} Gbps, booked/payload "
                f"{r['booked_per_byte']:.3f}, {r['packets_per_message']:.2f} pkts/msg, {r['retransmits']:,} "
                f"retransmits, {r['unfinished']:,} of {r['messages']:,} unfinished, {r['waits']:,} waited, "
                f"p50 / p99 {r['p50_us']:,.1f} / {p99} µs",
                flush=True,
            )
    pl.DataFrame(rows).write_csv(a.out / "pl2_tcp_w3.csv")
    return 0


if __name__ == "__main__":
    sys.exit(main())
