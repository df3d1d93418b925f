"""PL2's Fig. 11b, Fig. 11c and the K and t sweeps (§D.3, §D.4): their quick forms run end
to end, write their CSVs with exactly the documented columns, and what they measure keeps
what the paper's text says or what docs/reproductions-pl2.md reports against it (the full
forms are in `make validate`)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from tailor.errors import OptionError
from tailor.reproduce.pl2 import fig11b, fig11c, ksweep, tsweep


def _header(path: Path) -> tuple[str, ...]:
    with open(path) as f:
        return tuple(next(csv.reader(f)))


def test_fig11b_raw_ethernet_queues_to_the_buffer_and_pl2_stays_near_empty(tmp_path: Path) -> None:
    plan = fig11b.options(quick=True, out=tmp_path / "b")
    report = plan.run(plan.out, lambda _: None)
    assert _header(tmp_path / "b" / "fig11b.csv") == fig11b.COLUMNS
    at = {(r["scheme"], r["senders"]): r for r in report["rows"]}
    for n in (3, 5):
        raw, pl2 = at[("raw", n)], at[("pl2", n)]
        # Raw Ethernet: the port's share of the buffer (1.5 MB, 120 µs at 100 Gbps), drops.
        assert raw["sojourn_p50_us"] > 115 and raw["queue_mean_bytes"] > 1.4e6 and raw["drops_most"] > 0, raw
        # PL2 (§F.4): stable, low variance, and (§B) far below 200 KiB; nothing dropped.
        assert pl2["sojourn_p99_us"] < 5 and pl2["sojourn_max_us"] < 10, pl2
        assert pl2["queue_mean_bytes"] < 5e3 and pl2["queue_sd_bytes"] < 5e3 and pl2["drops_most"] == 0, pl2
        # Three seeds, an interval, and the packets behind the p99.
        assert pl2["sojourn_p99_us_seeds"] == 3 and pl2["sojourn_p99_us_lo"] is not None
        assert pl2["sojourn_p99_us_judged"] and pl2["sojourn_p99_us_n"] > 3_000


def test_fig11c_tcp_over_pl2_loses_nothing_and_pays_a_slot_for_each_short_segment(tmp_path: Path) -> None:
    plan = fig11c.options(quick=True, out=tmp_path / "c")
    report = plan.run(plan.out, lambda _: None)
    assert _header(tmp_path / "c" / "fig11c.csv") == fig11c.COLUMNS
    at = {(r["scheme"], r["message_bytes"], r["senders"]): r for r in report["rows"]}
    for n in (2, 4):
        # §F.4: Cubic retransmits in every incast, TCP over PL2 loses nothing.
        cubic = at[("cubic", 6_000, n)]
        assert cubic["drops_most"] > 0 and cubic["retransmits"] > 0, cubic
        for size in (6_000, 5_792):
            pl2 = at[("pl2-tcp", size, n)]
            assert pl2["drops_most"] == 0 and pl2["retransmits"] == 0, pl2
        # Four full segments carry what the link can (1,448 of 1,538 B); 6,000 B messages
        # book a fifth slot for their 208 B tail: 6,000 B per 5 x 1,538 B of slots, 78 Gbps.
        assert at[("pl2-tcp", 5_792, n)]["goodput_gbps"] > 93
        assert 75 < at[("pl2-tcp", 6_000, n)]["goodput_gbps"] < 80


def test_k_sweep_trades_a_messages_rate_against_small_messages_latency(tmp_path: Path) -> None:
    plan = ksweep.options(quick=True, ks="1,4,16", out=tmp_path / "k")
    report = plan.run(plan.out, lambda _: None)
    assert _header(tmp_path / "k" / "k_sweep.csv") == ksweep.COLUMNS
    at = {(r["workload"], r["burst"]): r for r in report["rows"]}
    # One message is sent by one thread, K packets per exchange: its rate grows with K.
    alone = [at[("alone", k)]["goodput_gbps"] for k in (1, 4, 16)]
    assert alone[0] < 10 and 3 * alone[1] < alone[2], alone
    # §D.3: too small a K and the exchanges cap one server's 12 threads below line rate.
    assert at[("stream", 1)]["goodput_gbps"] < 80 < 95 < at[("stream", 4)]["goodput_gbps"]
    # Too large and one-packet messages wait behind other hosts' bursts (head-of-line).
    assert at[("w4", 16)]["small_p99_us"] > 1.5 * at[("w4", 4)]["small_p99_us"]
    assert at[("w4", 4)]["small_p99_us_judged"]
    # RSV and GRT bytes per message byte fall with K; nothing is dropped.
    control = [at[("w4", k)]["control_fraction"] for k in (1, 4, 16)]
    assert control == sorted(control, reverse=True)
    assert all(r["drops_most"] == 0 for r in report["rows"])


def test_t_sweep_loses_at_35_and_not_at_15_only_with_a_small_drop_threshold(tmp_path: Path) -> None:
    plan = tsweep.options(quick=True, out=tmp_path / "t")
    report = plan.run(plan.out, lambda _: None)
    assert _header(tmp_path / "t" / "t_sweep.csv") == tsweep.COLUMNS
    at = {(r["workload"], r["threshold"], r["t"]): r for r in report["rows"]}
    # tailor's T = 512: no loss for any t swept, on W4 or in the lossless incast.
    assert all(r["drops_total"] == 0 for r in report["rows"] if r["threshold"] == 512)
    # T = 64: §D.4's reading on W4 (t = 15 loses nothing, t = 35 loses), but the incast's
    # synchronised start then drops unsolicited packets at t = 15 (docs/pl2.md, "T").
    assert at[("w4", 64, 15)]["drops_total"] == 0 < at[("w4", 64, 35)]["drops_total"]
    assert at[("incast", 64, 15)]["drops_total"] > 0 and at[("incast", 64, 0)]["drops_total"] == 0
    # Unsolicited bursts grow with t.
    shares = [at[("w4", 512, t)]["unsolicited_fraction"] for t in (0, 15, 35)]
    assert shares[0] == 0 < shares[1] < shares[2]


def test_bad_sweep_options_are_refused_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(OptionError, match="--ks: '0' is not an integer from 1 to 64; accepted: integers from 1 to 64"):
        ksweep.options(ks="0,4", out=tmp_path)
    with pytest.raises(OptionError, match="--thresholds: 'x' is not an integer from 4 to 100000; accepted"):
        tsweep.options(thresholds="x", out=tmp_path)
    with pytest.raises(OptionError, match="no pair with T >= t \\+ 3"):
        tsweep.options(ts="100", thresholds="64", out=tmp_path)
    with pytest.raises(OptionError, match="--seeds: 0; accepted: 1 to 20"):
        tsweep.options(seeds=0, out=tmp_path)
    with pytest.raises(OptionError, match="--cubic-window: '32'; accepted: a size such as 32KB"):
        fig11c.options(cubic_window="32", out=tmp_path)
    with pytest.raises(OptionError, match="--w4-threads: 0; accepted: 1 to 256"):
        ksweep.options(w4_threads=0, out=tmp_path)
    assert not any(tmp_path.iterdir())
