"""HULL (phantom queues, DCTCP and adaptive NIC pacing;
Alizadeh et al., NSDI 2012; docs/papers.md): its reproductions on the paper's 1 Gbps
testbed (``testbed``: ten servers on one switch, hosts with LSO, interrupt coalescing and
software delays).

- ``static``: Table 1 and Fig. 8 (§3.1, §6.1), 2-8 long flows into one receiver;
- ``fig2``: Fig. 2 (§3.1), TCP-ECN against DCTCP under a phantom queue swept;
- ``fig3``: Fig. 3 (§4.1), the bursts of one window-capped TCP flow at 10 Gbps;
- ``pacing``: Fig. 5 (§4.3) and Fig. 6 (§4.4), the phantom queue swept with and without
  pacing, and the pacer's β against its delay;
- ``dynamic``: Table 4 (§6.2.1) and Table 5 (§6.2.2), 1 KB and 10 MB requests at
  20/40/60 % load over persistent connections, and HULL against two priorities;
- ``fig11``: Fig. 11 (§6.2.1), Table 4's workload with and without the pacer;
- ``fattree``: §6.3 (Fig. 12, 13), 192 servers on a fat-tree at 15 % load, DCTCP against
  HULL, small- and large-flow completion times.

Built from ``paper`` (the paper's numbers), ``testbed`` (the scenarios) and ``runs``
(running points, reading probes and completion times). docs/reproductions-hull.md says
what they measured.

The expected times are wall times on a 2-core machine: hull-fig8 took about 10 s with
--quick and 2 min in full (28 runs of 2 s simulated); hull-table4 about 4 s with --quick
(12 points × 5 seeds × 10 10 MB flows since issue 26; before, one seed) and 95 s in full
(12 points × 5 seeds × 500 10 MB flows); hull-table5 2 min in full.
"""

from __future__ import annotations

from tailor.reproduce.hull import dynamic, fattree, fig2, fig3, fig9, fig10, fig11, pacing, static
from tailor.reproduce.registry import Reproduction

__all__ = ["REPRODUCTIONS"]

# Run times: ``full`` (the defaults) as measured in docs/reproductions-hull.md; ``quick``
# (with --quick) measured on 2026-11-27 on the 2-core machine with other jobs beside it (load
# average about 7: fig8 1.5 s, fig5 1.9 s, fig6 1.8 s, table4 3.7 s, table5 3.5 s, fattree 18.7 s);
# fig11 on 2026-11-28 beside three other helpers' jobs: 11 s quick, 14 min full (its 60 runs are
# hull-table4's size, which took 95 s on the idle machine). Since issue 26 every one runs 3
# seeds (table4 and table5 5) with --quick too; on 2026-11-28 at load average 3: fig8 1.1 s,
# fig5 1.6 s, fig6 0.6 s, table4 3.6 s, table5 1.4 s, fattree 11 s. fig2 and fig3 (2026-11-28,
# beside other helpers' jobs): 1.8 s and 2.0 s quick, 14 s and 2 s full. The full forms are three
# times their one-seed figures for fig8, fig5, fig6 and fattree (estimates, not timed).
REPRODUCTIONS = (
    Reproduction(
        name="hull-fig8",
        paper="HULL",
        figure="Table 1, Fig. 8 (§3.1, §6.1)",
        summary="HULL Table 1 / Fig. 8: long flows, latency, throughput.",
        example="tailor reproduce hull-fig8 --quick",
        quick="2 s",
        full="40 s",
        full_options="(the defaults)",
        options=static.options,
        render=static.render,
    ),
    Reproduction(
        name="hull-fig2",
        paper="HULL",
        figure="Fig. 2 (§3.1)",
        summary="HULL Fig. 2: TCP-ECN vs DCTCP, phantom queue swept.",
        example="tailor reproduce hull-fig2 --quick",
        quick="2 s",
        full="15 s",
        full_options="(the defaults)",
        options=fig2.options,
        render=fig2.render,
    ),
    Reproduction(
        name="hull-fig3",
        paper="HULL",
        figure="Fig. 3 (§4.1)",
        summary="HULL Fig. 3: LSO and coalescing bursts at 10 Gbps.",
        example="tailor reproduce hull-fig3 --quick",
        quick="2 s",
        full="2 s",
        full_options="(the defaults)",
        options=fig3.options,
        render=fig3.render,
    ),
    Reproduction(
        name="hull-fig9",
        paper="HULL",
        figure="Fig. 9 (§4.4)",
        summary="HULL Fig. 9: PQ latency vs flows, MTU 1,500 and 300.",
        example="tailor reproduce hull-fig9 --quick",
        quick="1 s",
        full="30 s",
        full_options="(the defaults)",
        options=fig9.options,
        render=fig9.render,
    ),
    Reproduction(
        name="hull-fig5",
        paper="HULL",
        figure="Fig. 5 (§4.3)",
        summary="HULL Fig. 5: phantom queue sweep, paced and unpaced.",
        example="tailor reproduce hull-fig5 --quick",
        quick="2 s",
        full="6 s",
        full_options="(the defaults)",
        options=pacing.fig5_options,
        render=pacing.render5,
    ),
    Reproduction(
        name="hull-fig6",
        paper="HULL",
        figure="Fig. 6 (§4.4)",
        summary="HULL Fig. 6: pacer β, switch latency vs pacer delay.",
        example="tailor reproduce hull-fig6 --quick",
        quick="1 s",
        full="3 s",
        full_options="(the defaults)",
        options=pacing.fig6_options,
        render=pacing.render6,
    ),
    Reproduction(
        name="hull-table4",
        paper="HULL",
        figure="Table 4 (§6.2.1)",
        summary="HULL Table 4: dynamic flows, four schemes, three loads.",
        example="tailor reproduce hull-table4 --quick",
        quick="4 s",
        full="95 s",
        full_options="(the defaults)",
        options=dynamic.table4_options,
        render=dynamic.render4,
    ),
    Reproduction(
        name="hull-fig10",
        paper="HULL",
        figure="Fig. 10 (§3.2, §6.2.1)",
        summary="HULL Fig. 10: 10 MB flows' slowdown, eq. 3 vs experiment.",
        example="tailor reproduce hull-fig10 --quick",
        quick="4 s",
        full="3 min",
        full_options="(the defaults)",
        options=fig10.options,
        render=fig10.render,
    ),
    Reproduction(
        name="hull-fig11",
        paper="HULL",
        figure="Fig. 11 (§6.2.1)",
        summary="HULL Fig. 11: pacing vs none, switch latency and 10 MB FCT.",
        example="tailor reproduce hull-fig11 --quick",
        quick="11 s",
        full="14 min",
        full_options="(the defaults)",
        options=fig11.options,
        render=fig11.render,
    ),
    Reproduction(
        name="hull-table5",
        paper="HULL",
        figure="Table 5 (§6.2.2)",
        summary="HULL Table 5: HULL vs two priorities, two buffer sizes.",
        example="tailor reproduce hull-table5 --quick",
        quick="4 s",
        full="34 s",
        full_options="(the defaults)",
        options=dynamic.table5_options,
        render=dynamic.render5,
    ),
    Reproduction(
        name="hull-fattree",
        paper="HULL",
        figure="Fig. 12-13 (§6.3)",
        summary="HULL §6.3: 192 servers on a fat tree, DCTCP vs HULL.",
        example="tailor reproduce hull-fattree --quick",
        quick="11 s",
        full="9 min",
        full_options="(the defaults; --flows 5000000 for the paper's count, about 25 min)",
        options=fattree.options,
        render=fattree.render,
    ),
)
