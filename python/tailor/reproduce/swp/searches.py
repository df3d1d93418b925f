"""The least-capacity searches of tailor reproduce swp-capacity, spread over cores.

One search is ``tailor.advise --min-capacity`` on one scenario for one variant: an
engine (the fast model, or the packet engine's bisection), the model's form (calibrated,
or the paper-literal one) and a host scaling (every link scaled with the capacity, or the
trunk alone; docs/advisor.md). Searches run in spawned worker processes
(tailor.pool.local_results, one search per worker, one per core) or as Ray tasks
(tailor.pool.ray_results); each worker runs the model single-threaded, since the pool
already fills the cores. A search returns the rows of capacity.csv it found and what its
report says about the verdicts at each answer.

The variants a build can run are those its ``tailor.advise`` accepts (PLAN25: the
``model_form``, ``host_scaling`` and ``engine`` keywords); asking for another is refused
before anything runs.
"""

from __future__ import annotations

import collections
import inspect
import os
import resource
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

from tailor.errors import DisciplineError, OptionError

#: The disciplines searched, by the advisor's names, and as capacity.csv writes them.
DISCIPLINES = {"fifo": "fifo", "drr": "weights", "hierarchical": "weights_fq", "static": "static"}
COLUMNS = (
    "scenario",
    "classes",
    "seed",
    "discipline",
    "engine",
    "model_form",
    "host_scaling",
    "capacity_gbps",
    "offered_gbps",
    "found",
)
ENGINES, FORMS, SCALINGS = ("model", "packet"), ("calibrated", "paper"), ("scaled", "fixed")
#: Seconds between two progress lines.
REPORT_S = 10.0


@dataclass(frozen=True)
class Variant:
    """How a scenario's least capacities are searched; ``form`` is "" on the packet engine."""

    engine: str
    form: str
    scaling: str

    @property
    def label(self) -> str:
        what = "packet engine" if self.engine == "packet" else f"model {self.form}"
        return f"{what}, {self.scaling}"


def supported() -> dict[str, tuple[str, ...]]:
    """The engines, forms and scalings this build's ``tailor.advise`` accepts. Host links
    fixed needs the model's own support too (``_core.advise`` taking ``host_scaling``):
    a Python layer that took the keyword without it would label scaled answers fixed."""
    import tailor
    from tailor import _core

    keys = inspect.signature(tailor.advise).parameters
    core = getattr(_core.advise, "__text_signature__", "") or ""
    return {
        "engine": ENGINES if "engine" in keys else ENGINES[:1],
        "model_form": FORMS if "model_form" in keys else FORMS[:1],
        "host_scaling": SCALINGS if "host_scaling" in keys and "host_scaling" in core else SCALINGS[:1],
    }


def variants(engines: list[str], forms: list[str], scalings: list[str]) -> list[Variant]:
    """The variants asked for, each checked against this build (an OptionError naming the
    option otherwise)."""
    have = supported()
    for option, key, asked, known in (
        ("--engine", "engine", engines, ENGINES),
        ("--model-form", "model_form", forms, FORMS),
        ("--host-scaling", "host_scaling", scalings, SCALINGS),
    ):
        for v in asked:
            if v not in known:
                raise OptionError(f"{option}: '{v}' is not accepted; accepted: {', '.join(known)}")
            if v not in have[key]:
                raise OptionError(
                    f"{option}: '{v}' is not in this build's tailor.advise (it has: "
                    f"{', '.join(have[key])}); accepted here: {', '.join(have[key])}"
                )
    out = [Variant("model", f, s) for f in forms for s in scalings if "model" in engines]
    return out + [Variant("packet", "", s) for s in scalings if "packet" in engines]


def task(path: Path, params: dict[str, Any], v: Variant, packet_seeds: int, work: Path) -> dict[str, Any]:
    """What a worker is sent to search one scenario for one variant (plain data)."""
    return {
        "id": f"{params['scenario']}|{v.engine}|{v.form}|{v.scaling}",
        "path": os.fspath(path.resolve()),
        "scenario": params["scenario"],
        "classes": params["classes"],
        "seed": params["seed"],
        "engine": v.engine,
        "model_form": v.form,
        "host_scaling": v.scaling,
        "packet_seeds": packet_seeds,
        "work": os.fspath(work.resolve()),
        "workloads": os.environ.get("TAILOR_WORKLOADS", ""),
    }


def search(t: dict[str, Any]) -> dict[str, Any]:
    """Runs one search in a worker and returns its rows, or ``{"id", "error"}``."""
    os.environ.setdefault("RAYON_NUM_THREADS", "1")  # before the engine's first parallel search here
    if t["workloads"] and not os.environ.get("TAILOR_WORKLOADS"):
        os.environ["TAILOR_WORKLOADS"] = t["workloads"]
    import tailor

    kwargs: dict[str, Any] = {}
    if t["host_scaling"] != SCALINGS[0]:
        kwargs["host_scaling"] = t["host_scaling"]
    if t["engine"] == "packet":
        out = Path(t["work"]) / "packet" / f"{t['scenario']}-{t['host_scaling']}"
        # Summaries only: a search reads back each run's SLO verdicts, not its messages,
        # which are 90 % of a point's bytes (docs/advisor.md, "Reproductions").
        # The least capacity on the searches' own seeds, no confirmation: the figures compare
        # disciplines at one confidence, and 19 seeds would cost five times the runs
        # (docs/advisor.md, "Reproductions").
        kwargs.update(
            engine="packet",
            seeds=t["packet_seeds"],
            out=out,
            workers=t.get("jobs"),
            ray=t.get("ray"),
            keep="summary",
            confirm_seeds=0,
        )
    else:
        kwargs["recheck"] = False  # the model's own answer: the packet engine is a variant of its own
        if t["model_form"] != FORMS[0]:
            kwargs["model_form"] = t["model_form"]
    started, cpu = time.perf_counter(), _cpu_s()
    names = list(DISCIPLINES)
    try:
        try:
            a = tailor.advise(t["path"], min_capacity=True, disciplines=names, **kwargs)
        except DisciplineError as e:
            if t["engine"] != "packet" or "static" not in str(e):
                raise
            # Static provisioning needs a link per class; a packet search that cannot build
            # one leaves it to the model (its rows are then missing here, not "not found").
            a = tailor.advise(t["path"], min_capacity=True, disciplines=names[:3], **kwargs)
    except Exception as e:  # noqa: BLE001 - this search's failure, reported with its type
        return {"id": t["id"], "error": f"{type(e).__name__}: {e}"}
    r = a.report
    rows, unjudged = [], 0
    for c in r["capacity"]:
        cap = c["capacity_bps"]
        rows.append(
            {
                "scenario": t["scenario"],
                "classes": t["classes"],
                "seed": t["seed"],
                "discipline": DISCIPLINES[c["strategy"]],
                "engine": t["engine"],
                "model_form": t["model_form"],
                "host_scaling": t["host_scaling"],
                "capacity_gbps": None if cap is None else cap / 1e9,
                "offered_gbps": r["offered_bps"] / 1e9,
                "found": cap is not None,
            }
        )
        unjudged += sum(s["met"] is None for v in (c.get("verdicts") or []) for s in v["slo"]) if cap else 0
    return {
        "id": t["id"],
        "rows": rows,
        "unjudged": unjudged,
        "wall_s": time.perf_counter() - started,
        "cpu_s": _cpu_s() - cpu,
        "messages": r["messages"],
    }


def _cpu_s() -> float:
    """CPU seconds of this process (every thread) and of its children waited for."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


class Tasks:
    """The searches still to hand out, as tailor.pool's workers take them."""

    def __init__(self, tasks: list[dict[str, Any]]) -> None:
        self.waiting = collections.deque(tasks)

    def __len__(self) -> int:
        return len(self.waiting)

    def next(self) -> Optional[dict[str, Any]]:
        return self.waiting.popleft() if self.waiting else None

    def put_back(self, t: dict[str, Any]) -> None:
        self.waiting.appendleft(t)

    def note_waiting(self) -> None:  # nothing here is locked by another process
        pass


def run_all(
    tasks: list[dict[str, Any]], jobs: Optional[int], ray: Optional[str], say: Callable[[str], None]
) -> Iterator[dict[str, Any]]:
    """Runs every search, yielding each outcome as it comes. The model's run in worker
    processes (or on Ray), the longest first, with a line every REPORT_S seconds; then the
    packet engine's, one at a time here, each spreading its own runs over the cores or
    Ray (tailor.sweep: a worker process cannot start workers of its own)."""
    from tailor import pool

    model = sorted((t for t in tasks if t["engine"] == "model"), key=lambda t: -t.get("cost", 0.0))
    packet = [dict(t, jobs=jobs, ray=ray) for t in tasks if t["engine"] == "packet"]
    where = f"on Ray ({ray})" if ray else f"{min(jobs or os.cpu_count() or 1, max(len(model), 1))} at a time"
    say(
        f"running {len(model)} model searches, {where}, then {len(packet)} on the packet engine; progress every "
        f"{REPORT_S:.0f} s"
    )
    if not model:
        results: Iterator[dict[str, Any]] = iter(())
    elif ray:
        ray_mod = pool.ray_module(ray)
        results = pool.ray_results(Tasks(model), ray_mod, ray, jobs, None, {}, target=search)  # type: ignore[arg-type]
    else:
        results = pool.local_results(Tasks(model), jobs, None, {}, target=search)  # type: ignore[arg-type]
    t0, count = time.monotonic(), {"done": 0, "failed": 0}
    stop = threading.Event()

    def report() -> None:  # a line every REPORT_S, however long one search takes
        while not stop.wait(REPORT_S):
            say(
                f"{count['done']} of {len(model)} model searches done ({count['failed']} failed), "
                f"{time.monotonic() - t0:.0f} s"
            )

    ticker = threading.Thread(target=report, daemon=True)
    ticker.start()
    try:
        for r in results:
            count["done"] += 1
            if "error" in r:
                count["failed"] += 1
                say(f"{r['id'].replace('|', ' ')}: FAILED: {r['error']}")
            yield r
    finally:
        stop.set()
    if model:
        say(f"{len(model)} model searches done ({count['failed']} failed), {time.monotonic() - t0:.0f} s")
    for i, t in enumerate(packet):
        say(f"packet engine {i + 1} of {len(packet)}: {t['scenario']}, host links {t['host_scaling']}")
        r = search(t)
        say(f"{r['id'].replace('|', ' ')}: " + (f"FAILED: {r['error']}" if "error" in r else f"{r['wall_s']:.0f} s"))
        yield r
