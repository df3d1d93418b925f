"""PL2 (timeslot reservations in the ToR; Le et al., arXiv:2101.06537; docs/papers.md):
its reproductions on the paper's rack (``rack``: six servers on one 100 Gbps ToR, PL2's
agent in the switch, the hosts' threads and delays).

- ``microburst``: Fig. 3 (§B), 5 × 18 Gbps of messages within one RTT into one receiver,
  RDS against raw Ethernet over PL2;
- ``incast``: Fig. 11a and 12 (§F.4), persistent incast and outcast of 6,000 B messages
  from 1 to 5 hosts, raw Ethernet against raw Ethernet over PL2;
- ``fig11b``: Fig. 11b (§F.4), the switch's queueing delay at the receiver in that incast;
- ``fig11c``: Fig. 11c (§F.4), TCP over PL2 against TCP Cubic in the same incast;
- ``ksweep`` and ``tsweep`` (on ``sweep``'s W4 incast): §D.3's burst size K and §D.4's
  threshold t (at two drop thresholds T), swept;
- ``memcached``: Fig. 5-8 (§F.2), a closed-loop memcached client under TCP or UDP
  background incast from 0 to 4 hosts, with and without PL2;
- ``traces``: Fig. 10 (§F.3), W1-W5 in a 3-way incast over raw Ethernet, UDP and TCP
  over PL2, TCP Cubic, RDS and raw Ethernet alone between two servers;
- ``vgg16``: Fig. 9 (§F.2.3), VGG16's gradients from 4 workers to 2 parameter servers
  per training iteration, PL2 against RDS;
- ``leafspine``: beyond the paper, two PL2 racks on a leaf-spine, a rack's incast while
  traffic from the other rack enters without reservations.

Built from ``paper`` (the numbers the paper's text gives), ``rack`` (the scenarios) and
``runs`` (running points, reading latencies and ports). docs/reproductions-pl2.md says what
they measured.

The expected times are wall times on a 2-core machine: pl2-microburst took 4.7 s with
--quick (18 runs of 20 ms) and 53 s in full (30 runs of 200 ms); pl2-incast-outcast 1.6 s
and 8 s (3 seeds: 36 runs of 0.5 ms and 60 runs of 5 ms).
"""

from __future__ import annotations

from tailor.reproduce.pl2 import fig11b, fig11c, incast, ksweep, leafspine, memcached, microburst, traces, tsweep, vgg16
from tailor.reproduce.registry import Reproduction

__all__ = ["REPRODUCTIONS"]

# Run times: ``quick`` (with --quick) measured on 2026-11-27 on the 2-core machine with other
# jobs beside it (load average about 8: microburst 2.8 s, incast-outcast 2.7 s, memcached
# 3.5 s, traces 4.6 s (1.9 s with its 3 seeds on a quieter machine, full form 18 s), leafspine 2.5 s (2.7 s with its 3 seeds, load average 6), vgg16 13.4 s) and ``full`` (the defaults) likewise:
# microburst 4.8 s, incast-outcast 3.4 s, memcached 13.5 s, leafspine 5.7 s (14 s with its 3
# seeds, load average 6); traces 6 s and
# vgg16 81 s as measured in docs/reproductions-pl2.md. Microburst and memcached with their
# seeds (2026-11-28, three other helpers' jobs beside them): quick 4.7 and 4.0 s, full 53
# and 66 s. Fig. 11b, 11c and the sweeps (2026-11-28, other helpers' jobs beside them): quick
# 1.2, 4.3, 1.3 and 2.0 s; full 5.3, 62, 9.0 and 28 s.
REPRODUCTIONS = (
    Reproduction(
        name="pl2-microburst",
        paper="PL2",
        figure="Fig. 3 (§B)",
        summary="PL2 Fig. 3: microbursts, PL2 vs RDS, tails and drops.",
        example="tailor reproduce pl2-microburst --quick",
        quick="5 s",
        full="55 s",
        full_options="(the defaults: 5 seeds)",
        options=microburst.options,
        render=microburst.render,
    ),
    Reproduction(
        name="pl2-incast-outcast",
        paper="PL2",
        figure="Fig. 11a, 12 (§F.4)",
        summary="PL2 Fig. 11a / 12: incast and outcast, loss, goodput.",
        example="tailor reproduce pl2-incast-outcast --quick",
        quick="2 s",
        full="8 s",
        full_options="(3 seeds; --host-delay prototype_sw: the prototype's exchanges)",
        options=incast.options,
        render=incast.render,
    ),
    Reproduction(
        name="pl2-fig11b",
        paper="PL2",
        figure="Fig. 11b (§F.4)",
        summary="PL2 Fig. 11b: incast, switch queueing delay.",
        example="tailor reproduce pl2-fig11b --quick",
        quick="2 s",
        full="6 s",
        full_options="(the defaults: 3 seeds)",
        options=fig11b.options,
        render=fig11b.render,
    ),
    Reproduction(
        name="pl2-fig11c",
        paper="PL2",
        figure="Fig. 11c (§F.4)",
        summary="PL2 Fig. 11c: incast, TCP over PL2 vs Cubic.",
        example="tailor reproduce pl2-fig11c --quick",
        quick="5 s",
        full="65 s",
        full_options="(the defaults: 3 seeds; --cubic-window 32KB: a fixed window)",
        options=fig11c.options,
        render=fig11c.render,
    ),
    Reproduction(
        name="pl2-memcached",
        paper="PL2",
        figure="Fig. 5-8 (§F.2)",
        summary="PL2 Fig. 5-8: memcached under TCP or UDP incast.",
        example="tailor reproduce pl2-memcached --quick",
        quick="4 s",
        full="70 s",
        full_options="(the defaults: 5 seeds)",
        options=memcached.options,
        render=memcached.render,
    ),
    Reproduction(
        name="pl2-traces",
        paper="PL2",
        figure="Fig. 10 (§F.3)",
        summary="PL2 Fig. 10: W1-W5 3-way incast, six schemes.",
        example="tailor reproduce pl2-traces --quick",
        quick="2 s",
        full="18 s",
        full_options="(the defaults)",
        options=traces.options,
        render=traces.render,
    ),
    Reproduction(
        name="pl2-leafspine",
        paper="PL2",
        figure="beyond the paper (§G)",
        summary="PL2 on a leaf-spine: a rack's incast, traffic from outside.",
        example="tailor reproduce pl2-leafspine --quick",
        quick="3 s",
        full="14 s",
        full_options="(the defaults)",
        options=leafspine.options,
        render=leafspine.render,
    ),
    Reproduction(
        name="pl2-vgg16",
        paper="PL2",
        figure="Fig. 9 (§F.2.3)",
        summary="PL2 Fig. 9: VGG16 gradient shuffle, PL2 vs RDS.",
        example="tailor reproduce pl2-vgg16 --quick",
        quick="13 s",
        full="81 s",
        full_options="(the defaults: 100 iterations)",
        options=vgg16.options,
        render=vgg16.render,
    ),
    Reproduction(
        name="pl2-k-sweep",
        paper="PL2",
        figure="§D.3 (K)",
        summary="PL2 §D.3: burst size K swept, rate, loss, latency.",
        example="tailor reproduce pl2-k-sweep --quick",
        quick="2 s",
        full="10 s",
        full_options="(the defaults: 5 seeds)",
        options=ksweep.options,
        render=ksweep.render,
    ),
    Reproduction(
        name="pl2-t-sweep",
        paper="PL2",
        figure="§D.4 (t, T)",
        summary="PL2 §D.4: threshold t swept at T = 512 and 64, loss.",
        example="tailor reproduce pl2-t-sweep --quick",
        quick="2 s",
        full="30 s",
        full_options="(the defaults: 5 seeds)",
        options=tsweep.options,
        render=tsweep.render,
    ),
)
