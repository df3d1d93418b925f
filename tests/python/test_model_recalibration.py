"""The fast model at high utilization on a slow link (docs/model.md, "Recalibration
(issue 25)"): DCTCP's standing queue below K and its additive increase.

Before the recalibration the calibrated model was optimistic there: on the held-out probe
(one Hadoop class, 85 % of 25 Gbps, K = 100 KB, 5,000 messages) its mean bottleneck queue
was 35.1 KB against the packet engine's 67.1 KB and its short messages' mean slowdown
2.43 against 3.27 (-26 %). Removing the form (SWP-D's `Rise::Additive`) fails this test.
The model run takes a twentieth of a second.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import tailor

ROOT = Path(__file__).resolve().parents[2]
PROBE = ROOT / "scenarios" / "swp" / "accuracy-hadoop-25g-85.toml"

#: The packet engine on PROBE, seed 1 (`tailor run scenarios/swp/accuracy-hadoop-25g-85.toml`,
#: measured once on 2026-11-27; the packet engine is untouched by the recalibration):
#: messages up to one BDP (31.25 KB): 3,625, mean slowdown 3.269, p99 6.898; the bottleneck's
#: time-average queue 67,138 B. The recalibrated model: 3.372, 6.821, 68,904 B.
PACKET_SHORT_MEAN = 3.269
PACKET_SHORT_P99 = 6.898
PACKET_MEAN_QUEUE = 67_138.0
BDP = 31_250


def test_the_model_keeps_dctcps_standing_queue_at_high_utilization_on_a_slow_link(tmp_path: Path) -> None:
    r = tailor.run(PROBE, out=tmp_path / "model", engine="model")
    assert r.summary["model"]["form"] == "calibrated"
    short = r.messages.filter(pl.col("size_bytes") <= BDP)["slowdown"]
    assert len(short) == 3625
    # Before: -26 % (mean), -23 % (p99), -48 % (queue).
    assert abs(short.mean() / PACKET_SHORT_MEAN - 1) < 0.10, short.mean()
    assert abs(short.quantile(0.99) / PACKET_SHORT_P99 - 1) < 0.10, short.quantile(0.99)
    queue = r.summary["network"]["mean_queue_bytes"]
    assert abs(queue / PACKET_MEAN_QUEUE - 1) < 0.15, queue
