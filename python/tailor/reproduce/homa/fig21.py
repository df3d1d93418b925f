"""Homa Fig. 21 (§5.2, "Priority utilization"): the bytes that arrive at receivers on each
priority level, as a share of the hosts' link capacity, for W3 at 50, 80 and 90 % load on
the paper's fabric (scenarios/homa/w3-80.toml at each load; the authors' split, 4
unscheduled and 4 scheduled levels).

Each point runs open loop (messages generated until the run stops) and reads Homa's
receiver counters ``level_<l>_data_wire_bytes``: the DATA packets' bytes on the wire that
arrived on switch level l (0 is served first: the paper's P7), over hosts x run time x
10 Gbps, plus on level 0 the grants (``grants`` x 84 B on the wire: every GRANT goes on
level 0, Figure 3). Fig. 21 counts "network bytes transmitted at a given priority level",
and the authors' plan, which tailor's follows (docs/homa.md, "Levels"), counts the grants
under the highest level when it balances the unscheduled levels; ``data_bytes`` in
fig21.csv is the DATA part alone.

The paper gives Fig. 21's bars only in its figure; its text states what they show, and
these statements are checked (``claims``), each with the reading that makes it a test:

- "The four unscheduled priorities are used evenly": at each load, the largest of the
  unscheduled levels' bytes is at most ``EVEN`` times the smallest.
- "At 50 % load ... the message uses the lowest priority level (P0)": the lowest scheduled
  level carries the most scheduled bytes at 50 %.
- "[at 90 %] More scheduled packets arrive on the highest scheduled level than any other".
- "senders are frequently nonresponsive at 80 % network load (more than half of the
  scheduled traffic arrives on P0-P2)": the three lowest scheduled levels carry more than
  half of the scheduled bytes at 80 %.

Each load runs ``--seeds`` seeds (3 by default). A level's share is the mean over seeds of
each seed's share, with its bootstrap interval across seeds (``tailor.reproduce.cells``);
each statement is checked on every seed and its verdict says in how many it holds.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Callable

import polars as pl
import typer

import tailor
from tailor.errors import DataError
from tailor.outdir import staged
from tailor.reproduce import cells
from tailor.reproduce.homa.points import scenario_file
from tailor.reproduce.registry import Out, Plan
from tailor.reproduce.runner import reporting
from tailor.stats import Estimate

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COLUMNS", "LOADS", "LENGTH_MS", "options", "run", "render", "shares", "claims"]

Say = Callable[[str], None]

#: The loads of Fig. 21.
LOADS = (0.5, 0.8, 0.9)
#: Run length per point (generated traffic = run), in ms, by form.
LENGTH_MS = {"quick": 5, "full": 200}
#: W3's split in the authors' configuration (and the paper's text): 4 unscheduled levels.
UNSCHEDULED = 4
LEVELS = 8
HOSTS = 144
LINK_BITS_PER_NS = 10.0
#: "used evenly": the largest unscheduled level at most this many times the smallest.
EVEN = 1.25
COLUMNS = (
    "load",
    "level",
    "paper_level",
    "kind",
    "bytes",
    "data_bytes",
    *cells.columns("percent_of_capacity", Estimate.of_values([(0.0, 1)])),
    "percent_of_kind",
)
#: A GRANT on the wire (docs/homa.md, "Packets").
GRANT_WIRE_BYTES = 84


@dataclass(frozen=True)
class Point:
    load: float
    seed: int = 1

    @property
    def name(self) -> str:
        return f"w3-{round(self.load * 100)}-s{self.seed}"


def options(
    quick: Annotated[bool, typer.Option("--quick", help="5 ms of traffic a load instead of 200 ms.")] = False,
    seeds: cells.Seeds = 3,
    out: Out = None,
) -> Plan:
    """Homa Fig. 21: bytes per priority level, W3 at 50/80/90 % load."""
    cells.check_seeds(seeds)
    form = "quick" if quick else "full"
    default = Path("runs") / ("homa-fig21-quick" if quick else "homa-fig21")
    pts = [Point(x, s) for x in LOADS for s in range(1, seeds + 1)]
    return Plan(out or default, lambda out, say: run(pts, form, out, say))


def scenario(p: Point, ms: int) -> tailor.Scenario:
    keys = {"class[0].load": p.load, "class[0].until": f"{ms}ms", "run.stop": f"{ms}ms"}
    return tailor.Scenario.load(scenario_file("homa", "W3", 0.8)).with_(keys)


def shares(load: float, counters: dict[str, int], sim_ns: float) -> list[dict[str, Any]]:
    """One row per level: its bytes (DATA, and on level 0 the grants), their share of the
    hosts' capacity over the run and of the bytes of their kind (unscheduled or
    scheduled)."""
    names = [f"level_{lv}_data_wire_bytes" for lv in range(LEVELS)]
    missing = [n for n in [*names, "grants"] if n not in counters]
    if missing:
        raise DataError(f"summary.json has no counter {missing[0]}: an engine older than Fig. 21's counters")
    capacity = HOSTS * sim_ns * LINK_BITS_PER_NS / 8
    kinds = {"unscheduled": range(UNSCHEDULED), "scheduled": range(UNSCHEDULED, LEVELS)}
    level = [counters[names[lv]] + (counters["grants"] * GRANT_WIRE_BYTES if lv == 0 else 0) for lv in range(LEVELS)]
    total = {k: sum(level[lv] for lv in r) for k, r in kinds.items()}
    rows = []
    for lv in range(LEVELS):
        kind = "unscheduled" if lv < UNSCHEDULED else "scheduled"
        b = level[lv]
        rows.append(
            {
                "load": load,
                "level": lv,
                "paper_level": f"P{LEVELS - 1 - lv}",
                "kind": kind,
                "bytes": b,
                "data_bytes": counters[names[lv]],
                "percent_of_capacity": 100 * b / capacity,
                "percent_of_kind": 100 * b / total[kind] if total[kind] else 0.0,
            }
        )
    return rows


def claims(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The text's four statements, each with our value and whether it holds."""
    out = []
    for load in sorted({r["load"] for r in rows}):
        at = [r for r in rows if r["load"] == load]
        u = [r["bytes"] for r in at if r["kind"] == "unscheduled"]
        ratio = max(u) / min(u) if min(u) else float("inf")
        out.append(
            {
                "load": load,
                "claim": "the four unscheduled levels are used evenly",
                "ours": f"largest / smallest {ratio:.2f} (at most {EVEN})",
                "holds": ratio <= EVEN,
            }
        )
        s = sorted((r for r in at if r["kind"] == "scheduled"), key=lambda r: r["level"])
        top = max(s, key=lambda r: r["bytes"])
        if load == 0.5:
            out.append(
                {
                    "load": load,
                    "claim": "the lowest scheduled level (P0) carries the most scheduled bytes",
                    "ours": f"most on {top['paper_level']}",
                    "holds": top["level"] == LEVELS - 1,
                }
            )
        if load == 0.9:
            out.append(
                {
                    "load": load,
                    "claim": "the highest scheduled level carries the most scheduled bytes",
                    "ours": f"most on {top['paper_level']}",
                    "holds": top["level"] == UNSCHEDULED,
                }
            )
        if load == 0.8:
            low = sum(r["percent_of_kind"] for r in s if r["level"] >= LEVELS - 3)
            out.append(
                {
                    "load": load,
                    "claim": "more than half of the scheduled bytes on P0-P2",
                    "ours": f"{low:.0f} % on P0-P2",
                    "holds": low > 50,
                }
            )
    return out


def across_seeds(per_seed: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """One row per (load, level): bytes and shares averaged over seeds, the share of
    capacity with its interval across seeds."""
    out = []
    for i, r0 in enumerate(per_seed[0]):
        rs = [rows[i] for rows in per_seed]
        share = Estimate.of_values([(r["percent_of_capacity"], 1) for r in rs])
        out.append(
            {k: r0[k] for k in ("load", "level", "paper_level", "kind")}
            | {k: sum(r[k] for r in rs) / len(rs) for k in ("bytes", "data_bytes", "percent_of_kind")}
            | cells.columns("percent_of_capacity", share)
        )
    return out


def seeds_claims(per_seed: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """:func:`claims` on each seed: the verdict holds in every seed (True), in none (False)
    or in some (None), with each seed's reading."""
    each = [claims(rows) for rows in per_seed]
    out = []
    for i, c in enumerate(each[0]):
        held = [e[i]["holds"] for e in each]
        verdict = True if all(held) else False if not any(held) else None
        ours = _merged([e[i]["ours"] for e in each])
        out.append(
            {
                "load": c["load"],
                "claim": c["claim"],
                "ours": ours,
                "holds": verdict,
                "seeds_holding": sum(held),
                "seeds": len(held),
            }
        )
    return out


def _merged(texts: list[str]) -> str:
    """Readings that differ only in their numbers, as one: "most on P0" three times stays
    "most on P0"; "largest / smallest 1.07 (at most 1.25)" and "... 1.06 (...)" become
    "largest / smallest 1.07/1.06 (at most 1.25)"."""
    if len(set(texts)) == 1:
        return texts[0]
    head = os.path.commonprefix(texts)
    head = head[: head.rfind(" ") + 1]
    tail = os.path.commonprefix([t[::-1] for t in texts])[::-1]
    tail = tail[tail.find(" ") :] if " " in tail else ""
    return head + "/".join(t[len(head) : len(t) - len(tail)] for t in texts) + tail


def run(points: list[Point], form: str, out: Path, say: Say) -> dict:
    """Runs ``points`` one after another into ``out`` (written whole once complete)."""
    ms = LENGTH_MS[form]
    with staged(out, "reproduction", name="homa-fig21") as work:
        (work / "scenarios").mkdir()
        per_seed: dict[int, list[dict[str, Any]]] = {}
        info = []
        for p in points:
            sc = scenario(p, ms)
            path = work / "scenarios" / f"{p.name}.toml"
            path.write_text(f"# {p.name}: tailor reproduce homa-fig21, {form} form.\n" + sc.resolve()["document"])
            r = tailor.run(path, seed=p.seed, out=work / "runs" / p.name, progress=reporting(p.name, ms * 1e6, say))
            per_seed.setdefault(p.seed, []).extend(shares(p.load, r.summary["transport_counters"], r.summary["sim_ns"]))
            info.append(
                {
                    "load": p.load,
                    "seed": p.seed,
                    "messages": r.summary["messages"]["completed"],
                    "sim_ms": r.summary["sim_ns"] / 1e6,
                }
            )
        rows = across_seeds(list(per_seed.values()))
        pl.DataFrame(rows).select(COLUMNS).write_csv(work / "fig21.csv")
        report = {
            "reproduction": "homa-fig21",
            "form": form,
            "length_ms": ms,
            "rows": rows,
            "points": info,
            "seeds": len(per_seed),
            "claims": seeds_claims(list(per_seed.values())),
        }
        (work / "fig21.json").write_text(json.dumps(report, indent=1))
    return report


def render(report: dict[str, Any], console: Console) -> None:
    from rich import box
    from rich.table import Table

    loads = list(dict.fromkeys(p["load"] for p in report["points"]))
    t = Table(
        title=f"Homa Fig. 21: W3, bytes per priority level (DATA; grants on P7), % of the hosts' link capacity "
        f"({report['form']} form, {report['length_ms']} ms of traffic a load)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    t.add_column("paper's level")
    t.add_column("kind")
    for x in loads:
        t.add_column(f"{x:.0%} load", justify="right")
    at = {(r["load"], r["level"]): r for r in report["rows"]}
    for lv in range(LEVELS):
        r0 = at[(loads[0], lv)]
        t.add_row(
            r0["paper_level"],
            r0["kind"],
            *(
                cells.text(cells.restore("percent_of_capacity", at[(x, lv)], None)).split(" n=")[0] + " %"
                for x in loads
            ),
        )
    console.print(t)
    done = {}
    for p in report["points"]:
        done[p["load"]] = done.get(p["load"], 0) + p["messages"]
    console.print(
        f"mean over {report['seeds']} seed(s) [95 % interval across seeds]; messages completed, all seeds: "
        + ", ".join(f"{x:.0%} {n:,}" for x, n in done.items())
        + ". The paper's bars are only in its figure; its text's statements, checked on each seed:",
        highlight=False,
    )
    for c in report["claims"]:
        verdict = {
            True: "holds",
            False: "[bold]DOES NOT HOLD[/bold]",
            None: f"holds in {c['seeds_holding']} of {c['seeds']} seeds",
        }[c["holds"]]
        console.print(f'  {c["load"]:.0%}: "{c["claim"]}": {c["ours"]}: {verdict}', highlight=False)
