"""Sweeps: one scenario over a grid of its keys and seeds, run in parallel into a store.

    >>> import tailor
    >>> sc = tailor.Scenario.load("scenarios/swp/websearch-60.toml")
    >>> sw = tailor.sweep(sc, load=[0.3, 0.5, 0.7], seed=range(1, 6), out="sweeps/ws")
    >>> sw.summary()                      # per load: mean and 95 % interval across seeds

Each axis is a scenario key by its dotted path (``switch.scheduler``, ``class[1].load``,
``topology.link.rate``), ``load`` (the total offered load, scaling every class) or
``seed``. The grid is their product. Every point is resolved and checked before any
runs (a bad key stops the sweep with nothing run), looked up in the store (tailor.store)
and, when absent or damaged, run by the worker pool (tailor.pool): in spawned processes
(one simulation per worker, ``jobs`` workers, default one per core) or, with ``ray``, as
Ray tasks. Workers return the point's files to this process, which alone writes the
store, one atomic rename per point; Ctrl-C stops the workers, keeps the finished points
and removes the rest.

This process holds each point's lock (tailor.store.Store.try_lock) from handing it out
until it is written, and hands out only points whose lock it got: a point another sweep
into the same store is computing is passed over and looked at again when its lock is
free, found finished (reported as cached) or, if that sweep failed or died, run here.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import math
import os
import shutil
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

import polars as pl

from tailor import _core
from tailor.errors import PointsFailed, SweepError
from tailor.pool import Claims, local_results, note, ray_module, ray_results
from tailor.run import ENGINES
from tailor.scenario import Scenario
from tailor.signals import exit_status
from tailor.store import PointSpec, Store

__all__ = ["sweep", "plan", "run_points", "Sweep", "parse_axis", "Listener", "Interrupted"]


class Listener(Protocol):
    """What a sweep reports as it goes (tailor.progress draws it)."""

    def cached(self, point: str, params: dict[str, Any]) -> None: ...
    def started(self, point: str, params: dict[str, Any]) -> None: ...
    def finished(self, point: str, params: dict[str, Any], wall_s: float) -> None: ...
    def failed(self, point: str, params: dict[str, Any], message: str) -> None: ...


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) during a sweep, after its finished points were kept. ``done``
    of ``total`` points are in the store; ``status`` is the exit status the CLI gives,
    130 for Ctrl-C and 143 for SIGTERM."""

    def __init__(self, store: Path, done: int, total: int, status: int = 130) -> None:
        super().__init__(store, done, total)
        self.store, self.done, self.total, self.status = store, done, total, status

    def __str__(self) -> str:
        how = "terminated" if self.status == 143 else "interrupted"
        return (
            f"{how}: {self.done} of {self.total} points are in {self.store}/ "
            f"(partial points were removed); run the same sweep again to finish it"
        )


# -- axes ----------------------------------------------------------------------------


def parse_axis(spec: str) -> tuple[str, list[Any]]:
    """``key=v1,v2,...`` as (key, values), for ``--set``.

    A value is a TOML value (``0.3``, ``true``, ``"a,b"``, ``[1, 2]``) or, failing
    that, a bare string (``drr``, ``25Gbps``). ``a..b`` is the integers a to b
    inclusive; ``a..b:step`` the numbers a, a + step, ... up to b.
    """
    key, eq, text = spec.partition("=")
    key = key.strip()
    if not eq or not key:
        raise SweepError(f"--set {spec!r}: expected KEY=VALUES, e.g. load=0.3,0.5 or seed=1..5")
    tokens = _split_top_level(text)
    if not tokens or any(t == "" for t in tokens):
        raise SweepError(f"--set {key}: empty value in {text!r}; give values separated by commas")
    values: list[Any] = []
    for t in tokens:
        values.extend(_range(key, t) if ".." in t and not t.startswith(("[", '"', "'")) else [_value(t)])
    return key, values


def _split_top_level(text: str) -> list[str]:
    """Splits at commas outside brackets and quotes."""
    parts, depth, quote, cur = [], 0, "", []
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur).strip())
    return [] if parts == [""] else parts


def _value(token: str) -> Any:
    try:
        return tomllib.loads(f"v = {token}")["v"]
    except tomllib.TOMLDecodeError:
        return token


def _range(key: str, token: str) -> list[Any]:
    body, _, step_text = token.partition(":")
    lo_text, _, hi_text = body.partition("..")
    try:
        lo, hi = _value(lo_text.strip()), _value(hi_text.strip())
        step = _value(step_text.strip()) if step_text else 1
    except Exception:  # noqa: BLE001 - reported below with the accepted forms
        lo = hi = step = None
    nums = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (lo, hi, step))
    if not nums or step <= 0 or hi < lo:
        raise SweepError(
            f"--set {key}: {token!r} is not a range; accepted: a..b (integers, b >= a) or a..b:step (step > 0)"
        )
    n = int(math.floor((hi - lo) / step + 1e-9)) + 1
    if n > MAX_POINTS:
        raise SweepError(f"--set {key}: {token!r} has {n:,} values; at most {MAX_POINTS:,} points per sweep")
    if all(isinstance(x, int) for x in (lo, hi, step)):
        return list(range(lo, hi + 1, step))
    return [float(f"{lo + i * step:.12g}") for i in range(n)]


#: The most points one sweep may have (a guard against a typo such as seed=1..3000000000).
MAX_POINTS = 100_000


def grid(axes: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """The product of the axes, the first axis varying slowest."""
    size = math.prod(len(v) for v in axes.values())
    if size > MAX_POINTS:
        raise SweepError(f"the grid has {size:,} points; at most {MAX_POINTS:,} per sweep")
    for key, values in axes.items():
        if len(values) == 0:
            raise SweepError(f"axis {key}: no values")
        if len(set(map(_hashable, values))) != len(values):
            raise SweepError(f"axis {key}: a value is given twice in {list(values)}")
    keys = list(axes)
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(axes[k] for k in keys))]


def _hashable(v: Any) -> str:
    return json.dumps(v, sort_keys=True, default=str)


# -- the sweep -----------------------------------------------------------------------


class Sweep:
    """A sweep run into a store: its points and their results."""

    def __init__(self, store: Store, manifest: dict[str, Any]) -> None:
        self.store = store
        self.manifest = manifest

    def __repr__(self) -> str:
        return f"Sweep({self.manifest['name']!r}, {len(self.ids)} points in {str(self.store.dir)!r})"

    @property
    def ids(self) -> list[str]:
        return [p["id"] for p in self.manifest["points"]]

    @property
    def axes(self) -> dict[str, list[Any]]:
        return self.manifest["axes"]

    def points(self) -> pl.DataFrame:
        return self.store.points(self.ids)

    def summary(
        self, stats: Sequence[str] = ("mean", "p50", "p99", "p999"), sizes: bool = True, confidence: float = 0.95
    ) -> pl.DataFrame:
        """Across seeds, per axis values, class, size and statistic: mean and interval
        (tailor.store.Store.summary)."""
        return self.store.summary(self.ids, stats=stats, sizes=sizes, confidence=confidence)

    def messages(self) -> pl.LazyFrame:
        return self.store.messages(self.ids)

    def slos(self) -> pl.LazyFrame:
        return self.store.slos(self.ids)


def sweep(
    scenario: Scenario | str | os.PathLike[str],
    axes: Mapping[str, Iterable[Any]] | None = None,
    /,
    *,
    out: str | os.PathLike[str] | None = None,
    engine: str = "packet",
    jobs: int | None = None,
    ray: str | bool | None = None,
    listener: Listener | None = None,
    **more_axes: Iterable[Any],
) -> Sweep:
    """Runs ``scenario`` over the product of ``axes`` (dotted keys, as a mapping) and
    ``more_axes`` (top-level keys as keywords: ``load=[0.3, 0.5], seed=range(5)``).

    ``out`` is the store (default ``sweeps/<scenario name>``). ``jobs`` caps the
    parallel simulations (default: one per core). ``ray``: None or False runs a local
    process pool; ``"local"`` or True starts (or joins) a Ray instance on this machine;
    ``"auto"`` joins the running Ray cluster; ``"ray://host:10001"`` a remote one.

    Raises :class:`tailor.errors.ScenarioError` for a point that cannot be run (before
    anything runs), :class:`tailor.errors.PointsFailed` when points failed while running
    (the others are kept), :class:`Interrupted` on Ctrl-C.
    """
    sc = scenario if isinstance(scenario, Scenario) else Scenario.load(scenario)
    if engine not in ENGINES:
        raise SweepError(f"--engine: unknown value {engine!r}; accepted: {', '.join(ENGINES)}")
    all_axes = _axes(axes, more_axes)
    if jobs is not None and jobs < 1:
        raise SweepError(f"--jobs: {jobs} is out of range; accepted: 1 or more")
    store = Store(out if out is not None else Path("sweeps") / sc.name)
    ray_mod = ray_module(ray) if ray else None
    specs = _resolve_points(sc, all_axes, engine)
    name = _sweep_name(sc, all_axes, engine)
    manifest = {
        "name": name,
        "scenario": sc.name,
        "scenario_file": os.fspath(sc.path),
        "base_overrides": [[k, v] for k, v in sc.overrides],
        "axes": all_axes,
        "engine": engine,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "points": [{"id": s.id, "params": s.params} for s in specs],
    }
    store.create()
    store.add_sweep(name, manifest)
    try:
        _execute(store, specs, jobs, (ray_mod, ray) if ray_mod else None, listener)
    except PointsFailed as e:
        e.sweep = Sweep(store, {**manifest, "points": [p for p in manifest["points"] if store.has(p["id"])]})
        raise
    return Sweep(store, manifest)


def plan(
    scenario: Scenario | str | os.PathLike[str],
    axes: Mapping[str, Iterable[Any]] | None = None,
    /,
    *,
    out: str | os.PathLike[str] | None = None,
    engine: str = "packet",
    **more_axes: Iterable[Any],
) -> pl.DataFrame:
    """What :func:`sweep` with these arguments would do, without running or writing
    anything: one row per point (its id, axis values, seed, and whether the store
    already holds it). Raises as :func:`sweep` for a point that cannot be run."""
    sc = scenario if isinstance(scenario, Scenario) else Scenario.load(scenario)
    all_axes = _axes(axes, more_axes)
    store = Store(out if out is not None else Path("sweeps") / sc.name)
    specs = _resolve_points(sc, all_axes, engine)
    rows = [
        {
            "point": s.id,
            **{k: json.dumps(v) if isinstance(v, (list, dict)) else v for k, v in s.params.items()},
            "seed": s.seed,
            "engine": s.engine,
            "stored": store.has(s.id),
        }
        for s in specs
    ]
    return pl.DataFrame(rows, infer_schema_length=None)


def run_points(
    store: Store,
    specs: Sequence[PointSpec],
    *,
    jobs: int | None = None,
    ray: str | bool | None = None,
    listener: Listener | None = None,
) -> None:
    """Runs ``specs`` into ``store`` as :func:`sweep` runs its grid (the points it holds
    whole are reported cached; local pool or Ray; locks; Ctrl-C keeps finished points),
    for a caller that chooses its own points: the transport advisor's bisection. Raises
    :class:`tailor.errors.PointsFailed` (the others kept) and :class:`Interrupted`."""
    if jobs is not None and jobs < 1:
        raise SweepError(f"--jobs: {jobs} is out of range; accepted: 1 or more")
    ray_mod = ray_module(ray) if ray else None
    store.create()
    _execute(store, list(specs), jobs, (ray_mod, ray) if ray_mod else None, listener)


def _axes(axes: Mapping[str, Iterable[Any]] | None, more: Mapping[str, Iterable[Any]]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for key, values in [*(axes or {}).items(), *more.items()]:
        if key in out:
            raise SweepError(f"axis {key} is given twice")
        if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
            out[key] = [values]  # one value, not a list of them
        else:
            out[key] = list(values)
    return out


def _resolve_points(sc: Scenario, axes: dict[str, list[Any]], engine: str) -> list[PointSpec]:
    specs, seen, in_scope = [], set(), set()
    for params in grid(axes):
        overrides = [*sc.overrides, *((k, v) for k, v in params.items())]
        seed = params.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63):
            raise SweepError(f"axis seed: {seed!r} is not a seed; accepted: integers 0 to 2^63 - 1")
        spec = PointSpec.resolve(sc.path, overrides, engine, params)
        if engine == "model" and spec.config not in in_scope:
            # A point outside the model's scope is the user's error, not a point that
            # failed; the seeds of one configuration share its scope (and its trace scan).
            _core.model_scope(os.fspath(sc.path), overrides)
            in_scope.add(spec.config)
        if engine == "oracle" and spec.config not in in_scope:
            # The same for the oracle (docs/oracle.md, "Scope").
            _core.oracle_scope(os.fspath(sc.path), overrides)
            in_scope.add(spec.config)
        if spec.id in seen:
            raise SweepError(f"the point {params} computes the same as an earlier one (an axis that changes nothing?)")
        seen.add(spec.id)
        specs.append(spec)
    return specs


def _sweep_name(sc: Scenario, axes: dict[str, list[Any]], engine: str) -> str:
    """The scenario's name and a hash of what the sweep computes: the resolved base
    scenario (its content, not only its name), the axes and the engine."""
    base = sc.resolve()
    text = json.dumps([sc.name, base["config"], axes, engine], sort_keys=True, default=str)
    return f"{sc.name}-{hashlib.sha256(text.encode()).hexdigest()[:10]}"


# -- execution -----------------------------------------------------------------------


def _to_run(store: Store, specs: list[PointSpec], listener: Listener | None) -> list[PointSpec]:
    """The points to run: those the store lacks or holds damaged (each file of a stored
    point is checked against its checksum first; a damaged one is named on stderr), and
    those it keeps as a summary only where the whole point is asked for (named too)."""
    todo = []
    for s in specs:
        bad = store.problem(s.id) if store.exists(s.id) else None
        if store.exists(s.id) and bad is None and not store.has(s.id, s.keep):
            note(
                f"running point {s.id} ({_params_text(s.params)}) again: {store.dir} keeps it as a summary only, "
                "and it is asked for whole"
            )
            todo.append(s)
            continue
        if store.exists(s.id) and bad is None:
            if listener:
                listener.cached(s.id, s.params)
            continue
        if bad is not None:
            note(f"recomputing point {s.id} ({_params_text(s.params)}), damaged: {bad.dir}/{bad.file}: {bad.problem}")
        todo.append(s)
    return todo


def _params_text(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items()) or "the scenario as it is"


def _execute(
    store: Store,
    specs: list[PointSpec],
    jobs: int | None,
    ray: tuple[Any, str | bool] | None,
    listener: Listener | None,
) -> None:
    todo = _to_run(store, specs, listener)
    if not todo:
        return
    tmp = store.tmp_dir()
    by_id = {s.id: s for s in todo}
    claims = Claims(store, todo, tmp, listener)
    failures: dict[str, str] = {}
    done = len(specs) - len(todo)
    try:
        runner = (
            ray_results(claims, *ray, jobs, listener, by_id) if ray else local_results(claims, jobs, listener, by_id)
        )
        with contextlib.closing(runner):
            for r in runner:
                spec = by_id[r["id"]]
                try:
                    if "error" in r:
                        failures[json.dumps(spec.params, default=str)] = r["error"]
                        if listener:
                            listener.failed(spec.id, spec.params, r["error"])
                        continue
                    meta = {
                        "wall_s": r["wall_s"],
                        "host": r["host"],
                        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                    }
                    store.commit(spec, r["files"], meta, tmp)
                finally:
                    claims.release(spec.id)
                done += 1
                if listener:
                    listener.finished(spec.id, spec.params, r["wall_s"])
    except KeyboardInterrupt as e:
        raise Interrupted(store.dir, done + claims.found, len(specs), exit_status(e)) from None
    finally:
        claims.close()
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        lines = "; ".join(f"{p}: {m}" for p, m in failures.items())
        raise PointsFailed(
            f"{len(failures)} of {len(specs)} points failed (the others are in {store.dir}/): {lines}", failures
        )
