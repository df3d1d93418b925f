"""Option values written as text, read one way everywhere: comma-separated lists and times.

The commands (``tailor/cli``) and the reproductions (``tailor/reproduce``) take lists as
one comma-separated option (``--workloads W3,W4``, ``--loads 0.5,0.8``) and times with
their unit (``--until 11ms``). Each is parsed here, so a list has one grammar (items
stripped, empty items such as a trailing comma's ignored) and a time the engine's
(docs/scenario.md, "Units"; ``crates/tailor/src/input/units.rs``), and a bad value one
error form (docs/cli.md): one line naming the option, the offending item and the accepted
values, raised as :class:`tailor.errors.OptionError` (exit status 2)::

    --workloads: unknown workload 'W9'; accepted: W1, W2, W3, W4, W5 (comma-separated)
    --loads: '1.2' is not a network load; accepted: numbers in (0, 1), comma-separated
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from tailor.errors import OptionError

__all__ = ["split", "comma_list", "choices", "integers", "numbers", "TIME_SCALE_NS", "time_ns", "check_time"]

T = TypeVar("T")

#: Nanoseconds per time unit, as scenarios write them (the engine's ``TIME_UNITS``; ``µs`` is ``us``).
TIME_SCALE_NS: dict[str, float] = {"ps": 1e-3, "ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}
#: The engine's number rule (``input::units::split``): groups of digits joined by single
#: ``_``, at most one point between digits, then the unit with no space.
_TIME = re.compile(r"([0-9]+(?:_[0-9]+)*(?:\.[0-9]+(?:_[0-9]+)*)?)(ps|ns|us|µs|ms|s)")


def split(text: str) -> list[str]:
    """The items of a comma-separated value, stripped, empty ones (``W3,``) left out."""
    return [x for x in (item.strip() for item in text.split(",")) if x]


def comma_list(
    option: str, text: str, accepted: str, convert: Callable[[str], T], refused: str = "'{}' is not accepted"
) -> list[T]:
    """The items of ``option``'s comma-separated ``text``, each converted by ``convert``,
    in the order given. An item ``convert`` refuses (``ValueError``) is the error
    ``OPTION: REFUSED; accepted: ACCEPTED`` (``refused`` with the item in its ``{}``); no
    item at all, ``OPTION: none given; accepted: ACCEPTED``."""
    out = []
    for item in split(text):
        try:
            out.append(convert(item))
        except ValueError:
            raise OptionError(f"{option}: {refused.format(item)}; accepted: {accepted}") from None
    if not out:
        raise OptionError(f"{option}: none given; accepted: {accepted}")
    return out


def choices(
    option: str,
    text: str,
    names: Sequence[str],
    what: str,
    case: Callable[[str], str] = str.lower,
    aliases: Mapping[str, str] | None = None,
    accepted: str | None = None,
) -> list[str]:
    """``option``'s names, each one of ``names`` once put in ``case`` (an alias replaced by
    its name), in the order of ``names``, each once; another is ``unknown WHAT 'ITEM'``
    (the item in ``case``)."""
    aliases = aliases or {}

    def one(item: str) -> str:
        name = aliases.get(case(item), case(item))
        if name not in names:
            raise ValueError(item)
        return name

    accepted = accepted or f"{', '.join(names)} (comma-separated)"
    # In ``case`` before anything else, so that an error names the item as it was read.
    cased = ",".join(case(x) for x in split(text))
    given = set(comma_list(option, cased, accepted, one, f"unknown {what} '{{}}'"))
    return [n for n in names if n in given]


def integers(option: str, text: str, low: int, high: int) -> list[int]:
    """``option``'s integers, each from ``low`` to ``high``, in the order given, each once."""

    def one(item: str) -> int:
        n = int(item)
        if not low <= n <= high:
            raise ValueError(item)
        return n

    accepted = f"integers from {low} to {high}, comma-separated"
    return list(
        dict.fromkeys(comma_list(option, text, accepted, one, f"'{{}}' is not an integer from {low} to {high}"))
    )


def numbers(option: str, text: str, accepted: str, ok: Callable[[float], bool], what: str) -> list[float]:
    """``option``'s numbers, each one that ``ok`` accepts (else ``'ITEM' is not WHAT``), in
    the order given, each once."""

    def one(item: str) -> float:
        x = float(item)
        if not ok(x):
            raise ValueError(item)
        return x

    return list(dict.fromkeys(comma_list(option, text, accepted, one, f"'{{}}' is not {what}")))


def time_ns(text: str) -> float:
    """``"10ms"`` -> 1e7: a time as scenarios write it, in nanoseconds. Raises
    ``ValueError`` for anything else (``"10 ms"``, ``"10"``, ``"ms"``)."""
    m = _TIME.fullmatch(text.strip())
    if m is None:
        raise ValueError(f"not a time: {text!r}")
    return float(m.group(1).replace("_", "")) * TIME_SCALE_NS[m.group(2)]


def check_time(option: str, text: str, also: Sequence[str] = (), positive: bool = True) -> str:
    """``option``'s time (or one of the words ``also``), checked: a number and its unit
    (``11ms``), more than zero when ``positive``; returned as given."""
    if text in also:
        return text
    try:
        ok = time_ns(text) > 0 or not positive
    except ValueError:
        ok = False
    if not ok:
        what = "a positive time" if positive else "a time"
        words = "".join(f", {w}" for w in also)
        raise OptionError(
            f"{option}: '{text}' is not {what}; accepted: a number and a unit (ps, ns, us, ms, s), e.g. 11ms{words}"
        )
    return text
