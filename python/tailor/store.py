"""The result store: finished runs kept by what they compute (docs/sweeps.md).

A store is a directory::

    DIR/points/<id>/    one finished run: point.json, summary.json, scenario.toml,
                        messages.parquet, ports.csv, rows.parquet, slo.parquet
                        (and queues.parquet when the scenario records queues); a
                        point kept as a summary only (``keep="summary"``) has no
                        messages, ports or queues
    DIR/sweeps/<name>.json   the sweeps run into it: scenario, axes, their points
    DIR/tmp/<token>/    points being written; removed when their sweep ends
    DIR/tmp/<id>.lock   the lock of a point being computed (held by its sweep)

``<id>`` is a hash of the resolved scenario (the TOML after overrides, keys sorted, and
every size distribution as loaded), the bytes of the trace files it reads, the seed,
the engine and the tailor build (the digest of the compiled engine, so a rebuilt engine
never reuses an older one's results). A point is only ever written whole: its files are
made in ``tmp/`` and the directory is renamed into ``points/`` (atomic on one file
system), so a killed sweep leaves finished points and nothing else, a restarted sweep
skips them, and two sweeps into one store share the points they have in common.

``point.json`` is the point's manifest: it lists every other file of the point with its
size and SHA-256, and holds the SHA-256 of its own content. A read checks the points it
reads (the manifest, the size of every file, the checksum of each file it loads) and
raises :class:`tailor.errors.PointError` naming a damaged one; a sweep checks every file
of a point before reusing it and recomputes a damaged one. A sweep computes a point under
its lock (an ``flock`` on ``tmp/<id>.lock``), so two sweeps into one store compute a shared
point once. docs/sweeps.md says what each check costs and what the lock guarantees.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import socket
import time
import tomllib
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from tailor import _core
from tailor.errors import PointError, StoreError
from tailor.outdir import MARKER, alive, mark, read_marker
from tailor.scenario import Override, Scenario
from tailor.stats import bootstrap_ci
from tailor.store_ids import FORMAT, build_id, config_id, file_digest, manifest_digest, point_id
from tailor.store_tables import STATS
from tailor.store_tables import rows as _rows
from tailor.store_tables import slos as _slos

__all__ = [
    "Store",
    "PointSpec",
    "PointLock",
    "open_store",
    "point_id",
    "config_id",
    "build_id",
    "STATS",
    "KEEPS",
    "SUMMARY_RUN_FILES",
]

#: The files of every point of format 1 (written before checksums).
FORMAT1_FILES = ("summary.json", "scenario.toml", "messages.parquet", "rows.parquet", "slo.parquet")
#: What a store holds at its top level (reports and their plots aside).
STORE_ENTRIES = {"points", "sweeps", "tmp", MARKER}
#: What a point keeps: every file of its run, or its summary only (the module's doc).
KEEPS = ("all", "summary")
#: The run's files a summary-only point keeps (the store adds scenario.toml, rows.parquet
#: and slo.parquet, derived from them).
SUMMARY_RUN_FILES = ("summary.json",)


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
    #: What the store keeps of it (:data:`KEEPS`); not part of the id: a point computes
    #: the same whatever is kept of it.
    keep: str = "all"

    @classmethod
    def resolve(
        cls, path: Path, overrides: Sequence[Override], engine: str, params: dict[str, Any], keep: str = "all"
    ) -> PointSpec:
        """The point of ``path`` with ``overrides``. The seed it runs with is always
        written into the document (the scenario's own when no override gives one), so
        that running "the scenario's seed" and "seed = that value" are one point."""
        if keep not in KEEPS:
            raise StoreError(f"keep: unknown value {keep!r}; accepted: {', '.join(KEEPS)}")
        r = _core.resolve(os.fspath(path), list(overrides))
        if not any(k == "seed" for k, _ in overrides):
            overrides = [*overrides, ("seed", r["info"]["seed"])]
            r = _core.resolve(os.fspath(path), list(overrides))
        seed = r["info"]["seed"]
        sc = Scenario(Path(path), r["info"], tuple(overrides))
        return cls(sc, seed, engine, params, point_id(r, seed, engine), r["document"], config_id(r, engine), keep)


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
            raise StoreError(
                f"{self.dir}: not a tailor result store (no {MARKER} marker of a store, nor a store's "
                "points/ and sweeps/ alone); refusing to write into it. Give an empty or new directory"
            )
        # Files whose SHA-256 this Store has checked: path -> (size, mtime) when checked.
        self._hashed: dict[Path, tuple[int, int]] = {}

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

    def has(self, id: str, keep: str = "all") -> bool:
        """Whether the store holds point ``id`` whole (every file there and as written) with
        what ``keep`` needs: a point kept as a summary only serves ``keep="summary"`` only."""
        if not self.exists(id):
            return False
        try:
            meta = self.verify(id)
        except PointError:
            return False
        return keep == "summary" or _kept(meta) == "all"

    def kept(self, id: str) -> str:
        """What point ``id`` keeps (:data:`KEEPS`); raises PointError for a damaged manifest."""
        return _kept(self._manifest(id))

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
            if owner == host and pid.isdigit() and not alive(int(pid), None):
                shutil.rmtree(d, ignore_errors=True)
            elif d.suffix == ".lock" and (lock := self.try_lock(d.stem)) is not None:
                lock.release()  # a lock its holder left when it was killed: free, so removed
        d = self.dir / "tmp" / f"{host}~{os.getpid()}-{uuid.uuid4().hex[:8]}"
        d.mkdir()
        return d

    def commit(self, spec: PointSpec, files: dict[str, bytes], meta: dict[str, Any], tmp: Path) -> bool:
        """Writes a finished point: its files into ``tmp``, then one rename into
        ``points/``. False when the point was already there whole (another sweep wrote
        it). A damaged point there is replaced, and so is a summary-only one by a point kept
        whole: it is moved into ``tmp`` (removed with it) only once the new one is written,
        so a sweep killed meanwhile leaves it in place. ``spec.keep == "summary"`` keeps of
        ``files`` only :data:`SUMMARY_RUN_FILES`."""
        if self.has(spec.id, spec.keep):
            return False
        if spec.keep == "summary":
            files = {k: v for k, v in files.items() if k in SUMMARY_RUN_FILES}
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
            "kept": spec.keep,
            "tailor_version": _core.__version__,
            "tailor_build": build_id(),
            **meta,
        }
        point["files"] = {f.name: {"bytes": f.stat().st_size, "sha256": file_digest(f)} for f in sorted(work.iterdir())}
        # Through JSON once, so the checksum covers exactly what a reader will load.
        point = json.loads(json.dumps(point, default=str))
        point["sha256"] = manifest_digest(point)
        (work / "point.json").write_text(json.dumps(point, indent=2))
        # Durable before visible: a crash of the machine must not leave a renamed point
        # whose files were never written out.
        for f in work.iterdir():
            _fsync(f)
        _fsync(work)
        target = self.dir / "points" / spec.id
        try:
            if target.exists():  # damaged or a summary only (checked above): aside, into this sweep's tmp
                os.rename(target, tmp / f"replaced-{spec.id}")
            os.rename(work, target)
            _fsync(self.dir / "points")
        except OSError:
            shutil.rmtree(work, ignore_errors=True)
            if self.has(spec.id, spec.keep):
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
        """Every point directory of the store, whole or damaged (reading a damaged one
        raises :class:`PointError`)."""
        d = self.dir / "points"
        return sorted(p.name for p in d.iterdir() if p.is_dir()) if d.is_dir() else []

    def exists(self, id: str) -> bool:
        """Whether ``points/<id>/`` is there, whole or not."""
        return (self.dir / "points" / id).is_dir()

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
            p = self.check(id, ("scenario.toml",))
            doc = tomllib.loads((d / "scenario.toml").read_text())
            row = {k: p.get(k) for k in ("scenario", "seed", "engine", "config", "tailor_version", "wall_s")}
            rows.append({"point": id, **row, **{a: _lookup(doc, a) for a in axes}})
        schema = {
            "point": pl.Utf8,
            "scenario": pl.Utf8,
            "seed": pl.UInt64,
            "engine": pl.Utf8,
            "config": pl.Utf8,
            "tailor_version": pl.Utf8,
            "wall_s": pl.Float64,
        }
        if not rows:
            return pl.DataFrame(schema={**schema, **{a: pl.Utf8 for a in axes}})
        return pl.DataFrame(rows, schema_overrides=schema, infer_schema_length=None)

    def _scan(self, name: str, ids: Iterable[str] | None) -> pl.LazyFrame:
        """``name`` of every point in ``ids``, each point checked first (a damaged one
        raises rather than being left out)."""
        ids = self.point_ids() if ids is None else list(ids)
        for id in ids:
            self.check(id, (name,))
        if not ids:
            raise StoreError(f"{self.dir}: no points with {name}")
        return pl.scan_parquet([self.dir / "points" / id / name for id in ids], include_file_paths="_file")

    # -- checking points (docs/sweeps.md, "Damaged points") -------------------------

    def check(self, id: str, reads: Iterable[str] = ()) -> dict[str, Any]:
        """Point ``id``'s manifest (point.json), once the point is found whole enough for a
        read of the files ``reads``: the manifest intact, every file it lists there at its
        size, and each file of ``reads`` at its SHA-256. Raises :class:`PointError`."""
        meta = self._manifest(id)
        if "files" not in meta:
            return self._check_format1(id, meta)
        for name, entry in meta["files"].items():
            self._check_size(id, name, entry["bytes"])
        for name in reads:
            if name not in meta["files"] and _kept(meta) == "summary":
                raise self._error(
                    id,
                    name,
                    "not kept: the point was stored as a summary only (keep summary: "
                    "summary.json, its rows and SLO verdicts, no messages or port records)",
                    remedy='run its search again with --keep all (keep="all") and the same --out '
                    f"{self.dir} to run it again and keep it whole",
                )
            if name not in meta["files"]:
                raise self._error(id, name, "not part of this point (its point.json does not list it)")
            self._check_digest(id, name, meta["files"][name]["sha256"])
        return meta

    def verify(self, id: str) -> dict[str, Any]:
        """:meth:`check` of every file of point ``id`` (what a sweep does before reusing
        it). A point of format 1 has no checksums to verify: it is not reused."""
        meta = self._manifest(id)
        if "files" not in meta:
            raise self._format1_error(id, "point.json", "no checksums, so not verifiable whole")
        return self.check(id, meta["files"])

    def problem(self, id: str) -> PointError | None:
        """What :meth:`verify` finds wrong with point ``id``, or None when it is whole."""
        try:
            self.verify(id)
        except PointError as e:
            return e
        return None

    def _manifest(self, id: str) -> dict[str, Any]:
        """point.json of point ``id``, parsed and matched against its own checksum."""
        path = self.dir / "points" / id / "point.json"
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise self._error(id, "point.json", "missing") from None
        except (OSError, UnicodeDecodeError) as e:
            raise self._error(id, "point.json", f"unreadable ({type(e).__name__}: {e})") from None
        try:
            meta = json.loads(text)
        except json.JSONDecodeError as e:
            raise self._error(id, "point.json", f"not valid JSON, truncated or corrupt ({e})") from None
        if not isinstance(meta, dict) or not isinstance(meta.get("format"), int):
            raise self._error(id, "point.json", "not a point manifest (it has no format)")
        if meta["format"] > FORMAT:
            raise self._error(
                id,
                "point.json",
                f"of store format {meta['format']}, newer than this tailor reads (formats 1 to {FORMAT})",
                remedy="read the store with the tailor that wrote it",
            )
        if meta["format"] >= 2 and meta.get("sha256") != manifest_digest(meta):
            raise self._error(
                id, "point.json", "its content differs from its own SHA-256 (changed since it was written)"
            )
        if meta.get("id") != id:
            raise self._error(id, "point.json", f"names point {meta.get('id')!r}, not the directory's")
        return meta

    def _check_size(self, id: str, name: str, size: int) -> None:
        try:
            actual = (self.dir / "points" / id / name).stat().st_size
        except FileNotFoundError:
            raise self._error(id, name, "missing") from None
        if actual != size:
            what = "truncated" if actual < size else "longer than written"
            raise self._error(id, name, f"{what}: {actual:,} bytes where point.json records {size:,}")

    def _check_digest(self, id: str, name: str, digest: str) -> None:
        """The file's SHA-256 against the manifest's, once per file while it is unchanged."""
        path = self.dir / "points" / id / name
        st = path.stat()
        if self._hashed.get(path) == (st.st_size, st.st_mtime_ns):
            return
        if file_digest(path) != digest:
            raise self._error(
                id, name, "its content differs from its SHA-256 in point.json (changed since it was written)"
            )
        self._hashed[path] = (st.st_size, st.st_mtime_ns)

    def _check_format1(self, id: str, meta: dict[str, Any]) -> dict[str, Any]:
        """A point written before checksums: every file there and readable (a JSON or
        TOML file parses, a Parquet file's footer reads). This finds a missing or
        truncated file, not one changed in place."""
        d = self.dir / "points" / id
        for name in FORMAT1_FILES:
            path = d / name
            if not path.is_file():
                raise self._format1_error(id, name, "missing")
            try:
                if name.endswith(".parquet"):
                    pl.read_parquet_schema(path)
                elif name.endswith(".json"):
                    json.loads(path.read_text(encoding="utf-8"))
                else:
                    tomllib.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError, pl.exceptions.PolarsError) as e:
                raise self._format1_error(
                    id, name, f"unreadable, truncated or corrupt ({type(e).__name__}: {e})"
                ) from None
        return meta

    def _error(self, id: str, file: str, problem: str, remedy: str | None = None) -> PointError:
        return PointError(
            self.dir / "points" / id,
            id,
            file,
            problem,
            remedy or (f"run its sweep again with --out {self.dir} to recompute it (the damaged point is replaced)"),
        )

    def _format1_error(self, id: str, file: str, problem: str) -> PointError:
        return self._error(
            id,
            file,
            f"{problem} (a point of store format 1, written with no checksums by an older tailor)",
            remedy=f"run its sweep again into a new --out to recompute it; this tailor writes format {FORMAT}",
        )

    # -- locking (docs/sweeps.md, "Two sweeps into one store") ----------------------

    def try_lock(self, id: str) -> PointLock | None:
        """The lock of point ``id``, or None when another process holds it.

        An ``flock`` on ``tmp/<id>.lock``, which the system releases when its process
        ends however it ends: the lock of a killed sweep is free and taken over. The
        file records the holder (pid, host, since) for messages."""
        self.create()
        path = self.dir / "tmp" / f"{id}.lock"
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                return None
            except OSError as e:
                os.close(fd)
                if e.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS):
                    raise StoreError(
                        f"{path}: this file system does not support locks ({e.strerror}); give an --out on "
                        "a local disk or an NFS mount with locking"
                    ) from None
                raise
            # The last holder removes the file when it is done: a lock taken on the
            # removed file is no lock. Then open the file anew.
            try:
                if os.fstat(fd).st_ino == os.stat(path).st_ino:
                    break
            except FileNotFoundError:
                pass
            os.close(fd)
        holder = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps(holder).encode())
        return PointLock(path, fd)

    def lock_holder(self, id: str) -> str:
        """Who holds point ``id``'s lock, as its lock file says ("pid 12 on host h")."""
        try:
            h = json.loads((self.dir / "tmp" / f"{id}.lock").read_text())
            return f"pid {h['pid']} on host {h['host']}"
        except (OSError, ValueError, KeyError, TypeError):
            return "another sweep"

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
        intervals = [bootstrap_ci(v, confidence) if v is not None else None for v in grouped["value"].to_list()]
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
        return out.select(
            [
                *axes,
                "scenario",
                "engine",
                "class",
                "size",
                "lower_bytes",
                "upper_bytes",
                "stat",
                "mean",
                "ci_low",
                "ci_high",
                "n_seeds",
            ]
        )


class PointLock:
    """A point's lock, held by the sweep computing it (:meth:`Store.try_lock`)."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path, self._fd = path, fd

    def release(self) -> None:
        """Removes the lock file, then unlocks: a process that opened the file before
        its removal sees it gone once it gets the lock, and tries again."""
        if self._fd < 0:
            return
        try:
            self.path.unlink(missing_ok=True)
        finally:
            os.close(self._fd)  # closing the last descriptor releases the flock
            self._fd = -1


def open_store(dir: str | os.PathLike[str]) -> Store:
    """Opens an existing result store (``tailor.open``)."""
    d = Path(dir)
    if not (d / "points").is_dir():
        raise StoreError(
            f"{d}: not a tailor result store (no points/ directory); make one with `tailor sweep ... --out {d}`"
        )
    return Store(d)


def _is_store(dir: Path) -> bool:
    """Whether ``dir`` is a store: its marker says so, or (a store written before markers)
    it holds nothing but what a store holds."""
    marker = read_marker(dir)
    if marker is not None:
        return marker["kind"] == "store"
    names = {p.name for p in dir.iterdir()}
    return "points" in names and all(
        n in STORE_ENTRIES or (n.startswith("report") and n.endswith((".html", ".png"))) for n in names
    )


def _kept(meta: dict[str, Any]) -> str:
    """What a point's manifest says it keeps (a point written before ``kept``: all)."""
    return str(meta.get("kept", "all"))


def _host() -> str:
    return socket.gethostname().replace("~", "-") or "host"


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
