"""The Homa reproductions: the authors' buckets and data shipped, binning, the --compare
join, option errors, and the quick forms run end to end through the command (one small
point of homa-fig12, one workload of homa-table1). The full forms are in `make validate`
(scripts/reproduce_homa.py)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from rich.console import Console
from tailor import fmt
from tailor.errors import DataError, OptionError
from tailor.reproduce import REPRODUCTIONS
from tailor.reproduce.homa import bins, fig12, judge, paper, table1, tables
from tailor.reproduce.homa.buckets import BUCKETS, WORKLOADS, bucket_index
from tailor.stats import percentile

ROOT = Path(__file__).resolve().parents[2]


def reproduce(*args: str, timeout: int = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tailor.cli", "reproduce", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )


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
    bins.frame(
        [
            {
                "transport": "homa",
                "load": 0.5,
                "workload": "W1",
                "size_upper_bytes": 1,
                "count_percent": 100.0,
                "mean_slowdown": 1.1,
                "median_slowdown": 1.0,
                "p99_slowdown": 2.0,
                "messages": 7,
            }
        ]
    ).write_csv(ours)
    assert paper.read_table(ours).row(0, named=True)["messages"] == 7
    (tmp_path / "bad.csv").write_text("transport,load\nHoma,0.8\n")
    with pytest.raises(DataError, match="no column workload, size_upper_bytes"):
        paper.read_table(tmp_path / "bad.csv")
    # A directory (the anchor's, with its README) is refused naming the tables in it.
    with pytest.raises(DataError, match=r"is a directory; give a Fig. 12 table .*e.g. .*bad.csv, .*ours.csv"):
        paper.read_table(tmp_path)


def test_table1_holds_the_papers_thirty_numbers() -> None:
    assert sum(len(v["mean"]) + len(v["max"]) for v in paper.TABLE1.values()) == 30
    assert paper.TABLE1["TOR->host"]["max"][3] == 146.1 and paper.TABLE1["TOR->Aggr"]["mean"][2] == 1.6


# ---------------------------------------------------------------------------- binning


def test_run_rows_are_exact_nearest_rank_per_bucket() -> None:
    rng = np.random.default_rng(3)
    sizes = rng.choice([3, 30, 40, 100, 2000], size=5000)
    slow = 1 + rng.exponential(0.5, size=5000)
    rows, beyond = bins.run_rows(pl.DataFrame({"size_bytes": sizes, "slowdown": slow}), "W3")
    assert beyond == 0 and len(rows) == len(BUCKETS["W3"])
    assert sum(r["messages"] for r in rows) == 5000
    assert sum(r["count_percent"] for r in rows) == pytest.approx(100.0)
    for r in rows:
        k = BUCKETS["W3"].index(r["size_upper_bytes"])
        lower = BUCKETS["W3"][k - 1] if k else 0
        v = slow[(sizes > lower) & (sizes <= r["size_upper_bytes"])]
        assert r["messages"] == len(v)
        if len(v):
            assert r["p99_slowdown"] == percentile(v, 99) and r["median_slowdown"] == percentile(v, 50)
            assert r["mean_slowdown"] == pytest.approx(v.mean())
        else:
            assert r["p99_slowdown"] is None and r["mean_slowdown"] is None


def test_seeds_combine_as_means_with_intervals_and_judge_on_the_smallest() -> None:
    def seed(n: int, p99: float) -> list[dict]:
        return [
            {
                "size_upper_bytes": 3,
                "count_percent": 0.0,
                "messages": n,
                "mean_slowdown": 1.0,
                "median_slowdown": 1.0,
                "p99_slowdown": p99,
            }
        ]

    rows = bins.combine([seed(150, 2.0), seed(99, 3.0)], [300, 200])
    r = rows[0]
    assert r["messages"] == 249 and r["count_percent"] == pytest.approx(100 * 249 / 500)
    assert r["p99_slowdown"] == pytest.approx(2.5) and not r["judged"]
    assert r["p99_slowdown_ci"] is not None and 2.0 <= r["p99_slowdown_ci"][0] <= r["p99_slowdown_ci"][1] <= 3.0
    assert bins.combine([seed(100, 2.0)], [100])[0]["judged"]


# ---------------------------------------------------------------------------- compare


def synthetic_ours(scale_p99: float = 1.1, scale_median: float = 0.9) -> list[dict]:
    """Homa W3 at 80 % as the authors have it, p99 and median scaled; one bucket with 50
    messages (not judged) far off."""
    rows = []
    for r in paper.anchor().filter(pl.col("workload") == "W3").to_dicts():
        few = r["size_upper_bytes"] == 20000000
        rows.append(
            {
                **r,
                "messages": 50 if few else 1000,
                "judged": not few,
                "p99_slowdown": r["p99_slowdown"] * (10.0 if few else scale_p99),
                "median_slowdown": r["median_slowdown"] * scale_median,
            }
        )
    return rows


def test_compare_against_the_shipped_anchor_on_synthetic_data(tmp_path: Path) -> None:
    ours = synthetic_ours()
    joined = judge.join(ours, paper.read_table(paper.ANCHOR))
    assert len(joined) == 102 and judge.points(joined) == [("homa", "W3", 0.8)]
    assert judge.worst(joined, "p99_slowdown")["p99_slowdown_ratio"] == pytest.approx(1.1)
    assert judge.worst(joined, "median_slowdown")["median_slowdown_ratio"] == pytest.approx(0.9)
    report = {
        "form": "quick",
        "lengths_ms_at_80": {"W3": 20},
        "rows": ours,
        "paper": joined,
        "paper_claims": {},
        "compare": {"file": str(paper.ANCHOR), "rows": joined},
        "seed_rows": [],
        "points": [
            {
                "transport": "homa",
                "workload": "W3",
                "load": 0.8,
                "until": "20000us",
                "seeds": [1],
                "messages": 102_000,
                "beyond_last_bucket": 0,
                "sim_ms": [42.5],
            }
        ],
    }
    console = Console(record=True, width=160)
    tables.render(report, console)
    text = console.export_text()
    assert "worst ratio ours / theirs over 101 judged buckets: p99 1.10" in text and "median 0.90" in text
    few = next(r for r in ours if not r["judged"])
    assert "bucket by bucket" in text and f"({fmt.stat(few['p99_slowdown'])})" in text  # 50 messages: not judged
    written = fig12.figures(report, tmp_path)
    assert {p.name for p in written} >= {"fig12-W3.png", "compare-W3.png"}


def test_compare_with_nothing_in_common_exits_2_naming_it(tmp_path: Path) -> None:
    with pytest.raises(OptionError, match="--compare: .*nothing overlaps: it holds homa W3 0.8, homa W5 0.8"):
        fig12.options(workloads="W1", loads="0.8", compare=paper.ANCHOR)
    p = reproduce(
        "homa-fig12",
        "--workloads",
        "W3",
        "--loads",
        "0.5",
        "--compare",
        str(paper.ANCHOR),
        "--out",
        str(tmp_path / "x"),
    )
    assert p.returncode == 2 and "--compare:" in p.stderr and "nothing overlaps" in p.stderr
    assert not (tmp_path / "x").exists()


def test_the_claim_reads_the_shortest_half_of_messages() -> None:
    rows = [
        {"size_upper_bytes": b, "count_percent": 25.0, "p99_slowdown": p, "judged": j}
        for b, p, j in [(1, 2.0, True), (2, 2.24, True), (3, 9.0, False), (4, 5.0, True)]
    ]
    c = judge.claim(rows)
    assert c["value"] == 2.24 and c["holds"] and c["buckets"] == 2
    assert not judge.claim([{**rows[0], "p99_slowdown": 2.26}])["holds"]
    authors = judge.claim(judge.of(paper.anchor().to_dicts(), ("homa", "W3", 0.8)))
    assert authors["value"] == pytest.approx(2.2229, abs=1e-4) and authors["holds"]


# ---------------------------------------------------------------------------- options


@pytest.mark.parametrize(
    "args,named",
    [
        (["--workloads", "W6"], "--workloads: unknown workload 'W6'; accepted: W1, W2, W3, W4, W5"),
        (["--loads", "0.7"], "--loads: '0.7' is not a load with scenarios; accepted: 0.5, 0.8"),
        (["--transports", "dctcp"], "--transports: 'dctcp' has no scenarios on the paper's fabric"),
        (["--seeds", "0"], "--seeds"),
    ],
)
def test_bad_options_exit_2_naming_the_option(tmp_path: Path, args: list[str], named: str) -> None:
    p = reproduce("homa-fig12", *args, "--out", str(tmp_path / "x"))
    assert p.returncode == 2 and named in p.stderr, p.stderr
    assert not (tmp_path / "x").exists()


def test_option_checks_before_anything_runs() -> None:
    with pytest.raises(OptionError, match="--transports: 'nope' .*accepted: homa"):
        fig12.options(transports="nope")
    with pytest.raises(OptionError, match="--compare: .*cannot be read"):
        fig12.options(compare=Path("/nonexistent/fig12.csv"))
    with pytest.raises(OptionError, match="--workloads: unknown workload 'X'"):
        table1.options(workloads="w1,x")
    plan = fig12.options(workloads="w3", loads="0.8", quick=True)
    assert plan.out == Path("runs") / "homa-fig12-quick"
    assert REPRODUCTIONS["homa-table1"].options().out == Path("runs") / "homa-table1"


# ---------------------------------------------------------------------------- the commands


def test_quick_fig12_on_one_point_through_the_command(tmp_path: Path) -> None:
    out = tmp_path / "f12"
    p = reproduce("homa-fig12", "--quick", "--workloads", "W3", "--loads", "0.5", "--seeds", "1", "--out", str(out))
    assert p.returncode == 0, p.stderr
    with open(out / "fig12.csv") as f:
        header = next(csv.reader(f))
    assert tuple(header) == bins.COLUMNS
    df = pl.read_csv(out / "fig12.csv")
    assert df.height == len(BUCKETS["W3"]) and set(df["transport"]) == {"homa"}
    assert set(df["workload"]) == {"W3"} and set(df["load"]) == {0.5}
    (run,) = (out / "runs").iterdir()
    summary = json.loads((run / "summary.json").read_text())
    assert df["messages"].sum() == summary["messages"]["completed"] > 500_000
    assert df["count_percent"].sum() == pytest.approx(100.0, abs=1e-6)
    got = df.filter(pl.col("messages") > 0)
    for stat in bins.STATS:
        assert got[stat].min() >= 1.0, stat
    assert (out / "fig12-W3.png").is_file() and (out / "scenarios" / "homa-w3-50.toml").is_file()
    assert 'until = "32000us"' in (out / "scenarios" / "homa-w3-50.toml").read_text()
    assert "W3 at 50% load, homa" in p.stdout and "§5.2 claims ≤ 2.2 at 80 % load" in p.stdout


def test_quick_table1_on_one_workload_through_the_command(tmp_path: Path) -> None:
    out = tmp_path / "t1"
    p = reproduce("homa-table1", "--quick", "--workloads", "W1", "--out", str(out))
    assert p.returncode == 0, p.stderr
    df = pl.read_csv(out / "table1.csv")
    assert tuple(df.columns) == table1.COLUMNS
    assert df["tier"].to_list() == [t for t, _ in paper.TIERS] == ["TOR->Aggr", "Aggr->TOR", "TOR->host"]
    assert df["paper_mean_kb"].to_list() == [0.7, 0.8, 1.7] and df["paper_max_kb"].to_list() == [21.1, 22.4, 58.7]
    assert all(0 < m <= x for m, x in zip(df["mean_kb"], df["max_kb"], strict=True))
    # The authors' accounting adds the rest of the frame on the wire: never less, and at
    # most one full frame (1,538 B) more at the maximum.
    assert all(m < a for m, a in zip(df["mean_kb"], df["authors_mean_kb"], strict=True))
    assert all(x <= a <= x + 1538 / 1024 for x, a in zip(df["max_kb"], df["authors_max_kb"], strict=True))
    assert "authors' runs lasted 1.2-3.75 s" in p.stdout and "W1 1 ms" in p.stdout


def test_tiers_weigh_each_port_by_its_packets() -> None:
    ports = pl.DataFrame(
        {
            "role": ["up", "up", "down", "to_host", "host_nic"],
            "sent_packets": [1, 3, 2, 4, 9],
            "arrival_mean_queue_bytes": [1024.0, 2048.0, 512.0, 0.0, 99.0],
            "arrival_max_queue_bytes": [4096, 1024, 2048, 0, 99],
            "arrival_mean_queue_wire_bytes": [2048.0, 2048.0, 512.0, 0.0, 99.0],
            "arrival_max_queue_wire_bytes": [5120, 1024, 2048, 0, 99],
        }
    )
    t = table1.tiers(ports)
    assert table1.tiers(ports, table1.WIRE)["TOR->Aggr"] == (pytest.approx((2048 + 3 * 2048) / 4 / 1024), 5.0)
    assert t["TOR->Aggr"] == (pytest.approx((1024 + 3 * 2048) / 4 / 1024), 4.0)
    assert t["Aggr->TOR"] == (0.5, 2.0) and t["TOR->host"] == (0.0, 0.0)
    with pytest.raises(DataError, match="arrival_max_queue_bytes"):
        table1.tiers(ports.drop("arrival_max_queue_bytes"))


def test_ndp_is_binned_in_the_authors_own_buckets_for_it(tmp_path: Path) -> None:
    """The authors' NDP rows use their NDP simulator's buckets (multiples of 1,500 B): our
    NDP messages are binned in those to be set beside them; Homa's need no second binning."""
    run = tmp_path / "ndp-w5-80-s1"
    run.mkdir()
    sizes = np.array([1442, 1500, 1501, 2884, 4326] * 40)
    pl.DataFrame({"size_bytes": sizes, "slowdown": np.linspace(1, 3, len(sizes))}).write_parquet(
        run / "messages.parquet"
    )
    (run / "summary.json").write_text(json.dumps({"sim_ns": 1_000_000}))
    ndp, homa = fig12.Point("ndp", "W5", 0.8, 1, 1000), fig12.Point("homa", "W5", 0.8, 1, 1000)
    # pHost's rows are W5's buckets and one more (100 MB): no second binning, no double rows.
    phost = fig12.Point("phost", "W5", 0.8, 1, 1000)
    rows = fig12.own_buckets([ndp, homa, phost], {ndp: run, homa: run, phost: run})
    theirs = sorted(paper.anchor(all_transports=True).filter(pl.col("transport") == "ndp")["size_upper_bytes"])
    assert [r["size_upper_bytes"] for r in rows] == theirs and {r["transport"] for r in rows} == {"ndp"}
    by = {r["size_upper_bytes"]: r["messages"] for r in rows}
    assert by[1500] == 80 and by[3000] == 80 and by[4500] == 40, "first bound at or above the size"
    assert sum(by.values()) == len(sizes)
    joined = judge.join(rows, paper.anchor(all_transports=True))
    assert {r["transport"] for r in joined} == {"ndp"} and len(joined) == len(theirs)
