"""How a reproduction prints a statistic: the value, its interval across seeds and the
samples it rests on, or a dash when too few samples make it no result (docs/results.md,
"Statistics in reproductions"; the rule is ``tailor.stats.samples_needed``).

Every reproduction's table goes through :func:`text` and every CSV through
:func:`columns`, so one rule holds across the papers: a p99 of fewer than 100 messages
in any seed is printed as ``— (n=82<100)``, never as a number beside the paper's.
The CSV keeps the value (another tool may pool seeds) with its ``_judged`` flag.
"""

from __future__ import annotations

from typing import Annotated, Any, Sequence

import typer

from tailor.errors import OptionError
from tailor.stats import Estimate, samples_needed

__all__ = ["text", "columns", "restore", "legend", "Seeds", "check_seeds", "MAX_SEEDS"]

#: The most seeds a reproduction's point runs: enough for an interval that decisions
#: can rest on (tailor.stats: 20 seeds cover ~91-94 %), few enough to stay a reproduction.
MAX_SEEDS = 20

Seeds = Annotated[
    int,
    typer.Option(
        help="Seeds per point; the table gives the mean over seeds and its bootstrap interval (three or more).",
    ),
]


def check_seeds(seeds: int) -> None:
    """``--seeds``: 1 to :data:`MAX_SEEDS`."""
    if not 1 <= seeds <= MAX_SEEDS:
        raise OptionError(f"--seeds: {seeds}; accepted: 1 to {MAX_SEEDS}")


def text(e: Estimate, spec: str = ".1f") -> str:
    """``12.3 [11.8–12.9] n=1,234`` (mean over seeds, interval, fewest samples in a seed);
    ``12.3 n=1,234 (1 seed)`` without an interval; no ``n`` for a mean of one value a seed
    (a counter); ``— n=82<100`` when a seed has fewer
    samples than the percentile needs; ``—`` when no seed has a value."""
    if e.value is None:
        return "—"
    if not e.judged:
        return f"— n={e.n:,}<{e.needed:,}"
    v = format(e.value, spec)
    # A counter read once per seed (drops, a queue's maximum) rests on no sample count.
    n = "" if e.p is None and e.n <= 1 else f" n={e.n:,}"
    if e.ci is None:
        return f"{v}{n} ({e.seeds} seed{'s' if e.seeds != 1 else ''})"
    lo, hi = (format(x, spec) for x in e.ci)
    return f"{v} [{lo}–{hi}]{n}"


def columns(prefix: str, e: Estimate) -> dict[str, Any]:
    """The CSV columns of one estimate: ``prefix`` (the mean over seeds), ``prefix_lo``,
    ``prefix_hi`` (the interval; empty with one seed), ``prefix_n`` (fewest samples in a
    seed), ``prefix_seeds`` and ``prefix_judged``."""
    lo, hi = e.ci if e.ci is not None else (None, None)
    return {
        prefix: e.value,
        f"{prefix}_lo": lo,
        f"{prefix}_hi": hi,
        f"{prefix}_n": e.n,
        f"{prefix}_seeds": e.seeds,
        f"{prefix}_judged": e.judged,
    }


def restore(prefix: str, row: dict[str, Any], p: float | None) -> Estimate:
    """The estimate :func:`columns` wrote under ``prefix`` (a report's JSON, a CSV row),
    for :func:`text`; ``p`` as it was estimated (None: a mean)."""
    lo, hi = row[f"{prefix}_lo"], row[f"{prefix}_hi"]
    n = int(row[f"{prefix}_n"])
    seeds = int(row[f"{prefix}_seeds"])
    return Estimate(row[prefix], None if lo is None else (lo, hi), n, n * seeds, seeds, p)


def legend(percentiles: Sequence[float] = (50, 99)) -> str:
    """The footnote a table carries: what the brackets and n mean, and the rule."""
    need = ", ".join(f"p{p:g} {samples_needed(p):,}" for p in percentiles if p < 100)
    return (
        "value = mean over seeds [95 % bootstrap interval across seeds] n = fewest samples in a seed; "
        f"a percentile is a result only with enough samples in every seed ({need}), else —"
    )
