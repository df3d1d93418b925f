"""The store's integrity and concurrency (docs/sweeps.md, "Damaged points", "Two sweeps into
one store"): a damaged point is named, never read silently, and recomputed by a rerun; two
sweeps into one store compute each shared point once."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Callable

import polars as pl
import pytest
import tailor
from conftest import QUICKSTART_MODEL, Recorder
from tailor.errors import StoreError
from tailor.store import Store
from tailor.sweep import plan

# Quickstart stating its bottleneck, so that the fast model runs it (conftest).
SMALL = QUICKSTART_MODEL
SEEDS = [1, 2, 3]


def _sweep(out: Path, listener: Recorder | None = None) -> tailor.Sweep:
    return tailor.sweep(SMALL, seed=SEEDS, out=out, engine="model", jobs=1, listener=listener)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished three-seed sweep, copied by each test that damages it."""
    out = tmp_path_factory.mktemp("store") / "s"
    _sweep(out)
    return out


def _truncate(name: str) -> Callable[[Path], None]:
    def damage(point: Path) -> None:
        data = (point / name).read_bytes()
        (point / name).write_bytes(data[: len(data) // 2])

    return damage


def _delete(name: str) -> Callable[[Path], None]:
    return lambda point: (point / name).unlink()


DAMAGES = {
    "truncated rows.parquet": _truncate("rows.parquet"),
    "truncated point.json": _truncate("point.json"),
    "truncated messages.parquet": _truncate("messages.parquet"),
    "truncated summary.json": _truncate("summary.json"),
    "deleted rows.parquet": _delete("rows.parquet"),
    "deleted point.json": _delete("point.json"),
}


def _damaged_copy(pristine: Path, tmp_path: Path, damage: Callable[[Path], None]) -> tuple[Path, str]:
    """A copy of the pristine store with the seed-2 point damaged; (store, its id)."""
    store = tmp_path / "s"
    shutil.copytree(pristine, store)
    points = tailor.open(store).points()
    bad = points.filter(pl.col("seed") == 2)["point"][0]
    damage(store / "points" / bad)
    return store, bad


@pytest.mark.parametrize("what", list(DAMAGES))
def test_a_damaged_point_is_named_by_every_read(pristine: Path, tmp_path: Path, what: str) -> None:
    store, bad = _damaged_copy(pristine, tmp_path, DAMAGES[what])
    r = subprocess.run(
        [sys.executable, "-m", "tailor", "report", str(store)], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert bad in r.stderr and "Traceback" not in r.stderr, r.stderr
    opened = tailor.open(store)
    for read in (opened.messages, opened.rows, opened.summary, opened.points):
        with pytest.raises(StoreError) as e:
            read()
        assert bad in str(e.value) and str(store / "points" / bad) in str(e.value), str(e.value)
        assert e.value.point == bad
    # A read of the other points alone is not refused.
    good = [p for p in opened.point_ids() if p != bad]
    assert opened.rows(good).collect()["point"].n_unique() == 2


@pytest.mark.parametrize("what", list(DAMAGES))
def test_a_rerun_recomputes_exactly_the_damaged_point_and_says_so(
    pristine: Path, tmp_path: Path, what: str, capsys: pytest.CaptureFixture[str]
) -> None:
    store, bad = _damaged_copy(pristine, tmp_path, DAMAGES[what])
    stored = dict(plan(SMALL, seed=SEEDS, out=store, engine="model").select("point", "stored").iter_rows())
    assert stored == {p: p != bad for p in stored}, "the dry run counts the damaged point as to be run"
    rec = Recorder()
    _sweep(store, rec)
    assert rec.of("finished") == {bad}
    assert rec.of("cached") == {p for p in stored if p != bad}
    err = capsys.readouterr().err
    assert bad in err and "recompute" in err, err
    assert not (store / "tmp").exists() or not any((store / "tmp").iterdir()), "the damaged copy is not left behind"
    summary = tailor.open(store).summary(sizes=False)
    assert set(summary["n_seeds"].to_list()) == {3}
    r = subprocess.run(
        [sys.executable, "-m", "tailor", "report", str(store)], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    html = (store / "report.html").read_text()
    assert "<td>seeds per axis values</td><td>3</td>" in html


def test_a_point_changed_in_place_is_caught_by_its_checksum(pristine: Path, tmp_path: Path) -> None:
    """Same size, other bytes: only the SHA-256 in the manifest can tell."""

    def flip(point: Path) -> None:
        data = bytearray((point / "rows.parquet").read_bytes())
        data[len(data) // 2] ^= 0xFF
        (point / "rows.parquet").write_bytes(bytes(data))

    store, bad = _damaged_copy(pristine, tmp_path, flip)
    with pytest.raises(StoreError, match="SHA-256") as e:
        tailor.open(store).rows()
    assert e.value.point == bad and e.value.file == "rows.parquet"
    rec = Recorder()
    _sweep(store, rec)
    assert rec.of("finished") == {bad}


def _as_previous_format(point: Path) -> None:
    """Rewrites a point's manifest as the previous store format wrote it: no checksums."""
    meta = json.loads((point / "point.json").read_text())
    for key in ("files", "sha256"):
        meta.pop(key, None)
    meta["format"] = 1
    (point / "point.json").write_text(json.dumps(meta, indent=2))


def test_points_of_the_previous_format_are_read_and_checked_as_far_as_possible(
    pristine: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Format 1 had no checksums: a read checks that every file is there and parses; a
    sweep does not reuse such a point (it cannot be verified whole) but recomputes it."""
    store = tmp_path / "s"
    shutil.copytree(pristine, store)
    for p in (store / "points").iterdir():
        _as_previous_format(p)
    opened = tailor.open(store)
    assert opened.messages().collect()["point"].n_unique() == 3
    assert set(opened.summary(sizes=False)["n_seeds"].to_list()) == {3}
    bad = sorted(opened.point_ids())[0]
    _truncate("messages.parquet")(store / "points" / bad)
    with pytest.raises(StoreError, match="no checksums") as e:
        tailor.open(store).messages()
    assert e.value.point == bad and e.value.file == "messages.parquet"
    rec = Recorder()
    _sweep(store, rec)
    assert rec.of("finished") == set(opened.point_ids())
    assert "no checksums" in capsys.readouterr().err
    assert tailor.open(store).messages().collect()["point"].n_unique() == 3


# -- two sweeps into one store -----------------------------------------------------------

SCRIPT = """
import json, sys, time
from pathlib import Path
import tailor

class Counter:
    def __init__(self):
        self.events = []
    def cached(self, point, params): self.events.append(["cached", point])
    def started(self, point, params): pass
    def finished(self, point, params, wall_s): self.events.append(["finished", point])
    def failed(self, point, params, message): self.events.append(["failed", point])

if __name__ == "__main__":
    go, out, record = map(Path, sys.argv[1:4])
    while not go.exists():
        time.sleep(0.005)
    c = Counter()
    tailor.sweep({small!r}, seed=[1, 2, 3, 4], out=out, engine="model", jobs=1, listener=c)
    record.write_text(json.dumps(c.events))
"""


def test_two_sweeps_into_one_store_at_once_compute_each_point_once(tmp_path: Path) -> None:
    script = tmp_path / "sweep_once.py"
    script.write_text(textwrap.dedent(SCRIPT.format(small=str(SMALL))))
    go, out = tmp_path / "go", tmp_path / "s"
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), str(go), str(out), str(tmp_path / f"events{i}.json")],
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(2)
    ]
    time.sleep(3)  # both have imported tailor and wait for the go
    go.write_text("go")
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    events = [json.loads((tmp_path / f"events{i}.json").read_text()) for i in range(2)]
    ran = [[p for kind, p in e if kind == "finished"] for e in events]
    ids = set(tailor.open(out).point_ids())
    assert len(ids) == 4
    assert sorted(ran[0] + ran[1]) == sorted(ids), f"each point is run exactly once: {ran}"
    for e in events:
        assert {p for _, p in e} == ids, "each sweep accounts for every point (run or found)"
    assert not any((out / "tmp").iterdir()), "no lock is left behind"


LOCKER = """
import sys, time
from tailor.store import Store
from tailor.sweep import plan

lock = Store(sys.argv[1]).try_lock(sys.argv[2])
assert lock is not None
print("locked", flush=True)
time.sleep(600)
"""


def test_the_lock_of_a_killed_sweep_is_taken_over(tmp_path: Path) -> None:
    out = tmp_path / "s"
    ids = plan(SMALL, seed=SEEDS, out=out, engine="model")["point"].to_list()
    Store(out).create()
    locker = subprocess.Popen([sys.executable, "-c", LOCKER, str(out), ids[0]], stdout=subprocess.PIPE, text=True)
    assert locker.stdout is not None and locker.stdout.readline().strip() == "locked"
    held = [p for p in (out / "tmp").iterdir() if ids[0] in p.name]
    assert held and str(locker.pid) in held[0].read_text(), "the lock records its holder's pid"
    locker.kill()
    locker.wait()
    rec = Recorder()
    _sweep(out, rec)
    assert rec.of("finished") == set(ids)
    assert not any((out / "tmp").iterdir())


HOLDER = """
import sys, time
from pathlib import Path
from tailor.store import Store

lock = Store(sys.argv[1]).try_lock(sys.argv[2])
assert lock is not None
print("locked", flush=True)
while not Path(sys.argv[3]).exists():
    time.sleep(0.01)
lock.release()
"""


class _Tripwire(io.StringIO):
    """stderr that makes a file once the sweep says it waits for another sweep's point."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path

    def write(self, text: str) -> int:
        if "waiting for" in text:
            self.path.write_text("go")
        return super().write(text)


def test_a_point_another_sweep_holds_is_waited_for_and_run_when_that_sweep_lets_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The holder releases the lock without writing the point (as a sweep whose point
    failed): this sweep runs the others, says whom it waits for, then runs that point."""
    out, go = tmp_path / "s", tmp_path / "go"
    ids = plan(SMALL, seed=SEEDS, out=out, engine="model")["point"].to_list()
    Store(out).create()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(out), ids[1], str(go)], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    err = _Tripwire(go)
    monkeypatch.setattr(sys, "stderr", err)
    rec = Recorder()
    try:
        _sweep(out, rec)
    finally:
        go.write_text("go")
        holder.wait(timeout=60)
    assert f"waiting for 1 point(s) another sweep into {out} is computing (pid {holder.pid} on host" in err.getvalue()
    assert [p for k, p in rec.events if k == "finished"][-1] == ids[1], "the held point is run last"
    assert rec.of("finished") == set(ids)
