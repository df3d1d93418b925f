"""Homa (a receiver-driven low-latency transport using network priorities;
Montazeri et al., SIGCOMM 2018; docs/papers.md): its reproductions on the paper's
fabric (scenarios/homa/).

- ``fig12``: Fig. 12 and 13 (§5.2), p99 and median slowdown per message-size bucket for
  W1-W5 at 50 % and 80 % load, beside the authors' numbers (``data/``) and §5.2's claim;
- ``fig10``: Fig. 10 (§5.1), one client's throughput with N RPCs of 10 KB responses
  outstanding, incast control on and off, on the 16-node cluster;
- ``fig14``: Fig. 14 (§5.2), preemption lag against queueing in the tail delay of short
  messages (``[record] waits``), W1-W5 at 80 %;
- ``table1``: Table 1 (§5.2), mean and max queue lengths per switch tier at 80 % load;
- ``fig15``: Fig. 15 (§5.2), the highest load each transport sustains per workload (where
  the bytes delivered stop keeping up with those offered), with its application-data part;
- ``maxload``: Fig. 15 and 16 (§5.2), the highest load Homa sustains (where the wasted
  receiver bandwidth reaches the surplus), W4 with 1, 2, 4 and 7 scheduled levels;
- ``cluster``: Fig. 8 and 9 (§5.1) simulated on the 16-host cluster (scenarios/homa/cluster-*),
  echo-RPC p99 and median slowdown per size for W3-W5 at 80 %, Homa beside HomaP4/P2/P1 and
  Basic, with §5.1's claims;
- ``sensitivity``: Fig. 17-20 (§5.2), unscheduled levels (W1), the cutoff between two
  unscheduled levels (W3), 4 vs 7 scheduled levels (W4), unscheduled-byte limits (W4);
- ``fig21``: Fig. 21 (§5.2), the bytes arriving on each priority level, W3 at 50/80/90 %.

Built from: ``buckets`` (the authors' size buckets), ``paper`` (the paper's numbers and the
authors' data), ``points`` (which scenario a point runs, for how long; the runs), ``bins``
(slowdown per bucket), ``judge`` (ours beside a reference), ``tables`` and ``figure``
(what fig12 prints and draws). docs/reproductions-homa.md says how and what they measured.

The expected times are wall times on a 2-core machine, two points at once, rounded up:
homa-fig12 took 2.6 min for its 10 points at full length (a W5 point 2 min, W1-W3 5-12 s;
52 s with --quick); homa-table1 3.0 min at full length (W5 100 s; 11 s with --quick);
homa-cluster 4.1 min at full length (a W5 point 67-75 s).
"""

from __future__ import annotations

from tailor.reproduce.homa import cluster, fig10, fig12, fig14, fig15, fig21, maxload, sensitivity, table1
from tailor.reproduce.registry import Reproduction

__all__ = ["REPRODUCTIONS"]

# Run times (``quick``: with --quick; ``full``: with the full options) as measured in
# docs/reproductions-homa.md on the 2-core machine: fig12 52 s / 2.6 min (the table of run
# lengths), table1 11 s / 3.0 min, max-load 51 s / 27 min 28 s, cluster 1.5 min / 4.1 min,
# sensitivity 35 s / 3.0 min; fig21 1.5 min / 23 min (load average 7-9, three W3 runs one after
# another); fig14 --quick 33 s a seed as issue 24's session measured it, three seeds (the
# default since issue 26) 6.5 min on 2026-11-27 at load average 5 beside four other jobs
# (about 1.7 min alone: three times one seed). Not measured: fig14's full form, fig15 (about
# an hour per transport at full length). fig10 2.4 s / 24 s (load average 6).
REPRODUCTIONS = (
    Reproduction(
        name="homa-fig12",
        paper="Homa",
        figure="Fig. 12-13 (§5.2)",
        summary="Homa Fig. 12-13: slowdown per message size.",
        example="tailor reproduce homa-fig12 --quick --workloads W3 --loads 0.8",
        quick="2.6 min",
        full="8 min",
        full_options="(the defaults; --seeds 5: intervals, 5 times as long)",
        options=fig12.options,
        render=fig12.render,
    ),
    Reproduction(
        name="homa-fig10",
        paper="Homa",
        figure="Fig. 10 (§5.1)",
        summary="Homa Fig. 10: incast, throughput vs RPCs outstanding.",
        example="tailor reproduce homa-fig10 --quick",
        quick="3 s",
        full="25 s",
        full_options="(the defaults)",
        options=fig10.options,
        render=fig10.render,
    ),
    Reproduction(
        name="homa-fig14",
        paper="Homa",
        figure="Fig. 14 (§5.2)",
        summary="Homa Fig. 14: preemption lag vs queueing in the tail.",
        example="tailor reproduce homa-fig14 --quick --workloads W3",
        quick="1.7 min",
        full="9 min",
        full_options="(the defaults)",
        options=fig14.options,
        render=fig14.render,
    ),
    Reproduction(
        name="homa-table1",
        paper="Homa",
        figure="Table 1 (§5.2)",
        summary="Homa Table 1: queue lengths per switch tier.",
        example="tailor reproduce homa-table1 --quick",
        quick="11 s",
        full="3.0 min",
        full_options="(the defaults)",
        options=table1.options,
        render=table1.render,
    ),
    Reproduction(
        name="homa-fig15",
        paper="Homa",
        figure="Fig. 15 (§5.2)",
        summary="Homa Fig. 15: highest sustainable load per transport.",
        example="tailor reproduce homa-fig15 --quick --workloads W1,W2",
        quick="10 min",
        full="3 h",
        full_options="--transports homa,pfabric,pias,phost,ndp",
        options=fig15.options,
        render=fig15.render,
    ),
    Reproduction(
        name="homa-max-load",
        paper="Homa",
        figure="Fig. 15-16 (§5.2)",
        summary="Homa Fig. 15-16: maximum sustainable load, wasted bandwidth.",
        example="tailor reproduce homa-max-load --quick",
        quick="51 s",
        full="27 min",
        full_options="(the defaults)",
        options=maxload.options,
        render=maxload.render,
    ),
    Reproduction(
        name="homa-cluster",
        paper="Homa",
        figure="Fig. 8-9 (§5.1)",
        summary="Homa Fig. 8-9: RPC slowdown, HomaPx and Basic.",
        example="tailor reproduce homa-cluster --quick --workloads W3",
        quick="4.5 min",
        full="12 min",
        full_options="(the defaults)",
        options=cluster.options,
        render=cluster.render,
    ),
    Reproduction(
        name="homa-sensitivity",
        paper="Homa",
        figure="Fig. 17-20 (§5.2)",
        summary="Homa Fig. 17-20: levels, cutoffs, blind bytes.",
        example="tailor reproduce homa-sensitivity --quick --figures fig18",
        quick="35 s",
        full="3.0 min",
        full_options="(the defaults)",
        options=sensitivity.options,
        render=sensitivity.render,
    ),
    Reproduction(
        name="homa-fig21",
        paper="Homa",
        figure="Fig. 21 (§5.2)",
        summary="Homa Fig. 21: bytes per priority level, W3.",
        example="tailor reproduce homa-fig21 --quick",
        quick="1.5 min",
        full="25 min",
        full_options="(the defaults)",
        options=fig21.options,
        render=fig21.render,
    ),
)
