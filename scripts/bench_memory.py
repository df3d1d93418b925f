"""`make bench`: peak memory of `tailor run` against the simulation's own, by run length.

Runs one scenario (a 16-host star, raw transport, one-kilobyte messages) with 20,000 and
2,000,000 messages three ways, each timed by /usr/bin/time -v:

- `tailor-sim`: the engine alone, no Python (its memory is flat in the run's length:
  lazy workloads, streaming records);
- the simulation in Python: a process that imports what `tailor run` imports and calls
  `tailor._core.run` alone, with no post-processing (the CLI's floor);
- `tailor run --quiet`: the simulation, the Parquet conversion and the printed table.

and prints each peak RSS, the CLI's peak over the simulation-in-Python's (the cost of
post-processing) and how each grows from the short run to the long one.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import ROOT, TAILOR_SIM, timed  # noqa: E402

PYTHON = ROOT / ".venv" / "bin" / "python"
TAILOR = ROOT / ".venv" / "bin" / "tailor"
SIZES = [20_000, 2_000_000]

SCENARIO = """name = "memory-{n}"
seed = 1
[topology]
kind = "star"
hosts = 16
link = {{ rate = "100Gbps", delay = "1us" }}
[transport]
kind = "raw"
[[class]]
name = "kb"
sizes_fixed = "1KB"
arrival = "poisson"
load = 0.5
pattern = "all_to_all"
messages = {n}
"""

# The imports of `tailor run`, then the engine alone.
SIMULATE = """
import os, sys
import tailor, tailor.cli, tailor.progress, polars, rich
os.makedirs(sys.argv[2])
tailor._core.run(sys.argv[1], sys.argv[2], None, None, "packet", [])
"""


def peaks(scenario: Path, work: Path) -> dict:
    """Peak RSS in kB of tailor-sim, of the simulation in Python and of `tailor run`."""
    _, sim, _ = timed([str(TAILOR_SIM), str(scenario)])
    _, py, _ = timed([str(PYTHON), "-c", SIMULATE, str(scenario), str(work / "core")])
    wall, cli, _ = timed([str(TAILOR), "run", str(scenario), "--out", str(work / "cli"), "--quiet"])
    return {"tailor_sim_kb": sim, "simulation_kb": py, "cli_kb": cli, "cli_wall": wall}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args()
    rows = []
    print("peak RSS of tailor run against the simulation's own (16-host star, raw, 1 KB messages)")
    print(
        f"  {'messages':>10} {'tailor-sim':>11} {'simulation':>11} {'tailor run':>11} {'run - sim':>10} {'run / sim':>10}"
    )
    for n in SIZES:
        with tempfile.TemporaryDirectory(prefix="tailor-bench-memory-") as tmp:
            work = Path(tmp)
            scenario = work / f"memory-{n}.toml"
            scenario.write_text(SCENARIO.format(n=n))
            r = {"messages": n, **peaks(scenario, work)}
        mb = {k: r[k] / 1024 for k in ("tailor_sim_kb", "simulation_kb", "cli_kb")}
        print(
            f"  {n:>10,} {mb['tailor_sim_kb']:>8.1f} MB {mb['simulation_kb']:>8.1f} MB {mb['cli_kb']:>8.1f} MB "
            f"{mb['cli_kb'] - mb['simulation_kb']:>7.1f} MB {r['cli_kb'] / r['simulation_kb']:>9.2f}x",
            flush=True,
        )
        rows.append(r)
    first, last = rows[0], rows[-1]
    growth = {k: last[k] / first[k] for k in ("tailor_sim_kb", "simulation_kb", "cli_kb")}
    print(
        f"  growth {SIZES[-1]:,} / {SIZES[0]:,} messages: tailor-sim {growth['tailor_sim_kb']:.2f}x, "
        f"simulation {growth['simulation_kb']:.2f}x, tailor run {growth['cli_kb']:.2f}x (1.00 = flat)"
    )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
