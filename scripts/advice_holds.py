"""`make validate`: does the advice hold? (issue 25 item 2; docs/advisor.md, "Advice that holds").

Draws random SWP §5.2 scenarios the project never saw (Table 4's ranges, 3 and 5 classes;
tailor.reproduce.swp.capacity.draw with generator seed 2507, which no other script uses),
and for each runs ``advise --min-capacity -d fifo -d drr -d hierarchical``: the model's answers
(the "before": what ``--no-recheck`` answers) and the answers after the packet-engine loop
(the default). Each answer is then run once more on the packet engine with FRESH seeds, ones
no search used (1000, 2000, ... + the scenario's index; the searches use the scenario's own
seed onward, drawn with the scenario, around 10^9), and each
SLO judged there by the engine's rule is counted: held / judged, before and after.

    python scripts/advice_holds.py              # the full form (make validate)
    python scripts/advice_holds.py --confirm-seeds 6 9 --fresh 2   # also the answers confirmed on 6 and 9 seeds
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


def fresh_check(
    sc: Scenario, nominal: float, store: Path, answer: dict[str, Any], capacity: float, weights: Any, seed: int
) -> tuple[int, int]:
    """The answer run once on the packet engine with ``seed``: (SLOs held, SLOs judged)."""
    plan = PacketPlan(sc, scenario_slos(sc, []), (seed,), Store(store), nominal)
    s = Setting(answer["strategy"], weights=tuple(weights) if weights else None)
    (p,) = plan.evaluate([(s, capacity)], f"fresh {answer['strategy']}", None)
    judged = [m for m in p.runs[0].met if m is not None]
    return sum(judged), len(judged)


def one(
    path: Path, index: int, seeds: int, levels: list[int | None], fresh: int, tolerance: float, store: Path
) -> dict[str, Any]:
    """One scenario: the model's answers and, per confirmation level, the loop's; each checked on
    ``fresh`` fresh seeds. The levels share one store, so a level reuses the points of those before."""
    sc = Scenario.load(path)
    fresh_seeds = [FRESH * (j + 1) + index for j in range(fresh)]
    row: dict[str, Any] = {"scenario": sc.name, "fresh_seeds": fresh_seeds, "levels": {}}
    for level in levels:
        a = tailor.advise(
            path,
            min_capacity=True,
            disciplines=DISCIPLINES,
            seeds=seeds,
            out=store,
            tolerance=tolerance,
            confirm_seeds=0 if level is None else level,
        )
        r = a.report
        answers = []
        for c in r["capacity"]:
            ans = {
                "discipline": c["strategy"],
                "model_bps": c["model_capacity_bps"],
                "after_bps": c["capacity_bps"],
                "holds": c["holds"],
                "packet_runs": c["packet_runs"],
            }
            if c["model_capacity_bps"] is not None and "before" not in row:
                ans["before"] = _fresh(
                    sc, r["nominal_bps"], store, c, c["model_capacity_bps"], c.get("model_weights"), fresh_seeds
                )
            if c["capacity_bps"] is not None:
                ans["after"] = _fresh(sc, r["nominal_bps"], store, c, c["capacity_bps"], c.get("weights"), fresh_seeds)
            answers.append(ans)
        row["levels"][_name(seeds, level)] = {"packet_runs": a.packet_runs, "answers": answers}
        if "before" not in row:
            row["before"] = [x.get("before") for x in answers]
    return row


def _fresh(
    sc: Scenario,
    nominal: float,
    store: Path,
    answer: dict[str, Any],
    capacity: float,
    weights: Any,
    fresh_seeds: list[int],
) -> tuple[int, int]:
    held = judged = 0
    for seed in fresh_seeds:
        h, j = fresh_check(sc, nominal, store, answer, capacity, weights, seed)
        held, judged = held + h, judged + j
    return held, judged


def _name(seeds: int, level: int | None) -> str:
    return f"{seeds} seeds" if level is None else f"{seeds} seeds, confirmed on {level}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=4, help="scenarios per class count")
    ap.add_argument(
        "--first",
        type=int,
        default=0,
        help="skip the scenarios drawn before this index (they are drawn, not run), to add new ones "
        "to an earlier measurement",
    )
    ap.add_argument("--classes", type=int, nargs="+", default=[3, 5])
    ap.add_argument(
        "--until",
        default="401ms",
        help="traffic per class: long enough for 100 messages above 125 KB a seed, so that every SLO can be judged",
    )
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument(
        "--confirm-seeds",
        type=int,
        nargs="*",
        default=[],
        help="confirmation levels, each measured after the plain search on the same store: a least "
        "capacity must also hold on this many seeds",
    )
    ap.add_argument("--fresh", type=int, default=1, help="fresh seeds each answer is checked on")
    ap.add_argument("--tolerance", type=float, default=0.05)
    ap.add_argument("--quick", action="store_true", help="one 3-class scenario, 21 ms of traffic, one seed")
    ap.add_argument("--out", type=Path, default=ROOT / "target" / "advice-holds")
    args = ap.parse_args()
    if not 0 <= args.first < args.n:
        ap.error(f"--first: {args.first} is not accepted; accepted: 0 to --n - 1 ({args.n - 1})")
    if args.quick:
        args.n, args.classes, args.until, args.seeds = 1, [3], "21ms", 1
    if any(c <= args.seeds for c in args.confirm_seeds):
        ap.error(
            f"--confirm-seeds: {args.confirm_seeds} is not accepted; accepted: integers above --seeds ({args.seeds})"
        )
    levels: list[int | None] = [None, *sorted(args.confirm_seeds)]
    args.out.mkdir(parents=True, exist_ok=True)
    # Scenarios are drawn per class count in a fixed order; they run interleaved (index, then class
    # count) so that a run stopped early has measured both class counts.
    drawn = {k: [draw(rng, i, k, args.until)[0] for i, rng in _draws(k, args.n)] for k in args.classes}
    rows = []
    t0 = time.perf_counter()
    for i in range(args.first, args.n):
        for k in args.classes:
            sc = drawn[k][i]
            path = args.out / f"{sc.name}.toml"
            path.write_text(sc.toml())
            row = one(path, i, args.seeds, levels, args.fresh, args.tolerance, args.out / "store")
            rows.append(row)
            _print_row(row)
            _write(args, levels, rows, t0)
    summary = _write(args, levels, rows, t0)
    print(
        f"advice hold rate on {args.fresh} fresh seed(s), {len(rows)} scenarios: before (model only) "
        f"{_line(summary['before'])}; "
        + "; ".join(
            f"{name}: {_line(v)}, {summary['packet_runs'][name]} packet runs" for name, v in summary["after"].items()
        )
        + f"; {summary['wall_s']:.0f} s"
    )
    return 0


def _draws(k: int, n: int):
    rng = random.Random(GENERATOR_SEED + k)
    for i in range(n):
        yield i, rng


def _print_row(row: dict[str, Any]) -> None:
    b = row["before"]
    for name, lv in row["levels"].items():
        print(
            f"{row['scenario']} [{name}]: "
            + "; ".join(
                f"{x['discipline']} model {_g(x['model_bps'])} -> {_g(x['after_bps'])} Gbps (holds {x['holds']}), "
                f"fresh before {_f(bb)} after {_f(x.get('after'))}"
                for x, bb in zip(lv["answers"], b, strict=False)
            ),
            flush=True,
        )


def _write(args: argparse.Namespace, levels: list[int | None], rows: list[dict[str, Any]], t0: float) -> dict[str, Any]:
    """The measurement so far, rewritten after every scenario so a stopped run keeps what it measured."""
    names = [_name(args.seeds, lv) for lv in levels]
    summary = {
        "scenarios": len(rows),
        "generator_seed": GENERATOR_SEED,
        "until": args.until,
        "seeds": args.seeds,
        "fresh": args.fresh,
        "tolerance": args.tolerance,
        "before": _rate([p for r in rows for p in r["before"] if p is not None]),
        "after": {
            n: _rate([x["after"] for r in rows for x in r["levels"][n]["answers"] if "after" in x]) for n in names
        },
        "answers_not_holding": {
            n: sum(x["holds"] is False for r in rows for x in r["levels"][n]["answers"]) for n in names
        },
        "answers_undecided": {
            n: sum(x["holds"] is None and x["after_bps"] is not None for r in rows for x in r["levels"][n]["answers"])
            for n in names
        },
        "packet_runs": {n: sum(r["levels"][n]["packet_runs"] for r in rows) for n in names},
        "wall_s": time.perf_counter() - t0,
    }
    (args.out / "advice_holds.json").write_text(json.dumps({"summary": summary, "rows": rows}, indent=2))
    return summary


def _line(r: dict[str, int]) -> str:
    return f"{r['held']}/{r['judged']} SLOs ({_pct(r)})"


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
