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
import sys
import types
from pathlib import Path
from typing import TYPE_CHECKING


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

if TYPE_CHECKING:  # what type checkers and editors see; at run time __getattr__ below loads them
    from tailor.advise import Advice, advise
    from tailor.result import Result
    from tailor.run import run
    from tailor.scenario import Scenario, check
    from tailor.store import Store
    from tailor.store import open_store as open  # noqa: A001
    from tailor.sweep import Sweep, sweep
    from tailor.transport_advisor import TransportAdvice, advise_transports

#: The API, each name loaded from its module on first use: ``import tailor`` (and the
#: ``tailor`` command, which starts by it) then pays for polars, numpy or matplotlib only
#: when a name that needs them is used (``tailor --version`` took 1.9 s when they loaded
#: eagerly, docs/cli.md).
_API = {
    "run": "run",
    "check": "scenario",
    "Scenario": "scenario",
    "advise": "advise",
    "Advice": "advise",
    "advise_transports": "transport_advisor",
    "TransportAdvice": "transport_advisor",
    "Result": "result",
    "sweep": "sweep",
    "Sweep": "sweep",
    "open": "store",
    "Store": "store",
}
#: The names that are the open_store of their module.
_RENAMED = {"open": "open_store"}
#: Submodules loaded on first use as modules (``tailor.plot``).
_LAZY = ("plot", "figures", "report", "stats", "compare", "crosscheck", "reproduce")

__all__ = [
    "run",
    "check",
    "advise",
    "Advice",
    "advise_transports",
    "TransportAdvice",
    "Scenario",
    "Result",
    "sweep",
    "Sweep",
    "open",
    "Store",
    "errors",
    "__version__",
    *_LAZY,
]


class _Package(types.ModuleType):
    """``tailor`` itself: ``tailor.run``, ``tailor.sweep`` and ``tailor.advise`` are the
    functions, not the modules of the same names. Python sets a submodule as its package's
    attribute when it is first imported (``from tailor.run import SEED_MAX``), which would
    replace the function; that assignment is dropped for these names."""

    def __setattr__(self, name: str, value: object) -> None:
        if name in _API and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> object:
    import importlib

    if name in _API:
        value = getattr(importlib.import_module(f"tailor.{_API[name]}"), _RENAMED.get(name, name))
        globals()[name] = value
        return value
    if name in _LAZY:
        return importlib.import_module(f"tailor.{name}")
    raise AttributeError(f"module 'tailor' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The API only, not the modules and helpers the package is built from."""
    return sorted(__all__)
