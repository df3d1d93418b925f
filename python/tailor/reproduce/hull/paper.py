"""The HULL paper's numbers (Alizadeh et al., NSDI 2012), as printed in its tables and
text, keyed by the schemes of ``testbed.SCHEMES``.
"""

from __future__ import annotations

__all__ = ["TABLE1", "FIG8_TEXT", "TABLE4", "TABLE5", "LOADS"]

#: Table 1: two long-lived flows into one receiver: throughput (Mbps), mean and 99th
#: percentile switch latency (µs).
TABLE1 = {
    "tcp-droptail": {"throughput_mbps": 982.0, "latency_avg_us": 1100.6, "latency_p99_us": 4308.8},
    "dctcp-30k": {"throughput_mbps": 975.0, "latency_avg_us": 153.9, "latency_p99_us": 305.8},
}

#: §6.1's reading of Fig. 8 (the figure's values are not tabulated): per scheme, what the
#: text says for a few flows. None where it says nothing.
FIG8_TEXT = {
    "tcp-droptail": {"throughput_mbps": None, "latency_avg_us": None, "latency_p99_us": None},
    "dctcp-30k": {"throughput_mbps": None, "latency_avg_us": 200.0, "latency_p99_us": 300.0},
    "dctcp-6k-pacer": {"throughput_mbps": None, "latency_avg_us": 30.0, "latency_p99_us": 100.0},
    "dctcp-pq950-pacer": {"throughput_mbps": 870.0, "latency_avg_us": None, "latency_p99_us": 30.0},
}

#: The loads of Table 4.
LOADS = (0.2, 0.4, 0.6)

#: Table 4 (average of 10 trials): switch latency (µs), 1 KB FCT (µs) and 10 MB FCT (ms),
#: each avg / p90 / p99, by load and scheme.
TABLE4 = {
    0.2: {
        "tcp-droptail": ((111.5, 450.3, 1224.8), (1047, 1136, 10533), (110.2, 162.3, 349.6)),
        "dctcp-30k": ((38.4, 176.4, 295.2), (475, 638, 2838), (106.8, 155.2, 301.7)),
        "dctcp-6k-pacer": ((6.6, 13.0, 59.7), (389, 531, 888), (111.8, 168.5, 320.0)),
        "dctcp-pq950-pacer": ((2.8, 7.6, 18.6), (380, 529, 756), (125.4, 188.3, 359.9)),
    },
    0.4: {
        "tcp-droptail": ((329.3, 892.7, 3960.8), (1537, 3387, 5475), (151.3, 275.3, 575.0)),
        "dctcp-30k": ((78.3, 225.0, 556.0), (495, 720, 1794), (155.1, 281.5, 503.3)),
        "dctcp-6k-pacer": ((15.1, 35.5, 213.4), (403, 560, 933), (168.7, 309.3, 567.5)),
        "dctcp-pq950-pacer": ((7.0, 13.5, 48.2), (382, 536, 808), (198.8, 370.5, 654.7)),
    },
    0.6: {
        "tcp-droptail": ((720.5, 2796.1, 4656.1), (2103, 4423, 5425), (250.0, 514.6, 1007.4)),
        "dctcp-30k": ((119.1, 247.2, 604.9), (511, 740, 1268), (267.6, 538.4, 907.3)),
        "dctcp-6k-pacer": ((24.8, 52.9, 311.7), (403, 563, 923), (320.9, 632.6, 1245.6)),
        "dctcp-pq950-pacer": ((13.5, 29.3, 99.2), (386, 530, 782), (389.4, 801.3, 1309.9)),
    },
}

#: Table 5 (40 % load, average of 10 trials): as Table 4, for TCP with two priorities
#: (``tcp-qos``: the 1 KB flows and the probe in strict priority over the 10 MB flows)
#: and HULL, with the switch's dynamic buffer (large) or 15 KB per priority (small).
TABLE5 = {
    "large": {
        "tcp-qos": ((6.4, 17.2, 20.2), (565, 570, 2308), (152.6, 275.4, 585.1)),
        "dctcp-pq950-pacer": ((6.9, 13.5, 47.8), (381, 538, 810), (199.0, 370.2, 658.9)),
    },
    "small": {
        "tcp-qos": ((5.3, 15.5, 19.7), (371, 519, 729), (362.3, 811.9, 1924.3)),
        "dctcp-pq950-pacer": ((5.0, 13.2, 35.1), (378, 521, 759), (199.4, 367.0, 654.9)),
    },
}
