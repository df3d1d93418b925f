"""SIGINT and SIGTERM, as the ``tailor`` command handles them.

The ``tailor`` command installs :func:`terminate_as_interrupt`: SIGINT raises
KeyboardInterrupt and SIGTERM raises :class:`Terminated`, a KeyboardInterrupt, wherever
Python handles signals — several times a second during a run, when the engine gives
Python the GIL back — so a stopped command removes what it was writing and exits 130
(128 + 2) after Ctrl-C or ``kill -INT``, 143 (128 + 15) after SIGTERM. SIGINT is
installed explicitly: a process that inherits it ignored (a script's background job,
``nohup``'s command under some shells) keeps it ignored in Python, and Ctrl-C and
``kill -INT`` would do nothing. A library user's process keeps its own handling of both.
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
    """Makes SIGINT raise KeyboardInterrupt and SIGTERM :class:`Terminated` in the main
    thread, whatever the dispositions the process inherited."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _raise)


def exit_status(e: KeyboardInterrupt) -> int:
    """143 for SIGTERM, 130 for Ctrl-C."""
    return 143 if isinstance(e, Terminated) else 130
