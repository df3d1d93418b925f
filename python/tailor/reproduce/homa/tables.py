"""The printed report of ``tailor reproduce homa-fig12``: per point, ours beside the
authors' at the bucket holding each 10 % of messages, the worst ratio and §5.2's claim;
with ``--compare``, ours beside the file bucket by bucket.

A bucket that is not judged (fewer than 100 messages in a seed) is shown dim in
parentheses and left out of every worst ratio and of the claim.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tailor import fmt
from tailor.reproduce.homa import judge
from tailor.reproduce.homa.paper import CLAIM_P99

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

__all__ = ["render"]

_STATS = (("p99_slowdown", "p99"), ("median_slowdown", "median"))


def _cell(x: float | None, judged: bool = True, ci: Sequence[float] | None = None) -> str:
    text = fmt.stat(x)
    if x is not None and ci:
        text += f" [{ci[0]:.2f}, {ci[1]:.2f}]"
    return text if judged or x is None else f"[dim]({text})[/dim]"


def _table(title: str, columns: Sequence[str]) -> Table:
    from rich import box
    from rich.table import Table

    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    for i, c in enumerate(columns):
        t.add_column(c, justify="left" if i == 0 else "right")
    return t


def _us(until: str) -> int:
    return int(until.removesuffix("us"))


def _load(x: float) -> str:
    return f"{x:.0%}"


def _worst_line(rows: Sequence[dict], what: str) -> str:
    parts = []
    for stat, name in _STATS:
        w = judge.worst(rows, stat)
        parts.append(
            f"{name} {fmt.stat(w[f'{stat}_ratio'])} at ≤ {fmt.size(w['size_upper_bytes'])}"
            if w
            else f"{name} {fmt.NONE}"
        )
    n = sum(1 for r in rows if r["judged"])
    return f"worst ratio ours / {what} over {n} judged buckets: " + ", ".join(parts)


def _claim_line(rows: Sequence[dict], load: float, authors: dict | None) -> str:
    c = judge.claim(rows)
    if c["value"] is None:
        return "§5.2 claim: no judged bucket among the shortest 50 % of messages"
    ours = f"largest judged p99 among the shortest 50 % of messages: {c['value']:.2f} (≤ {fmt.size(c['size_upper_bytes'])})"
    theirs = f"; the authors' own data: {authors['value']:.2f}" if authors and authors["value"] is not None else ""
    if load != 0.8:
        return f"{ours} (§5.2 claims ≤ {CLAIM_P99} at 80 % load){theirs}"
    verdict = "holds" if c["holds"] else "[bold]DOES NOT HOLD[/bold]"
    return f"{ours}: §5.2's ≤ {CLAIM_P99} {verdict}{theirs}"


def _point_table(point: tuple[str, str, float], rows: list[dict], paper: dict[int, dict], seeds: int) -> Table:
    n = sum(r["messages"] for r in rows)
    cols = ["share of messages", "bucket", "messages", "p99"]
    cols += ["authors' p99", "ratio"] if paper else []
    cols += ["median"] + (["authors' median", "ratio"] if paper else [])
    t = _table(
        f"{point[1]} at {_load(point[2])} load, {point[0]}: {n:,} messages"
        + (f" over {seeds} seeds (mean [95 % interval])" if seeds > 1 else ""),
        cols,
    )
    for shares, r in judge.deciles(rows):
        cells = [", ".join(f"{s:g} %" for s in shares), f"≤ {fmt.size(r['size_upper_bytes'])}", f"{r['messages']:,}"]
        p = paper.get(r["size_upper_bytes"])
        for stat, _ in _STATS:
            cells.append(_cell(r[stat], r["judged"], r.get(f"{stat}_ci")))
            if paper:
                cells += [
                    fmt.stat(p[f"{stat}_ref"]) if p else fmt.NONE,
                    _cell(p[f"{stat}_ratio"], p["judged"]) if p else fmt.NONE,
                ]
        t.add_row(*cells)
    return t


def _points(report: dict[str, Any], console: Console) -> None:
    seeds = max(len(p["seeds"]) for p in report["points"])
    for info in report["points"]:
        point = (info["transport"], info["workload"], info["load"])
        rows = judge.of(report["rows"], point)
        joined = judge.of(report["paper"], point)
        console.print(_point_table(point, rows, {r["size_upper_bytes"]: r for r in joined}, seeds))
        if info.get("offered_load") is not None:
            console.print(
                f"  run at {info['offered_load']:.1%} network load on the wire basis, the smaller of the "
                f"panel's and {point[0]}'s highest sustainable on {point[1]} (--sustainable), as the paper "
                "ran pHost and NDP",
                highlight=False,
            )
        sim = ", ".join(f"{s:.1f}" for s in info["sim_ms"])
        console.print(
            f"  {fmt.time(_us(info['until']) * 1000)} of generated traffic, simulated until drained: {sim} ms",
            highlight=False,
        )
        if joined and not {r["size_upper_bytes"] for r in joined} & {r["size_upper_bytes"] for r in rows}:
            # The authors' simulator binned this transport in its own buckets (NDP's): ours
            # binned the same way, every bucket.
            console.print(
                _bucket_table(
                    f"{point[1]} at {_load(point[2])} load, {point[0]}, in the authors' buckets for it", joined
                )
            )
        if joined:
            console.print("  " + _worst_line(joined, "authors'"), highlight=False)
        if point[0] == "homa":  # §5.2's claim is Homa's
            authors = report["paper_claims"].get(point[1]) if point[2] == 0.8 else None
            console.print("  " + _claim_line(rows, point[2], authors))
        if info["beyond_last_bucket"]:
            console.print(
                f"  {info['beyond_last_bucket']:,} messages above the last bucket (not reported, "
                "as the authors' analysis)",
                highlight=False,
            )
        console.print()


def _bucket_table(title: str, rows: Sequence[dict]) -> Table:
    """Joined rows (``judge.join``), every bucket: ours, theirs, the ratios."""
    t = _table(title, ["bucket", "messages", "p99", "theirs", "ratio", "median", "theirs", "ratio"])
    for r in rows:
        cells = [f"≤ {fmt.size(r['size_upper_bytes'])}", f"{r['messages']:,}"]
        for stat, _ in _STATS:
            cells += [_cell(r[stat], r["judged"]), fmt.stat(r[f"{stat}_ref"]), _cell(r[f"{stat}_ratio"], r["judged"])]
        t.add_row(*cells)
    return t


def _compare(report: dict[str, Any], console: Console) -> None:
    cmp = report["compare"]
    for point in judge.points(cmp["rows"]):
        rows = judge.of(cmp["rows"], point)
        console.print(
            _bucket_table(
                f"{point[1]} at {_load(point[2])} load, {point[0]}: tailor beside "
                f"{Path(cmp['file']).name}, bucket by bucket",
                rows,
            )
        )
        console.print("  " + _worst_line(rows, "theirs"), highlight=False)
        console.print()


def render(report: dict[str, Any], console: Console) -> None:
    """Prints ``report`` (of ``fig12.run``)."""
    run = {p["workload"] for p in report["points"]}
    lengths = ", ".join(f"{w} {ms:g} ms" for w, ms in report["lengths_ms_at_80"].items() if w in run)
    longer = " (1.6 times as long at 50 %)" if any(p["load"] == 0.5 for p in report["points"]) else ""
    console.print(
        f"Homa Fig. 12/13, {report['form']} form. Generated traffic per point at 80 % load: {lengths}{longer}. "
        "Percentiles are exact; the authors' come from histograms. A bucket is "
        "judged with ≥ 100 messages in every seed; (dim) otherwise.\n",
        highlight=False,
    )
    _points(report, console)
    for c in report.get("transport_claims", []):
        mark = {True: "holds", False: "does NOT hold", None: "not judged"}[c["held"]]
        console.print(f"{c['workload']} {c['load']:.0%}: {c['claim']}: {mark} ({c['measured']})", highlight=False)
    if report.get("compare"):
        _compare(report, console)
    if report.get("plots"):
        console.print(f"plots: {', '.join(report['plots'])}", highlight=False)
