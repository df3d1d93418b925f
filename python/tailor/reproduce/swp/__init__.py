"""SWP (per-class switch weights that meet tail-latency SLOs, with a fast model;
``../shared/papers/swp-slos-without-priorities.txt``): its reproductions.

- ``fig1``: Fig. 1 (§2.1), the limits of priority scheduling, with each of the paper's
  claims about it checked;
- ``capacity``: Fig. 8-9 (§5.2), the least capacity per discipline over random Table 4
  scenarios.

The expected times were measured on a 2-core machine.
"""

from __future__ import annotations

from tailor.reproduce.registry import Reproduction
from tailor.reproduce.swp import capacity, fig1

__all__ = ["REPRODUCTIONS"]

REPRODUCTIONS = (
    Reproduction(
        name="swp-fig1",
        paper="SWP",
        figure="Fig. 1 (§2.1)",
        summary="SWP Fig. 1: foreground p99 slowdown per scheduling choice.",
        example="tailor reproduce swp-fig1 --out runs/fig1",
        quick="5 s",
        full="10 s",
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
        quick="40 s",
        full="10 min",
        full_options="--n 150",
        options=capacity.options,
        render=capacity.render,
    ),
)
