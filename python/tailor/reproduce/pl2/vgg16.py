"""PL2 §F.2.3, Fig. 9: VGG16's gradient shuffle. Four workers (hosts 0-3) send their
gradients to two parameter servers (hosts 4, 5) every iteration; an iteration ends when
the last gradient has arrived. PL2 (raw Ethernet over PL2) against RDS.

The gradients are VGG16's (Simonyan and Zisserman, "Very Deep Convolutional Networks for
Large-Scale Image Recognition", ICLR 2015, configuration D): 13 convolution and 3 fully
connected layers, 138,357,544 parameters, 553 MB in 32-bit floats (the paper's "500 MiB").
A worker shards each layer's gradient in halves, one per parameter server, cuts each half
into 1 MiB messages and hands them over to the two servers in turn (a chunk of one half,
then a chunk of the other), so both servers take each layer at once, in backpropagation's
order (fc8 first). It releases them at an application rate below the line rate (§F.2.3: "the aggregate incoming rate to
each parameter server is less than the line rate"): 44 Gbps a worker, so each server is
offered 4 × 22 = 88 Gbps, the top of the "70-89 Gbps" §F.1 gives and what the paper's own
figures make (500 MiB a worker, 9.5 s for 100 iterations: 88 Gbps a server). The paper
does not say how its emulation cut, ordered or paced the gradients; docs/reproductions-pl2.md
gives the experiments behind these choices (whole layers sent at once, and 1 MiB chunks
sent one server's half after the other's, leave a server's link idle).

Iterations are separate runs: a barrier separates them in synchronous training, so each
starts with the network empty. What varies from one to the next is when each worker
finishes its backward pass: tailor draws each worker's start uniformly in [0, 2 ms)
(stream `vgg16/<iteration>`), an assumption (the paper gives no compute times).
RDS grants in Homa's order (fewest bytes left first); the paper's RDS "did not prioritize
small messages" for this experiment, an order tailor's RDS does not offer.
"""

from __future__ import annotations

import json
import random
from itertools import zip_longest
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import polars as pl
import typer

from tailor import stats
from tailor.errors import OptionError
from tailor.outdir import staged
from tailor.reproduce.pl2 import rack, runs
from tailor.reproduce.pl2.paper import VGG16
from tailor.reproduce.registry import Out, Plan
from tailor.result import Result

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COLUMNS", "SCHEMES", "LAYERS", "options", "run", "render"]

#: The columns of vgg16.csv.
COLUMNS = ("scheme", "iteration", "iteration_ms", "ps_gbps", "worker_gbps")
SCHEMES = ("pl2", "rds")
WORKERS = (0, 1, 2, 3)
SERVERS = (4, 5)
#: VGG16 (configuration D): (layer, parameters: weights and biases).
LAYERS = (
    ("conv1_1", 1_792),
    ("conv1_2", 36_928),
    ("conv2_1", 73_856),
    ("conv2_2", 147_584),
    ("conv3_1", 295_168),
    ("conv3_2", 590_080),
    ("conv3_3", 590_080),
    ("conv4_1", 1_180_160),
    ("conv4_2", 2_359_808),
    ("conv4_3", 2_359_808),
    ("conv5_1", 2_359_808),
    ("conv5_2", 2_359_808),
    ("conv5_3", 2_359_808),
    ("fc6", 102_764_544),
    ("fc7", 16_781_312),
    ("fc8", 4_097_000),
)
JITTER_NS = 2_000_000
#: Bytes per message: a layer's gradient in chunks of this size, the servers in turn.
CHUNK = 1 << 20
#: A worker's application rate, Gbps (each server is offered 4 × 22 = 88 Gbps).
WORKER_GBPS = 44.0
#: Iterations per scheme.
FORMS = {"quick": 2, "full": 100}


def gradient_trace(iteration: int, worker_gbps: float = WORKER_GBPS) -> str:
    """One iteration's messages: each worker's layers, fc8 first, each layer's halves in
    1 MiB chunks to the two servers in turn, released at ``worker_gbps`` from the
    worker's start."""
    rng = random.Random(f"vgg16/{iteration}")
    rows: list[tuple[int, int, int, int, int]] = []
    for w in WORKERS:
        start = rng.randrange(JITTER_NS)
        released = 0
        for _, params in reversed(LAYERS):
            size = params * 4
            halves = [size // 2 + (size % 2 if k == 0 else 0) for k in range(len(SERVERS))]
            chunks = [
                [(ps, min(CHUNK, h - o)) for o in range(0, h, CHUNK)] for ps, h in zip(SERVERS, halves, strict=True)
            ]
            for ps, chunk in (c for turn in zip_longest(*chunks) for c in turn if c):
                rows.append((len(rows), w, ps, chunk, start + int(released * 8 / worker_gbps)))
                released += chunk
    # A trace's rows go in start order.
    rows.sort(key=lambda r: (r[4], r[0]))
    return "flow_id,sender,receiver,size_bytes,start_ns\n" + "".join(",".join(map(str, r)) + "\n" for r in rows)


def scenario(scheme: str, iteration: int) -> str:
    cls = f"""[[class]]
name = "gradients"
trace = "gradients-{iteration}.csv"
"""
    return rack.scenario(scheme, cls, stop="2s", threads=12)


def options(
    quick: Annotated[bool, typer.Option("--quick", help="2 iterations per scheme (seconds).")] = False,
    iterations: Annotated[
        Optional[int],
        typer.Option(
            help="Iterations per scheme, 1 to 1000 (default: the paper's 100; 2 with --quick).", show_default=False
        ),
    ] = None,
    worker_gbps: Annotated[
        float,
        typer.Option(
            help="Each worker's application rate, 1 to 1000 Gbps (above 100: as fast as the network takes them)."
        ),
    ] = WORKER_GBPS,
    out: Out = None,
) -> Plan:
    """PL2 Fig. 9: VGG16 gradient shuffle, 4 workers to 2 parameter servers, time per
    iteration, PL2 against RDS, beside the paper's."""
    n = FORMS["quick" if quick else "full"] if iterations is None else iterations
    if not 1 <= n <= 1000:
        raise OptionError(f"--iterations: {n} is out of range; accepted: 1 to 1000")
    if not 1 <= worker_gbps <= 1000:
        raise OptionError(f"--worker-gbps: {worker_gbps:g} is out of range; accepted: 1 to 1000")
    form = "quick" if quick else "full"
    pts = [
        runs.Pl2Point(
            f"{s}-{i}", 1, scenario(s, i), 200_000, files=((f"gradients-{i}.csv", gradient_trace(i, worker_gbps)),)
        )
        for s in SCHEMES
        for i in range(n)
    ]
    default = Path("runs") / ("pl2-vgg16-quick" if quick else "pl2-vgg16")
    return Plan(out or default, lambda out, say: run(pts, form, out, say, worker_gbps))


def run(points: list[runs.Pl2Point], form: str, out: Path, say: Any, worker_gbps: float = WORKER_GBPS) -> dict:
    """Runs the points into ``out`` (written whole once complete): scenarios, runs,
    vgg16.csv and vgg16.json."""
    total = sum(p * 4 for _, p in LAYERS) * len(WORKERS)
    with staged(out, "reproduction", name="pl2-vgg16") as work:
        dirs = runs.run(points, work, f"tailor reproduce pl2-vgg16, {form} form", say)
        rows = []
        for p in points:
            m = pl.read_parquet(dirs[p] / "messages.parquet")
            s = Result(dirs[p]).summary
            if s["messages"]["incomplete"]:
                raise RuntimeError(f"{dirs[p]}: {s['messages']['incomplete']} gradients did not arrive in 2 s")
            ms = float(m["finish_ns"].max()) / 1e6
            scheme, i = p.name.rsplit("-", 1)
            rows.append(
                {
                    "scheme": scheme,
                    "iteration": int(i),
                    "iteration_ms": ms,
                    "ps_gbps": total * 8 / (ms / 1e3) / 1e9 / len(SERVERS),
                    "worker_gbps": worker_gbps,
                }
            )
        pl.DataFrame([{c: r[c] for c in COLUMNS} for r in rows]).write_csv(work / "vgg16.csv")
        report = {
            "reproduction": "pl2-vgg16",
            "form": form,
            "gradient_bytes": total // len(WORKERS),
            "worker_gbps": worker_gbps,
            "rows": rows,
        }
        (work / "vgg16.json").write_text(json.dumps(report, indent=1))
    return report


def _pct(ms: list[float], p: float) -> str:
    """The nearest-rank ``p``-th percentile of the iterations' times with its bootstrap
    interval over them (iterations are independent runs, so they are the replicates), or a
    dash below the iterations the percentile needs."""
    need = stats.samples_needed(p)
    if len(ms) < need:
        return f"— n={len(ms)}<{need}"
    ci = stats.bootstrap_ci(ms, percentile=p)
    return f"{stats.percentile(ms, p):.0f}" + (f" [{ci[0]:.0f}–{ci[1]:.0f}]" if ci else "")


def render(report: dict[str, Any], console: Console) -> None:
    """Fig. 9's reading: iteration time percentiles and the total, paper / tailor."""
    from rich import box
    from rich.table import Table

    rate = report.get("worker_gbps", WORKER_GBPS)
    t = Table(
        title=f"PL2 Fig. 9: VGG16 gradient shuffle ({report['gradient_bytes'] / 1e6:.0f} MB per worker at "
        f"{rate:g} Gbps), 4 workers to 2 parameter servers; paper / tailor ({report['form']} form)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for c in ("scheme", "iterations", "p50 ms", "p99 ms", "total s", "per server Gbps (mean)"):
        t.add_column(c, justify="left" if c == "scheme" else "right")
    for s in SCHEMES:
        rs = [r for r in report["rows"] if r["scheme"] == s]
        if not rs:
            continue
        ms = [r["iteration_ms"] for r in rs]
        p = VGG16[s]
        n = len(rs)
        total = sum(ms) / 1e3
        t.add_row(
            rack.scheme_label(s),
            f"{n}",
            f"— / {_pct(ms, 50)}",
            f"{p['p99_ms']:.0f} / {_pct(ms, 99)}",
            f"{p['total_s']:g} / {total * 100 / n:.1f} (per 100)",
            f"70-89 / {sum(r['ps_gbps'] for r in rs) / n:.1f}",
        )
    console.print(t)
    console.print(
        "Percentiles are over the iterations (each its own run): the value [its bootstrap interval over "
        "iterations]; a p99 needs 100 iterations, else —. Layer sizes: VGG16 configuration D "
        "(138.4 M parameters, fp32); each layer in 1 MiB messages to the two servers in turn, released "
        "at the worker's rate; worker starts drawn in [0, 2 ms). docs/reproductions-pl2.md.",
        highlight=False,
        markup=False,
    )
