"""`make bench`'s sweep section: one sweep run three ways on this machine, timed here.

The same points (web search at 60 % from SWP §5.1, three loads x three seeds, 2,000 flows
each, packet engine) are run (1) one after another in this process, (2) by `tailor.sweep`
in its local process pool, (3) by `tailor.sweep` on a local Ray instance. Each run gets an
empty store. It prints the wall time of each and its speed-up over (1), and checks that
the three stores hold the same points with the same messages. Ray's own start-up is timed
apart from the sweep. On a 2-core machine the ideal speed-up is 2.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import polars as pl
import tailor

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "swp" / "websearch-60.toml"


def same_stores(a: Path, b: Path) -> bool:
    ids = sorted(p.name for p in (a / "points").iterdir())
    if ids != sorted(p.name for p in (b / "points").iterdir()):
        return False
    return all(
        pl.read_parquet(a / "points" / i / "messages.parquet").equals(
            pl.read_parquet(b / "points" / i / "messages.parquet")
        )
        for i in ids
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loads", default="0.3,0.5,0.7")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args()
    loads = [float(x) for x in args.loads.split(",")]
    seeds = list(range(1, args.seeds + 1))
    work = Path(tempfile.mkdtemp(prefix="tailor-bench-sweep-"))
    figures: dict[str, float] = {}
    try:
        sc = tailor.Scenario.load(SCENARIO)
        n = len(loads) * len(seeds)
        print(f"sweep: {SCENARIO.name}, loads {loads} x seeds {seeds} = {n} points, packet engine", flush=True)

        t = time.perf_counter()
        for load in loads:
            for seed in seeds:
                tailor.run(sc.with_(load=load, seed=seed), seed=seed, out=work / "serial" / f"{load}-{seed}")
        figures["serial_s"] = time.perf_counter() - t

        t = time.perf_counter()
        tailor.sweep(sc, load=loads, seed=seeds, out=work / "pool")
        figures["pool_s"] = time.perf_counter() - t

        try:
            import ray
        except ImportError:
            print("Ray is not installed: pip install tailor[ray]; the Ray column is skipped")
            ray = None
        if ray is not None:
            t = time.perf_counter()
            ray.init(include_dashboard=False, log_to_driver=False)
            figures["ray_start_s"] = time.perf_counter() - t
            t = time.perf_counter()
            tailor.sweep(sc, load=loads, seed=seeds, out=work / "ray", ray=True)
            figures["ray_s"] = time.perf_counter() - t
            ray.shutdown()
            figures["ray_same_store"] = float(same_stores(work / "pool", work / "ray"))

        print(f"  one after another   {figures['serial_s']:7.1f} s")
        print(f"  local process pool  {figures['pool_s']:7.1f} s   {figures['serial_s'] / figures['pool_s']:.2f}x")
        if "ray_s" in figures:
            print(
                f"  local Ray           {figures['ray_s']:7.1f} s   {figures['serial_s'] / figures['ray_s']:.2f}x"
                f"   (+ {figures['ray_start_s']:.1f} s to start Ray; same store as the pool: "
                f"{'yes' if figures['ray_same_store'] else 'NO'})"
            )
        if args.json:
            args.json.write_text(json.dumps(figures, indent=2))
        return 0 if figures.get("ray_same_store", 1.0) == 1.0 else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
