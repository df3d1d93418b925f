"""tailor: predict and control microsecond tail latency in datacenter networks.

    >>> import tailor
    >>> result = tailor.run("scenarios/quickstart.toml", seed=7)
    >>> result.summary["overall"]["slowdown"]["p99"]
    >>> result.messages            # a polars DataFrame, one row per message
    >>> sw = tailor.sweep("scenarios/quickstart.toml", load=[0.3, 0.5], seed=range(1, 4), out="sweeps/q")
    >>> sw.summary()               # per load: mean and 95 % interval of each statistic across seeds
    >>> tailor.open("sweeps/q").messages()   # every point's messages, a polars LazyFrame
"""

from __future__ import annotations

import os
from pathlib import Path


def _find_workloads() -> None:
    """Points the engine at the shipped size tables when running from a checkout."""
    if os.environ.get("TAILOR_WORKLOADS"):
        return
    shipped = Path(__file__).resolve().parents[2] / "workloads"
    if shipped.is_dir():
        os.environ["TAILOR_WORKLOADS"] = str(shipped)


_find_workloads()

from tailor import errors  # noqa: E402
from tailor._core import __version__  # noqa: E402
from tailor.advise import Advice, advise  # noqa: E402
from tailor.result import Result  # noqa: E402
from tailor.run import run  # noqa: E402
from tailor.scenario import Scenario, check  # noqa: E402
from tailor.store import Store  # noqa: E402
from tailor.store import open_store as open  # noqa: E402,A001
from tailor.sweep import Sweep, sweep  # noqa: E402
from tailor.transport_advisor import TransportAdvice, advise_transports  # noqa: E402

#: Submodules loaded on first use (``tailor.plot`` pulls in matplotlib, which ``import
#: tailor`` should not pay for).
_LAZY = ("plot", "figures", "report", "stats", "compare", "crosscheck", "reproduce")

__all__ = [
    "run", "check", "advise", "Advice", "advise_transports", "TransportAdvice", "Scenario", "Result", "sweep", "Sweep", "open", "Store", "errors",
    "__version__", *_LAZY,
]


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return importlib.import_module(f"tailor.{name}")
    raise AttributeError(f"module 'tailor' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The API only, not the modules and helpers the package is built from."""
    return sorted(__all__)
