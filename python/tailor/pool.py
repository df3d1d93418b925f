"""The sweep's worker pool: runs points in spawned local processes or as Ray tasks.

The sweep (tailor.sweep) decides which points to run and alone writes the store; this
module runs them. :class:`Claims` hands the points out one at a time, each with its lock
in the store held (tailor.store.Store.try_lock), passing over a point another sweep into
the same store is computing. :func:`local_results` runs them in a pool of spawned worker
processes, one simulation per worker, ``jobs`` workers (default one per core);
:func:`ray_results` as Ray tasks, as many at once as the cluster has CPUs. Both yield each
point's outcome as it comes: ``{"id", "files", "wall_s", "host"}`` (the run directory's
files, name -> bytes) or ``{"id", "error"}``. A worker runs :func:`run_point`, which
resolves the point again and refuses to return results under an id they do not have.
Ctrl-C reaches the sweep only: workers ignore it and are stopped by the pool.
"""

from __future__ import annotations

import collections
import multiprocessing
import os
import shutil
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tailor.errors import SweepError
from tailor.scenario import Scenario
from tailor.store import SUMMARY_RUN_FILES, PointLock, PointSpec, Store, point_id

if TYPE_CHECKING:
    from tailor.sweep import Listener

__all__ = ["Claims", "local_results", "ray_results", "ray_module", "run_point", "note", "POLL_S"]


def _task(spec: PointSpec, work: Path) -> dict[str, Any]:
    """What a worker is sent to run ``spec`` (plain data: it crosses a pipe or reaches Ray)."""
    return {
        "id": spec.id,
        "path": os.path.abspath(spec.scenario.path),
        "overrides": list(spec.scenario.overrides),
        "seed": spec.seed,
        "engine": spec.engine,
        "keep": spec.keep,
        "work": os.fspath(work),
        "workloads": os.environ.get("TAILOR_WORKLOADS", ""),
    }


def run_point(task: dict[str, Any]) -> dict[str, Any]:
    """Runs one point in a worker and returns its files (name -> bytes).

    The worker resolves the point itself before and after the run and refuses to return
    results under an id they do not have: a scenario, size table or trace edited while
    the sweep runs, or a Ray node with other files or another tailor build, gives a failed
    point, never a wrong one in the store. Any exception is returned as
    ``{"error": message}`` so that one bad point does not stop the others. The run
    directory is made under ``task["work"]`` when that exists here (a local worker: the
    store's tmp, which the sweep cleans), else in this machine's temporary directory.
    """
    if task.get("workloads") and not os.environ.get("TAILOR_WORKLOADS"):
        os.environ["TAILOR_WORKLOADS"] = task["workloads"]
    from tailor import _core
    from tailor.run import run

    def same_point() -> bool:
        r = _core.resolve(task["path"], [(k, v) for k, v in task["overrides"]])
        return point_id(r, task["seed"], task["engine"]) == task["id"]

    changed = (
        "the scenario, a file it reads or the tailor build differs from when the sweep planned this "
        "point (edited meanwhile, or another node); run the sweep again"
    )
    root = Path(task["work"]) if Path(task["work"]).is_dir() else Path(tempfile.gettempdir())
    work = Path(tempfile.mkdtemp(prefix=f"{task['id']}-", dir=root))
    started = time.perf_counter()
    try:
        if not same_point():
            return {"id": task["id"], "error": changed}
        sc = Scenario(Path(task["path"]), {}, tuple((k, v) for k, v in task["overrides"]))
        result = run(sc, seed=task["seed"], out=work / "run", engine=task["engine"])
        if not same_point():
            return {"id": task["id"], "error": changed}
        # A point kept as a summary only: its other files are not sent back at all.
        names = [n for n in result.files() if task.get("keep", "all") == "all" or n in SUMMARY_RUN_FILES]
        files = {name: (result.dir / name).read_bytes() for name in names}
        return {"id": task["id"], "files": files, "wall_s": time.perf_counter() - started, "host": socket.gethostname()}
    except Exception as e:  # noqa: BLE001 - reported as this point's failure, with its type
        return {"id": task["id"], "error": f"{type(e).__name__}: {e}"}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _ignore_sigint() -> None:
    """Workers leave Ctrl-C to the sweep, which stops them itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def note(message: str) -> None:
    """A line on stderr about what the sweep does that its listener has no event for."""
    print(f"sweep: {message}", file=sys.stderr, flush=True)


class Claims:
    """The points a sweep has still to run, handed out one at a time with their lock held.

    A point whose lock another process holds (another sweep into the same store is
    computing it) is passed over and tried again at the next call. Once its lock is free
    the point is either in the store, whole (that sweep finished it: reported as cached),
    or not (it failed or was killed: run here).
    """

    def __init__(self, store: Store, specs: list[PointSpec], tmp: Path, listener: Listener | None) -> None:
        self.store, self.tmp, self.listener = store, tmp, listener
        self.waiting = collections.deque(specs)
        self.returned: collections.deque[dict[str, Any]] = collections.deque()  # claimed, not run
        self.locks: dict[str, PointLock] = {}
        #: Points found finished by another sweep after this one planned to run them.
        self.found = 0
        self._noted: set[str] = set()

    def __len__(self) -> int:
        """Points not yet handed out."""
        return len(self.waiting) + len(self.returned)

    def next(self) -> dict[str, Any] | None:
        """The task of a point to run now, or None when every point left is locked by
        another process (or none is left)."""
        if self.returned:
            return self.returned.popleft()
        for _ in range(len(self.waiting)):
            spec = self.waiting.popleft()
            lock = self.store.try_lock(spec.id)
            if lock is None:
                self.waiting.append(spec)
                continue
            if self.store.has(spec.id, spec.keep):
                lock.release()
                self.found += 1
                if self.listener:
                    self.listener.cached(spec.id, spec.params)
                continue
            self.locks[spec.id] = lock
            return _task(spec, self.tmp)
        return None

    def put_back(self, task: dict[str, Any]) -> None:
        """A claimed task that was not run (its worker died before taking it)."""
        self.returned.append(task)

    def release(self, id: str) -> None:
        lock = self.locks.pop(id, None)
        if lock is not None:
            lock.release()

    def note_waiting(self) -> None:
        """Says once per point that this sweep waits for another one computing it."""
        new = [s for s in self.waiting if s.id not in self._noted]
        if new:
            self._noted.update(s.id for s in new)
            note(
                f"waiting for {len(new)} point(s) another sweep into {self.store.dir} is computing "
                f"({self.store.lock_holder(new[0].id)}); they are taken over if it stops"
            )

    def close(self) -> None:
        for id in list(self.locks):
            self.release(id)


#: Seconds between two looks at points another sweep holds, when nothing else is to do.
POLL_S = 0.2


def local_results(
    claims: Claims,
    jobs: int | None,
    listener: Listener | None,
    by_id: dict[str, PointSpec],
    target: Callable[[dict[str, Any]], dict[str, Any]] = run_point,
) -> Iterator[dict[str, Any]]:
    """Runs the points of ``claims`` in spawned worker processes, one at a time per worker.

    Each worker calls ``target`` on a task (:func:`run_point`: a sweep's point; another
    module-level function for other work spread the same way, such as the scenarios of
    tailor.reproduce.swp.capacity, whose ``claims`` then only need ``next``, ``put_back``,
    ``note_waiting`` and a length).

    Hand-rolled rather than multiprocessing.Pool or ProcessPoolExecutor: Pool waits
    forever for a task whose worker was killed (OOM killer, a native abort), and
    ProcessPoolExecutor cannot stop its running workers on Ctrl-C before Python 3.14.
    Each worker talks to the sweep over a pipe of its own (a queue shared by workers has
    a lock that a killed worker can take to its grave, blocking the others), and the
    sweep waits on every pipe and every process's exit at once: it hands each point to an
    idle worker, so it knows who runs what; a worker that dies fails only its point and
    is replaced; stopping the sweep terminates them all. A worker with nothing to run
    while points are locked by another sweep waits, and the claims are tried again every
    ``POLL_S`` seconds.
    """
    from multiprocessing.connection import wait

    ctx = multiprocessing.get_context("spawn")
    n = min(jobs or os.cpu_count() or 1, len(claims))
    workers: dict[int, tuple[Any, Any]] = {}  # pid -> (process, the sweep's end of its pipe)
    running: dict[int, str] = {}  # pid -> the point it was given
    ready: set[int] = set()
    idle: set[int] = set()  # ready, given nothing: every point left is locked elsewhere
    lost_at_start = 0

    def start() -> None:
        mine, theirs = ctx.Pipe()
        p = ctx.Process(target=_worker, args=(theirs, target), daemon=True)
        p.start()
        theirs.close()
        workers[p.pid] = (p, mine)

    def give(pid: int) -> None:
        """The next point to an idle worker, None to let it exit when no point is left,
        or nothing yet when the points left are locked elsewhere."""
        conn = workers[pid][1]
        task = claims.next()
        if task is None and len(claims):
            idle.add(pid)
            return
        idle.discard(pid)
        try:
            conn.send(task)
        except OSError:  # it died meanwhile: its exit is handled below, the point waits
            if task is not None:
                claims.put_back(task)
            return
        if task is not None:
            running[pid] = task["id"]
            if listener:
                listener.started(task["id"], by_id[task["id"]].params)

    try:
        for _ in range(n):
            start()
        while len(claims) or running:
            for pid in list(idle):
                give(pid)
            if idle and not running:
                claims.note_waiting()
            owner: dict[Any, int] = {}
            for pid, (p, conn) in workers.items():
                owner[conn] = pid
                owner[p.sentinel] = pid
            for obj in wait(list(owner), timeout=POLL_S if idle else None):
                pid = owner[obj]
                if pid not in workers:
                    continue
                p, conn = workers[pid]
                messages = []
                try:
                    while conn.poll():
                        messages.append(conn.recv())
                except (EOFError, OSError):
                    pass
                for kind, payload in messages:
                    if kind == "ready":
                        ready.add(pid)
                        give(pid)
                    elif kind == "result":
                        running.pop(pid, None)
                        yield payload  # reported finished before the worker's next point is started
                        if pid in workers:
                            give(pid)
                if p.is_alive():
                    continue
                p.join()
                conn.close()
                del workers[pid]
                idle.discard(pid)
                lost = running.pop(pid, None)
                if pid not in ready:
                    lost_at_start += 1
                    if lost_at_start > n:
                        raise SweepError(
                            f"the sweep's worker processes exit as they start (exit code {p.exitcode}); from a "
                            'script, call tailor.sweep under `if __name__ == "__main__":` (the spawn start '
                            "method imports the script in each worker)"
                        )
                if lost is not None:
                    yield {"id": lost, "error": f"the worker process running it died (exit code {p.exitcode})"}
                if len(claims) and len(workers) < n:
                    start()
    finally:
        for p, _ in workers.values():
            if p.is_alive():
                p.terminate()
        for p, conn in workers.values():
            p.join(timeout=5)
            conn.close()


def _worker(conn: Any, target: Callable[[dict[str, Any]], dict[str, Any]] = run_point) -> None:
    """A worker process: runs the points it is given until it is given None."""
    _ignore_sigint()
    try:
        conn.send(("ready", None))
        while (task := conn.recv()) is not None:
            conn.send(("result", target(task)))
    except (EOFError, OSError):  # the sweep is gone
        pass


def ray_module(address: str | bool) -> Any:
    """Ray, imported, and the address checked before anything is written."""
    try:
        import ray as ray_mod
    except ImportError:
        raise SweepError("--ray: Ray is not installed; install it with `pip install tailor[ray]`") from None
    if not (address in (True, "local", "auto") or str(address).startswith("ray://")):
        raise SweepError(f"--ray: {address!r} is not accepted; accepted: local, auto, ray://HOST:PORT")
    return ray_mod


def ray_results(
    claims: Claims,
    ray_mod: Any,
    address: str | bool,
    jobs: int | None,
    listener: Listener | None,
    by_id: dict[str, PointSpec],
    target: Callable[[dict[str, Any]], dict[str, Any]] = run_point,
) -> Iterator[dict[str, Any]]:
    """Runs the points of ``claims`` as Ray tasks (``target``, as in :func:`local_results`),
    as many at once as the cluster has CPUs: a point is claimed (its lock taken) only when
    it is submitted."""
    if not ray_mod.is_initialized():
        env = {"env_vars": {"TAILOR_WORKLOADS": os.environ.get("TAILOR_WORKLOADS", "")}}
        try:
            if address in (True, "local"):
                ray_mod.init(num_cpus=jobs, runtime_env=env, log_to_driver=False, include_dashboard=False)
            else:
                ray_mod.init(address=address, runtime_env=env, log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as e:
            raise SweepError(f"--ray {address}: cannot start or join Ray: {e}") from None
    remote = ray_mod.remote(num_cpus=1, max_retries=0)(target)
    cpus = max(1, int(ray_mod.cluster_resources().get("CPU", 1)))
    pending: dict[Any, dict[str, Any]] = {}
    try:
        while len(claims) or pending:
            while len(pending) < cpus and (task := claims.next()) is not None:
                pending[remote.remote(task)] = task
                _announce([task], listener, by_id)
            if not pending:
                if len(claims):
                    claims.note_waiting()
                    time.sleep(POLL_S)
                continue
            ready, _ = ray_mod.wait(list(pending), num_returns=1, timeout=POLL_S if len(claims) else None)
            for ref in ready:
                task = pending.pop(ref)
                try:
                    result = ray_mod.get(ref)
                except Exception as e:  # noqa: BLE001 - a lost node or worker fails this point only
                    result = {"id": task["id"], "error": f"the Ray task failed: {type(e).__name__}: {e}"}
                yield result
    finally:
        for ref in pending:
            ray_mod.cancel(ref, force=True)


def _announce(tasks: list[dict[str, Any]], listener: Listener | None, by_id: dict[str, PointSpec]) -> None:
    if listener:
        for t in tasks:
            listener.started(t["id"], by_id[t["id"]].params)
