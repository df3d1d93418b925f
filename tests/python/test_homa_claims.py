"""homa-fig12's checks of what §5.2 says of the other transports (claims.py), on rows
built to hold or break each claim."""

from __future__ import annotations

from tailor.reproduce.homa import claims

SIZES = (100, 1_000, 5_000, 20_000, 100_000, 1_000_000)


def rows(transport: str, workload: str, p99: tuple[float, ...], mean: float = 1.5, load: float = 0.8) -> list[dict]:
    return [
        {
            "transport": transport,
            "workload": workload,
            "load": load,
            "size_upper_bytes": s,
            "count_percent": 100 / 6,
            "messages": 1000,
            "judged": True,
            "mean_slowdown": mean,
            "median_slowdown": 1.2,
            "p99_slowdown": p,
        }
        for s, p in zip(SIZES, p99, strict=True)
    ]


def by_claim(rs: list[dict]) -> dict[str, dict]:
    return {c["claim"]: c for c in claims.check(rs)}


def test_receiver_driven_ratio_and_ndp_uniformly_high() -> None:
    homa = rows("homa", "W5", (2, 2, 2, 3, 3, 4))
    ndp = rows("ndp", "W5", (3, 4, 5, 20, 22, 25))
    got = by_claim(homa + ndp)
    assert got["Homa's p99 2-16x better than ndp's"]["held"] is True
    assert got["NDP uniformly high above RTTbytes"]["held"] is True
    flat_low = rows("ndp", "W5", (3, 4, 5, 4, 30, 5))
    got = by_claim(homa + flat_low)
    assert got["NDP uniformly high above RTTbytes"]["held"] is False, "not uniform: 4 to 30"


def test_mean_close_but_tail_far_and_pias_on_w4() -> None:
    pf = rows("pfabric", "W4", (2, 2, 2, 2, 2, 2), mean=1.4)
    pias = rows("pias", "W4", (2, 25, 30, 9, 5, 3), mean=1.9)
    got = by_claim(pf + pias)
    assert got["pias close to pFabric in the mean, not at p99"]["held"] is True
    assert got["PIAS p99 >= 20 for multi-packet messages"]["held"] is True
    mild = rows("pias", "W4", (2, 3, 3, 3, 3, 3), mean=1.5)
    got = by_claim(pf + mild)
    assert got["PIAS p99 >= 20 for multi-packet messages"]["held"] is False
    assert got["pias close to pFabric in the mean, not at p99"]["held"] is False


def test_claims_need_their_transports_and_load() -> None:
    assert claims.check(rows("homa", "W3", (2,) * 6)) == []
    assert claims.check(rows("homa", "W5", (2,) * 6, load=0.5) + rows("ndp", "W5", (9,) * 6, load=0.5)) == []


def test_pias_better_than_homa_for_the_largest_w1_messages() -> None:
    homa = rows("homa", "W1", (1.5, 1.5, 2, 3, 4, 6))
    better = rows("pias", "W1", (1.5, 3, 3, 3, 3, 4))
    worse = rows("pias", "W1", (1.5, 3, 3, 3, 3, 8))
    assert by_claim(homa + better)["PIAS better than Homa for the largest messages"]["held"] is True
    assert by_claim(homa + worse)["PIAS better than Homa for the largest messages"]["held"] is False


def test_ndp_off_w5_is_measured_but_not_judged() -> None:
    """The paper ran NDP on W5 only: on W3 its claims are printed, judged neither way."""
    homa = rows("homa", "W3", (2, 2, 2, 3, 3, 4))
    ndp = rows("ndp", "W3", (3, 4, 5, 90, 22, 25))
    got = by_claim(homa + ndp)
    for name in ("Homa's p99 2-16x better than ndp's", "NDP uniformly high above RTTbytes"):
        assert got[name]["held"] is None and "beyond the paper, which ran ndp on W5 only" in got[name]["measured"]
    assert (
        by_claim(rows("homa", "W3", (2,) * 6) + rows("phost", "W3", (90,) * 6))["Homa's p99 2-16x better than phost's"][
            "held"
        ]
        is False
    ), "pHost is judged on every workload"
