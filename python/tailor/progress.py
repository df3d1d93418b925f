"""Showing a run's progress: a rich bar on a terminal, JSON lines otherwise (opt-in)."""

from __future__ import annotations

import json
import sys
import time
from contextlib import contextmanager
from collections.abc import Iterator
from typing import Any, Callable

from rich.console import Console
from rich.progress import Progress, ProgressColumn, SpinnerColumn, Task, TextColumn, TimeElapsedColumn
from rich.text import Text

__all__ = ["reporter", "format_sim_time"]

Callback = Callable[[dict[str, Any]], bool]


def format_sim_time(ns: float) -> str:
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3f} {unit}"
    return f"{ns:.0f} ns"


class _Stats(ProgressColumn):
    def render(self, task: Task) -> Text:
        p = task.fields.get("p")
        if not p:
            return Text("starting", style="dim")
        rate = task.fields.get("rate", 0.0)
        return Text(
            f"{format_sim_time(p['sim_ns'])} simulated · {p['completed']:,}/{p['started']:,} messages done"
            f" · {rate / 1e6:.1f}M events/s"
        )


class _Rate:
    """Events per second between two progress reports."""

    def __init__(self) -> None:
        self.t, self.events, self.rate = time.monotonic(), 0, 0.0

    def update(self, events: int) -> float:
        now = time.monotonic()
        if now > self.t:
            self.rate = (events - self.events) / (now - self.t)
        self.t, self.events = now, events
        return self.rate


@contextmanager
def reporter(name: str, quiet: bool = False, json_lines: bool = False, console: Console | None = None) -> Iterator[Callback | None]:
    """Yields the progress callback for a run of ``name``, or None for no output.

    On a terminal (and not ``quiet``): a live bar on stderr. Otherwise nothing, or with
    ``json_lines`` one JSON object per report on stderr.
    """
    console = console or Console(stderr=True)
    if json_lines:
        yield _json_lines(name)
    elif quiet or not console.is_terminal:
        yield None
    else:
        bar = Progress(SpinnerColumn(), TextColumn("[b]{task.description}"), _Stats(), TimeElapsedColumn(),
                       console=console, transient=True)
        task = bar.add_task(name, total=None)
        rate = _Rate()

        def update(p: dict[str, Any]) -> bool:
            bar.update(task, p=p, rate=rate.update(p["events"]))
            return True

        with bar:
            yield update


def _json_lines(name: str) -> Callback:
    rate = _Rate()

    def emit(p: dict[str, Any]) -> bool:
        line = {"scenario": name, **p, "events_per_second": round(rate.update(p["events"]))}
        print(json.dumps(line), file=sys.stderr, flush=True)
        return True

    return emit
