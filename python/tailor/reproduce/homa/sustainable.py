"""Fig. 12 (a) at each transport's highest sustainable load, as the paper ran it.

The paper's 80 % panel holds every transport at 80 % network load "except for NDP and
pHost. Neither NDP or pHost can support 80% network load for these workloads, so we used
the highest load that each protocol could support (70% for NDP, 58-73% for pHost,
depending on workload)" (Fig. 12's caption). A transport run past its capacity has no
steady state: its backlog grows for as long as the run generates, and its slowdowns
measure the run's length, not the transport.

``homa-fig12 --sustainable FIG15_CSV`` takes those loads from a ``homa-fig15`` result
(``fig15.csv``: transport, workload, max_load, ...). Its maxima are network loads counting
every byte the transport puts on the wire, control packets included (Fig. 15's basis, and
§5.2's definition of network load), so a transport the table names runs each point at the
smaller of the point's load and its maximum, on that basis (``class[0].load``,
``load_basis = "wire"``); an empty ``max_load`` (above the loads ``homa-fig15`` ran) is no
cap. This matters for files that state their load otherwise: the shipped pHost and NDP
files offer Homa's message rate (``load_basis = "payload"``), which on pHost's own wire is
122 % of the links for W1 at "80 %" (docs/phost.md, "Load"). A point whose file is already
on the wire basis at a load within the maximum runs unchanged. The point keeps the panel's
load as its label (fig12.csv's ``load``, the authors' data's): the load it was run at is
in fig12.json and the printed tables.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import polars as pl

from tailor.errors import OptionError

__all__ = ["read", "cap"]

#: The columns read from a ``homa-fig15`` result.
NEEDED = ("transport", "workload", "max_load")


def read(path: Optional[Path]) -> dict[tuple[str, str], Optional[float]]:
    """``--sustainable``: (transport, workload) -> measured maximum network load, or None
    where it lies above the loads run."""
    if path is None:
        return {}
    where = f"--sustainable: {path}"
    if not Path(path).is_file():
        raise OptionError(f"{where}: no such file; give the fig15.csv a `tailor reproduce homa-fig15` run wrote")
    try:
        df = pl.read_csv(path, infer_schema_length=None)
    except (OSError, pl.exceptions.PolarsError) as e:
        raise OptionError(f"{where}: cannot be read as CSV ({e})") from None
    missing = [c for c in NEEDED if c not in df.columns]
    if missing:
        raise OptionError(
            f"{where}: not a homa-fig15 table: no column {', '.join(missing)}; "
            f"needed: {', '.join(NEEDED)} (fig15.csv's)"
        )
    out: dict[tuple[str, str], Optional[float]] = {}
    for i, r in enumerate(df.select(NEEDED).iter_rows(named=True), start=2):
        x = r["max_load"]
        if x is not None and (not isinstance(x, (int, float)) or not 0 < x < 1):
            raise OptionError(
                f"{where}, line {i}: max_load '{x}' is not a network load; accepted: a number in (0, 1), "
                "or empty (above the loads run)"
            )
        out[(str(r["transport"]).lower(), str(r["workload"]).upper())] = None if x is None else float(x)
    return out


def cap(
    maxima: dict[tuple[str, str], Optional[float]], transport: str, workload: str, load: float, basis: str
) -> Optional[float]:
    """The network load (wire basis) the point runs at instead of its file's ``load`` on
    ``basis``, or None: its file unchanged."""
    if (transport, workload) not in maxima:
        return None
    top = maxima[(transport, workload)]
    at = load if top is None else min(load, round(top, 4))
    return None if basis == "wire" and at == load else at
