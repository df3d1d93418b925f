"""HULL's reproductions: their quick forms run end to end and write the files the issue
names with exactly its columns, and what they measure keeps the paper's order of schemes
(the full forms are in `make validate`; docs/reproductions-hull.md has their numbers)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from tailor.errors import OptionError
from tailor.reproduce.hull import dynamic, static, testbed

TABLE4_COLUMNS = (
    "scheme",
    "load",
    "switch_latency_avg_us",
    "switch_latency_p90_us",
    "switch_latency_p99_us",
    "fct_10mb_avg_ms",
    "fct_10mb_p90_ms",
    "fct_10mb_p99_ms",
)


def _csv(path: Path) -> list[dict[str, str]]:
    with open(path) as f:
        return list(csv.DictReader(f))


def test_table4_quick_writes_its_columns_and_hull_has_the_lowest_switch_latency(tmp_path: Path) -> None:
    plan = dynamic.table4_options(loads="0.4", quick=True, seeds=3, out=tmp_path / "t4")
    plan.run(plan.out, lambda _: None)
    rows = _csv(tmp_path / "t4" / "table4.csv")
    assert tuple(rows[0]) == TABLE4_COLUMNS == dynamic.TABLE4_COLUMNS
    assert {r["scheme"] for r in rows} == set(testbed.SCHEMES) and {r["load"] for r in rows} == {"0.4"}
    lat = {r["scheme"]: float(r["switch_latency_avg_us"]) for r in rows}
    # §6.2.1: TCP fills the buffer, DCTCP keeps it near K, HULL below DCTCP-6K-Pacer.
    assert lat["dctcp-pq950-pacer"] < lat["dctcp-6k-pacer"] < lat["dctcp-30k"] < lat["tcp-droptail"]
    # The 10 MB flows pay for the headroom: HULL's are slower than DCTCP-30K's.
    fct = {r["scheme"]: float(r["fct_10mb_avg_ms"]) for r in rows}
    assert fct["dctcp-pq950-pacer"] > fct["dctcp-30k"]


def test_table5_quick_writes_both_buffers_and_small_buffers_slow_tcp_qos(tmp_path: Path) -> None:
    plan = dynamic.table5_options(quick=True, out=tmp_path / "t5")
    report = plan.run(plan.out, lambda _: None)
    rows = _csv(tmp_path / "t5" / "table5.csv")
    assert tuple(rows[0]) == dynamic.TABLE5_COLUMNS
    at = {(r["buffer"], r["scheme"]): r for r in report["rows"]}
    # §6.2.2 (ii): 15 KB per priority costs TCP-QoS's 10 MB flows far more than HULL's.
    qos = at[("small", "tcp-qos")]["fct_10mb_avg_ms"] / at[("large", "tcp-qos")]["fct_10mb_avg_ms"]
    hull = at[("small", "dctcp-pq950-pacer")]["fct_10mb_avg_ms"] / at[("large", "dctcp-pq950-pacer")]["fct_10mb_avg_ms"]
    # (The paper: 2.37 against 1.00; the quick form's five seeds of 10 flows read 1.48 and 1.05.)
    assert qos > 1.3 and hull < 1.15


def test_fig8_quick_writes_fig8_csv_and_the_phantom_queue_leaves_headroom(tmp_path: Path) -> None:
    plan = static.options(quick=True, out=tmp_path / "f8")
    report = plan.run(plan.out, lambda _: None)
    rows = _csv(tmp_path / "f8" / "fig8.csv")
    assert tuple(rows[0]) == static.COLUMNS
    at = {(r["scheme"], r["flows"]): r for r in report["rows"]}
    pq, dctcp = at[("dctcp-pq950-pacer", 2)], at[("dctcp-30k", 2)]
    # Below the 950 Mbps drain rate, and an order of magnitude less latency than DCTCP-30K.
    assert 800 < pq["throughput_mbps"] < 950 < dctcp["throughput_mbps"]
    assert pq["switch_latency_avg_us"] < dctcp["switch_latency_avg_us"] / 10
    # Eq. 5: more flows need more headroom, so the PQ's latency grows from 2 to 8 flows.
    assert at[("dctcp-pq950-pacer", 8)]["switch_latency_avg_us"] > pq["switch_latency_avg_us"]


def test_bad_options_are_refused_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(OptionError, match="--loads: '0.5' is not a load of the paper's; accepted: 0.2, 0.4, 0.6"):
        dynamic.table4_options(loads="0.5", out=tmp_path)
    with pytest.raises(OptionError, match="--seeds: 0; accepted: 1 to 20"):
        static.options(seeds=0, out=tmp_path)
    assert not any(tmp_path.iterdir())


def test_the_shipped_testbed_scenarios_are_the_builder_s() -> None:
    here = Path(__file__).resolve().parents[2] / "scenarios" / "hull"
    for name, text in testbed.shipped().items():
        assert (here / name).read_text() == text, f"scenarios/hull/{name} differs from testbed.shipped(); regenerate it"


def test_fig5_quick_shows_pacing_buys_throughput_at_a_low_threshold(tmp_path: Path) -> None:
    from tailor.reproduce.hull import pacing

    plan = pacing.fig5_options(quick=True, out=tmp_path / "f5")
    report = plan.run(plan.out, lambda _: None)
    assert tuple(_csv(tmp_path / "f5" / "fig5.csv")[0]) == pacing.FIG5_COLUMNS
    at = {(r["pacing"], r["drain_mbps"], r["threshold_kb"]): r for r in report["rows"]}
    # §4.3: with a 1 KB threshold, bursts without pacing trip the phantom queue.
    for drain in (800, 950):
        assert at[(True, drain, 1.0)]["throughput_mbps"] > at[(False, drain, 1.0)]["throughput_mbps"]
        assert at[(True, drain, 1.0)]["throughput_mbps"] < drain
    # Paced, the throughput follows the drain rate.
    assert at[(True, 950, 1.0)]["throughput_mbps"] > at[(True, 800, 1.0)]["throughput_mbps"] + 100


def test_fig6_quick_trades_pacer_delay_for_switch_latency(tmp_path: Path) -> None:
    from tailor.reproduce.hull import pacing

    plan = pacing.fig6_options(quick=True, out=tmp_path / "f6")
    report = plan.run(plan.out, lambda _: None)
    assert tuple(_csv(tmp_path / "f6" / "fig6.csv")[0]) == pacing.FIG6_COLUMNS
    rows = sorted(report["rows"], key=lambda r: r["beta"])
    # §4.4: as β grows the pacer delays less and paces less (higher switch latency).
    assert rows[0]["pacer_delay_us"] > rows[1]["pacer_delay_us"] > rows[2]["pacer_delay_us"]
    assert rows[0]["switch_latency_avg_us"] < rows[2]["switch_latency_avg_us"]


def test_fattree_quick_writes_fattree_csv_and_hull_cuts_small_flow_fct(tmp_path: Path) -> None:
    from tailor.reproduce.hull import fattree

    plan = fattree.options(quick=True, flows=5_000, out=tmp_path / "ft")
    report = plan.run(plan.out, lambda _: None)
    rows = _csv(tmp_path / "ft" / "fattree.csv")
    assert tuple(rows[0]) == ("scheme", "size_class", "seed", "fct_avg_us", "fct_p99_us", "fct_p999_us", "flows")
    assert {(r["scheme"], r["size_class"], r["seed"]) for r in rows} == {
        (s, c, str(seed))
        for s in ("tcp-droptail", "dctcp", "hull")
        for c in ("small", "medium", "big", "large")
        for seed in (1, 2, 3)
    }
    at = {(r["scheme"], r["size_class"]): r for r in report["points"]}
    # §6.3: HULL's small flows finish faster, on average and at p99 (means over 3 seeds, each
    # p99 on thousands of flows); the large flows' p99 rests on a handful and is not a result.
    assert at[("hull", "small")]["fct_avg_us"] < 0.8 * at[("dctcp", "small")]["fct_avg_us"]
    assert at[("hull", "small")]["fct_p99_us_judged"]
    assert at[("hull", "small")]["fct_p99_us_hi"] < at[("dctcp", "small")]["fct_p99_us_lo"]
    assert not at[("hull", "large")]["fct_p99_us_judged"]
    # Never faster than store-and-forward allows (16.2 µs for 6.8 KB in the paper).
    assert at[("hull", "small")]["fct_avg_us"] > 16.0
    # Standard TCP fills the 250-packet queues DCTCP keeps near its 65-packet mark: its
    # small and 10-100 KB flows wait longer (Fig. 12's ordering).
    for c in ("small", "medium"):
        assert at[("tcp-droptail", c)]["fct_avg_us_lo"] > at[("dctcp", c)]["fct_avg_us_hi"], c
    # The four classes partition the flows: the same flows in every scheme.
    counts = {s: sum(int(r["flows"]) for r in rows if r["scheme"] == s and r["seed"] == "1") for s in fattree.SCHEMES}
    assert counts["tcp-droptail"] == counts["dctcp"] == counts["hull"] == 5_000


def test_fig11_quick_writes_fig11_csv_with_intervals_and_pacing_lowers_switch_latency(tmp_path: Path) -> None:
    from tailor.reproduce.hull import fig11

    plan = fig11.options(loads="0.4", quick=True, out=tmp_path / "f11")
    report = plan.run(plan.out, lambda _: None)
    rows = _csv(tmp_path / "f11" / "fig11.csv")
    assert tuple(rows[0]) == fig11.COLUMNS
    assert {(r["scheme"], r["pacing"]) for r in rows} == {(s, p) for s in fig11.SCHEMES for p in ("true", "false")}
    at = {(r["scheme"], r["pacing"]): r for r in report["rows"]}
    for r in report["rows"]:
        assert r["seeds"] == 3 and r["flows_10mb"] > 0 and r["probes"] > 1_000
        assert r["switch_latency_avg_lo_us"] <= r["switch_latency_avg_us"] <= r["switch_latency_avg_hi_us"]
        # The paper's numbers sit beside the paced rows only (the unpaced bars have none).
        assert (r["paper_fct_10mb_avg_ms"] is not None) == r["pacing"]
    # §6.2.1: pacing lowers the switch latency (the bursts it smooths are what queues).
    for s in fig11.SCHEMES:
        assert at[(s, True)]["switch_latency_avg_us"] < at[(s, False)]["switch_latency_avg_us"]
    with pytest.raises(OptionError, match="--seeds: 2; accepted: 3 to 20"):
        fig11.options(seeds=2, out=tmp_path / "bad")


def test_fig9_quick_smaller_packets_cut_the_phantom_queues_latency_at_every_flow_count(tmp_path: Path) -> None:
    from tailor.reproduce.hull import fig9

    # 300-byte packets: TCP's payload 248 B, the rest of the scenario §4.3's at 800 Mbps.
    assert (
        'mss = "248B"' in fig9.scenario(300, 2, 10) and "mss" not in fig9.scenario(1500, 2, 10).split("[transport]")[0]
    )
    plan = fig9.options(quick=True, seeds=2, out=tmp_path / "f9")
    report = plan.run(plan.out, lambda _: None)
    rows = _csv(tmp_path / "f9" / "fig9.csv")
    assert tuple(rows[0]) == fig9.COLUMNS and len(rows) == 2 * 2 * 2
    at = {(p["mtu"], p["flows"]): p for p in report["points"]}
    for n in (2, 8):
        # Eq. 5: the same headroom absorbs more flows at more packets per RTT.
        assert at[(300, n)]["switch_latency_avg_us_hi"] < at[(1500, n)]["switch_latency_avg_us_lo"]
    # ... and more flows need more headroom: the latency grows from 2 to 8 flows.
    assert at[(1500, 8)]["switch_latency_avg_us"] > at[(1500, 2)]["switch_latency_avg_us"]
    assert report["claim"]["lower_everywhere"]


def test_fig10_theory_is_eq3_and_the_quick_form_orders_the_drain_rates(tmp_path: Path) -> None:
    from tailor.reproduce.hull import fig10

    # §6.2.1's γ: 0.72, 0.82, 0.87; eq. 3 at ρ = 0.2: 0.8 / 0.52, 0.8 / 0.62, 0.8 / 0.67.
    assert [round(fig10.theory(d, 0.2), 3) for d in fig10.DRAINS] == [1.538, 1.290, 1.194]
    plan = fig10.options(loads="0.4", quick=True, seeds=3, out=tmp_path / "f10")
    report = plan.run(plan.out, lambda _: None)
    rows = _csv(tmp_path / "f10" / "fig10.csv")
    assert tuple(rows[0]) == fig10.COLUMNS and len(rows) == len(fig10.DRAINS) * 3
    at = {p["drain_mbps"]: p for p in report["points"]}
    # Less headroom, less slowdown; every slowdown is against the lowest of Table 4's schemes.
    assert at[800]["slowdown"] > at[900]["slowdown"] > at[950]["slowdown"] >= 1.0
    assert all(float(r["slowdown"]) >= 1.0 or r["best_scheme"] == "pq950" for r in rows)


def test_fig2_quick_tcp_ecn_and_dctcp_stay_below_the_drain_rate_far_below_their_baselines(tmp_path: Path) -> None:
    from tailor.reproduce.hull import fig2

    # TCP-ECN is the testbed's TCP with RFC 3168 ECN; DCTCP keeps the testbed's DCTCP.
    ecn, dctcp = fig2.scenario("tcp-ecn", 800, True, 10), fig2.scenario("dctcp", 800, True, 10)
    assert 'kind = "tcp"\necn = "rfc3168"' in ecn and 'kind = "dctcp"' not in ecn.split("[run]")[0]
    assert 'threshold = "6KB"' in ecn and 'pacer = "testbed"' in ecn and "ecn =" not in dctcp
    plan = fig2.options(quick=True, seeds=3, out=tmp_path / "f2")
    report = plan.run(plan.out, lambda _: None)
    rows = _csv(tmp_path / "f2" / "fig2.csv")
    assert tuple(rows[0]) == fig2.COLUMNS and len(rows) == 2 * 2 + 2
    at = {(r["scheme"], r["drain_mbps"]): r for r in report["rows"]}
    for s, base in fig2.SCHEMES.items():
        for d in (700, 950):
            r = at[(s, d)]
            # §3.1: below the drain rate (the congestion control's rate variations) ...
            assert 0 < r["gap_pct"] < 30 and r["throughput_mbps"] < d
            # ... and far below the baseline's latency (Table 1's schemes, ours).
            assert r["switch_latency_avg_us"] < at[(base, None)]["switch_latency_avg_us"] / 5
            assert r["switch_latency_p99_us_judged"] and r["switch_latency_p99_us_n"] >= 100
        # More headroom, less throughput.
        assert at[(s, 700)]["throughput_mbps"] < at[(s, 950)]["throughput_mbps"]
    assert report["claims"]["throughput_below_drain"]


def test_fig3_bursts_are_read_off_the_queue_at_line_rate() -> None:
    import numpy as np
    from tailor.reproduce.hull import fig3

    # Samples every 1 µs: 3 packets waiting for 4 samples, then idle, then one waiting for 1.
    t = np.arange(12) * 1000.0
    q = np.array([0, 4506, 3004, 1502, 500, 0, 0, 0, 0, 1502, 0, 0])
    starts, wire = fig3.bursts(t, q)
    assert list(starts) == [1000.0, 9000.0]
    # 4 µs of samples plus the packet on the wire (1.2 µs) at 10 Gbps; 1 µs plus one.
    assert np.allclose(wire, [(4e-6 + 1502 * 8 / 1e10) * 1e10 / 8, (1e-6 + 1502 * 8 / 1e10) * 1e10 / 8])
    assert fig3.bursts(t, np.zeros(12))[0].size == 0


def test_fig3_quick_a_1gbps_flow_leaves_in_line_rate_bursts_of_about_a_window(tmp_path: Path) -> None:
    from tailor.reproduce.hull import fig3

    plan = fig3.options(quick=True, seeds=3, out=tmp_path / "f3")
    report = plan.run(plan.out, lambda _: None)
    rows = _csv(tmp_path / "f3" / "fig3.csv")
    assert tuple(rows[0]) == fig3.COLUMNS and [r["hosts"] for r in rows] == list(fig3.HOSTS)
    at = {r["hosts"]: r for r in report["rows"]}
    for h, r in at.items():
        window = fig3.HOSTS[h][0]
        # §4.1: the window capped for ~1 Gbps on a 10 Gbps NIC ...
        assert 0.85 < r["throughput_gbps"] < 1.15, (h, r["throughput_gbps"])
        # ... leaves in bursts at line rate: the NIC sends about a tenth of the time, in
        # bursts of most of a window, far apart (a burst lasts 1.2 µs a packet).
        assert 7 < r["busy_pct"] < 13 and 0.7 * window < r["burst_packets"] <= window + 1
        assert r["spacing_us"] > 5 * 1.2 * r["burst_packets"]
    # The paper's steps: ~65 KB every ~0.5 ms, acknowledged by ~6 ACKs (rx-frames 8).
    slow = at["slow-host"]
    assert 55 < slow["burst_kb"] < 66 and 400 < slow["spacing_us"] < 600 and 5 <= slow["acks_per_burst"] <= 7
    with pytest.raises(OptionError, match="--seeds: 0"):
        fig3.options(seeds=0, out=tmp_path / "bad")
