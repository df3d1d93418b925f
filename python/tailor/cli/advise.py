"""``tailor advise``: switch weights or the least capacity meeting every SLO, or which
transport meets them (docs/advisor.md)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from tailor.cli import Scenario_, Seed_, app, stderr, stdout, user_errors

#: The exit status when nothing meets every SLO (docs/cli.md): a script tells "no
#: transport works" from "one does" (0) and from an undecided search or a failed check (1).
NOTHING_MEETS = 3


def _names(text: Optional[str]) -> Optional[list[str]]:
    if text is None:
        return None
    from tailor import parse

    return parse.comma_list("--transports", text, "names separated by commas, such as homa,dctcp", str)


def _bounds(text: Optional[str]) -> Optional[tuple[float, float]]:
    if text is None:
        return None
    from tailor import parse
    from tailor.errors import OptionError

    accepted = "LO,HI such as 0.1,0.9"
    bounds = parse.comma_list("--loads", text, accepted, float, "'{}' is not a number")
    if len(bounds) != 2:
        raise OptionError(f"--loads: {text!r} is not two loads; accepted: {accepted}")
    return bounds[0], bounds[1]


@app.command(
    short_help="Find weights, capacity or a transport meeting every SLO.",
    epilog="Examples: tailor advise scenarios/swp/two-class.toml | "
    "tailor advise scenarios/swp/five-class.toml --min-capacity --discipline drr | "
    "tailor advise scenarios/advise/w3-rpc-slo.toml --transports homa,dctcp --quick",
)
@user_errors
def advise(
    scenario: Scenario_,
    seed: Seed_ = None,
    min_capacity: Annotated[
        bool,
        typer.Option(
            "--min-capacity",
            help="Find the least link capacity meeting every SLO, per discipline (or per transport, at --load).",
        ),
    ] = False,
    discipline: Annotated[
        Optional[list[str]],
        typer.Option(
            "--discipline",
            "-d",
            help="fifo | drr | hierarchical | priority | static (repeatable). Weights mode: drr or "
            "hierarchical (default: the scenario's scheduler). --min-capacity: default all.",
            show_default=False,
        ),
    ] = None,
    recheck: Annotated[
        bool,
        typer.Option(
            help="Decide each answer on the packet engine over --seeds seeds, and where "
            "an SLO fails search on from it there (weights advisor); --no-recheck: "
            "the model's answer alone."
        ),
    ] = True,
    engine: Annotated[
        str,
        typer.Option(
            help="With --min-capacity: model (the model searches, the packet engine "
            "decides) or packet (the least capacity searched on the packet engine)."
        ),
    ] = "model",
    tolerance: Annotated[
        Optional[float],
        typer.Option(
            help="Weights advisor: relative precision of the capacity search (default 0.01 on the model, "
            "0.02 on the packet engine). Transports: "
            "the load bisection stops when passing and failing loads are this close (default [advise] "
            "tolerance, else 0.02).",
            min=0.001,
            max=0.5,
            show_default=False,
        ),
    ] = None,
    transports: Annotated[
        Optional[str],
        typer.Option(
            help="Which transport meets the SLOs: candidates by name, comma-separated (the registry's "
            "transports or the scenario's [advise.candidate] tables; default its [advise] transports).",
            show_default=False,
        ),
    ] = None,
    seeds: Annotated[
        Optional[int],
        typer.Option(
            help="Packet-engine seeds per setting (transports: per load; default [advise] seeds, else 3).",
            show_default=False,
        ),
    ] = None,
    confirm_seeds: Annotated[
        Optional[int],
        typer.Option(
            help="Weights advisor: an answer found on --seeds "
            "seeds must also hold on this many (the search's and the "
            "next ones), else a least capacity moves up; 19 (the "
            "default) promises 95 % per binding SLO, 0: none.",
            show_default=False,
        ),
    ] = None,
    loads: Annotated[
        Optional[str],
        typer.Option(
            help="Transports: bounds of the load searched, LO,HI (default [advise] loads, else 0.1,0.9).",
            show_default=False,
        ),
    ] = None,
    load: Annotated[
        Optional[float],
        typer.Option(help="Transports with --min-capacity: the load (default the scenario's).", show_default=False),
    ] = None,
    quick: Annotated[bool, typer.Option("--quick", help="Transports: one seed, tolerance at least 0.05.")] = False,
    out: Annotated[
        Optional[Path],
        typer.Option(
            help="The result store of the packet-engine runs (default "
            "sweeps/advise-<scenario name>; transports: advice.json/.png/.svg "
            "go there too).",
            show_default=False,
        ),
    ] = None,
    keep: Annotated[
        str,
        typer.Option(
            help="Weights advisor: what the store keeps of each packet-engine run: all "
            "(its messages too, so each verdict traces to its run) | summary (its summary "
            "and SLO verdicts, a tenth of the bytes; a later --keep all runs it again)."
        ),
    ] = "all",
    jobs: Annotated[
        Optional[int], typer.Option(help="Parallel packet-engine runs (default one per core).", show_default=False)
    ] = None,
    ray: Annotated[
        Optional[str],
        typer.Option(
            help="Run the packet-engine points on Ray: 'local', 'auto' or ray://HOST:PORT.", show_default=False
        ),
    ] = None,
    model_form: Annotated[
        Optional[str],
        typer.Option(
            "--model-form",
            help="Weights advisor: the fast model's form, calibrated | paper (default: the scenario's "
            "[model] form, else calibrated; docs/model.md).",
            show_default=False,
        ),
    ] = None,
    host_scaling: Annotated[
        str,
        typer.Option(
            "--host-scaling",
            help="Weights advisor: how a capacity is read, by the model and the packet engine: scaled "
            "(every link and the initial rate follow it) | fixed (only a dumbbell's trunk; docs/advisor.md).",
        ),
    ] = "scaled",
    allow_unjudged: Annotated[
        bool,
        typer.Option(
            "--allow-unjudged",
            help="Weights advisor: search even when an SLO's size range is expected to get fewer "
            "messages over the horizon than its percentile needs (refused by default, exit 2); such SLOs are reported "
            "not judged.",
        ),
    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress line.")] = False,
) -> None:
    """Find switch weights that meet every class's SLO (SWP Algorithm 1 on the fast model),
    or with --min-capacity the least capacity per discipline; then decide each answer on the
    packet engine over --seeds seeds, searching on there from the model's answer where an
    SLO fails (--engine packet: the least capacity searched on the packet engine).
    With --transports (or a scenario with an [advise] table): the highest load at which
    each transport meets every SLO, by bisection on the packet engine over seeds, ranked.

    Exit status 0 when every check passed (transports: every search reached a verdict); 1
    when the weights found do not meet every SLO on the model, or an answer does not hold
    on the packet engine or could not be decided there (rejected SLOs listed after the
    tables), or a transport's search was left undecided (an SLO not judged, a failed run);
    2 for a bad scenario or option, or one outside the fast model's scope; 3 when nothing
    meets every SLO: no transport at the lowest load tried (--transports; with
    --min-capacity, at the most capacity tried), no discipline at any capacity up to the
    search's limit (--min-capacity); 130 when interrupted (finished points kept)."""
    from tailor.transport_advisor.candidates import read_advise

    if transports is not None or read_advise(scenario).present:
        for name, given in (
            ("--model-form", model_form is not None),
            ("--host-scaling", host_scaling != "scaled"),
            ("--engine", engine != "model"),
            ("--no-recheck", not recheck),
            ("--confirm-seeds", confirm_seeds is not None),
            ("--keep", keep != "all"),
            ("--allow-unjudged", allow_unjudged),
        ):
            if given:
                from tailor.errors import OptionError

                raise OptionError(
                    f"{name}: for the weights advisor (the fast model); the transport advisor runs the packet engine"
                )
        _transports(
            scenario,
            seed,
            min_capacity,
            discipline,
            tolerance,
            _names(transports),
            seeds,
            _bounds(loads),
            load,
            quick,
            out,
            jobs,
            ray,
            json_out,
            quiet,
        )
        return
    for name, given in (("--loads", loads), ("--load", load), ("--quick", quick or None)):
        if given is not None:
            from tailor.errors import OptionError

            raise OptionError(f"{name}: only with --transports (or a scenario with an [advise] table)")
    _weights(
        scenario,
        seed,
        min_capacity,
        discipline,
        recheck,
        tolerance,
        dict(
            engine=engine,
            seeds=seeds,
            out=out,
            jobs=jobs,
            ray=ray,
            host_scaling=host_scaling,
            confirm_seeds=confirm_seeds,
            model_form=model_form,
            keep=keep,
            allow_unjudged=allow_unjudged,
        ),
        json_out,
        quiet,
    )


def _weights(
    scenario: Path,
    seed: Optional[int],
    min_capacity: bool,
    discipline: Optional[list[str]],
    recheck: bool,
    tolerance: Optional[float],
    packet: dict[str, Any],
    json_out: bool,
    quiet: bool,
) -> None:
    from tailor.advise import advise as run_advisor
    from tailor.advise import describe_event
    from tailor.progress import sweep_reporter
    from tailor.sweep import Interrupted

    if tolerance is not None and tolerance > 0.4:
        from tailor.errors import OptionError

        raise OptionError(f"--tolerance: {tolerance} is out of range; accepted: 0.001 to 0.4 for the weights advisor")
    status = None if quiet or json_out else stderr.status("advisor: reading the scenario", spinner="dots")
    workers = packet["jobs"] or os.cpu_count() or 1

    def progress(e: dict) -> bool:
        if status is not None:
            status.update(f"advisor: {describe_event(e)}")
        return True

    def reporter(what: str, total: int) -> Any:
        if status is not None:
            status.stop()  # the packet engine's rounds report on their own lines
        return sweep_reporter(f"advise {what}", total=total, quiet=quiet, console=stderr, workers=workers)

    if status is not None:
        status.start()
    try:
        a = run_advisor(
            scenario,
            seed=seed,
            min_capacity=min_capacity,
            disciplines=discipline,
            recheck=recheck,
            tolerance=tolerance,
            progress=progress,
            engine=packet["engine"],
            seeds=packet["seeds"],
            out=packet["out"],
            ray=packet["ray"],
            workers=packet["jobs"],
            host_scaling=packet["host_scaling"],
            reporter=reporter,
            confirm_seeds=packet["confirm_seeds"],
            model_form=packet["model_form"],
            keep=packet["keep"],
            allow_unjudged=packet["allow_unjudged"],
        )
    except Interrupted as e:
        print(str(e), file=sys.stderr)
        raise typer.Exit(e.status) from None
    finally:
        if status is not None:
            status.stop()
    if json_out:
        print(a.to_json())
    else:
        a.render(stdout)
    if not a.passed:
        raise typer.Exit(1)
    if a.nothing_meets:
        raise typer.Exit(NOTHING_MEETS)


def _transports(
    scenario: Path,
    seed: Optional[int],
    min_capacity: bool,
    discipline: Optional[list[str]],
    tolerance: Optional[float],
    names: Optional[list[str]],
    seeds: Optional[int],
    loads: Optional[tuple[float, float]],
    load: Optional[float],
    quick: bool,
    out: Optional[Path],
    jobs: Optional[int],
    ray: Optional[str],
    json_out: bool,
    quiet: bool,
) -> None:
    from tailor.errors import OptionError
    from tailor.progress import sweep_reporter
    from tailor.scenario import Scenario
    from tailor.sweep import Interrupted
    from tailor.transport_advisor import advise_transports

    if discipline:
        raise OptionError(
            "--discipline: for the weights advisor; the transport advisor keeps each candidate's "
            "switch settings ([advise.candidate.NAME.switch])"
        )
    sc = Scenario.load(scenario)
    if seed is not None:
        sc = sc.with_(seed=seed)
    workers = jobs or os.cpu_count() or 1

    def reporter(what: str, total: int) -> Any:
        return sweep_reporter(f"advise {what}", total=total, quiet=quiet, console=stderr, workers=workers)

    try:
        a = advise_transports(
            sc,
            names,
            seeds=seeds,
            loads=loads,
            tolerance=tolerance,
            min_capacity=min_capacity,
            load=load,
            quick=quick,
            out=out,
            jobs=jobs,
            ray=ray,
            reporter=reporter,
        )
    except Interrupted as e:
        print(str(e), file=sys.stderr)
        raise typer.Exit(e.status) from None
    if json_out:
        print(a.to_json())
    else:
        a.render(stdout)
        stdout.print(f"written: {', '.join(a.report['files'])}", highlight=False)
    if not a.decided:
        raise typer.Exit(1)
    if a.nothing_meets:
        raise typer.Exit(NOTHING_MEETS)
