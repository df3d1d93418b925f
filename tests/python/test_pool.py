"""tailor.pool, the sweep's worker pool, driven directly: the claims handed out under their
locks, points run in spawned workers, a changed point refused (the sweeps that use it:
test_sweep.py, test_store.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tailor
from conftest import QUICKSTART_MODEL, Recorder
from tailor import pool
from tailor.errors import SweepError
from tailor.store import PointSpec, Store


def specs(*seeds: int) -> list[PointSpec]:
    return [PointSpec.resolve(QUICKSTART_MODEL, [("seed", s)], "model", {"seed": s}) for s in seeds]


def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "s")
    s.create()
    return s


def test_claims_pass_over_a_locked_point_and_hand_it_out_once_free(tmp_path: Path) -> None:
    st = store(tmp_path)
    a, b = specs(1, 2)
    held = st.try_lock(a.id)  # as another sweep computing it would
    assert held is not None
    claims = pool.Claims(st, [a, b], st.tmp_dir(), None)
    try:
        assert claims.next()["id"] == b.id
        assert claims.next() is None and len(claims) == 1, "a: locked elsewhere, not handed out, still to run"
        held.release()
        task = claims.next()
        assert task["id"] == a.id and task["seed"] == 1 and task["engine"] == "model"
        assert len(claims) == 0 and claims.next() is None
        assert st.try_lock(a.id) is None, "a handed-out point's lock is held until released"
        claims.release(a.id)
        again = st.try_lock(a.id)
        assert again is not None
        again.release()
    finally:
        claims.close()


def test_claims_report_a_point_another_sweep_finished_as_cached(tmp_path: Path) -> None:
    st = store(tmp_path)
    tailor.sweep(QUICKSTART_MODEL, seed=[1], out=st.dir, engine="model", jobs=1)
    a, b = specs(1, 2)
    rec = Recorder()
    claims = pool.Claims(st, [a, b], st.tmp_dir(), rec)
    try:
        assert claims.next()["id"] == b.id
        assert rec.of("cached") == {a.id} and claims.found == 1
    finally:
        claims.close()


def test_local_workers_run_each_point_and_return_its_files(tmp_path: Path) -> None:
    st = store(tmp_path)
    todo = specs(1, 2, 3)
    by_id = {s.id: s for s in todo}
    rec = Recorder()
    claims = pool.Claims(st, todo, st.tmp_dir(), rec)
    try:
        results = list(pool.local_results(claims, 2, rec, by_id))
    finally:
        claims.close()
    assert sorted(r["id"] for r in results) == sorted(by_id)
    for r in results:
        assert "error" not in r, r
        assert {"summary.json", "messages.parquet", "ports.csv"} <= set(r["files"]) and r["wall_s"] > 0
        assert json.loads(r["files"]["summary.json"])["seed"] == by_id[r["id"]].seed
    assert rec.of("started") == set(by_id)


def test_a_worker_refuses_a_point_that_is_not_the_one_planned(tmp_path: Path) -> None:
    """The point's files changed since it was planned (here: its id is another's): an error, no result."""
    (a,) = specs(1)
    task = pool._task(a, tmp_path)
    r = pool.run_point({**task, "id": "0" * 64})
    assert set(r) == {"id", "error"} and "differs from when the sweep planned this point" in r["error"]
    assert list(tmp_path.iterdir()) == [], "its run directory is removed"


def test_ray_addresses_are_checked_before_ray_starts() -> None:
    pytest.importorskip("ray")
    with pytest.raises(SweepError, match="--ray: 'somewhere' is not accepted; accepted: local, auto, ray://HOST:PORT"):
        pool.ray_module("somewhere")
