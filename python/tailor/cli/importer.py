"""``tailor import``: other simulators' experiment files as tailor scenarios."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from tailor.cli import app, user_errors

EXAMPLE = "Example: tailor import hpcc-ns3 mix/config.txt --topology mix/fat.txt --flows mix/flow.txt --out runs/hpcc"
imports = typer.Typer(
    help="Import other simulators' experiment files as a tailor scenario.",
    short_help="Other simulators' experiments as scenarios.",
    epilog=EXAMPLE,
    no_args_is_help=True,
)
app.add_typer(imports, name="import")


@imports.command("hpcc-ns3", short_help="The HPCC ns-3 programs' files as a scenario.", epilog=EXAMPLE)
@user_errors
def hpcc_ns3(
    config: Annotated[Path, typer.Argument(help="Their config file (scratch/third's mix/config.txt form).")],
    out: Annotated[Path, typer.Option(help="A new or empty directory for scenario.toml and its traces.")],
    topology: Annotated[
        Optional[Path],
        typer.Option(help="Their topology file (default: the config's TOPOLOGY_FILE).", show_default=False),
    ] = None,
    flows: Annotated[
        Optional[Path], typer.Option(help="Their flow file (default: the config's FLOW_FILE).", show_default=False)
    ] = None,
) -> None:
    """The HPCC authors' ns-3 programs' config, topology and flow files as a scenario (docs/rdma.md)."""
    from tailor.importers.hpcc_ns3 import import_files

    files = import_files(config, topology, flows, out)
    print(f"{out}/: {', '.join(files)}")
    print(f"run it: tailor run {out}/scenario.toml --fct-out fct.txt")
