"""Fig. 12 (a) at each transport's highest sustainable load, as the paper ran it.

The paper's 80 % panel holds every transport at 80 % network load "except for NDP and
pHost. Neither NDP or pHost can support 80% network load for these workloads, so we used
the highest load that each protocol could support (70% for NDP, 58-73% for pHost,
depending on workload)" (Fig. 12's caption). A transport run past its capacity has no
steady state: its backlog grows for as long as the run generates, and its slowdowns
measure the run's length, not the transport.

``homa-fig12 --sustainable FIG15_CSV`` takes those loads from a ``homa-fig15`` result
(``fig15.csv``: transport, workload, max_load, ...): a point of a transport whose
measured maximum on the workload lies below the point's load runs at that maximum
instead. The maximum is a network load counting every byte the transport puts on the wire
(Fig. 15's), so the capped point's scenario takes it as ``class[0].load`` with
``load_basis = "wire"``. A maximum above the loads ``homa-fig15`` ran (an empty
``max_load``) caps nothing. The point keeps the panel's load as its label (fig12.csv's
``load``, the authors' data's): the load it was run at is in fig12.json and the printed
tables.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import polars as pl

from tailor.errors import OptionError

__all__ = ["read", "cap"]

#: The columns read from a ``homa-fig15`` result.
NEEDED = ("transport", "workload", "max_load")


def read(path: Optional[Path]) -> dict[tuple[str, str], float]:
    """``--sustainable``: (transport, workload) -> measured maximum network load, for the
    rows whose maximum was found below the highest load run."""
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
        raise OptionError(f"{where}: not a homa-fig15 table: no column {', '.join(missing)}; "
                          f"needed: {', '.join(NEEDED)} (fig15.csv's)")
    out: dict[tuple[str, str], float] = {}
    for i, r in enumerate(df.select(NEEDED).iter_rows(named=True), start=2):
        x = r["max_load"]
        if x is None:
            continue
        if not isinstance(x, (int, float)) or not 0 < x < 1:
            raise OptionError(f"{where}, line {i}: max_load '{x}' is not a network load; accepted: a number in (0, 1), "
                              "or empty (above the loads run)")
        out[(str(r["transport"]).lower(), str(r["workload"]).upper())] = float(x)
    return out


def cap(maxima: dict[tuple[str, str], float], transport: str, workload: str, load: float) -> Optional[float]:
    """The network load the point runs at instead of ``load``, or None (its own load)."""
    x = maxima.get((transport, workload))
    return round(x, 4) if x is not None and x < load else None
