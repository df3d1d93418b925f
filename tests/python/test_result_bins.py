"""Result.table's coarse size bins: contiguous, covering, and few."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tailor.result import _merge


@st.composite
def bins(draw: st.DrawFn) -> list[dict]:
    edges = sorted(draw(st.sets(st.integers(1, 10**8), min_size=1, max_size=80)))
    counts = draw(st.lists(st.integers(1, 1000), min_size=len(edges), max_size=len(edges)))
    lowers = [0, *edges[:-1]]
    return [{"lower_bytes": lo, "upper_bytes": hi, "count": c} for lo, hi, c in zip(lowers, edges, counts)]


@given(bins(), st.integers(1, 20))
def test_groups_are_contiguous_and_cover_every_bin(b: list[dict], max_bins: int) -> None:
    groups = _merge(b, max_bins)
    assert groups[0][0] == b[0]["lower_bytes"] and groups[-1][1] == b[-1]["upper_bytes"]
    assert all(prev[1] == nxt[0] for prev, nxt in zip(groups, groups[1:]))
    assert len(groups) <= max_bins + 1
    uppers = {x["upper_bytes"] for x in b}
    assert all(hi in uppers for _, hi in groups), "groups only merge whole bins"
