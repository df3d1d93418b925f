"""Our buckets beside a reference's (the authors' data, or any Fig. 12 table): the join,
the worst ratio, the buckets at each 10 % of messages, and the paper's claim.

Rows are dicts with fig12.csv's columns; ours also carry ``judged`` (``bins.JUDGED``
messages in every seed). A reference bucket is judged when its table gives no counts (the
authors' data: millions of messages per run) or at least ``bins.JUDGED``. Ratios are ours /
reference; the *worst* is the one farthest from 1 either way (largest |log ratio|) among
buckets judged on both sides.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import polars as pl

from tailor.reproduce.homa.bins import JUDGED
from tailor.reproduce.homa.paper import CLAIM_P99, CLAIM_SHARE

__all__ = ["KEYS", "SHARES", "join", "points", "of", "worst", "deciles", "claim"]

#: What identifies a point.
KEYS = ("transport", "workload", "load")
#: The shares of messages (%) whose bucket the printed tables show.
SHARES = (10, 20, 30, 40, 50, 60, 70, 80, 90, 99, 99.9)
_STATS = ("mean_slowdown", "median_slowdown", "p99_slowdown")


def points(rows: Iterable[dict]) -> list[tuple[str, str, float]]:
    """The distinct (transport, workload, load) of ``rows``, in first-seen order."""
    return list(dict.fromkeys((r["transport"], r["workload"], r["load"]) for r in rows))


def of(rows: Iterable[dict], point: tuple[str, str, float]) -> list[dict]:
    """The rows of one point, by bucket."""
    return sorted(
        (r for r in rows if (r["transport"], r["workload"], r["load"]) == point), key=lambda r: r["size_upper_bytes"]
    )


def join(ours: Sequence[dict], ref: pl.DataFrame) -> list[dict]:
    """Every bucket both hold (same point, same upper bound): ours, the reference's
    (``<stat>_ref``) and the ratios (``<stat>_ratio``), with ``judged`` on both sides."""
    cols = [*KEYS, "size_upper_bytes", "count_percent", "messages", "judged", *_STATS]
    mine = pl.DataFrame([{c: r[c] for c in cols} for r in ours], schema_overrides={s: pl.Float64 for s in _STATS})
    theirs = ref.select(*KEYS, "size_upper_bytes", *_STATS, pl.col("messages").alias("messages_ref"))
    both = mine.join(theirs, on=[*KEYS, "size_upper_bytes"], how="inner", suffix="_ref")
    both = both.with_columns(
        judged=pl.col("judged") & (pl.col("messages_ref").is_null() | (pl.col("messages_ref") >= JUDGED)),
        **{f"{s}_ratio": pl.col(s) / pl.col(f"{s}_ref") for s in _STATS},
    )
    return both.sort([*KEYS, "size_upper_bytes"]).to_dicts()


def worst(rows: Sequence[dict], stat: str) -> dict | None:
    """The judged bucket whose ratio of ``stat`` is farthest from 1, or None."""
    key = f"{stat}_ratio"
    ok = [r for r in rows if r["judged"] and r.get(key) is not None and r[key] > 0 and math.isfinite(r[key])]
    return max(ok, key=lambda r: abs(math.log(r[key])), default=None)


def deciles(rows: Sequence[dict], shares: Sequence[float] = SHARES) -> list[tuple[list[float], dict]]:
    """The bucket holding the message at each share of messages (rows of one point by
    size), each bucket once with the shares it holds."""
    out: list[tuple[list[float], dict]] = []
    cum, i = 0.0, 0
    for r in rows:
        cum += r["count_percent"]
        held = []
        while i < len(shares) and shares[i] <= cum + 1e-9:
            held.append(shares[i])
            i += 1
        if held and r["messages"] != 0:
            out.append((held, r))
    return out


def claim(rows: Sequence[dict]) -> dict:
    """§5.2's claim on one point's rows: the largest p99 among judged buckets holding some
    of the shortest 50 % of messages; it holds when that is at most 2.2 to one decimal."""
    cum, found = 0.0, []
    for r in rows:
        if cum < CLAIM_SHARE and r.get("judged", True) and r["p99_slowdown"] is not None:
            found.append(r)
        cum += r["count_percent"]
    top = max(found, key=lambda r: r["p99_slowdown"], default=None)
    if top is None:
        return {"value": None, "size_upper_bytes": None, "buckets": 0, "holds": None}
    v = top["p99_slowdown"]
    return {
        "value": v,
        "size_upper_bytes": top["size_upper_bytes"],
        "buckets": len(found),
        "holds": round(v, 1) <= CLAIM_P99,
    }
