"""The runner every reproduction's points go through (Homa's, HULL's, PL2's): each point's
scenario is written into the reproduction's directory, so that every number can be rerun
with ``tailor run``, and the points run in threads, one per core (``tailor.run`` releases
the GIL), saying how far they are every :data:`REPORT_S` seconds. Ctrl-C cancels the runs
in flight and leaves nothing half-written.

A point is any object with ``name``, ``seed``, ``workload`` and ``until_us`` (its
generated traffic, µs: the longest run first); how its scenario is written (``write``)
and which engine runs it (``engine``) are the reproduction's.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

import tailor
from tailor import fmt

__all__ = ["run_points", "write_text", "reporting", "REPORT_S", "WAKE_S"]

Say = Callable[[str], None]

#: How often, in seconds, the thread waiting for the points looks for Ctrl-C and SIGTERM.
WAKE_S = 0.1
#: How often, in seconds, a reproduction says how far its points are (the share of each
#: running point's traffic simulated so far).
REPORT_S = 10.0


def write_text(point: Any, dir: Path, why: str) -> Path:
    """A point that carries its scenario as TOML text (``text``; HULL's and PL2's), with
    the files it reads beside it (``files``: name and text pairs, if it has any)."""
    for name, text in getattr(point, "files", ()):
        (dir / name).write_text(text)
    path = dir / f"{point.name}.toml"
    path.write_text(f"# Written by {why}.\n" + point.text)
    return path


def reporting(label: str, until_ns: float, say: Say) -> Callable[[dict[str, Any]], bool]:
    """A run's progress callback that says, every :data:`REPORT_S` of wall time, how much
    of its traffic's generation time (``until_ns``) it has simulated."""
    next_at = [time.monotonic() + REPORT_S]

    def progress(d: dict[str, Any]) -> bool:
        if time.monotonic() >= next_at[0]:
            next_at[0] += REPORT_S
            share = d["sim_ns"] / until_ns
            say(f"{label}: {share:.0%} simulated" if share < 1 else f"{label}: draining")
        return True

    return progress


def run_points(
    points: Sequence[Any],
    work: Path,
    why: str,
    say: Say,
    write: Callable[[Any, Path, str], Path] = write_text,
    engine: Callable[[Any], str] = lambda p: "packet",
) -> dict[Any, Path]:
    """Runs every point into ``work/runs/<name>-s<seed>`` (scenarios in ``work/scenarios``,
    each written by ``write``: :func:`write_text` unless the points need their own) on the
    engine ``engine`` names for it, in threads, one per core; returns each point's result
    directory."""
    (work / "scenarios").mkdir(exist_ok=True)
    files = {p.name: write(p, work / "scenarios", why) for p in points}
    stop = threading.Event()
    # The longest first (W5, W4, ...), so that the threads finish together.
    order = sorted(points, key=lambda p: (p.workload, p.until_us), reverse=True)
    threads = min(os.cpu_count() or 1, len(order))
    #: Per running point, the share of its traffic's generation time simulated so far.
    share: dict[str, float] = {}

    def one(p: Any) -> Path:
        out = work / "runs" / f"{p.name}-s{p.seed}"
        t = time.perf_counter()
        label = f"{p.name} seed {p.seed}"

        def going(d: dict[str, Any]) -> bool:
            share[label] = d["sim_ns"] / (p.until_us * 1000)
            return not stop.is_set()

        try:
            r = tailor.run(files[p.name], seed=p.seed, out=out, progress=going, engine=engine(p))
        finally:
            share.pop(label, None)
        m = r.summary["messages"]["completed"]
        say(f"{label}: {m:,} messages, {fmt.time(r.summary['sim_ns'])} simulated, {time.perf_counter() - t:.1f} s")
        return out

    say(
        f"running {len(order)} point{'s' if len(order) > 1 else ''}, {threads} at a time; progress every "
        f"{REPORT_S:.0f} s"
    )
    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        futures = {p: pool.submit(one, p) for p in order}
        try:
            # Waits in slices: polars installs its SIGINT handler with SA_RESTART, so Ctrl-C
            # does not wake a wait without a timeout; Python runs its handler between slices.
            pending = set(futures.values())
            report = t0 + REPORT_S
            while pending:
                done, pending = wait(pending, timeout=WAKE_S, return_when=FIRST_EXCEPTION)
                for f in done:
                    f.result()  # a failed point stops the others (below)
                if pending and time.monotonic() >= report:
                    report += REPORT_S
                    running = ", ".join(
                        f"{k} {x:.0%}" if x < 1 else f"{k} draining" for k, x in sorted(dict(share).items())
                    )
                    say(
                        f"{len(futures) - len(pending)} of {len(futures)} points done, "
                        f"{time.monotonic() - t0:.0f} s; running: {running or 'starting'}"
                    )
            return {p: futures[p].result() for p in points}
        except BaseException:
            stop.set()
            for f in futures.values():
                f.cancel()
            raise
