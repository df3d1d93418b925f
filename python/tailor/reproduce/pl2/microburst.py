"""PL2 §B, Fig. 3: microbursts. Five senders at about 18 Gbps each into one receiver of
the rack (``rack``), every message small enough to go in one RTT, under RDS (Homa-like,
61 KiB blind) and under raw Ethernet over PL2: message latency (p50, p99, p99.9), drops
and the largest switch queue.

The paper gives neither the sizes nor the arrival process nor the exact load ("roughly
18 Gbps traffic per sender"). tailor draws sizes uniformly from one packet to 61 KiB (the
rack's BDP: every message fits in one RTT) with Poisson arrivals, and fits the load to
the two observables the text states for RDS: drops "around 0.1 %" and a p99 at "the
maximum output-buffering available in the ToR switch (around 120 µs)". 87 Gbps of
message bytes in all (17.4 Gbps per sender) meets both; 86 and 88 do not (the sweep is in
docs/reproductions-pl2.md). Beside the fit, the same load with fixed-size messages (the
uniform's mean, 31,982 B) over PL2, Poisson and periodic, and the optimum the paper uses
elsewhere (§F.3: all of it from one server, raw Ethernet, no contention) show what sets
PL2's p99 against its median.

Each variant runs several seeds; a percentile is computed per seed (nearest rank, from
that seed's messages) and printed as the mean over seeds with a 95 % bootstrap interval
and the fewest messages in a seed, and only where every seed has the messages it needs
(``tailor.reproduce.cells``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import polars as pl
import typer

from tailor.errors import OptionError
from tailor.outdir import staged
from tailor.reproduce import cells
from tailor.reproduce.pl2 import rack, runs
from tailor.reproduce.pl2.paper import MICROBURST
from tailor.reproduce.registry import Out, Plan
from tailor.result import Result
from tailor.stats import Estimate, percentile

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COLUMNS", "VARIANTS", "options", "run", "render"]

#: The columns of microburst.csv: one row per variant and seed.
COLUMNS = (
    "variant",
    "scheme",
    "sizes",
    "arrival",
    "senders",
    "seed",
    "messages",
    "p50_us",
    "p99_us",
    "p999_us",
    "drops",
    "drop_fraction",
    "max_queue_bytes",
)
#: (variant, scheme, sizes, arrival, senders): the fit (PL2 and RDS), PL2 with fixed-size
#: messages, and the optimum (one server, raw Ethernet) with each size law.
VARIANTS = (
    ("pl2", "pl2", "uniform", "poisson", 5),
    ("rds", "rds", "uniform", "poisson", 5),
    ("raw-optimal", "raw", "uniform", "poisson", 1),
    ("pl2-fixed", "pl2", "fixed", "poisson", 5),
    ("raw-optimal-fixed", "raw", "fixed", "poisson", 1),
    ("pl2-fixed-periodic", "pl2", "fixed", "periodic", 5),
)
SENDERS = 5
RECEIVER = 5
#: Message bytes per second offered in all: the fit (docs/reproductions-pl2.md).
GBPS = 87
#: The uniform law's largest size (61 KiB, the rack's BDP); the fixed size is the law's mean.
MAX_BYTES = 62_464
#: Simulated ms per seed and default seeds: the quick form's 20 ms give about 7,000
#: messages a seed (a p99.9 from 7 above it), the full form's 200 ms about 68,000.
FORMS = {"quick": (20, 3), "full": (200, 5)}


#: Sizes: uniform from one 1,500 B packet to 61 KiB (linear between the two points).
def sizes_cdf(max_bytes: int = MAX_BYTES) -> str:
    """The size table: uniform from one packet to ``max_bytes``."""
    return (
        "# Written by tailor reproduce pl2-microburst: messages within one RTT of the rack (61 KiB),\n"
        f"# uniform from one packet.\n1500 0\n{max_bytes} 1\n"
    )


_LABELS = {
    "pl2": "raw Ethernet over PL2",
    "rds": "RDS",
    "raw-optimal": "raw Ethernet (optimal), one sender",
    "pl2-fixed": "PL2, fixed size",
    "raw-optimal-fixed": "optimal, fixed size",
    "pl2-fixed-periodic": "PL2, fixed size, periodic",
}


def scenario(
    scheme: str,
    length_ms: int,
    seed: int,
    *,
    gbps: float = GBPS,
    sizes: str = "uniform",
    arrival: str = "poisson",
    senders: int = SENDERS,
    max_bytes: int = MAX_BYTES,
) -> str:
    fixed = (1_500 + max_bytes) // 2
    law = 'sizes_cdf = "below-rtt.cdf"\ninterpolation = "linear"' if sizes == "uniform" else f'sizes_fixed = "{fixed}B"'
    cls = f"""[[class]]
name = "burst"
{law}
arrival = "{arrival}"
rate = "{gbps:g}Gbps"
pattern = "n_to_1"
senders = "0..{senders}"
receiver = {RECEIVER}
until = "{length_ms}ms"
"""
    # Messages still in flight at the end are not cut off: the run goes on 5 ms longer.
    return rack.scenario(scheme, cls, stop=f"{length_ms + 5}ms", seed=seed)


def options(
    quick: Annotated[bool, typer.Option("--quick", help="20 ms per variant and seed (seconds in all).")] = False,
    seeds: Annotated[
        int | None,
        typer.Option(
            help="Seeds per variant (default: 3 quick, 5 full); the table gives "
            "the mean over seeds and its bootstrap interval."
        ),
    ] = None,
    gbps: Annotated[float, typer.Option(help="Message bytes offered in all, Gbps (the fit: 87).")] = GBPS,
    max_kib: Annotated[int, typer.Option(help="Largest message, KiB (uniform from 1,500 B; the BDP: 61).")] = 61,
    out: Out = None,
) -> Plan:
    """PL2 Fig. 3: message latency, drops and switch queue under 5-way microbursts (87 Gbps
    in all, fitted), RDS against raw Ethernet over PL2, with fixed sizes and the optimum,
    beside the paper's."""
    if seeds is not None:
        cells.check_seeds(seeds)
    if not 1 <= gbps <= 99:
        raise OptionError(f"--gbps: {gbps:g}; accepted: 1 to 99 (the receiver's link is 100 Gbps)")
    if not 2 <= max_kib <= 61:
        raise OptionError(f"--max-kib: {max_kib}; accepted: 2 to 61 (a message within one RTT of the rack)")
    form = "quick" if quick else "full"
    length, default_seeds = FORMS[form]
    most = max_kib * 1024
    pts = [
        runs.Pl2Point(
            v,
            seed,
            scenario(s, length, seed, gbps=gbps, sizes=z, arrival=a, senders=n, max_bytes=most),
            (length + 5) * 1000,
            files=(("below-rtt.cdf", sizes_cdf(most)),),
        )
        for v, s, z, a, n in VARIANTS
        for seed in range(1, (seeds or default_seeds) + 1)
    ]
    default = Path("runs") / ("pl2-microburst-quick" if quick else "pl2-microburst")
    return Plan(out or default, lambda out, say: run(pts, form, out, say, gbps, most))


def _seed_row(variant: tuple[str, str, str, str, int], seed: int, run_dir: Path) -> tuple[dict[str, Any], pl.Series]:
    lat = runs.latencies_us([run_dir])
    s = Result(run_dir).summary
    sent = int(runs.ports(run_dir).filter(pl.col("role") == "host_nic")["sent_packets"].sum())
    v, scheme, sizes, arrival, senders = variant
    row = {
        "variant": v,
        "scheme": scheme,
        "sizes": sizes,
        "arrival": arrival,
        "senders": senders,
        "seed": seed,
        "messages": len(lat),
        "p50_us": percentile(lat, 50),
        "p99_us": percentile(lat, 99),
        "p999_us": percentile(lat, 99.9),
        "drops": s["network"]["drops"],
        "drop_fraction": s["network"]["drops"] / max(1, sent),
        "max_queue_bytes": s["network"]["max_queue_bytes"],
        "incomplete": s["messages"]["incomplete"],
    }
    return row, lat


def run(
    points: list[runs.Pl2Point], form: str, out: Path, say: Any, gbps: float = GBPS, max_bytes: int = MAX_BYTES
) -> dict:
    """Runs the points into ``out`` (written whole once complete): scenarios, runs,
    microburst.csv (per seed) and microburst.json (across seeds)."""
    with staged(out, "reproduction", name="pl2-microburst") as work:
        dirs = runs.run(points, work, f"tailor reproduce pl2-microburst, {form} form", say)
        seed_rows, variants = [], []
        for variant in VARIANTS:
            mine = [p for p in points if p.name == variant[0]]
            pairs = [_seed_row(variant, p.seed, dirs[p]) for p in mine]
            seed_rows += [r for r, _ in pairs]
            rows = [r for r, _ in pairs]
            est = {
                f"{k}_us": Estimate.of_samples([lat.to_numpy() for _, lat in pairs], p)
                for k, p in (("p50", 50), ("p99", 99), ("p999", 99.9))
            }
            est["drop_fraction"] = Estimate.of_values([(r["drop_fraction"], 1) for r in rows])
            variants.append(
                {
                    "variant": variant[0],
                    "seeds": len(rows),
                    "messages": sum(r["messages"] for r in rows),
                    **{c: v for k, e in est.items() for c, v in cells.columns(k, e).items()},
                    "drops": sum(r["drops"] for r in rows),
                    "incomplete": sum(r["incomplete"] for r in rows),
                    "max_queue_bytes": max(r["max_queue_bytes"] for r in rows),
                }
            )
        pl.DataFrame([{c: r[c] for c in COLUMNS} for r in seed_rows]).write_csv(work / "microburst.csv")
        report = {
            "reproduction": "pl2-microburst",
            "form": form,
            "length_ms": FORMS[form][0],
            "gbps": gbps,
            "max_bytes": max_bytes,
            "rows": variants,
            "seed_rows": seed_rows,
        }
        (work / "microburst.json").write_text(json.dumps(report, indent=1))
    return report


#: The percentile each estimate of a row is (None: a mean over seeds).
_P = {"p50_us": 50, "p99_us": 99, "p999_us": 99.9, "drop_fraction": None}


def render(report: dict[str, Any], console: Console) -> None:
    """Fig. 3's reading, paper / tailor: means over seeds [95 % interval] n = fewest
    messages in a seed."""
    from rich import box
    from rich.table import Table

    t = Table(
        title=f"PL2 Fig. 3: 5-way microbursts, {report['gbps']:g} Gbps in all, sizes to "
        f"{report['max_bytes'] / 1024:.0f} KiB, paper / tailor ({report['form']} form, "
        f"{report['length_ms']} ms per seed)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for c in ("variant", "p50 µs", "p99 µs", "p99.9 µs", "p99 / p50", "drops (fraction)", "max queue"):
        t.add_column(c, justify="left" if c == "variant" else "right")
    for r in report["rows"]:
        est = {k: cells.restore(k, r, p) for k, p in _P.items()}
        p = MICROBURST.get(r["variant"])
        paper_p99 = "" if p is None else ("— / " if p["p99_us"] is None else f"~{p['p99_us']:.0f} / ")
        paper_drop = "" if p is None else f"~{p['drop_fraction']:.1%} / "
        paper_q = "" if p is None or p["max_queue_bytes"] is None else f"≤ {p['max_queue_bytes'] / 1024:.0f} KiB / "
        judged = est["p99_us"].judged and est["p50_us"].judged
        ratio = f"{r['p99_us'] / r['p50_us']:.1f}" if judged else "—"
        paper_ratio = {"pl2": "~1 / ", "rds": "— / "}.get(r["variant"], "")
        fr = est["drop_fraction"]
        drops = f"{fr.value:.3%}" + ("" if fr.ci is None else f" [{fr.ci[0]:.3%}–{fr.ci[1]:.3%}]")
        t.add_row(
            _LABELS[r["variant"]],
            cells.text(est["p50_us"], ",.1f"),
            paper_p99 + cells.text(est["p99_us"], ",.0f"),
            cells.text(est["p999_us"], ",.0f"),
            paper_ratio + ratio,
            f"{paper_drop}{r['drops']:,} ({drops})",
            f"{paper_q}{r['max_queue_bytes'] / 1024:,.0f} KiB",
        )
    console.print(t)
    console.print(
        "The paper's figure is not tabulated: its text gives RDS's p99 (the buffer's worth of queueing), "
        "its drops and p99.9 (two orders above), PL2's largest queue and its tail 'similar to its median'. "
        "Sizes uniform from 1,500 B (not given by the paper); the load fitted to RDS's drops and p99 "
        "(docs/reproductions-pl2.md). Drops: summed over seeds, then the mean fraction over seeds "
        f"with its interval.\n"
        f"{cells.legend((50, 99, 99.9))}",
        highlight=False,
    )
