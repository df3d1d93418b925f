"""The compiled engine binding (crates/tailor-py). Private: use ``tailor.run`` and
``tailor.check``. Kept honest by tests/python/test_stub.py."""

from collections.abc import Callable
from os import PathLike
from typing import Any

__version__: str

#: (dotted key path, value): value is bool, int, float, str, or lists / dicts of them.
Overrides = list[tuple[str, Any]]

def transports() -> list[dict[str, Any]]:
    """The transports a scenario may name, from the engine's one registry: each a dict of
    name, about (one line), keys (what its table accepts, ``kind`` included) and needs (TOML
    tables ``switch``, ``host``, ``routing``: what its scheme needs of the network, which
    ``advise --transports`` sets for a candidate of that kind; empty for none)."""

def samples_needed(p: float) -> int:
    """The messages the ``p``-th percentile needs to be a result (p99: 100)."""

def check(path: str | PathLike[str], overrides: Overrides | None = None) -> dict[str, Any]:
    """Parses a scenario, with ``overrides`` applied (docs/scenario.md, "Overrides"), and
    describes it: file, name, seed, topology, hosts, host_rate_bps, transport, classes
    (names), stop_ns, warmup_ns.

    Raises tailor.errors.ScenarioError (at the override's key path for a bad
    override, also for a value that cannot be a scenario value)."""

def resolve(path: str | PathLike[str], overrides: Overrides | None = None) -> dict[str, Any]:
    """Parses a scenario with ``overrides`` and returns {info (as check), document (the
    TOML after overrides, keys sorted), identity (the text a result store hashes: the
    document and every size distribution as loaded), config (identity without the
    document's seed), inputs (trace files, whose bytes belong to the identity)}.
    Raises as check."""

def model_scope(path: str | PathLike[str], overrides: Overrides | None = None) -> dict[str, Any]:
    """Whether the fast model applies to the scenario (one bottleneck that every class's
    traffic crosses, or a stated ``[model] bottleneck``; docs/model.md, "Scope"):
    {bottleneck (its description), capacity_bps}. Raises tailor.errors.ScenarioError
    naming the class and why not, or as check."""

def slo_counts(path: str | PathLike[str], overrides: Overrides | None = None) -> str:
    """Per SLO of a generated open-loop class whose horizon ends, the messages its size
    range is expected to get and how many its statistic needs, as a JSON list of {class,
    class_index, slo_index, sli, share, per_s, from_ns, to_ns, limited_by (until | stop |
    messages), expected, needed, until_needed_ns} (docs/advisor.md, "Too few messages to
    judge"). Raises as check."""

def oracle_scope(path: str | PathLike[str], overrides: Overrides | None = None) -> None:
    """Whether the SRPT oracle can run the scenario (a fabric limited by its host links,
    one-way classes, transports that frame their messages; docs/oracle.md, "Scope").
    Raises tailor.errors.ScenarioError naming the key and why not, or as check."""

def run(
    path: str | PathLike[str],
    out: str | PathLike[str],
    seed: int | None = None,
    progress: Callable[[dict[str, Any]], bool] | None = None,
    engine: str = "packet",
    overrides: Overrides | None = None,
    csv: bool = False,
) -> str:
    """Runs a scenario, writing its files into the existing directory ``out``; returns
    summary.json's text. The messages go to ``messages.parquet`` as they complete (and
    to ``messages.csv`` too with ``csv``).

    ``engine`` is "packet" (the packet simulator), "model" (the SWP fast model) or
    "oracle" (the SRPT oracle, docs/oracle.md).

    The GIL is released during the run. ``progress`` gets a dict {phase, built, ports,
    sim_ns, events, started, completed, active} at most every 0.2 s of wall time (and
    once at the end); ``phase`` is "building" while the topology is built (``built`` of
    ``ports`` ports), then "running";
    returning False cancels the run (tailor.errors.Cancelled), an exception it raises
    cancels the run and propagates. Raises tailor.errors.ScenarioError,
    WorkloadError, RunError, Cancelled."""

def advise(
    path: str | PathLike[str],
    seed: int | None = None,
    min_capacity: bool = False,
    strategies: list[str] | None = None,
    recheck: bool = True,
    progress: Callable[[dict[str, Any]], bool] | None = None,
    tolerance: float = 0.01,
    overrides: Overrides | None = None,
    model_form: str | None = None,
    host_scaling: str | None = None,
) -> str:
    """Runs the advisor (SWP Algorithm 1 on the fast model, optionally a least-capacity
    search per discipline) and returns its report as JSON text.

    ``strategies``: "fifo", "drr", "hierarchical", "priority", "static". ``progress``
    gets a dict per search step ({kind: baselines | iteration | probe | recheck,
    strategy, capacity_bps, ...}; a step of a weighted answer's check against shared FIFO
    also has check = "fifo" and of = the weighted strategy); returning False stops
    (tailor.errors.Cancelled).
    ``model_form``: "calibrated" or "paper" (default the scenario's ``[model] form``);
    ``host_scaling``: "scaled" or "fixed" (docs/advisor.md, "Capacity scaling: both readings").
    Raises ValueError for an unknown strategy, tailor.errors.ScenarioError (also for a
    class without an SLO), WorkloadError, RunError, Cancelled."""

def advise_weights(
    path: str | PathLike[str],
    capacity_bps: float,
    fair: bool,
    seed: int | None = None,
    overrides: Overrides | None = None,
    progress: Callable[[dict[str, Any]], bool] | None = None,
    model_form: str | None = None,
    host_scaling: str | None = None,
) -> str:
    """SWP Algorithm 1 on the fast model at ``capacity_bps`` (per-class FIFO, or fair
    queueing inside each class with ``fair``), with the options the least-capacity search
    uses at each capacity; the weight advice as JSON text (strategy, capacity_bps,
    outcome, baselines, weights, chosen, verdicts, trajectory). Raises as ``advise``."""

def swp_evaluate(
    path: str | PathLike[str],
    capacity_bps: float,
    weights: list[list[float]] | None = None,
    fair: bool = False,
    seed: int | None = None,
) -> str:
    """Each class's verdict on the fast model at ``capacity_bps`` for each weight vector
    (per-class queues served by weight; ``fair``: per-flow fair queueing inside each
    class), or for shared FIFO when ``weights`` is None: JSON, one list of class verdicts
    per vector, the messages drawn once with ``seed`` (scripts/optimizer_check.py)."""

def transfer(weights: list[float], losses: list[float]) -> list[float]:
    """One round of Algorithm 1's pairwise transfers from ``weights`` given each class's
    loss (SWP eq. 1, negative when met), the model search's damping and margin; the new
    weights, normalized. Raises ValueError for weights not positive or lengths that differ."""

def decomposed_links(
    path: str | PathLike[str], seed: int | None = None, overrides: Overrides | None = None
) -> tuple[int, list[int], list[int], int]:
    """The scenario's messages, the links to simulate (numbers for ``decomposed_simulate``:
    every loaded link, or the clusters' representatives with ``[decomposed] cluster``),
    each one's messages, and the messages of the second pass's links (0 without it; the
    decomposed engine's scope checked: ScenarioError names the key it refuses)."""

def decomposed_simulate(
    path: str | PathLike[str], which: list[int], seed: int | None = None, overrides: Overrides | None = None
) -> str:
    """Runs the link simulations ``which`` (numbers from ``decomposed_links``); their results as JSON text."""

def decomposed_again(
    path: str | PathLike[str], results: list[str], seed: int | None = None, overrides: Overrides | None = None
) -> tuple[list[str], list[int]]:
    """The second pass's inputs from the first pass's results (``decomposed_simulate``'s,
    covering every link ``decomposed_links`` names): one JSON text per host uplink to
    simulate again and its messages; empty without the second pass."""

def decomposed_simulate_again(
    path: str | PathLike[str], inputs: list[str], seed: int | None = None, overrides: Overrides | None = None
) -> str:
    """Runs the second pass's simulations of ``inputs`` (texts of ``decomposed_again``);
    their results as JSON text."""

def decomposed_write(
    path: str | PathLike[str],
    out: str | PathLike[str],
    results: list[str],
    seed: int | None = None,
    overrides: Overrides | None = None,
    csv: bool = False,
    again: list[str] | None = None,
) -> str:
    """Writes the decomposed result into the existing directory ``out`` from the results of
    ``decomposed_simulate`` covering every link ``decomposed_links`` names and, when the second
    pass ran on Ray too, those of ``decomposed_simulate_again`` covering every input of
    ``decomposed_again`` (None: it runs here); returns summary.json's text."""
