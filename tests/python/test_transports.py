"""The transport registry as Python sees it: the engine's one list, nothing kept here."""

from pathlib import Path

import tailor._core as core

ROOT = Path(__file__).resolve().parents[2]


def test_transports_come_from_the_engine_registry_with_their_keys():
    ts = core.transports()
    names = [t["name"] for t in ts]
    assert names == [
        "dctcp",
        "tcp",
        "cubic",
        "hpcc",
        "raw",
        "udp",
        "homa",
        "pfabric",
        "pias",
        "phost",
        "ndp",
        "rds",
        "pl2",
        "rdma",
    ]
    for t in ts:
        assert "kind" in t["keys"] and t["about"] and isinstance(t["needs"], str)
        # Homa, pHost and NDP cut packets by fixed sizes (their simulators'); PL2 schedules
        # another transport's packets; the others read an MSS.
        assert ("mss" in t["keys"]) == (t["name"] not in ("homa", "phost", "ndp", "rds", "pl2"))
    assert next(t for t in ts if t["name"] == "udp")["keys"] == ["kind", "mss", "header"]
    assert {"over", "burst", "unsolicited_below", "threads", "host_delay"} <= set(
        next(t for t in ts if t["name"] == "pl2")["keys"]
    )
    assert {"cubic_c", "cubic_beta", "fast_convergence"} <= set(next(t for t in ts if t["name"] == "cubic")["keys"])
    assert "congestion_control" in next(t for t in ts if t["name"] == "tcp")["keys"]
    assert next(t for t in ts if t["name"] == "rds")["keys"] == [
        "kind",
        "blind",
        "grant_packets",
        "resend_timeout",
        "overcommitment",
    ]
    assert "eta" in next(t for t in ts if t["name"] == "hpcc")["keys"]
    assert next(t for t in ts if t["name"] == "raw")["keys"] == ["kind", "mss", "header"]
    assert {"rtt_bytes", "unscheduled_levels", "overcommitment"} <= set(
        next(t for t in ts if t["name"] == "homa")["keys"]
    )
    assert {"init_cwnd", "max_cwnd", "rto", "probe_after"} <= set(next(t for t in ts if t["name"] == "pfabric")["keys"])
    assert {"free_tokens", "token_expiry", "downgrade_timeout"} <= set(
        next(t for t in ts if t["name"] == "phost")["keys"]
    )
    # PIAS is DCTCP underneath: every DCTCP key, and its levels and thresholds.
    dctcp, pias = (set(next(t for t in ts if t["name"] == n)["keys"]) for n in ("dctcp", "pias"))
    assert dctcp | {"priority_levels", "thresholds", "packet_level"} == pias
    assert next(t for t in ts if t["name"] == "ndp")["keys"] == ["kind", "window", "rto"]


def test_no_python_module_keeps_a_list_of_transport_names():
    # A tuple or list of two or more transport names in the package is a second registry.
    import re

    pattern = re.compile(r"[\(\[]\s*\"(dctcp|tcp|hpcc|raw|homa)\"\s*,\s*\"(dctcp|tcp|hpcc|raw|homa)\"")
    offenders = [str(p) for p in (ROOT / "python" / "tailor").rglob("*.py") if pattern.search(p.read_text())]
    assert offenders == []
