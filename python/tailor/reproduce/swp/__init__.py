"""SWP (per-class switch weights that meet tail-latency SLOs, with a fast model;
Zhao et al., arXiv:2103.01314; docs/papers.md): its reproductions.

- ``fig1``: Fig. 1 (§2.1), the limits of priority scheduling, with each of the paper's
  claims about it checked;
- ``capacity``: Fig. 8-9 (§5.2), the least capacity per discipline over random Table 4
  scenarios.

The expected times are wall times on a 2-core machine, rounded up: swp-fig1 took 3 s
on the model and 6-8 s with --engine packet; swp-capacity 32-44 s for its 10 scenarios
(3 or 5 classes, 3 re-checked) and 105 s for 30, about 3.7 s a scenario, so the paper's
150 take about 9 minutes (26 minutes measured while the machine was also building and
testing).
"""

from __future__ import annotations

from tailor.reproduce.registry import Reproduction
from tailor.reproduce.swp import capacity, fig1

__all__ = ["REPRODUCTIONS"]

# Run times (``quick``: the defaults, these have no --quick) measured on 2026-11-27 on the
# 2-core machine with other jobs beside it (load average 6-8): swp-fig1 8.8 s (issue 24's
# session measured 10.8 s), swp-capacity 85 s; swp-fig1 --engine packet 15.3 s. Not
# measured: swp-capacity --n 150, estimated as 15 times the defaults' 10 scenarios.
REPRODUCTIONS = (
    Reproduction(
        name="swp-fig1",
        paper="SWP",
        figure="Fig. 1 (§2.1)",
        summary="SWP Fig. 1: foreground p99 slowdown per scheduling choice.",
        example="tailor reproduce swp-fig1 --out runs/fig1",
        quick="9 s",
        full="15 s",
        full_options="--engine packet",
        options=fig1.options,
        render=fig1.render,
    ),
    Reproduction(
        name="swp-capacity",
        paper="SWP",
        figure="Fig. 8-9 (§5.2)",
        summary="SWP Fig. 8-9: least capacity per discipline.",
        example="tailor reproduce swp-capacity --classes 5 --n 20",
        quick="85 s",
        full="20 min",
        full_options="--n 150",
        options=capacity.options,
        render=capacity.render,
    ),
)
