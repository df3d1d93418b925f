"""``tailor run`` and ``tailor check``: one scenario, run or only read."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated, Optional

import typer

from tailor import fmt
from tailor.cli import Scenario_, Seed_, app, stderr, stdout, user_errors


@app.command(
    short_help="Run a scenario and print slowdown by message size.",
    epilog="Example: tailor run scenarios/quickstart.toml --seed 7 --out runs/quickstart",
)
@user_errors
def run(
    scenario: Scenario_,
    seed: Seed_ = None,
    out: Annotated[
        Optional[Path],
        typer.Option(
            help="Result directory (default: runs/<name>-<engine>-s<seed>). An earlier tailor run there is "
            "replaced (its own files only); any other non-empty directory is refused.",
            show_default=False,
        ),
    ] = None,
    csv: Annotated[bool, typer.Option("--csv", help="Keep messages.csv beside messages.parquet.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr (errors only).")] = False,
    progress_json: Annotated[
        bool,
        typer.Option(
            "--progress-json",
            help="Progress as JSON lines on stderr even on a terminal (the default when stderr is not one).",
        ),
    ] = False,
    engine: Annotated[
        str,
        typer.Option(
            help="'packet' (the packet simulator), 'model' (the SWP fast model), 'oracle' (the SRPT oracle) or 'decomposed' (estimates by per-link simulations, docs/decomposed.md)."
        ),
    ] = "packet",
    ray: Annotated[
        Optional[str],
        typer.Option(
            help="With --engine decomposed: run the link simulations on Ray: 'local' (start one here), "
            "'auto' (the running cluster) or ray://HOST:PORT.",
            show_default=False,
        ),
    ] = None,
    ray_workers: Annotated[
        Optional[int],
        typer.Option(
            help="With --ray: at most this many link-simulation tasks at once ('local' starts Ray with "
            "this many CPUs). Default: the cluster's CPUs.",
            show_default=False,
        ),
    ] = None,
    memory_limit: Annotated[
        Optional[str],
        typer.Option(
            help="The most the run may hold in memory ('4GB'; default: the scenario's [run] memory_limit, else "
            "80 % of the memory available when it starts). A run estimated over it is refused, one over it "
            "while running is stopped (exit 2).",
            show_default=False,
        ),
    ] = None,
    fct_out: Annotated[
        Optional[Path],
        typer.Option(
            "--fct-out",
            help="Also write the completed messages as the HPCC ns-3 programs' FCT file (sip dip sport dport size "
            "start_ns fct_ns standalone_ns; docs/rdma.md), for their analysis scripts. A file already there is refused.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Run a scenario and print slowdown by message size.

    Progress goes to stderr: a bar with an ETA on a terminal, JSON lines otherwise
    (docs/cli.md), nothing with --quiet."""
    import tailor
    from tailor.progress import reporter, run_total
    from tailor.run import ENGINES

    if engine not in ENGINES:
        stderr.print(f"error: --engine: unknown value '{engine}'; accepted: {', '.join(ENGINES)}")
        raise typer.Exit(2)
    sc = tailor.Scenario.load(scenario)
    if memory_limit is not None:
        sc = sc.with_({"run.memory_limit": memory_limit})
    if fct_out is not None:
        if fct_out.exists():
            stderr.print(f"error: --fct-out: {fct_out} exists; tailor writes only a new file (name another)")
            raise typer.Exit(2)
        if engine != "packet":
            stderr.print(
                f"error: --fct-out: engine '{engine}' has no completions of the RDMA NIC's kind; accepted: --engine packet"
            )
            raise typer.Exit(2)
        sc = sc.with_({"record.fct": True})
    json_lines = True if progress_json else None
    with reporter(sc.name, quiet=quiet, json_lines=json_lines, console=stderr, total=run_total(sc)) as progress:
        result = tailor.run(
            sc, seed=seed, out=out, csv=csv, progress=progress, engine=engine, ray=ray, ray_workers=ray_workers
        )
        progress.finish(result.summary)
    stdout.print(result.table())
    for line in result.unfinished_lines():
        stdout.print(f"[yellow]{line}[/yellow]", highlight=False)
    for line in result.slo_lines():
        stdout.print(line, highlight=False)
    stdout.print(result.network_line())
    s = result.summary
    stdout.print(
        f"{s['messages']['completed']:,} messages in {fmt.time(s['sim_ns'])} simulated, "
        f"{s['events']:,} events in {s['wall_seconds']:.2f} s"
    )
    stdout.print(f"results: {result.dir}/ ({', '.join(result.files())})", highlight=False)
    if fct_out is not None:
        import shutil

        shutil.copyfile(result.dir / "fct.txt", fct_out)
        stdout.print(f"FCT file: {fct_out}", highlight=False)


def memory_line(m: dict) -> str:
    """What the packet engine would need (docs/scenario.md, "Memory")."""
    limit = f"[run] memory_limit {fmt_bytes(m['limit_bytes'])}" if m["limit_bytes"] else "no [run] memory_limit"
    return f"packet engine memory: about {fmt_bytes(m['total_bytes'])} beyond the process: {m['text']}; {limit}"


def fmt_bytes(b: float) -> str:
    return f"{b / 1e9:.2f} GB" if b >= 1e9 else f"{b / 1e6:.1f} MB"


@app.command(
    short_help="Check a scenario file without running it, and describe it.",
    epilog="Example: tailor check scenarios/quickstart.toml",
)
@user_errors
def check(scenario: Scenario_) -> None:
    """Check a scenario file without running it, and describe it."""
    import tailor

    sc = tailor.Scenario.load(scenario)
    candidates: list[str] = []
    if "advise" in tomllib.loads(Path(scenario).read_text(encoding="utf-8")):
        # What `advise --transports` refuses, `check` refuses (imported only then: it is heavy).
        from tailor.transport_advisor import check_advise

        candidates = check_advise(sc)
    print(sc.describe())
    print(memory_line(sc.info["memory"]))
    if candidates:
        print(f"[advise] candidates: {', '.join(candidates)} (each read with the scenario at both load bounds)")
    print(f"{scenario}: ok")
