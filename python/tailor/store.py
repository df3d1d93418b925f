"""The result store: finished runs kept by what they compute (docs/sweeps.md).

A store is a directory::

    DIR/points/<id>/    one finished run: point.json, summary.json, scenario.toml,
                        messages.parquet, ports.parquet, rows.parquet, slo.parquet
                        (and queues.parquet when the scenario records queues)
    DIR/sweeps/<name>.json   the sweeps run into it: scenario, axes, their points
    DIR/tmp/<token>/    points being written; removed when their sweep ends

``<id>`` is a hash of the resolved scenario (the TOML after overrides, keys sorted, and
every size distribution as loaded), the bytes of the trace files it reads, the seed,
the engine and the tailor build (the digest of the compiled engine, so a rebuilt engine
never reuses an older one's results). A point is only ever written whole: its files are
made in ``tmp/`` and the directory is renamed into ``points/`` (atomic on one file
system), so a killed sweep leaves finished points and nothing else, a restarted sweep
skips them, and two sweeps into one store share the points they have in common.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import socket
import tomllib
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from tailor import _core
from tailor.errors import StoreError
from tailor.outdir import MARKER, mark, read_marker
from tailor.result import format_bytes
from tailor.scenario import Override, Scenario
from tailor.stats import bootstrap_mean_ci

__all__ = ["Store", "PointSpec", "open_store", "point_id", "config_id", "build_id", "STATS"]

#: Format of the point directory and of the id's hash input; bumped on any change.
FORMAT = 1
#: What a store holds at its top level (reports and their plots aside).
STORE_ENTRIES = {"points", "sweeps", "tmp", MARKER}
#: The slowdown statistics summary.json gives per class and size bin.
STATS = ("mean", "p50", "p90", "p99", "p999", "max")


@dataclass(frozen=True)
class PointSpec:
    """One point of a sweep: a scenario with its overrides, a seed and an engine."""

    scenario: Scenario
    seed: int
    engine: str
    #: The sweep's axis values at this point (seed included when it is an axis).
    params: dict[str, Any]
    id: str
    #: The TOML document after overrides (kept beside the results).
    document: str
    #: What the point computes but for its seed: equal for the seeds of one configuration.
    config: str

    @classmethod
    def resolve(cls, path: Path, overrides: Sequence[Override], engine: str, params: dict[str, Any]) -> PointSpec:
        """The point of ``path`` with ``overrides``. The seed it runs with is always
        written into the document (the scenario's own when no override gives one), so
        that running "the scenario's seed" and "seed = that value" are one point."""
        r = _core.resolve(os.fspath(path), list(overrides))
        if not any(k == "seed" for k, _ in overrides):
            overrides = [*overrides, ("seed", r["info"]["seed"])]
            r = _core.resolve(os.fspath(path), list(overrides))
        seed = r["info"]["seed"]
        sc = Scenario(Path(path), r["info"], tuple(overrides))
        return cls(sc, seed, engine, params, point_id(r, seed, engine), r["document"], config_id(r, engine))


@functools.cache
def build_id() -> str:
    """The digest of the compiled engine: results of another build are other points."""
    with open(_core.__file__, "rb") as f:
        return f"{_core.__version__}+{hashlib.sha256(f.read()).hexdigest()[:16]}"


def _digest(resolved: dict[str, Any], engine: str, text: str, seed: int | None) -> str:
    h = hashlib.sha256()
    head = {"format": FORMAT, "tailor": build_id(), "engine": engine, "seed": seed}
    h.update(json.dumps(head, sort_keys=True).encode())
    h.update(b"\0" + text.encode())
    for f in resolved["inputs"]:
        h.update(b"\0" + _file_digest(Path(f)).encode())
    return h.hexdigest()[:24]


def point_id(resolved: dict[str, Any], seed: int, engine: str) -> str:
    """The store key of a resolved scenario (``_core.resolve``) run with ``seed`` on ``engine``."""
    return _digest(resolved, engine, resolved["identity"], seed)


def config_id(resolved: dict[str, Any], engine: str) -> str:
    """What a point computes but for its seed (summaries across seeds group by it)."""
    return _digest(resolved, engine, resolved["config"], None)[:16]


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _round(v: Any) -> Any:
    """Floats to 12 significant digits, so a load scaled to 0.3 reads back as 0.3."""
    return float(f"{v:.12g}") if isinstance(v, float) else v


def _lookup(doc: dict[str, Any], key: str) -> Any:
    """The value at a dotted key path of a scenario document (None when absent);
    ``load`` is the classes' total offered load unless the document has its own."""
    if key == "load" and "load" not in doc:
        loads = [c.get("load") for c in doc.get("class", [])]
        return _round(sum(loads)) if loads and all(isinstance(x, (int, float)) for x in loads) else None
    node: Any = doc
    for part in key.split("."):
        name, _, index = part.partition("[")
        if not isinstance(node, dict) or name not in node:
            return None
        node = node[name]
        if index:
            i = int(index.rstrip("]"))
            if not isinstance(node, list) or i >= len(node):
                return None
            node = node[i]
    return _round(node) if not isinstance(node, (dict, list)) else json.dumps(node, sort_keys=True)


class Store:
    """A result store directory, opened for reading and for adding points."""

    def __init__(self, dir: str | os.PathLike[str]) -> None:
        self.dir = Path(dir)
        if self.dir.exists() and not self.dir.is_dir():
            raise StoreError(f"{self.dir}: exists and is not a directory")
        if self.dir.is_dir() and any(self.dir.iterdir()) and not _is_store(self.dir):
            raise StoreError(f"{self.dir}: not a tailor result store (no {MARKER} marker of a store, nor a store's "
                             "points/ and sweeps/ alone); refusing to write into it. Give an empty or new directory")

    def __repr__(self) -> str:
        return f"Store({str(self.dir)!r}, {len(self.point_ids())} points)"

    # -- writing -------------------------------------------------------------------

    def create(self) -> None:
        try:
            for sub in ("points", "sweeps", "tmp"):
                (self.dir / sub).mkdir(parents=True, exist_ok=True)
            if read_marker(self.dir) is None:
                mark(self.dir, "store")
        except OSError as e:
            raise StoreError(f"--out: cannot make the store {self.dir} ({e.strerror or e})") from None

    def has(self, id: str) -> bool:
        return (self.dir / "points" / id / "point.json").is_file()

    def tmp_dir(self) -> Path:
        """A directory of this process's own under ``tmp/``, for points being written.

        Directories left by processes that no longer run (a killed sweep) are removed.
        """
        self.create()
        host = _host()
        for d in (self.dir / "tmp").iterdir():
            # Only this host's processes can be checked; another host's sweep may be alive.
            owner, _, rest = d.name.rpartition("~")
            pid = rest.split("-", 1)[0]
            if owner == host and pid.isdigit() and not _alive(int(pid)):
                shutil.rmtree(d, ignore_errors=True)
        d = self.dir / "tmp" / f"{host}~{os.getpid()}-{uuid.uuid4().hex[:8]}"
        d.mkdir()
        return d

    def commit(self, spec: PointSpec, files: dict[str, bytes], meta: dict[str, Any], tmp: Path) -> bool:
        """Writes a finished point: its files into ``tmp``, then one rename into
        ``points/``. False when the point was already there (another sweep wrote it)."""
        if self.has(spec.id):
            return False
        work = tmp / spec.id
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        for name, data in files.items():
            (work / name).write_bytes(data)
        summary = json.loads(files["summary.json"])
        _rows(spec.id, summary).write_parquet(work / "rows.parquet")
        _slos(spec.id, summary).write_parquet(work / "slo.parquet")
        (work / "scenario.toml").write_text(spec.document)
        point = {
            "format": FORMAT,
            "id": spec.id,
            "scenario": summary["scenario"],
            "scenario_file": os.fspath(spec.scenario.path),
            "overrides": [[k, v] for k, v in spec.scenario.overrides],
            "params": spec.params,
            "seed": spec.seed,
            "engine": spec.engine,
            "config": spec.config,
            "tailor_version": _core.__version__,
            "tailor_build": build_id(),
            **meta,
        }
        (work / "point.json").write_text(json.dumps(point, indent=2, default=str))
        # Durable before visible: a crash of the machine must not leave a renamed point
        # whose files were never written out.
        for f in work.iterdir():
            _fsync(f)
        _fsync(work)
        try:
            os.rename(work, self.dir / "points" / spec.id)
            _fsync(self.dir / "points")
        except OSError:
            shutil.rmtree(work, ignore_errors=True)
            if self.has(spec.id):
                return False
            raise
        return True

    def add_sweep(self, name: str, manifest: dict[str, Any]) -> Path:
        self.create()
        path = self.dir / "sweeps" / f"{name}.json"
        tmp = path.with_name(f".{name}.{_host()}-{os.getpid()}-{uuid.uuid4().hex[:8]}.partial")
        tmp.write_text(json.dumps(manifest, indent=2, default=str))
        tmp.replace(path)
        return path

    # -- reading -------------------------------------------------------------------

    def point_ids(self) -> list[str]:
        d = self.dir / "points"
        return sorted(p.name for p in d.iterdir() if (p / "point.json").is_file()) if d.is_dir() else []

    def sweeps(self) -> list[dict[str, Any]]:
        d = self.dir / "sweeps"
        return [json.loads(p.read_text()) for p in sorted(d.glob("*.json"))] if d.is_dir() else []

    def axes(self) -> list[str]:
        """Every sweep axis of the store but the seed, in the order the sweeps gave them."""
        keys: dict[str, None] = {}
        for s in self.sweeps():
            keys.update((k, None) for k in s["axes"] if k != "seed")
        return list(keys)

    def points(self, ids: Iterable[str] | None = None) -> pl.DataFrame:
        """One row per point: point, scenario, seed, engine, tailor_version, wall_s, and
        one column per sweep axis, read from the point's own resolved scenario (so a
        point has every axis's value, whichever sweep made it)."""
        axes = self.axes()
        rows = []
        for id in self.point_ids() if ids is None else ids:
            d = self.dir / "points" / id
            p = json.loads((d / "point.json").read_text())
            doc = tomllib.loads((d / "scenario.toml").read_text())
            row = {k: p.get(k) for k in ("scenario", "seed", "engine", "config", "tailor_version", "wall_s")}
            rows.append({"point": id, **row, **{a: _lookup(doc, a) for a in axes}})
        schema = {"point": pl.Utf8, "scenario": pl.Utf8, "seed": pl.UInt64, "engine": pl.Utf8, "config": pl.Utf8,
                  "tailor_version": pl.Utf8, "wall_s": pl.Float64}
        if not rows:
            return pl.DataFrame(schema={**schema, **{a: pl.Utf8 for a in axes}})
        return pl.DataFrame(rows, schema_overrides=schema, infer_schema_length=None)

    def _scan(self, name: str, ids: Iterable[str] | None) -> pl.LazyFrame:
        files = [self.dir / "points" / id / name for id in (self.point_ids() if ids is None else ids)]
        files = [f for f in files if f.exists()]
        if not files:
            raise StoreError(f"{self.dir}: no points with {name}")
        return pl.scan_parquet(files, include_file_paths="_file")

    def rows(self, ids: Iterable[str] | None = None) -> pl.LazyFrame:
        """Per point, class ("all" too) and size bin ("all" too): each slowdown statistic
        (long form: stat, value, count), with the points' axis columns."""
        return self._scan("rows.parquet", ids).drop("_file").join(self.points(ids).lazy(), on="point")

    def slos(self, ids: Iterable[str] | None = None) -> pl.LazyFrame:
        """Per point and SLO: class, sli, threshold, value, count, met, loss, with the axes."""
        return self._scan("slo.parquet", ids).drop("_file").join(self.points(ids).lazy(), on="point")

    def messages(self, ids: Iterable[str] | None = None) -> pl.LazyFrame:
        """Every message of every point (a lazy scan: filter before you collect), with a
        ``point`` column and the points' axis columns."""
        lf = self._scan("messages.parquet", ids)
        lf = lf.with_columns(pl.col("_file").str.extract(r"points/([0-9a-f]+)/messages\.parquet$", 1).alias("point"))
        return lf.drop("_file").join(self.points(ids).lazy(), on="point")

    def summary(
        self,
        ids: Iterable[str] | None = None,
        stats: Sequence[str] = ("mean", "p50", "p99", "p999"),
        sizes: bool = True,
        confidence: float = 0.95,
    ) -> pl.DataFrame:
        """Across seeds: one row per axis values (seed excluded), scenario, engine, class,
        size and statistic, with the mean over seeds of the per-seed value, the percentile
        bootstrap interval of that mean (``ci_low``, ``ci_high``; null for one seed;
        tailor.stats explains the method) and ``n_seeds``. ``sizes=False`` keeps only
        the "all sizes" rows.

        Seeds are grouped by what they compute (the point's ``config``), never only by
        their axis values: points of a store that agree on every axis but differ in
        something else (an edited scenario file, other base overrides, another tailor
        build) raise :class:`StoreError` rather than being averaged together."""
        bad = [s for s in stats if s not in STATS]
        if bad:
            raise StoreError(f"unknown statistic {bad[0]!r}; accepted: {', '.join(STATS)}")
        ids = list(ids) if ids is not None else None
        axes = self.axes()
        shown = [*axes, "scenario", "engine", "class", "size", "lower_bytes", "upper_bytes", "stat"]
        lf = self.rows(ids).filter(pl.col("stat").is_in(list(stats)))
        if not sizes:
            lf = lf.filter(pl.col("size") == "all")
        grouped = (
            lf.group_by([*shown, "config"], maintain_order=True)
            .agg(pl.col("value").sort_by("seed"), pl.col("seed").sort().alias("seeds"))
            .collect()
        )
        clash = grouped.group_by(shown).agg(pl.col("config").n_unique().alias("n")).filter(pl.col("n") > 1)
        if clash.height:
            at = {k: clash[k][0] for k in [*axes, "scenario", "engine"]}
            raise StoreError(
                f"{self.dir}: points with the same axis values {at} compute different things (an edited "
                "scenario, other base overrides or another tailor build); summarise one sweep "
                "(Sweep.summary, or Store.summary(ids)) or keep such sweeps in separate stores"
            )
        if any(len(set(seeds)) != len(seeds) for seeds in grouped["seeds"].to_list()):
            raise StoreError(f"{self.dir}: a seed appears twice among the points of one configuration")
        intervals = [bootstrap_mean_ci(v, confidence) if v is not None else None for v in grouped["value"].to_list()]
        out = grouped.with_columns(
            pl.col("value").list.mean().alias("mean"),
            pl.Series("ci_low", [i[0] if i else None for i in intervals], dtype=pl.Float64),
            pl.Series("ci_high", [i[1] if i else None for i in intervals], dtype=pl.Float64),
            pl.col("seeds").list.len().cast(pl.UInt32).alias("n_seeds"),
        ).drop("value", "seeds", "config")
        order = {s: i for i, s in enumerate(stats)}
        out = out.with_columns(pl.col("stat").replace_strict(order, return_dtype=pl.Int32).alias("_o"))
        sort_keys = [*axes, "scenario", "engine", "class", "lower_bytes", "_o"]
        out = out.sort(sort_keys, nulls_last=False).drop("_o")
        return out.select([*axes, "scenario", "engine", "class", "size", "lower_bytes", "upper_bytes", "stat",
                           "mean", "ci_low", "ci_high", "n_seeds"])


def open_store(dir: str | os.PathLike[str]) -> Store:
    """Opens an existing result store (``tailor.open``)."""
    d = Path(dir)
    if not (d / "points").is_dir():
        raise StoreError(f"{d}: not a tailor result store (no points/ directory); make one with `tailor sweep ... --out {d}`")
    return Store(d)


def _size_label(lower: int | None, upper: int | None) -> str:
    if lower is None:
        return "all"
    return f"({format_bytes(lower)}, {format_bytes(upper)}]"


def _rows(id: str, summary: dict[str, Any]) -> pl.DataFrame:
    """summary.json's slowdown statistics in long form, one row per (class, bin, stat)."""
    out: dict[str, list[Any]] = {k: [] for k in ("point", "class", "size", "lower_bytes", "upper_bytes", "stat", "value", "count")}

    def add(cls: str, lower: int | None, upper: int | None, block: dict[str, Any]) -> None:
        for stat in STATS:
            if block.get(stat) is None:
                continue
            for k, v in zip(out, (id, cls, _size_label(lower, upper), lower, upper, stat, float(block[stat]), block["count"])):
                out[k].append(v)

    reports = [*summary["classes"].items(), ("all", summary["overall"])]
    for name, report in reports:
        add(name, None, None, report["slowdown"])
        for b in report["bins"]:
            if b["count"] > 0:
                add(name, b["lower_bytes"], b["upper_bytes"], b)
    schema = {"point": pl.Utf8, "class": pl.Utf8, "size": pl.Utf8, "lower_bytes": pl.UInt64, "upper_bytes": pl.UInt64,
              "stat": pl.Utf8, "value": pl.Float64, "count": pl.UInt64}
    return pl.DataFrame(out, schema=schema)


def _slos(id: str, summary: dict[str, Any]) -> pl.DataFrame:
    rows = [
        {"point": id, "class": name, "sli": s["sli"], "threshold": float(s["threshold"]),
         "value": None if s["value"] is None else float(s["value"]), "count": s.get("count"),
         "met": s.get("met"), "loss": s.get("loss")}
        for name, c in summary["classes"].items()
        for s in c.get("slo", [])
    ]
    schema = {"point": pl.Utf8, "class": pl.Utf8, "sli": pl.Utf8, "threshold": pl.Float64, "value": pl.Float64,
              "count": pl.UInt64, "met": pl.Boolean, "loss": pl.Float64}
    return pl.DataFrame(rows, schema=schema)


def _is_store(dir: Path) -> bool:
    """Whether ``dir`` is a store: its marker says so, or (a store written before markers)
    it holds nothing but what a store holds."""
    marker = read_marker(dir)
    if marker is not None:
        return marker["kind"] == "store"
    names = {p.name for p in dir.iterdir()}
    return "points" in names and all(n in STORE_ENTRIES or (n.startswith("report") and n.endswith((".html", ".png")))
                                     for n in names)


def _host() -> str:
    return socket.gethostname().replace("~", "-") or "host"


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
