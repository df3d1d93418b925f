"""The PL2 paper's numbers (Le et al., "PL2: Towards Predictable Low Latency in Rack-Scale
Networks"), as its text gives them: its figures are not tabulated, so only what the text
states is here, each with where it says it.
"""

from __future__ import annotations

__all__ = ["MICROBURST", "INCAST", "OUTCAST", "FIG11B", "FIG11C", "MEMCACHED", "TRACES", "VGG16"]

#: §B, Fig. 3: 5-way incast of ~18 Gbps per sender, messages within one RTT. RDS's p99
#: "corresponds to the maximum output-buffering available in the ToR switch (around
#: 120 µs in Figure 3b)", its p99.9 "two orders of magnitude higher", drops "around
#: 0.1 %"; PL2's p99 and p99.9 "similar to its median", no drops, at most 200 KiB queued.
MICROBURST = {
    "rds": {"p99_us": 120.0, "p999_over_p99": 100.0, "drop_fraction": 0.001, "max_queue_bytes": None},
    "pl2": {"p99_us": None, "p999_over_p99": None, "drop_fraction": 0.0, "max_queue_bytes": 200 * 1024},
}

#: §F.4, Fig. 11a: n hosts with 12 flows each send 6 KiB (4-packet) messages to one
#: receiver. Raw Ethernet reaches line rate for one sender and delivers 1/n of its packets
#: for n senders; PL2 loses nothing, caps one server-to-server stream at 80 Gbps and
#: reaches 96-97 Gbps in incast (§G).
INCAST = {
    "raw": {"delivered_fraction": lambda n: 1.0 / n, "throughput_gbps": lambda n: 100.0},
    "pl2": {"delivered_fraction": lambda n: 1.0, "throughput_gbps": lambda n: 80.0 if n == 1 else 96.5},
}

#: §F.4, Fig. 12: one host sends to n receivers; PL2 is capped at 90 Gbps by the
#: RSV-GRT exchanges at the sender (§G: "up to 90 Gbps with outcast").
OUTCAST = {"pl2": {"throughput_gbps": 90.0}}

#: §F.4, Fig. 11b: the switch's queueing delay in Fig. 11a's incast, as the text reads it
#: (no number; §B bounds PL2's buffer occupancy at 200 KiB).
FIG11B = {"raw": "uncontrolled", "pl2": "stable, low variance"}

#: §F.4, Fig. 11c: TCP over PL2 against TCP Cubic in the same incast (12 flows per host,
#: 6 KiB messages, 24 million per host). Cubic retransmitted 233, 313 and 404 times with 2,
#: 3 and 4 hosts; PL2 sees "the same (or higher) throughput" without loss. The throughputs
#: are not given as numbers.
FIG11C = {"cubic_retransmits": {2: 233, 3: 313, 4: 404}, "messages_per_host": 24_000_000}

#: §F.2, Fig. 5-8: memcached's p99 RPC latency (µs) as the text gives it, by (background,
#: scheme, background hosts): with 4-way TCP incast, 127 µs over Cubic and 56 µs over PL2
#: (§F.2.1); with 4-way UDP incast, 25 µs over PL2 and "5s" without (§F.2.2, where
#: memcached "does not complete" from 2 hosts on).
MEMCACHED = {
    ("tcp", "cubic", 4): "127",
    ("tcp", "pl2", 4): "56",
    ("udp", "pl2", 4): "25",
    ("udp", "no-pl2", 4): "~5 s",
}

#: §F.3, Fig. 10: goodput by (workload, scheme) as the text gives it: W4 over PL2 86 Gbps
#: against 89 for raw Ethernet (optimal); W3 TCP over PL2 81 Gbps against Cubic's 43
#: (a congestion collapse). The figure's latencies are not given as numbers.
TRACES = {
    ("W4", "pl2"): "86 Gbps",
    ("W4", "raw-optimal"): "89 Gbps",
    ("W3", "pl2-tcp"): "81 Gbps",
    ("W3", "cubic"): "43 Gbps",
}

#: §F.2.3, Fig. 9: VGG16 training's gradient transfers, 100 iterations: the 99th
#: percentile time per iteration and the total (PL2 222 ms and 9.5 s, RDS 321 ms and 12 s).
VGG16 = {
    "pl2": {"p99_ms": 222.0, "total_s": 9.5},
    "rds": {"p99_ms": 321.0, "total_s": 12.0},
}
