"""Progress of runs and sweeps: a rich bar on a terminal, JSON lines otherwise.

Where the output goes is decided the same way for a run and a sweep, always on stderr:

- ``quiet``: nothing at all;
- JSON lines when ``json_lines`` is True (``--progress-json``), or when it is None (the
  default) and stderr is not a terminal: one JSON object per line (the fields below);
- otherwise, on a terminal, a live rich bar; with ``json_lines=False`` and no terminal,
  nothing.

**How far a run is.** The engine reports {sim_ns, events, started, completed, active}
about five times a second but does not know how long the run will be, so the total is
estimated from the scenario file (:func:`run_total`). Each class ends on its own
criterion, and the run ends when every class has ended and its messages are done, or at
``[run] stop``. Three estimates follow, each usable only when it covers every class:

- messages: when the scenario has one class and it has ``messages = N`` (or is a trace,
  whose rows are counted), the fraction ``completed / N``. With several classes the
  counts are not used: classes complete at their own paces (quickstart's 3,000 RPCs are
  done in the first 5 ms of a 170 ms run), so a sum of counts would run far ahead. A
  class with both ``messages`` and ``until`` may stop short of N, so this fraction may
  stay below 1 until the end.
- horizon: when every class has ``until = T`` (an absolute simulated time: no message
  starts after it), the total is the largest T and the fraction ``sim_ns / T``, held
  below 0.99 because the run goes on until the messages started by T are done.
- stop: with ``[run] stop = S``, the fraction ``sim_ns / S``.

The fraction reported is the largest of those available. With none (several classes
with message counts, classes mixing ``messages`` and ``until``, without a ``stop``; or
Python 3.10, which has no ``tomllib``, without a ``stop``) the total is unknown: a
spinner without an ETA, and ``fraction`` and ``eta_s`` are null. The ETA is the wall
time so far times ``(1 - fraction) / fraction``.

**Run JSON lines** (at most one ``progress`` line per second, the first as soon as the
engine reports, and a ``done`` line when the run succeeds)::

    {"event": "progress" | "done", "scenario": str, "phase": "building" | "running",
     "built": int, "ports": int, "sim_ns": float, "events": int,
     "started": int, "completed": int, "active": int, "fraction": float | null,
     "eta_s": float | null, "events_per_second": float, "elapsed_s": float}

``phase`` is "building" while the engine builds the topology (``built`` of ``ports``
egress ports so far; a million-host star takes seconds), then "running".

``events_per_second`` is measured since the previous engine report on a ``progress``
line and over the whole run on the ``done`` line (``summary.json``'s figure when given).

**Sweep JSON lines** (one per event, no throttling)::

    {"event": "cached" | "started" | "finished" | "failed" | "done", "sweep": str,
     "point": str | null, "params": dict | null, "wall_s": float | null,
     "message": str | null, "done": int, "total": int, "cached": int,
     "running": int, "failed": int, "eta_s": float | null, "elapsed_s": float}

``wall_s`` is the point's run time (``finished``) or the sweep's (``done``); ``done``
counts cached, finished and failed points. The sweep's ETA is the mean wall time of the
points finished so far times the points left, less the time the running points have
already spent, shared among ``min(workers, points left)`` workers.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Column
from rich.text import Text

from tailor import fmt
from tailor.parse import time_ns

__all__ = [
    "reporter",
    "RunProgress",
    "RunTotal",
    "run_total",
    "sweep_reporter",
    "SweepProgress",
]

Clock = Callable[[], float]

#: At most one ``progress`` JSON line per this many seconds of wall time, for a run.
JSON_EVERY_S = 1.0
#: The horizon estimate never claims more than this: messages started before ``until``
#: are still being delivered after it.
HORIZON_CAP = 0.99


# ---------------------------------------------------------------------------------------
# How far a run is


@dataclass(frozen=True)
class RunTotal:
    """What a run's end is estimated from (see the module doc); None: not estimable."""

    messages: Optional[int] = None
    horizon_ns: Optional[float] = None
    stop_ns: Optional[float] = None

    @property
    def known(self) -> bool:
        return any(x is not None and x > 0 for x in (self.messages, self.horizon_ns, self.stop_ns))

    def fraction(self, p: dict[str, Any]) -> Optional[float]:
        """The largest of the available estimates for the engine report ``p``, in [0, 1]."""
        candidates = []
        if self.messages:
            candidates.append(min(1.0, p["completed"] / self.messages))
        if self.horizon_ns:
            candidates.append(min(HORIZON_CAP, p["sim_ns"] / self.horizon_ns))
        if self.stop_ns:
            candidates.append(min(1.0, p["sim_ns"] / self.stop_ns))
        return max(candidates) if candidates else None


def run_total(scenario: Any) -> RunTotal:
    """The estimate of a :class:`tailor.Scenario`'s length: its ``[run] stop`` (from
    ``info``) and what its classes say (from the TOML file; the engine has already
    checked it). Anything that cannot be read leaves that estimate unknown."""
    stop_ns = scenario.info.get("stop_ns")
    try:
        import tomllib
    except ImportError:  # Python 3.10: stop is the only estimate
        return RunTotal(stop_ns=stop_ns)
    try:
        doc = tomllib.loads(Path(scenario.path).read_text())
        classes = doc.get("class", [])
        counts = [_class_messages(c, Path(scenario.path).parent) for c in classes]
        untils = [time_ns(c["until"]) if "until" in c and "trace" not in c else None for c in classes]
    except (OSError, ValueError, TypeError, KeyError, AttributeError, tomllib.TOMLDecodeError):
        return RunTotal(stop_ns=stop_ns)
    known_counts = [n for n in counts if n is not None]
    known_untils = [u for u in untils if u is not None]
    return RunTotal(
        # Several classes complete at their own paces (quickstart's 3,000 RPCs are done
        # in 5 ms of a 170 ms run), so a sum of counts is no measure of the whole run.
        messages=known_counts[0] if len(classes) == 1 and len(known_counts) == 1 else None,
        horizon_ns=max(known_untils) if classes and len(known_untils) == len(classes) else None,
        stop_ns=stop_ns,
    )


def _class_messages(c: dict[str, Any], directory: Path) -> Optional[int]:
    if "trace" in c:
        return _trace_rows(directory / c["trace"], c.get("name"))
    n = c.get("messages")
    return n if isinstance(n, int) else None


def _trace_rows(path: Path, class_name: Optional[str]) -> Optional[int]:
    """Rows of a trace file that the class replays (all, or its own with a class column)."""
    import polars as pl

    try:
        lf = pl.scan_csv(path, infer_schema=False, with_column_names=lambda cols: [c.strip() for c in cols])
        if "class" in lf.collect_schema().names() and class_name is not None:
            lf = lf.filter(pl.col("class").str.strip_chars() == class_name)
        return int(lf.select(pl.len()).collect().item())
    except Exception:  # an unreadable trace fails the run itself, with its own error
        return None


# ---------------------------------------------------------------------------------------
# Choosing the output


def _mode(quiet: bool, json_lines: Optional[bool], console: Console) -> str:
    if quiet:
        return "quiet"
    if json_lines or (json_lines is None and not console.is_terminal):
        return "json"
    return "bar" if console.is_terminal else "quiet"


#: Streams whose reader went away (ids): progress to them is dropped.
_closed: set[int] = set()


def _write(out: TextIO, line: dict[str, Any]) -> None:
    """One JSON line. A closed pipe (`tailor run ... 2>&1 | head -1`) must not kill the
    run or sweep it reports on: progress goes quiet, and the stream's descriptor is
    pointed at /dev/null so that Python's flush at exit does not fail either."""
    if id(out) in _closed:
        return
    try:
        out.write(json.dumps(line, default=str) + "\n")
        out.flush()
    except (BrokenPipeError, OSError):
        _closed.add(id(out))
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, out.fileno())
            os.close(null)
        except (OSError, ValueError, AttributeError):
            pass


def _round(x: Optional[float], digits: int) -> Optional[float]:
    return None if x is None else round(x, digits)


def _fixed() -> Column:
    """A column that is never wrapped: on a narrow terminal the last column gives way."""
    return Column(no_wrap=True)


class _Eta(ProgressColumn):
    """``eta 0:00:12`` from the task's ``eta_s`` field (blank while unknown)."""

    def __init__(self) -> None:
        super().__init__(table_column=_fixed())

    def render(self, task: Task) -> Text:
        eta = task.fields.get("eta_s")
        return Text("" if eta is None else f"eta {fmt.duration(eta)}", style="progress.remaining", no_wrap=True)


# ---------------------------------------------------------------------------------------
# Runs


class _RunStats(ProgressColumn):
    """Simulated time, messages done/started, events/s; cut short on a narrow terminal."""

    def __init__(self) -> None:
        super().__init__(table_column=Column(overflow="ellipsis"))  # the one column that may shrink

    def render(self, task: Task) -> Text:
        p = task.fields.get("p")
        if not p:
            return Text("starting", style="dim")
        if p.get("phase") == "building":
            return Text(f"building topology: {p['built']:,}/{p['ports']:,} ports", no_wrap=True, overflow="ellipsis")
        rate = task.fields.get("rate", 0.0)
        return Text(
            f"{fmt.time(p['sim_ns'])} sim · {p['completed']:,}/{p['started']:,} msgs · {rate / 1e6:.1f}M ev/s",
            no_wrap=True,
            overflow="ellipsis",
        )


class RunProgress:
    """The progress callback of one run (pass it as ``tailor.run(progress=...)``).

    Calling it with an engine report updates the bar or writes a JSON line; it always
    returns True (it never cancels the run). :meth:`finish` gives it the run's summary
    for the final line.
    """

    def __init__(self, name: str, total: RunTotal, mode: str, out: TextIO, bar: Optional[Progress], clock: Clock):
        self.name, self.total, self.mode, self.out, self.bar, self.clock = name, total, mode, out, bar, clock
        self.t0 = clock()
        self.last: Optional[dict[str, Any]] = None
        self.last_at = self.t0
        self.rate = 0.0
        self.last_line_at: Optional[float] = None
        self.summary: Optional[dict[str, Any]] = None
        self.task = (
            bar.add_task(name, total=1.0 if total.known else None, p=None, rate=0.0, eta_s=None) if bar else None
        )

    def snapshot(self, p: dict[str, Any], now: float) -> dict[str, Any]:
        """What is shown for report ``p`` at wall time ``now``: fraction, ETA, rates."""
        fraction = self.total.fraction(p)
        elapsed = now - self.t0
        eta = elapsed * (1 - fraction) / fraction if fraction and elapsed > 0 else None
        return {"fraction": fraction, "eta_s": eta, "elapsed_s": elapsed}

    def __call__(self, p: dict[str, Any]) -> bool:
        now = self.clock()
        if self.last is not None and now > self.last_at:
            self.rate = (p["events"] - self.last["events"]) / (now - self.last_at)
        elif self.last is None and now > self.t0:
            self.rate = p["events"] / (now - self.t0)
        self.last, self.last_at = dict(p), now
        s = self.snapshot(p, now)
        if self.bar is not None and self.task is not None:
            self.bar.update(self.task, completed=s["fraction"] or 0.0, p=p, rate=self.rate, eta_s=s["eta_s"])
        elif self.mode == "json" and (self.last_line_at is None or now - self.last_line_at >= JSON_EVERY_S):
            self.last_line_at = now
            self._line("progress", p, s, self.rate)
        return True

    def finish(self, summary: dict[str, Any]) -> None:
        """The run's ``summary.json``: the ``done`` line reports its figures."""
        self.summary = summary

    def _done(self) -> None:
        if self.mode != "json":
            return
        now = self.clock()
        p = self.last or {}
        if self.summary is not None:
            m = self.summary["messages"]
            p = {
                "phase": "running",
                "built": p.get("built"),
                "ports": p.get("ports"),
                "sim_ns": self.summary["sim_ns"],
                "events": self.summary["events"],
                "started": m["generated"],
                "completed": m["completed"],
                "active": m["incomplete"],
            }
        elapsed = now - self.t0
        rate = p.get("events", 0) / elapsed if elapsed > 0 else 0.0
        if self.summary is not None and "events_per_second" in self.summary:
            rate = self.summary["events_per_second"]  # the engine's own wall time
        self._line("done", p, {"fraction": 1.0, "eta_s": 0.0, "elapsed_s": elapsed}, rate)

    def _line(self, event: str, p: dict[str, Any], s: dict[str, Any], rate: float) -> None:
        line = {
            "event": event,
            "scenario": self.name,
            **{k: p.get(k) for k in ("phase", "built", "ports", "sim_ns", "events", "started", "completed", "active")},
            "fraction": _round(s["fraction"], 4),
            "eta_s": _round(s["eta_s"], 1),
            "events_per_second": round(rate),
            "elapsed_s": round(s["elapsed_s"], 2),
        }
        _write(self.out, line)


@contextmanager
def reporter(
    name: str,
    quiet: bool = False,
    json_lines: Optional[bool] = None,
    console: Optional[Console] = None,
    total: Optional[RunTotal] = None,
    clock: Clock = time.monotonic,
) -> Iterator[RunProgress]:
    """Yields the progress callback for a run of the scenario ``name``.

    ``total`` (:func:`run_total`) gives the bar its length and the ETA; without it a
    spinner. The output is chosen as the module doc says; JSON lines go to ``console``'s
    file (default: stderr). The ``done`` line is written when the block exits without an
    exception.
    """
    console = console or Console(stderr=True)
    total = total or RunTotal()
    mode = _mode(quiet, json_lines, console)
    if mode == "bar":
        if total.known:
            columns: tuple[ProgressColumn, ...] = (
                TextColumn("[b]{task.description}", table_column=_fixed()),
                BarColumn(bar_width=20, table_column=_fixed()),
                TaskProgressColumn(table_column=_fixed()),
                TimeElapsedColumn(table_column=_fixed()),
                _Eta(),
                _RunStats(),
            )
        else:
            columns = (
                SpinnerColumn(table_column=_fixed()),
                TextColumn("[b]{task.description}", table_column=_fixed()),
                TimeElapsedColumn(table_column=_fixed()),
                _RunStats(),
            )
        bar = Progress(*columns, console=console, transient=True, get_time=clock)
        with bar:
            yield RunProgress(name, total, mode, console.file, bar, clock)
    else:
        progress = RunProgress(name, total, mode, console.file, None, clock)
        yield progress
        progress._done()


# ---------------------------------------------------------------------------------------
# Sweeps


class _SweepStats(ProgressColumn):
    """Cached, running and failed points; cut short on a narrow terminal."""

    def __init__(self) -> None:
        super().__init__(table_column=Column(overflow="ellipsis"))

    def render(self, task: Task) -> Text:
        f = task.fields
        parts = [f"{f.get('cached', 0)} cached", f"{f.get('running', 0)} running"]
        if f.get("failed"):
            parts.append(f"{f['failed']} failed")
        return Text(" · ".join(parts), no_wrap=True, overflow="ellipsis")


class SweepProgress:
    """Progress of a sweep over ``total`` points run by ``workers`` workers.

    The sweep calls one method per point event; they may be called from several
    threads.
    """

    def __init__(
        self, name: str, total: int, workers: int, mode: str, out: TextIO, bar: Optional[Progress], clock: Clock
    ):
        self.name, self.total, self.workers = name, total, max(1, workers)
        self.mode, self.out, self.bar, self.clock = mode, out, bar, clock
        self.t0 = clock()
        self.n_cached = self.n_finished = self.n_failed = 0
        self.walls: list[float] = []
        self.running: dict[str, float] = {}
        self.lock = threading.Lock()
        self.task = bar.add_task(name, total=total, cached=0, running=0, failed=0, eta_s=None) if bar else None

    @property
    def done(self) -> int:
        return self.n_cached + self.n_finished + self.n_failed

    def eta_s(self, now: Optional[float] = None) -> Optional[float]:
        """Seconds left (module doc), or None before the first point has finished."""
        left = self.total - self.done
        if left <= 0:
            return 0.0
        if not self.walls:
            return None
        now = self.clock() if now is None else now
        mean = sum(self.walls) / len(self.walls)
        spent = sum(min(now - t, mean) for t in self.running.values())
        return max(0.0, (left * mean - spent) / min(self.workers, left))

    def cached(self, point_id: str, params: dict[str, Any]) -> None:
        """A point whose result was already there: not run again."""
        with self.lock:
            self.n_cached += 1
            self._report("cached", point_id, params)

    def started(self, point_id: str, params: dict[str, Any]) -> None:
        with self.lock:
            self.running[point_id] = self.clock()
            self._report("started", point_id, params)

    def finished(self, point_id: str, params: dict[str, Any], wall_s: float) -> None:
        with self.lock:
            self.running.pop(point_id, None)
            self.n_finished += 1
            self.walls.append(wall_s)
            self._report("finished", point_id, params, wall_s=wall_s)

    def failed(self, point_id: str, params: dict[str, Any], message: str) -> None:
        with self.lock:
            self.running.pop(point_id, None)
            self.n_failed += 1
            self._report("failed", point_id, params, message=message)
            if self.bar is not None:
                self.bar.console.print(f"{self.name}: point {point_id} failed: {message}", highlight=False)

    def _report(
        self,
        event: str,
        point: Optional[str],
        params: Optional[dict[str, Any]],
        wall_s: Optional[float] = None,
        message: Optional[str] = None,
    ) -> None:
        now = self.clock()
        eta = self.eta_s(now)
        if self.bar is not None and self.task is not None:
            self.bar.update(
                self.task,
                completed=self.done,
                cached=self.n_cached,
                running=len(self.running),
                failed=self.n_failed,
                eta_s=eta,
            )
        elif self.mode == "json":
            _write(
                self.out,
                {
                    "event": event,
                    "sweep": self.name,
                    "point": point,
                    "params": params,
                    "wall_s": _round(wall_s, 3),
                    "message": message,
                    "done": self.done,
                    "total": self.total,
                    "cached": self.n_cached,
                    "running": len(self.running),
                    "failed": self.n_failed,
                    "eta_s": _round(eta, 1),
                    "elapsed_s": round(now - self.t0, 2),
                },
            )

    def _done(self) -> None:
        with self.lock:
            self._report("done", None, None, wall_s=self.clock() - self.t0)


@contextmanager
def sweep_reporter(
    name: str,
    total: int,
    quiet: bool = False,
    json_lines: Optional[bool] = None,
    console: Optional[Console] = None,
    workers: int = 1,
    clock: Clock = time.monotonic,
) -> Iterator[SweepProgress]:
    """Yields the progress of a sweep ``name`` of ``total`` points on ``workers`` workers.

    On a terminal: a bar of points done/total with the cached, running and failed
    counts, the elapsed time and the ETA; a failed point is also printed above it.
    Otherwise JSON lines (module doc), ending with a ``done`` line when the block exits
    without an exception.
    """
    console = console or Console(stderr=True)
    mode = _mode(quiet, json_lines, console)
    if mode == "bar":
        bar = Progress(
            TextColumn("[b]{task.description}", table_column=_fixed()),
            BarColumn(bar_width=20, table_column=_fixed()),
            MofNCompleteColumn(table_column=_fixed()),
            TextColumn("points", table_column=_fixed()),
            TimeElapsedColumn(table_column=_fixed()),
            _Eta(),
            _SweepStats(),
            console=console,
            get_time=clock,
        )
        with bar:
            yield SweepProgress(name, total, workers, mode, console.file, bar, clock)
    else:
        progress = SweepProgress(name, total, workers, mode, console.file, None, clock)
        yield progress
        progress._done()
