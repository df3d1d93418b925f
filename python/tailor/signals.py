"""SIGTERM handled as Ctrl-C is.

The ``tailor`` command installs :func:`terminate_as_interrupt`: SIGTERM then raises
:class:`Terminated`, a KeyboardInterrupt, wherever Python handles signals — several times
a second during a run, when the engine gives Python the GIL back — so a terminated
command removes what it was writing exactly as after Ctrl-C, and exits 143 (128 + 15)
instead of 130. A library user's process keeps its own SIGTERM handling.
"""

from __future__ import annotations

import signal
from typing import Any

__all__ = ["Terminated", "terminate_as_interrupt", "exit_status"]


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised as a KeyboardInterrupt (not a tailor error: a request to stop)."""


def _raise(signum: int, frame: Any) -> None:
    raise Terminated()


def terminate_as_interrupt() -> None:
    """Makes SIGTERM raise :class:`Terminated` in the main thread."""
    signal.signal(signal.SIGTERM, _raise)


def exit_status(e: KeyboardInterrupt) -> int:
    """143 for SIGTERM, 130 for Ctrl-C."""
    return 143 if isinstance(e, Terminated) else 130
