"""The Homa paper's data shipped for its reproductions: the authors' buckets, their
Fig. 12/13 data and Table 1."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from tailor.errors import DataError
from tailor.reproduce.homa import paper
from tailor.reproduce.homa.buckets import BUCKETS, WORKLOADS, bucket_index

# ---------------------------------------------------------------------------- shipped data


def test_the_buckets_are_the_authors_and_match_their_data() -> None:
    assert [len(BUCKETS[w]) for w in WORKLOADS] == [83, 99, 102, 91, 87]
    for w in WORKLOADS:
        assert list(BUCKETS[w]) == sorted(set(BUCKETS[w])), w
    homa = paper.anchor()
    for w in ("W3", "W5"):
        assert homa.filter(pl.col("workload") == w)["size_upper_bytes"].to_list() == list(BUCKETS[w])
    assert all(b % 1442 == 0 for b in BUCKETS["W5"])


def test_a_size_goes_to_the_first_bound_at_or_above_it() -> None:
    b = BUCKETS["W3"]
    sizes = np.array([1, 3, 4, 32, 33, b[-1], b[-1] + 1])
    assert bucket_index(sizes, "W3").tolist() == [0, 0, 1, 1, 2, len(b) - 1, len(b)]


def test_the_anchor_reads_in_either_format(tmp_path: Path) -> None:
    a = paper.read_table(paper.ANCHOR)
    assert set(a["transport"]) == {"homa", "pfabric", "phost", "pias", "ndp", "srpt-oracle"}
    assert set(a["workload"]) == {"W3", "W5"} and set(a["load"]) == {0.8}
    assert a["messages"].null_count() == a.height
    ours = tmp_path / "ours.csv"
    ours.write_text("transport,load,workload,size_upper_bytes,count_percent,mean_slowdown,median_slowdown,"
                    "p99_slowdown,messages\nhoma,0.5,W1,1,100.0,1.1,1.0,2.0,7\n")
    assert paper.read_table(ours).row(0, named=True)["messages"] == 7
    (tmp_path / "bad.csv").write_text("transport,load\nHoma,0.8\n")
    with pytest.raises(DataError, match="no column workload, size_upper_bytes"):
        paper.read_table(tmp_path / "bad.csv")


def test_table1_holds_the_papers_thirty_numbers() -> None:
    assert sum(len(v["mean"]) + len(v["max"]) for v in paper.TABLE1.values()) == 30
    assert paper.TABLE1["TOR->host"]["max"][3] == 146.1 and paper.TABLE1["TOR->Aggr"]["mean"][2] == 1.6
