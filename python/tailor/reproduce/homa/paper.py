"""The Homa paper's numbers (docs/papers.md, §5.2):
Table 1, the claim made about Fig. 12, the authors' Fig. 12/13 data shipped in ``data/``,
and the reader of such tables (ours or the authors' format) for ``--compare``.
"""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl

from tailor.errors import DataError

__all__ = ["ANCHOR", "TIERS", "TABLE1", "RUN_SECONDS", "CLAIM_P99", "CLAIM_SHARE", "read_table", "anchor"]

#: The authors' Fig. 12/13 data for W3 and W5 at 80 % (every transport): data/README.md.
ANCHOR = Path(__file__).resolve().parent / "data" / "fig12-13-w3-w5-80.csv"

#: Table 1's switch egress tiers, as the paper names them, and the port role in ports.csv.
TIERS = (("TOR->Aggr", "up"), ("Aggr->TOR", "down"), ("TOR->host", "to_host"))

#: Table 1 (§5.2): mean and max queue length in KB (1 KB = 1024 B) at 80 % network load,
#: per tier, for W1..W5.
TABLE1 = {
    "TOR->Aggr": {"mean": (0.7, 1.0, 1.6, 1.7, 1.7), "max": (21.1, 30.0, 50.3, 82.7, 93.6)},
    "Aggr->TOR": {"mean": (0.8, 1.1, 1.8, 1.7, 1.6), "max": (22.4, 34.1, 57.1, 92.2, 78.1)},
    "TOR->host": {"mean": (1.7, 5.5, 12.8, 17.3, 17.3), "max": (58.7, 93.0, 117.9, 146.1, 126.4)},
}

#: Simulated time of the authors' runs at 80 % (their configuration's stopTime; every
#: generated message delivered): anchors/homa-paper/README.md.
RUN_SECONDS = {"W1": 1.2, "W2": 3.0, "W3": 3.75, "W4": 3.75, "W5": 1.9}

#: §5.2: "99th-percentile slowdown for the shortest 50% of messages is never worse than
#: 2.2 at 80% network load" (the authors' own W3 data reach 2.22: the claim is to one decimal).
CLAIM_P99 = 2.2
CLAIM_SHARE = 50.0

#: Columns every Fig. 12 table has (ours, fig12.csv, also has messages; the authors' has
#: workload_name, bytes_percent and unsched_bytes besides).
NEEDED = (
    "transport",
    "load",
    "workload",
    "size_upper_bytes",
    "count_percent",
    "mean_slowdown",
    "median_slowdown",
    "p99_slowdown",
)


def read_table(path: str | os.PathLike[str]) -> pl.DataFrame:
    """A Fig. 12/13 table as ours: the columns of ``NEEDED`` and ``messages`` (null when
    the file has none), transport lowercase, workload as W1..W5."""
    if Path(path).is_dir():
        # polars would read a directory as a set of files and fail on the README beside the
        # data, in its own words: name the tables the user may have meant.
        tables = sorted(p.name for p in Path(path).glob("*.csv"))
        raise DataError(
            f"{path}: is a directory; give a Fig. 12 table (a CSV file)"
            + (f", e.g. {', '.join(str(Path(path) / t) for t in tables)}" if tables else "")
        )
    try:
        df = pl.read_csv(path, infer_schema_length=None, null_values=["", "NA"])
    except (OSError, pl.exceptions.PolarsError) as e:
        raise DataError(f"{path}: cannot be read as CSV ({e})") from None
    missing = [c for c in NEEDED if c not in df.columns]
    if missing:
        raise DataError(
            f"{path}: not a Fig. 12 table: no column {', '.join(missing)}; "
            f"needed: {', '.join(NEEDED)} (and optionally messages)"
        )
    if "messages" not in df.columns:
        df = df.with_columns(messages=pl.lit(None, dtype=pl.Int64))
    try:
        return df.select(
            pl.col("transport").cast(pl.String).str.to_lowercase(),
            pl.col("load").cast(pl.Float64).round(6),
            pl.col("workload").cast(pl.String).str.to_uppercase(),
            pl.col("size_upper_bytes").cast(pl.Int64),
            *(pl.col(c).cast(pl.Float64) for c in NEEDED[4:]),
            pl.col("messages").cast(pl.Int64),
        )
    except pl.exceptions.PolarsError as e:
        raise DataError(f"{path}: a column does not hold what Fig. 12 tables hold ({e})") from None


def anchor(all_transports: bool = False) -> pl.DataFrame:
    """The authors' rows (W3 and W5 at 80 %), as ``read_table`` gives them: Homa's, or
    every transport's (pfabric, phost, pias, ndp on W5, srpt-oracle)."""
    df = read_table(ANCHOR)
    return df if all_transports else df.filter(pl.col("transport") == "homa")
