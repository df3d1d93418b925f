"""The exceptions tailor raises.

Every error that reaches Python from the engine is one of these (the Rust side maps
its errors here in one place, ``crates/tailor-py/src/errors.rs``), with its details as
attributes, never as a bare string to parse.
"""

from __future__ import annotations

__all__ = [
    "TailorError",
    "ScenarioError",
    "WorkloadError",
    "RunError",
    "Cancelled",
    "Stalled",
    "Deadlock",
    "MemoryExceeded",
    "OptionError",
    "DisciplineError",
    "StoreError",
    "PointError",
    "SweepError",
    "PointsFailed",
    "OutputError",
    "DataError",
    "NotRecordedError",
]


class TailorError(Exception):
    """Base class of every error tailor raises on purpose (a user error, not a bug)."""


class ScenarioError(TailorError, ValueError):
    """A scenario file that cannot be run, and exactly where it is wrong.

    ``key_path`` is the dotted key (``class[1].arrival.sigma``), or ``""`` when the error
    is about the whole file (it cannot be read, or is not valid TOML). For a bad row of a
    trace the scenario replays, ``file`` is the trace and ``key_path`` the line and column
    (``line 3, start_ns``).
    """

    def __init__(self, file: str, key_path: str, message: str) -> None:
        super().__init__(file, key_path, message)
        self.file = file
        self.key_path = key_path
        self.message = message

    def __str__(self) -> str:
        if self.key_path:
            return f"{self.file}: {self.key_path}: {self.message}"
        return f"{self.file}: {self.message}"


class WorkloadError(TailorError):
    """A workload (size table, trace) that could not be read or built during a run."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class RunError(TailorError):
    """A run that failed on input/output (the result directory, a record file).

    ``kind`` names the I/O error kind as the engine saw it (``"AlreadyExists"``,
    ``"PermissionDenied"``, ...).
    """

    def __init__(self, message: str, kind: str = "Other") -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind

    def __str__(self) -> str:
        return self.message


class Deadlock(TailorError):
    """A run the engine stopped at a PFC deadlock: a priority paused around a cycle of
    ports, each waiting for the next one's switch to drain (``net::pfc``; docs/pfc.md,
    "Deadlock").

    ``message`` names the ports of the cycle; ``at_s`` is when it closed (simulated
    seconds), ``priority`` the PFC priority, ``ports`` the cycle's port ids as ports.csv
    numbers them, ``active`` the messages it held. Nothing is written for such a run.
    """

    def __init__(
        self, message: str, at_s: float = 0.0, priority: int = 0, ports: list[int] | None = None, active: int = 0
    ) -> None:
        super().__init__(message)
        self.message = message
        self.at_s = at_s
        self.priority = priority
        self.ports = list(ports or [])
        self.active = active

    def __str__(self) -> str:
        return self.message


class Stalled(TailorError):
    """A run the engine stopped because it made no progress: no message completed and no
    payload byte arrived for a long stretch of simulated time and events while messages
    were active (``crates/tailor/src/engine/stall.rs``; docs/scenario.md).

    ``message`` says what the ports did meanwhile and the likely cause; ``since_s`` and
    ``at_s`` bound the stretch in simulated seconds, ``events`` counts its events and
    ``active`` the messages that were waiting. Nothing is written for such a run.
    """

    def __init__(self, message: str, since_s: float = 0.0, at_s: float = 0.0, events: int = 0, active: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.since_s = since_s
        self.at_s = at_s
        self.events = events
        self.active = active

    def __str__(self) -> str:
        return self.message


class MemoryExceeded(TailorError):
    """A run the engine stopped because its process held more memory than its limit
    (``[run] memory_limit``, ``--memory-limit``, or a share of the memory available when
    it started; ``crates/tailor/src/engine/memory.rs``; docs/scenario.md, "Memory").

    ``used`` and ``limit`` are in bytes; ``active`` counts the messages in flight and
    ``queued`` the packets the network held. Nothing is written for such a run.
    """

    def __init__(self, message: str, used: int = 0, limit: int = 0, active: int = 0, queued: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.used = used
        self.limit = limit
        self.active = active
        self.queued = queued

    def __str__(self) -> str:
        return self.message


class Cancelled(TailorError):
    """A run stopped by its caller (the progress callback returned False).

    A cancelled run leaves no result directory behind.
    """

    def __init__(self, message: str = "the run was cancelled by the caller") -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class OptionError(TailorError, ValueError):
    """A bad option given to the advisor or a reproduction (a seed, a tolerance, a time)."""


class OutputError(OptionError):
    """An output path tailor may not write: a directory or file it did not write itself
    (docs/results.md, "Output directories"), or one the system refuses."""


class DisciplineError(OptionError):
    """An unknown queueing-discipline name given to the advisor."""


class StoreError(TailorError):
    """A result store that cannot be opened or written (docs/sweeps.md)."""


class PointError(StoreError):
    """A damaged point of a result store: a file of it missing, truncated or changed since
    it was written (docs/sweeps.md, "Damaged points").

    ``point`` is its id, ``dir`` its directory, ``file`` the file at fault (a name inside
    ``dir``), ``problem`` what is wrong with it and ``remedy`` what to do about it.
    """

    def __init__(self, dir: object, point: str, file: str, problem: str, remedy: str) -> None:
        super().__init__(dir, point, file, problem, remedy)
        self.dir = dir
        self.point = point
        self.file = file
        self.problem = problem
        self.remedy = remedy

    def __str__(self) -> str:
        return f"{self.dir}/{self.file}: point {self.point}: {self.problem}; {self.remedy}"


class SweepError(OptionError):
    """A sweep that cannot be run as asked: a bad ``--set`` axis, ``--jobs`` or ``--ray``."""


class PointsFailed(TailorError):
    """A sweep some of whose points failed; the others are kept in the store.

    ``failures`` maps each failed point's parameters (as text) to its error message;
    ``sweep`` is the :class:`tailor.Sweep` of the points that finished.
    """

    def __init__(self, message: str, failures: dict[str, str] | None = None) -> None:
        super().__init__(message, failures or {})
        self.message = message
        self.failures = failures or {}
        self.sweep: object | None = None

    def __str__(self) -> str:
        return self.message


class DataError(TailorError, ValueError):
    """Data that cannot be plotted or reported: not a result directory, a table without
    the columns it needs, or values that do not fit the plot asked for."""


class NotRecordedError(DataError):
    """A record a plot or report needs that the run did not write (e.g. queue samples).

    ``what`` names the record and ``hint`` says which scenario key makes a run write it.
    """

    def __init__(self, message: str, what: str = "", hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.what = what
        self.hint = hint

    def __str__(self) -> str:
        return self.message
