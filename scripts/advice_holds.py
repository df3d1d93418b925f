"""`make validate`: does the advice hold? (issue 25 item 2; docs/advisor.md, "Advice that holds").

Draws random SWP §5.2 scenarios the project never saw (Table 4's ranges, 3 and 5 classes;
tailor.reproduce.swp.capacity.draw with generator seed 2507, which no other script uses),
and for each runs ``advise --min-capacity -d fifo -d drr -d hierarchical``: the model's answers
(the "before": what ``--no-recheck`` answers) and the answers after the packet-engine loop
(the default). Each answer is then run once more on the packet engine with a FRESH seed, one
no search used (1000 + the scenario's index; the searches use seeds 1 to --seeds), and each
SLO judged there by the engine's rule is counted: held / judged, before and after.

    python scripts/advice_holds.py              # the full form (make validate)
    python scripts/advice_holds.py --confirm-seeds 9    # answers confirmed on 9 seeds (make validate)
    python scripts/advice_holds.py --quick      # one small scenario, short traffic
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import tailor
from tailor.decision import scenario_slos
from tailor.reproduce.swp.capacity import draw
from tailor.scenario import Scenario
from tailor.store import Store
from tailor.swp_packet.points import PacketPlan, Setting

ROOT = Path(__file__).resolve().parents[1]
GENERATOR_SEED = 2507
DISCIPLINES = ["fifo", "drr", "hierarchical"]
FRESH = 1000


def fresh_check(sc: Scenario, nominal: float, store: Path, answer: dict[str, Any], capacity: float,
                weights: Any, seed: int) -> tuple[int, int]:
    """The answer run once on the packet engine with ``seed``: (SLOs held, SLOs judged)."""
    plan = PacketPlan(sc, scenario_slos(sc, []), (seed,), Store(store), nominal)
    s = Setting(answer["strategy"], weights=tuple(weights) if weights else None)
    (p,) = plan.evaluate([(s, capacity)], f"fresh {answer['strategy']}", None)
    judged = [m for m in p.runs[0].met if m is not None]
    return sum(judged), len(judged)


def one(path: Path, index: int, seeds: int, confirm: int | None, tolerance: float, store: Path) -> dict[str, Any]:
    a = tailor.advise(path, min_capacity=True, disciplines=DISCIPLINES, seeds=seeds, out=store, tolerance=tolerance,
                      confirm_seeds=confirm)
    r = a.report
    sc = Scenario.load(path)
    row: dict[str, Any] = {"scenario": r["scenario"], "packet_runs": a.packet_runs, "answers": []}
    for c in r["capacity"]:
        ans = {"discipline": c["strategy"], "model_bps": c["model_capacity_bps"], "after_bps": c["capacity_bps"],
               "holds": c["holds"], "packet_runs": c["packet_runs"]}
        if c["model_capacity_bps"] is not None:
            ans["before"] = fresh_check(sc, r["nominal_bps"], store, c, c["model_capacity_bps"], c.get("model_weights"),
                                        FRESH + index)
        if c["capacity_bps"] is not None:
            ans["after"] = fresh_check(sc, r["nominal_bps"], store, c, c["capacity_bps"], c.get("weights"),
                                       FRESH + index)
        row["answers"].append(ans)
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=4, help="scenarios per class count")
    ap.add_argument("--first", type=int, default=0,
                    help="skip the scenarios drawn before this index (they are drawn, not run), to add new ones "
                         "to an earlier measurement")
    ap.add_argument("--classes", type=int, nargs="+", default=[3, 5])
    ap.add_argument("--until", default="401ms", help="traffic per class: long enough for 100 messages above "
                    "125 KB a seed, so that every SLO can be judged")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--confirm-seeds", type=int, default=None, help="a least capacity must also hold on this many seeds")
    ap.add_argument("--tolerance", type=float, default=0.05)
    ap.add_argument("--quick", action="store_true", help="one 3-class scenario, 21 ms of traffic, one seed")
    ap.add_argument("--out", type=Path, default=ROOT / "target" / "advice-holds")
    args = ap.parse_args()
    if not 0 <= args.first < args.n:
        ap.error(f"--first: {args.first} is not accepted; accepted: 0 to --n - 1 ({args.n - 1})")
    if args.quick:
        args.n, args.classes, args.until, args.seeds = 1, [3], "21ms", 1
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    t0 = time.perf_counter()
    for k in args.classes:
        rng = random.Random(GENERATOR_SEED + k)
        for i in range(args.n):
            sc, _ = draw(rng, i, k, args.until)
            if i < args.first:
                continue
            path = args.out / f"{sc.name}.toml"
            path.write_text(sc.toml())
            row = one(path, i, args.seeds, args.confirm_seeds, args.tolerance, args.out / "store")
            rows.append(row)
            print(f"{row['scenario']}: " + "; ".join(
                f"{x['discipline']} model {_g(x['model_bps'])} -> {_g(x['after_bps'])} Gbps (holds {x['holds']}), "
                f"fresh seed before {_f(x.get('before'))} after {_f(x.get('after'))}" for x in row["answers"]),
                flush=True)
    before = [x["before"] for r in rows for x in r["answers"] if "before" in x]
    after = [x["after"] for r in rows for x in r["answers"] if "after" in x]
    summary = {"scenarios": len(rows), "generator_seed": GENERATOR_SEED, "until": args.until, "seeds": args.seeds,
               "confirm_seeds": args.confirm_seeds,
               "tolerance": args.tolerance, "before": _rate(before), "after": _rate(after),
               "answers_not_holding": sum(x["holds"] is False for r in rows for x in r["answers"]),
               "answers_undecided": sum(x["holds"] is None and x["after_bps"] is not None
                                        for r in rows for x in r["answers"]),
               "packet_runs": sum(r["packet_runs"] for r in rows), "wall_s": time.perf_counter() - t0}
    (args.out / f"advice_holds{'' if args.confirm_seeds is None else f'-confirm{args.confirm_seeds}'}.json").write_text(json.dumps({"summary": summary, "rows": rows}, indent=2))
    b, a = summary["before"], summary["after"]
    print(f"advice hold rate on a fresh seed, {len(rows)} scenarios: before (model only) {b['held']}/{b['judged']} "
          f"SLOs ({_pct(b)}), after (packet loop, {args.seeds} seeds"
          + (f", confirmed on {args.confirm_seeds}" if args.confirm_seeds else "")
          + f") {a['held']}/{a['judged']} SLOs ({_pct(a)}); "
          f"{summary['packet_runs']} packet runs, {summary['wall_s']:.0f} s")
    return 0


def _rate(pairs: list[tuple[int, int]]) -> dict[str, int]:
    return {"held": sum(p[0] for p in pairs), "judged": sum(p[1] for p in pairs)}


def _pct(r: dict[str, int]) -> str:
    return f"{100 * r['held'] / r['judged']:.0f} %" if r["judged"] else "none judged"


def _g(bps: Any) -> str:
    return "none" if bps is None else f"{bps / 1e9:.1f}"


def _f(p: Any) -> str:
    return "-" if p is None else f"{p[0]}/{p[1]}"


if __name__ == "__main__":
    sys.exit(main())
