"""What §5.2 of the Homa paper says of the other transports in Fig. 12/13, checked on our
rows (fig12.csv's, judged buckets only). Each claim is checked where the transports it
names were run at the load it speaks of; the thresholds that turn the paper's words into a
test are ours and are stated with each:

- "Homa's priority mechanism improves tail latency by 2-16x compared to previous
  receiver-driven approaches" (§1): for pHost and NDP, the largest ratio of their p99 to
  Homa's over the buckets, per workload, lies in [2, 16] (±25 %);
- pHost and PIAS "claimed performance comparable to pFabric ... based on *mean* slowdown"
  (§5.2): their message-weighted mean slowdown is within 1.5x of pFabric's while their
  largest p99 ratio to pFabric's is 2x or more;
- PIAS "resulting in slowdowns of 20 or more for multi-packet messages" on W4: some
  bucket of W4 messages longer than one packet (1,442 B) has a p99 of 20 or more;
- "for larger messages in W1 and W2 PIAS provides better latency than Homa": over the
  buckets holding the largest 10 % of messages, PIAS's p99 is below Homa's in most;
- NDP's "fair-share scheduling ... results in a uniformly high slowdown for all messages
  longer than RTTbytes": above 9,700 B, NDP's p99 is at least twice Homa's in most buckets
  and its smallest is at least half its largest.

The paper measured NDP on W5 only (its simulator sent no partial packets): on W1-W4 the
NDP claims are measured and printed but judged neither way (``held`` None, "beyond the
paper"), since the paper's numbers say nothing there.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import median

from tailor.reproduce.homa.judge import of

__all__ = ["check", "RTT_BYTES", "ONE_PACKET"]

#: RTTbytes on the paper's fabric (§5.2: "about 9.7 Kbytes").
RTT_BYTES = 9_700
#: Message bytes in one full packet (the authors' unscheduled data packet).
ONE_PACKET = 1_442
HIGH_LOAD = 0.8


def _judged(rows: Sequence[dict]) -> list[dict]:
    return [r for r in rows if r.get("judged", True) and r["messages"]]


def _paired(a: Sequence[dict], b: Sequence[dict], stat: str) -> list[tuple[dict, float, float]]:
    """Buckets both judged: (row of a, a's stat, b's stat)."""
    theirs = {r["size_upper_bytes"]: r for r in _judged(b)}
    return [
        (r, r[stat], theirs[r["size_upper_bytes"]][stat])
        for r in _judged(a)
        if r["size_upper_bytes"] in theirs and r[stat] and theirs[r["size_upper_bytes"]][stat]
    ]


def _mean(rows: Sequence[dict]) -> float | None:
    ok = _judged(rows)
    total = sum(r["count_percent"] for r in ok)
    return sum(r["mean_slowdown"] * r["count_percent"] for r in ok) / total if total else None


#: The workloads the paper ran each transport on, where not all five (§5.2).
PAPER_WORKLOADS = {"ndp": ("W5",)}


def _claim(workload: str, load: float, text: str, held: bool | None, measured: str, transport: str = "") -> dict:
    if workload not in PAPER_WORKLOADS.get(transport, (workload,)):
        held, measured = (
            None,
            f"{measured}; beyond the paper, which ran {transport} on {', '.join(PAPER_WORKLOADS[transport])} only",
        )
    return {"workload": workload, "load": load, "claim": text, "held": held, "measured": measured}


def check(rows: Sequence[dict]) -> list[dict]:
    """Every claim the rows allow, as dicts: workload, load, claim, held, measured."""
    out: list[dict] = []
    have = {(r["transport"], r["workload"], r["load"]) for r in rows}
    for w in sorted({r["workload"] for r in rows}):

        def pt(t: str, x: float = HIGH_LOAD, w: str = w) -> list[dict] | None:
            return of(rows, (t, w, x)) if (t, w, x) in have else None

        homa = pt("homa")
        for t in ("phost", "ndp"):
            other = pt(t)
            if homa and other:
                ratios = [o / h for _, o, h in _paired(other, homa, "p99_slowdown")]
                if ratios:
                    top = max(ratios)
                    out.append(
                        _claim(
                            w,
                            HIGH_LOAD,
                            f"Homa's p99 2-16x better than {t}'s",
                            1.5 <= top <= 20,
                            f"largest {t}/Homa p99 ratio {top:.1f}",
                            t,
                        )
                    )
        pf = pt("pfabric")
        for t in ("phost", "pias"):
            other = pt(t)
            if pf and other:
                m_o, m_p = _mean(other), _mean(pf)
                ratios = [o / p for _, o, p in _paired(other, pf, "p99_slowdown")]
                if m_o and m_p and ratios:
                    held = m_o / m_p <= 1.5 and max(ratios) >= 2
                    out.append(
                        _claim(
                            w,
                            HIGH_LOAD,
                            f"{t} close to pFabric in the mean, not at p99",
                            held,
                            f"mean {m_o / m_p:.2f}x pFabric's, largest p99 ratio {max(ratios):.1f}",
                        )
                    )
        pias = pt("pias")
        if w == "W4" and pias:
            multi = [r["p99_slowdown"] for r in _judged(pias) if r["size_upper_bytes"] > ONE_PACKET]
            if multi:
                out.append(
                    _claim(
                        w,
                        HIGH_LOAD,
                        "PIAS p99 >= 20 for multi-packet messages",
                        max(multi) >= 20,
                        f"largest p99 of multi-packet buckets {max(multi):.1f}",
                    )
                )
        if w in ("W1", "W2") and pias and homa:
            pairs = _paired(pias, homa, "p99_slowdown")
            cum, large = 0.0, []
            for r, p, h in sorted(pairs, key=lambda x: x[0]["size_upper_bytes"]):
                cum += r["count_percent"]
                if cum > 90:
                    large.append(p < h)
            if large:
                out.append(
                    _claim(
                        w,
                        HIGH_LOAD,
                        "PIAS better than Homa for the largest messages",
                        sum(large) > len(large) / 2,
                        f"PIAS below Homa in {sum(large)} of {len(large)} buckets of the largest 10 %",
                    )
                )
        ndp = pt("ndp")
        if ndp and homa:
            above = [(o, h) for r, o, h in _paired(ndp, homa, "p99_slowdown") if r["size_upper_bytes"] > RTT_BYTES]
            if above:
                high = sum(o >= 2 * h for o, h in above)
                flat = min(o for o, _ in above) >= 0.5 * max(o for o, _ in above)
                out.append(
                    _claim(
                        w,
                        HIGH_LOAD,
                        "NDP uniformly high above RTTbytes",
                        high > len(above) / 2 and flat,
                        f"NDP >= 2x Homa in {high} of {len(above)} buckets; p99 "
                        f"{min(o for o, _ in above):.1f}-{max(o for o, _ in above):.1f} "
                        f"(median {median(o for o, _ in above):.1f})",
                        "ndp",
                    )
                )
    return out
