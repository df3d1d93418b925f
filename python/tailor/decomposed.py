"""The decomposed estimator's link simulations as Ray tasks (docs/decomposed.md, "Running it
on Ray"): ``tailor run --engine decomposed --ray ADDRESS``.

The driver asks the engine for the decomposition's links to simulate (every loaded link, or
with ``[decomposed] cluster`` the clusters' representatives; this checks the scope before
anything runs), cuts them into chunks of about equal work (messages crossing them), runs
each chunk as a Ray task (``_core.decomposed_simulate``: the task resolves the scenario and
plans the decomposition itself, so it carries only the path, overrides, seed and link
numbers), then makes the second pass's inputs from every first-pass result
(``_core.decomposed_again``: each host uplink's messages' rates after their NICs) and runs
those as tasks the same way (``_core.decomposed_simulate_again``), and writes the result
from both passes' results (``_core.decomposed_write``).
The estimates are the same bytes as a local run's: each link's simulation depends on the
scenario, the seed and the link only. Ray is joined or started as ``tailor sweep --ray``
does (``tailor.pool``); the scenario and the files it names must be at the same paths on
every node. ``workers`` caps the tasks running at once: a local Ray is started with that many
CPUs, and on a running cluster no more tasks than that are in flight.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from tailor import _core
from tailor.errors import OptionError
from tailor.pool import ray_module

#: Chunks per CPU of the cluster: enough that a slow chunk does not hold the run back.
CHUNKS_PER_CPU = 4


def chunks(work: list[int], n: int) -> list[list[int]]:
    """The indices of ``work`` in ``n`` chunks of about equal total: the largest first,
    each to the lightest chunk so far (longest-processing-time order)."""
    bins: list[tuple[int, list[int]]] = [(0, []) for _ in range(max(1, min(n, len(work))))]
    for k in sorted(range(len(work)), key=lambda k: -work[k]):
        i = min(range(len(bins)), key=lambda i: bins[i][0])
        bins[i] = (bins[i][0] + work[k], [*bins[i][1], k])
    return [sorted(b) for _, b in bins if b]


def check_workers(workers: int | None, address: str | bool | None) -> None:
    """``workers`` is a positive count, given only with Ray (OptionError otherwise)."""
    if workers is None:
        return
    if not address:
        raise OptionError("ray_workers: sets how many Ray tasks run at once; accepted: only with ray")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise OptionError(f"ray_workers: {workers!r} is not accepted; accepted: an integer of at least 1")


def _simulate(path: str, which: list[int], seed: int, overrides: list[Any], workloads: str) -> str:
    if workloads and not os.environ.get("TAILOR_WORKLOADS"):
        os.environ["TAILOR_WORKLOADS"] = workloads
    from tailor import _core as core

    return core.decomposed_simulate(path, which, seed, overrides)


def _simulate_again(path: str, inputs: list[str], seed: int, overrides: list[Any], workloads: str) -> str:
    if workloads and not os.environ.get("TAILOR_WORKLOADS"):
        os.environ["TAILOR_WORKLOADS"] = workloads
    from tailor import _core as core

    return core.decomposed_simulate_again(path, inputs, seed, overrides)


class _Bar:
    """One progress bar over both passes: messages in proportion to the link-messages
    simulated (``done`` of ``total``)."""

    def __init__(self, progress: Callable[[dict[str, Any]], bool] | None, messages: int, total: int) -> None:
        self.progress, self.messages, self.total, self.done = progress, messages, max(1, total), 0

    def advance(self, work: int, active: int) -> None:
        self.done += work
        if (
            self.progress is not None
            and self.progress(_progress(self.messages, self.done, self.total, active)) is False
        ):
            raise KeyboardInterrupt


def _map(
    ray_mod: Any, remote: Any, queued: list[tuple[Any, int]], args: tuple[Any, ...], slots: int, bar: _Bar
) -> list[str]:
    """Runs ``remote(part, *args)`` for each (part, work) of ``queued``, heaviest first, at
    most ``slots`` at once; their results in the order they finished."""
    queued = sorted(queued, key=lambda q: -q[1])
    results: list[str] = []
    pending: dict[Any, int] = {}
    try:
        while queued or pending:
            while queued and len(pending) < slots:
                part, w = queued.pop(0)
                pending[remote.remote(args[0], part, *args[1:])] = w
            ready, _ = ray_mod.wait(list(pending), num_returns=1)
            for ref in ready:
                w = pending.pop(ref)
                results.append(ray_mod.get(ref))
                bar.advance(w, len(pending) + len(queued))
    finally:
        for ref in pending:
            ray_mod.cancel(ref, force=True)
    return results


def run_on_ray(
    path: Path,
    stage: Path,
    seed: int,
    overrides: list[Any],
    csv: bool,
    address: str | bool,
    progress: Callable[[dict[str, Any]], bool] | None,
    workers: int | None = None,
) -> str:
    """Runs the decomposition of the scenario at ``path`` with its link simulations as Ray
    tasks (at most ``workers`` at once; None: as many as the cluster has CPUs), the second
    pass's too once the first has finished, writing the result into ``stage``; returns
    summary.json's text."""
    check_workers(workers, address)
    ray_mod = ray_module(address)
    messages, links, work, again_work = _core.decomposed_links(os.fspath(path), seed, overrides)
    if not ray_mod.is_initialized():
        env = {"env_vars": {"TAILOR_WORKLOADS": os.environ.get("TAILOR_WORKLOADS", "")}}
        if address in (True, "local"):
            ray_mod.init(num_cpus=workers, runtime_env=env, log_to_driver=False, include_dashboard=False)
        else:
            ray_mod.init(address=address, runtime_env=env, log_to_driver=False)
    cpus = max(1, int(ray_mod.cluster_resources().get("CPU", 1)))
    slots = min(cpus, workers) if workers is not None else cpus
    args = (os.fspath(path), seed, overrides, os.environ.get("TAILOR_WORKLOADS", ""))
    bar = _Bar(progress, messages, sum(work) + again_work)
    # Each chunk: the link numbers it simulates and its work.
    parts = [([links[i] for i in part], sum(work[i] for i in part)) for part in chunks(work, slots * CHUNKS_PER_CPU)]
    first = _map(ray_mod, ray_mod.remote(num_cpus=1, max_retries=1)(_simulate), parts, args, slots, bar)
    # The second pass (docs/decomposed.md, "Method", point 5) needs every link's first-pass
    # delays: its inputs are made here, its simulations run as tasks like the first's.
    inputs, each = _core.decomposed_again(os.fspath(path), first, seed, overrides)
    again = None
    if inputs:
        parts = [
            ([inputs[i] for i in part], sum(each[i] for i in part)) for part in chunks(each, slots * CHUNKS_PER_CPU)
        ]
        again = _map(ray_mod, ray_mod.remote(num_cpus=1, max_retries=1)(_simulate_again), parts, args, slots, bar)
    return _core.decomposed_write(os.fspath(path), os.fspath(stage), first, seed, overrides, csv, again)


def _progress(messages: int, done: int, total: int, active: int) -> dict[str, Any]:
    return {
        "phase": "running",
        "built": 0,
        "ports": 0,
        "sim_ns": 0.0,
        "events": 0,
        # Messages in proportion to the link simulations' work done.
        "started": messages,
        "completed": messages * done // total,
        "active": active,
    }
