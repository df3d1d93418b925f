"""SWP (per-class switch weights that meet tail-latency SLOs, with a fast model;
Zhao et al., arXiv:2103.01314; docs/papers.md): its reproductions.

- ``fig1``: Fig. 1 (§2.1), the limits of priority scheduling, with each of the paper's
  claims about it checked;
- ``capacity``: Fig. 8-9 (§5.2), the least capacity per discipline over random Table 4
  scenarios.

The expected times are wall times on a 2-core machine, rounded up: swp-fig1 took 3 s
on the model and 6-8 s with --engine packet. swp-capacity --quick took 19 s (2 searches
of 3 classes; its 2 five-class scenarios are not judged under its 30 ms cap). Its full
form is an estimate from CPU seconds per search measured on 2026-11-27 under load
(docs/advisor.md, "Reproductions"): the model calibrated, host links scaled, about 7
CPU-s per 3-class search and 17 per 5-class one (host links fixed, the main variant's
reading, cost the same), so 150 + 150 scenarios are 3,600 CPU-s;
the other model variants on 40 + 40 (measured with helper B's build: the same cost
within the noise) 2,900; the packet engine on 4 + 4 in two scalings (measured the same
day: about 80 CPU-s per 3-class search, 150 per 5-class one) 1,840: 8,300 CPU-s, about
70 minutes on 2 idle cores.
"""

from __future__ import annotations

from tailor.reproduce.registry import Reproduction
from tailor.reproduce.swp import capacity, fig1

__all__ = ["REPRODUCTIONS"]

# Run times measured on 2026-11-27 on the 2-core machine with other jobs beside it (load
# average 6-8): swp-fig1 8.8 s (issue 24's session measured 10.8 s), swp-fig1 --engine
# packet 15.3 s (its ``quick``: the defaults, it has no --quick); swp-capacity --quick 19 s.
# With 3 seeds a point (issue 26), at load average 6: swp-fig1 11.9 s, --engine packet 23.3 s.
# Not measured whole: swp-capacity's full form, estimated from CPU-s per search (above).
REPRODUCTIONS = (
    Reproduction(
        name="swp-fig1",
        paper="SWP",
        figure="Fig. 1 (§2.1)",
        summary="SWP Fig. 1: foreground p99 slowdown per scheduling choice.",
        example="tailor reproduce swp-fig1 --out runs/fig1",
        quick="12 s",
        full="24 s",
        full_options="--engine packet",
        options=fig1.options,
        render=fig1.render,
    ),
    Reproduction(
        name="swp-capacity",
        paper="SWP",
        figure="Fig. 8-9 (§5.2)",
        summary="SWP Fig. 8-9: least capacity per discipline.",
        example="tailor reproduce swp-capacity --quick",
        quick="20 s",
        full="70 min",
        full_options="(the defaults)",
        options=capacity.options,
        render=capacity.render,
    ),
)
