#!/usr/bin/env python3
"""Measures the weight optimizer's failures on random SWP Table 4 scenarios (issue 25, item 6).

For each scenario drawn (3 and 5 classes, `draw` of the swp-capacity reproduction, a
generator seed of this script's own): the model's least capacity for shared FIFO, per-class
weights (drr) and weights + fair queueing (hierarchical); whether a weighted discipline came
out above FIFO; for each that did, a grid check at FIFO's least capacity: does ANY weight
vector on a simplex grid (3 classes: step 0.05; 5 classes: step 0.1 and random Dirichlet
points), or any of 300 drawn near the grid's best point, meet every SLO there on the model? One that does makes the case an optimizer
failure; none makes it genuine (isolation losing to FIFO's pooling, as far as the grid
sees). Monotonicity: the probes of the capacity search (a feasible probe below an
infeasible one), and above the weighted answer a ladder of capacities where (a) the answer's
weights and (b) Algorithm 1 run afresh must still meet every SLO.

    .venv/bin/python scripts/optimizer_check.py --n3 10 --n5 5 --json runs/optimizer-check.json

Prints one line per scenario and the counts; `--json` keeps every row. Model only. The
cost is each search's wall and CPU time (all threads; the machine may be shared).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import tempfile
import time
from pathlib import Path

import tailor
from tailor import _core
from tailor.reproduce.swp import capacity as repro

WEIGHTED = ("drr", "hierarchical")
LADDER = (1.05, 1.1, 1.25, 1.5, 2.0)


def simplex_grid(n: int, parts: int) -> list[list[float]]:
    """Every weight vector with n positive components, multiples of 1/parts, summing to 1."""
    out = []
    for cuts in itertools.combinations(range(1, parts), n - 1):
        edges = (0, *cuts, parts)
        out.append([(edges[i + 1] - edges[i]) / parts for i in range(n)])
    return out


def grid(n: int, rng: random.Random) -> list[list[float]]:
    if n <= 3:
        return simplex_grid(n, 20)
    pts = simplex_grid(n, 10)
    for _ in range(200):
        g = [rng.gammavariate(1.0, 1.0) for _ in range(n)]
        s = sum(g)
        pts.append([max(x / s, 1e-3) for x in g])
    return pts


def dirichlet_near(w: list[float], rng: random.Random, concentration: float = 200.0) -> list[float]:
    g = [rng.gammavariate(max(concentration * x, 1e-3), 1.0) for x in w]
    s = sum(g)
    return [max(x / s, 1e-3) for x in g]


def worst(verdicts: list[dict]) -> float:
    return max(v["loss"] for v in verdicts)


def draw(rng: random.Random, i: int, n: int, until: str):
    try:
        return repro.draw(rng, i, n, until)
    except TypeError:  # a changed signature: the index and class count are what it needs
        return repro.draw(rng, i, n)


def non_monotone_probes(probes: list[dict]) -> bool:
    """A probe that met below one that did not."""
    ok = [p["capacity_bps"] for p in probes if p["feasible"]]
    bad = [p["capacity_bps"] for p in probes if not p["feasible"]]
    return bool(ok and bad and min(ok) < max(bad))


def check(path: Path, n: int, tolerance: float, rng: random.Random, ladder: bool) -> dict:
    row: dict = {
        "scenario": path.stem,
        "classes": n,
        "seconds": {},
        "cpu_seconds": {},
        "capacity_gbps": {},
        "found": {},
    }
    caps = {}
    for d in ("fifo", *WEIGHTED):
        events: dict = {}

        def count(e: dict, n: int = n, events: dict = events) -> bool:
            # model runs seen: a baseline round runs every class, an iteration one run (the
            # shortcut checks and the grid are not shown to progress)
            events[e["kind"]] = events.get(e["kind"], 0) + 1
            events["runs"] = events.get("runs", 0) + (
                n if e["kind"] == "baselines" else 1 if e["kind"] == "iteration" else 0
            )
            return True

        t, cpu = time.perf_counter(), time.process_time()
        a = tailor.advise(path, min_capacity=True, disciplines=[d], recheck=False, tolerance=tolerance, progress=count)
        row["seconds"][d] = time.perf_counter() - t
        row["cpu_seconds"][d] = time.process_time() - cpu
        row.setdefault("events", {})[d] = events
        caps[d] = a.report["capacity"][0]
        row["capacity_gbps"][d] = (caps[d]["capacity_bps"] or caps[d]["limit_bps"]) / 1e9
        row["found"][d] = caps[d]["capacity_bps"] is not None
        row.setdefault("above_fifo_report", {})[d] = caps[d].get("above_fifo")
    row["offered_gbps"] = a.report["offered_bps"] / 1e9
    fifo = caps["fifo"]["capacity_bps"]
    vectors = grid(n, rng)
    row["above"], row["grid"], row["non_monotone"] = {}, {}, {}
    for d in WEIGHTED:
        c = caps[d]
        above = fifo is not None and (c["capacity_bps"] is None or c["capacity_bps"] > fifo * (1 + tolerance))
        row["above"][d] = above
        if above:
            t = time.perf_counter()
            vs = json.loads(_core.swp_evaluate(str(path), fifo, vectors, d == "hierarchical"))
            losses = [worst(v) for v in vs]
            best = min(range(len(vs)), key=lambda i: losses[i])
            # Refined: 300 points near the best (Dirichlet with mean the best point, sd ~0.03).
            near = [dirichlet_near(vectors[best], rng) for _ in range(300)]
            fine = [worst(v) for v in json.loads(_core.swp_evaluate(str(path), fifo, near, d == "hierarchical"))]
            row["grid"][d] = {
                "points": len(vs),
                "meeting": sum(1 for x in losses if x <= 0),
                "best_worst_loss": losses[best],
                "best_weights": vectors[best],
                "refined_points": len(near),
                "refined_meeting": sum(1 for x in fine if x <= 0),
                "refined_best_worst_loss": min(fine),
                "seconds": time.perf_counter() - t,
            }
        nm = {"probes": non_monotone_probes(c["probes"])}
        if ladder and c["capacity_bps"] is not None:
            cs = [c["capacity_bps"] * f for f in LADDER]
            fixed = [
                worst(json.loads(_core.swp_evaluate(str(path), x, [c["weights"]], d == "hierarchical"))[0]) for x in cs
            ]
            fresh = [json.loads(_core.advise_weights(str(path), x, d == "hierarchical")) for x in cs]
            nm["fixed_weights_fail_at"] = [f for f, worst_load in zip(LADDER, fixed, strict=False) if worst_load > 0]
            nm["search_fails_at"] = [
                f for f, a in zip(LADDER, fresh, strict=False) if not all(v["met"] for v in a["verdicts"])
            ]
        row["non_monotone"][d] = nm
    return row


def summarize(rows: list[dict]) -> dict:
    s: dict = {}
    for n in sorted({r["classes"] for r in rows}):
        rs = [r for r in rows if r["classes"] == n]
        for d in WEIGHTED:
            above = [r for r in rs if r["above"][d]]
            fail = [r for r in above if r["grid"][d]["meeting"] + r["grid"][d]["refined_meeting"] > 0]
            nm = [r for r in rs if any(bool(v) for v in r["non_monotone"][d].values())]
            s[f"{n}c/{d}"] = {
                "scenarios": len(rs),
                "above_fifo": len(above),
                "optimizer_failures": len(fail),
                "genuine": len(above) - len(fail),
                "non_monotone": len(nm),
                "non_monotone_probes": sum(1 for r in rs if r["non_monotone"][d]["probes"]),
                "non_monotone_fixed_weights": sum(1 for r in rs if r["non_monotone"][d].get("fixed_weights_fail_at")),
                "non_monotone_search": sum(1 for r in rs if r["non_monotone"][d].get("search_fails_at")),
                "reported_above_fifo": sum(1 for r in rs if r["above_fifo_report"][d]),
                "reported_fixed": sum(1 for r in rs if (r["above_fifo_report"][d] or {}).get("fixed")),
                "mean_seconds": sum(r["seconds"][d] for r in rs) / len(rs),
                "mean_cpu_seconds": sum(r["cpu_seconds"][d] for r in rs) / len(rs),
                "mean_runs_seen": sum(r["events"][d].get("runs", 0) for r in rs) / len(rs),
            }
        s[f"{n}c/fifo"] = {
            "mean_seconds": sum(r["seconds"]["fifo"] for r in rs) / len(rs),
            "mean_cpu_seconds": sum(r["cpu_seconds"]["fifo"] for r in rs) / len(rs),
        }
    return s


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n3", type=int, default=10, help="three-class scenarios")
    ap.add_argument("--n5", type=int, default=5, help="five-class scenarios")
    ap.add_argument("--seed", type=int, default=2525, help="seed of the scenario generator (not the reproduction's)")
    ap.add_argument(
        "--as-reproduction",
        action="store_true",
        help="draw as `tailor reproduce swp-capacity --seed SEED` does (one generator for the 3-class set)",
    )
    ap.add_argument("--until", default="21ms")
    ap.add_argument("--tolerance", type=float, default=0.02, help="the reproduction's")
    ap.add_argument("--no-ladder", action="store_true", help="skip the capacity ladder above each answer")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, count in ((3, args.n3), (5, args.n5)):
            rng = random.Random(args.seed if args.as_reproduction else args.seed * 10 + n)
            for i in range(count):
                sc, params = draw(rng, i, n, args.until)
                path = Path(tmp) / f"{sc.name}.toml"
                path.write_text(sc.toml())
                r = check(path, n, args.tolerance, random.Random(i), not args.no_ladder)
                r["params"] = params
                rows.append(r)
                c = r["capacity_gbps"]
                flags = [
                    f"{d} above FIFO ({'grid finds ' + str(r['grid'][d]['meeting'] + r['grid'][d]['refined_meeting']) if r['grid'][d]['meeting'] + r['grid'][d]['refined_meeting'] else 'genuine: grid best ' + format(r['grid'][d]['best_worst_loss'], '+.2f') + ', refined ' + format(r['grid'][d]['refined_best_worst_loss'], '+.2f')})"
                    for d in WEIGHTED
                    if r["above"][d]
                ]
                flags += [
                    f"{d} non-monotone {r['non_monotone'][d]}"
                    for d in WEIGHTED
                    if any(bool(v) for v in r["non_monotone"][d].values())
                ]
                print(
                    f"{sc.name}: offered {r['offered_gbps']:.1f}; fifo {c['fifo']:.1f} drr {c['drr']:.1f} "
                    f"hier {c['hierarchical']:.1f} Gbps; {' '.join(f'{d} {t:.1f}s' for d, t in r['cpu_seconds'].items())} CPU, "
                    f"{' '.join(str(r['events'][d].get('runs', 0)) for d in WEIGHTED)} runs"
                    + ("; " + "; ".join(flags) if flags else ""),
                    flush=True,
                )
    summary = summarize(rows)
    for k, v in summary.items():
        print(k, json.dumps(v))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(
            json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "summary": summary, "rows": rows}, indent=1)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
