"""Cross-check tailor against the HPCC authors' ns-3 programs on their own experiment files,
both simulators timed in this script (docs/rdma.md, "Cross-check"):

1. their simulator (a build of theirs, `--third PATH` to `build/scratch/third`) runs each
   config, writing its FCT file;
2. `tailor import hpcc-ns3` reads the same config and `tailor run --fct-out` runs it;
3. both FCT files are binned as their `fct_analysis.py` bins them
   (`hpcc_fork_compare.py`), side by side.

Their simulator is not part of tailor: build it yourself (docs/rdma.md says how it was
built here). The configs' FCT_OUTPUT_FILE names where theirs writes.

usage: python scripts/hpcc_fork_crosscheck.py --third PATH --out DIR CONFIG... [--seeds 1,2]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from hpcc_fork_compare import bins, rows  # noqa: E402


def timed(cmd: list[str], env: dict[str, str] | None = None) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("configs", nargs="+", type=Path)
    ap.add_argument("--third", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--seeds", default="1")
    ap.add_argument("--bins", type=int, default=10)
    ap.add_argument("--skip-theirs", action="store_true", help="use the FCT files their runs left")
    a = ap.parse_args()
    if a.out.exists():
        print(f"error: --out: {a.out} exists; name a new directory", file=sys.stderr)
        return 2
    a.out.mkdir(parents=True)
    env = dict(os.environ, LD_LIBRARY_PATH=str(a.third.parent.parent))
    tailor = [sys.executable, "-m", "tailor"]
    summary = []
    for config in a.configs:
        text = config.read_text()
        theirs = Path(re.search(r"FCT_OUTPUT_FILE\s+(\S+)", text).group(1))
        theirs = theirs if theirs.is_absolute() else config.parent / theirs
        wall_theirs = float("nan") if a.skip_theirs else timed([str(a.third), str(config)], env)
        imported = a.out / config.stem
        subprocess.run(
            [*tailor, "import", "hpcc-ns3", str(config), "--out", str(imported)], check=True, stdout=subprocess.DEVNULL
        )
        ref = bins(rows(str(theirs)), a.bins)
        for seed in (int(s) for s in a.seeds.split(",")):
            fct = a.out / f"{config.stem}_s{seed}.fct"
            cmd = [
                *tailor,
                "run",
                str(imported / "scenario.toml"),
                "--seed",
                str(seed),
                "--out",
                str(a.out / f"{config.stem}_s{seed}"),
                "--fct-out",
                str(fct),
                "-q",
            ]
            wall_tailor = timed(cmd)
            ours = bins(rows(str(fct)), a.bins)
            errs = [(o[3] - r[3]) / r[3] for r, o in zip(ref, ours, strict=True)]
            mean, worst = sum(map(abs, errs)) / len(errs), max(map(abs, errs))
            summary.append((config.stem, seed, wall_theirs, wall_tailor, mean, worst))
            print(
                f"{config.stem} seed {seed}: theirs {wall_theirs:.1f} s, tailor {wall_tailor:.1f} s "
                f"({wall_theirs / wall_tailor:.1f}x); p99 per bin: mean |err| {100 * mean:.1f} %, worst {100 * worst:.1f} %"
            )
            subprocess.run(
                [
                    sys.executable,
                    str(HERE / "hpcc_fork_compare.py"),
                    str(theirs),
                    str(fct),
                    "--bins",
                    str(a.bins),
                    "--csv",
                    str(a.out / f"{config.stem}_s{seed}.csv"),
                ],
                check=True,
            )
    with open(a.out / "crosscheck.csv", "w") as f:
        f.write("config,seed,theirs_wall_s,tailor_wall_s,p99_mean_abs_err,p99_worst_abs_err\n")
        for r in summary:
            f.write(",".join(str(x) for x in r) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
