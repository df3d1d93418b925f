"""Where tailor writes, and what it may replace there (docs/results.md, "Output directories").

Every directory tailor writes whole — a run, a comparison, a cross-check, a reproduction,
a sweep store — holds a marker file, ``.tailor``: a small JSON object naming the kind of
directory, its state and the files tailor wrote in it. The rules that follow from it:

- A directory is written in a hidden sibling, ``.NAME.partial-PID``, and moved into place
  only once complete, so a failed, cancelled (Ctrl-C, SIGTERM) or killed run leaves no
  half-written result under the name asked for. A partial whose process is gone (SIGKILL,
  a crash) is removed by the next tailor command that writes beside it.
- An existing directory is replaced only when its marker says it is tailor's, of the same
  kind; then only the files the marker lists are replaced or removed. Anything else in it
  (a user's ``notes.txt``, ``sub/data.txt``) stays. A directory without the marker that
  is not empty — an ns-3 run, a result of a tailor too old to write markers, anything of a
  user's — is refused with :class:`~tailor.errors.OutputError`; nothing is written.
- A single file (a report, a plot) replaces an existing file only when tailor wrote that
  one as a report or a plot: it carries tailor's signature (:data:`SIGNATURE`, in the
  HTML's generator tag or the image's metadata) or its directory's marker lists it among
  its ``outputs`` (the files written into the directory after it, e.g. the advisor's
  JSON). A result file — one a marker of the directory or of a directory above lists
  among its ``files`` but not its ``outputs`` (a run's ``summary.json``, a reproduction's
  figure), a marker, anything in a store's ``points/`` — is never replaced that way.
- A reproduction's marker names the reproduction (``"name"``): only the same
  reproduction replaces the directory. A reproduction's directory whose marker names none
  (written before markers named them) may be any one's, so none replaces it.

While a directory is being replaced its marker says ``"state": "replacing"``; readers
(:class:`tailor.Result`) refuse a directory in that state, so a crash half-way through a
replacement is reported, never read as a result.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tailor.errors import DataError, OutputError

__all__ = [
    "MARKER",
    "SIGNATURE",
    "staged",
    "check_target",
    "read_marker",
    "mark",
    "require_complete",
    "write_file",
    "written_by_tailor",
    "check_file",
    "result_of",
    "clean_stale_partials",
    "alive",
]

#: The marker file of every directory tailor writes whole.
MARKER = ".tailor"
#: The text by which a file tailor wrote says so (HTML generator tag, PNG/SVG/PDF metadata).
SIGNATURE = "written by tailor"
#: Where each kind of file tailor writes carries :data:`SIGNATURE`: the HTML's generator
#: tag, the PNG's ``Software`` text chunk, the SVG's and the PDF's creator. A file that
#: merely mentions the words is not taken for tailor's.
_SIGNED = tuple(
    s.encode() + SIGNATURE.encode()
    for s in ('<meta name="generator" content="', "Software\x00", "<dc:title>", "/Creator (")
)
#: The kinds of directory tailor writes.
KINDS = ("run", "compare", "crosscheck", "reproduction", "store")
#: The directories of a store that hold its results (``tailor.store``: points, sweep
#: manifests, points being written); everything in them is the store's.
STORE_DIRS = ("points", "sweeps", "tmp")

_PARTIAL = re.compile(r"^\.(?P<name>.+)\.partial-(?P<pid>\d+)$")
#: What the engine's own staging directories held before markers existed (tailor ≤ 0.1 with
#: no marker): such a directory of a dead process is tailor's and may be removed.
_ENGINE_FILES = {
    "messages.csv",
    "queues.csv",
    "summary.json",
    "ports.csv",
    "messages.parquet",
    "queues.parquet",
    "messages.parquet.partial",
    "queues.parquet.partial",
}

Say = Callable[[str], None]


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)


# ---------------------------------------------------------------------------- markers


def read_marker(dir: Path) -> dict[str, Any] | None:
    """The marker of ``dir``, or None when it has none (or it is not tailor's JSON)."""
    try:
        data = json.loads((dir / MARKER).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("kind") not in KINDS or not isinstance(data.get("files"), list):
        return None
    # Only plain relative paths inside the directory: a corrupted or crafted marker must
    # never make tailor touch a file outside it.
    data["files"] = [f for f in data["files"] if _inside(f)]
    # ``outputs`` (the reports and plots among ``files``) is absent from the markers of a
    # tailor that did not tell them apart: None then, see ``_is_output``.
    outputs = data.get("outputs")
    data["outputs"] = [f for f in outputs if _inside(f)] if isinstance(outputs, list) else None
    if not isinstance(data.get("name"), str):
        data["name"] = None
    return data


def _inside(f: object) -> bool:
    """Whether marker entry ``f`` is a plain relative path below its directory."""
    if not isinstance(f, str) or not f or f.startswith("/") or "\\" in f:
        return False
    parts = f.split("/")
    return all(p not in ("", ".", "..") for p in parts) and f != MARKER


def _write_marker(
    dir: Path, kind: str, state: str, files: Sequence[str], outputs: Sequence[str] = (), name: str | None = None
) -> None:
    """Writes ``dir``'s marker in one rename (a reader sees the old one or the new one).
    ``outputs``: the reports and plots among ``files``; ``name``: which reproduction."""
    from tailor import __version__

    marker: dict[str, Any] = {"tailor": __version__, "kind": kind}
    if name is not None:
        marker["name"] = name
    marker.update(state=state, files=sorted(set(files)), outputs=sorted(set(outputs)))
    if state == "partial":
        marker.update(host=_host(), pid=os.getpid(), process_start=_process_start(os.getpid()))
    tmp = dir / f"{MARKER}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(marker, indent=1) + "\n")
    os.replace(tmp, dir / MARKER)


def mark(dir: Path, kind: str) -> None:
    """Marks ``dir`` as a complete tailor ``kind`` directory that tailor fills itself (a
    store, whose points are written one by one, each by one rename)."""
    _write_marker(dir, kind, "complete", [])


def require_complete(dir: Path) -> None:
    """Raises DataError when ``dir``'s marker says it was left half-written."""
    marker = read_marker(dir)
    if marker is not None and marker.get("state") != "complete":
        raise DataError(
            f"{dir}: this {marker['kind']} directory was left {marker.get('state')} by a tailor that stopped "
            "half-way; its files are not one result. Run it again into the same place to replace it"
        )


def _files(dir: Path) -> list[str]:
    """The files below ``dir`` (relative, '/'-separated), its own marker excepted (the
    markers of directories inside it, e.g. a comparison's two runs, are files of it)."""
    return sorted(p.relative_to(dir).as_posix() for p in dir.rglob("*") if p.is_file() and p != dir / MARKER)


# ---------------------------------------------------------------------------- directories


def check_target(out: Path, kind: str, name: str | None = None) -> dict[str, Any] | None:
    """Raises OutputError unless tailor may write a ``kind`` directory at ``out``: it does
    not exist, is empty, or is a complete-or-interrupted tailor ``kind`` directory — of
    the same ``name`` (a reproduction's). Returns the marker of the directory to be
    replaced, or None."""
    if not out.exists():
        return None
    if not out.is_dir():
        raise OutputError(
            f"--out: {out}: exists and is not a directory; give a new or empty directory, or a {kind} of tailor's"
        )
    marker = read_marker(out)
    if marker is None:
        try:
            occupied = any(out.iterdir())
        except OSError as e:
            raise OutputError(f"--out: {out}: cannot be read ({e.strerror or e})") from None
        if occupied:
            raise OutputError(
                f"--out: {out}: exists, is not empty and has no {MARKER} marker, so it is not a directory tailor wrote; "
                f"refusing to write into it (nothing in it was touched). Give a new or empty directory"
            )
        return None
    if marker["kind"] != kind:
        raise OutputError(
            f"--out: {out}: is a tailor {marker['kind']} directory, not a {kind}; refusing to replace it. "
            "Give a new or empty directory"
        )
    if marker["name"] != name:
        raise OutputError(_other_name(out, kind, marker["name"], name))
    return marker


def _other_name(out: Path, kind: str, old: str | None, new: str | None) -> str:
    """Why ``out``, a ``kind`` directory of ``old``, is not replaced by one of ``new``."""
    if old is None:
        return (
            f"--out: {out}: holds a {kind} written by a tailor that did not record which one, so tailor cannot "
            f"tell whether it is '{new}' and does not replace it (nothing was touched). Remove it or give another "
            "directory"
        )
    other = f"'{new}'" if new is not None else f"one of an unnamed {kind}"
    return (
        f"--out: {out}: holds the results of {kind} '{old}', not {other}; refusing to replace them (nothing was "
        "touched). Give another directory"
    )


@contextmanager
def staged(
    out: str | os.PathLike[str], kind: str, say: Say | None = _stderr, name: str | None = None
) -> Iterator[Path]:
    """Gives an empty staging directory to fill with a ``kind`` result (of ``name``: the
    reproduction's); on success its files are installed at ``out`` (by the rules of this
    module), on any exception — KeyboardInterrupt and SIGTERM included — the staging
    directory is removed and ``out`` is left as it was. ``say`` is told when an earlier
    result is being replaced."""
    # The place itself: `.`, `..` or a symlink name the directory they lead to, and the
    # staging directory must sit beside that (outside it, on its file system).
    out = Path(os.path.realpath(out))
    check_target(out, kind, name)
    parent = out.parent
    made = _missing_parents(parent)
    try:
        parent.mkdir(parents=True, exist_ok=True)
        clean_stale_partials(parent)
        stage = parent / f".{out.name}.partial-{os.getpid()}"
        if stage.exists():
            shutil.rmtree(stage)
        stage.mkdir()
        _write_marker(stage, kind, "partial", [], name=name)
    except OSError as e:
        raise OutputError(f"--out: {e.filename or out}: cannot write ({e.strerror or e})") from None
    try:
        yield stage
        _install(stage, out, kind, say, name)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        for d in made:  # deepest first: the directories this call made, if still empty
            with contextlib.suppress(OSError):
                d.rmdir()
        raise


def _missing_parents(d: Path) -> list[Path]:
    """The directories from ``d`` up that do not exist yet, deepest first."""
    missing = []
    while not d.exists() and d != d.parent:
        missing.append(d)
        d = d.parent
    return missing


def _install(stage: Path, out: Path, kind: str, say: Say | None, name: str | None) -> None:
    """Moves a complete staging directory's files to ``out``, one tailor process at a
    time per parent directory."""
    new = _files(stage)
    try:
        with _locked(out.parent):
            old = check_target(out, kind, name)  # again: ``out`` may have changed while the run ran
            if old is None and not out.exists():
                _write_marker(stage, kind, "complete", new, name=name)
                os.rename(stage, out)
                return
            # An empty directory is filled, not replaced by a rename: it may be a process's
            # working directory (`--out .`), which must stay the same directory.
            old_files = [] if old is None else [str(f) for f in old["files"]]
            _check_replaceable(out, new, old_files)
            with _signals_deferred():
                _replace(stage, out, (kind, name), new, old_files, say)
    except OSError as e:
        raise OutputError(f"--out: {e.filename or out}: cannot write ({e.strerror or e})") from None


@contextmanager
def _locked(parent: Path) -> Iterator[None]:
    """An exclusive lock on ``parent`` (flock on the directory itself: no lock file), so
    that two tailors finishing into one ``--out`` at once install one after the other."""
    fd = os.open(parent, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


@contextmanager
def _signals_deferred() -> Iterator[None]:
    """Holds SIGINT and SIGTERM until the block ends: a replacement cut half-way would
    leave files of two results. A signal that came meanwhile is raised again after it, to
    the handler that was there. (Masking the signal would not do: the kernel hands a
    process's signal to any thread not masking it, e.g. one of polars' workers.)"""
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    if threading.current_thread() is not threading.main_thread() or None in saved.values():
        yield
        return
    pending: list[int] = []
    for s in saved:
        signal.signal(s, lambda signum, frame: pending.append(signum))
    try:
        yield
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)
        for s in pending:
            signal.raise_signal(s)


def _check_replaceable(out: Path, new: list[str], old: list[str]) -> None:
    """Raises OutputError, before anything is changed, unless every file the replacement
    writes or removes is tailor's: no user file where a new one goes, no directory on the
    way that is a file or a symlink, no listed file turned into a directory or a link."""
    ours = set(old)
    for f in sorted(set(new) | ours):
        path = out / f
        for d in list(path.relative_to(out).parents)[:-1]:
            at = out / d
            if at.is_symlink() or (os.path.lexists(at) and not at.is_dir()):
                raise OutputError(
                    f"--out: {at}: is a {'symlink' if at.is_symlink() else 'file'} where tailor's "
                    "result has a directory; refusing to replace (nothing was changed)"
                )
        if not os.path.lexists(path):
            continue
        if f not in ours and not _inner_marker(path):
            raise OutputError(
                f"--out: {path}: exists and was not written by tailor; refusing to overwrite it "
                f"(nothing was changed). Move it away or give another directory"
            )
        if path.is_symlink() or not path.is_file():
            raise OutputError(
                f"--out: {path}: is no longer the file tailor wrote (now a directory or a link); "
                "refusing to replace (nothing was changed)"
            )


def _inner_marker(path: Path) -> bool:
    """Whether ``path`` is the marker of a tailor directory inside a result (a comparison's
    run): tailor's, though a marker written before inner markers were listed omits it."""
    return path.name == MARKER and read_marker(path.parent) is not None


def _replace(
    stage: Path, out: Path, what: tuple[str, str | None], new: list[str], old: list[str], say: Say | None
) -> None:
    """Replaces the files of an earlier result of ``what`` (kind, name) at ``out`` by
    ``stage``'s, leaving every file the earlier marker does not list alone
    (``_check_replaceable`` has checked them)."""
    kind, name = what
    ours = set(old)
    if say is not None and old:
        kept = [f for f in _files(out) if f not in ours]
        also = f"; {len(kept)} file(s) tailor did not write are kept" if kept else ""
        say(f"replacing the earlier {kind} result in {out}/ (tailor's own files only{also})")
    _write_marker(out, kind, "replacing", old + new, name=name)
    for f in old:
        if f not in new:
            _unlink(out / f, out)
    for f in new:
        (out / f).parent.mkdir(parents=True, exist_ok=True)
        os.replace(stage / f, out / f)
    _write_marker(out, kind, "complete", new, name=name)
    shutil.rmtree(stage, ignore_errors=True)


def _unlink(path: Path, top: Path) -> None:
    """Removes one of tailor's files and the directories it leaves empty (up to ``top``)."""
    path.unlink(missing_ok=True)
    d = path.parent
    while d != top and top in d.parents and d.is_dir() and not d.is_symlink() and not any(d.iterdir()):
        d.rmdir()
        d = d.parent


# ---------------------------------------------------------------------------- stale partials


def clean_stale_partials(parent: Path) -> list[Path]:
    """Removes the staging directories in ``parent`` left by tailor processes of this
    host that are gone (killed, crashed); returns them. A directory is taken only when it
    is tailor's: named ``.NAME.partial-PID`` and holding a partial marker (or, from a
    tailor that wrote none, only the engine's own files)."""
    removed = []
    try:
        entries = list(parent.iterdir())
    except OSError:
        return removed
    for d in entries:
        m = _PARTIAL.match(d.name)
        if m is None or not d.is_dir() or not _stale(d, int(m.group("pid"))):
            continue
        shutil.rmtree(d, ignore_errors=True)
        removed.append(d)
    return removed


def _stale(d: Path, pid: int) -> bool:
    marker = read_marker(d)
    if marker is None:
        try:
            names = {p.name for p in d.iterdir()}
        except OSError:
            return False
        return names <= _ENGINE_FILES and not alive(pid, None)
    if marker.get("state") != "partial" or marker.get("host") != _host():
        return False
    owner, start = marker.get("pid", pid), marker.get("process_start")
    if not isinstance(owner, int) or not (start is None or isinstance(start, int)):
        return False  # not a marker tailor wrote: leave the directory alone
    return not alive(owner, start)


def alive(pid: int, start: int | None) -> bool:
    """Whether process ``pid`` runs — the same process, when its start time is known (a
    pid can be reused)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return start is None or _process_start(pid) in (None, start)


def _process_start(pid: int) -> int | None:
    """The start time of process ``pid`` in clock ticks since boot (Linux), or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: count from its end.
    return int(stat[stat.rindex(")") + 2 :].split()[19])


def _host() -> str:
    return socket.gethostname() or "host"


# ---------------------------------------------------------------------------- single files


def write_file(path: str | os.PathLike[str], write: Callable[[Path], None]) -> Path:
    """Writes one file at ``path`` through ``write(tmp)`` and one rename, replacing an
    existing file only when tailor wrote it (see the module doc); adds it to its
    directory's marker when that directory is tailor's."""
    path = Path(path)
    check_file(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write(tmp)
        os.replace(tmp, path)
        _claim(path)
    except OSError as e:
        raise OutputError(f"--out: {e.filename or path}: cannot write ({e.strerror or e})") from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
    return path


def check_file(path: str | os.PathLike[str]) -> None:
    """Raises OutputError unless tailor may write the file ``path`` (a report, a plot):
    it does not exist, or tailor wrote it as a report or a plot — never a result file
    (:func:`result_of`). Callers writing several files check them all first, so that a
    refusal leaves nothing written."""
    path = Path(path)
    try:
        if path.is_dir() and not path.is_symlink():
            raise OutputError(f"--out: {path}: is a directory; give the file to write")
        exists = os.path.lexists(path)
        of = None if path.is_symlink() else result_of(path)
        if of is not None:
            what = (
                f"is a result file of {of}; report and plot never replace a result"
                if exists
                else f"lies among the results of {of}; report and plot write nothing there"
            )
            raise OutputError(f"--out: {path}: {what} (nothing was written). Give another --out")
        if exists and (path.is_symlink() or not written_by_tailor(path)):
            raise OutputError(
                f"--out: {path}: exists and was not written by tailor; refusing to overwrite it. "
                "Move it away or give another --out"
            )
    except OSError as e:
        raise OutputError(f"--out: {path}: cannot be read ({e.strerror or e})") from None


def result_of(path: Path) -> str | None:
    """What ``path`` is a result file of ("the tailor run in runs/q/"), or None when it is
    none: it is a marker, or a marker of its directory or of one above lists it among its
    ``files`` but not its ``outputs``, or it lies in a store's ``points/``, ``sweeps/`` or
    ``tmp/``. Every directory up to the root is looked at: a comparison lists its runs'
    files, a store does not list its points'."""
    path = Path(os.path.realpath(path.parent)) / path.name
    for d in path.parents:
        marker = read_marker(d)
        if marker is None:
            continue
        rel = path.relative_to(d).as_posix()
        owned = rel == MARKER or (rel in marker["files"] and not _is_output(marker, rel, path))
        if owned or (marker["kind"] == "store" and rel.split("/")[0] in STORE_DIRS):
            return f"the tailor {marker['kind']} in {d}/"
    return None


def _is_output(marker: dict[str, Any], rel: str, path: Path) -> bool:
    """Whether ``rel``, listed in ``marker``, is a report or a plot written into its
    directory. A marker of a tailor that did not list ``outputs`` apart says it only this
    way: a store's marker lists nothing else, and a run's results never carry the
    signature; any other directory's files are taken for results."""
    if marker["outputs"] is not None:
        return rel in marker["outputs"]
    return marker["kind"] == "store" or (marker["kind"] == "run" and _signed(path))


def written_by_tailor(path: Path) -> bool:
    """Whether the existing file ``path`` is tailor's: listed in its directory's marker,
    or carrying :data:`SIGNATURE` near its start or end (where HTML heads and image
    metadata are)."""
    marker = read_marker(path.parent)
    if marker is not None and path.name in marker["files"]:
        return True
    return _signed(path)


def _signed(path: Path) -> bool:
    """Whether the file ``path`` carries :data:`SIGNATURE` where tailor puts it."""
    try:
        with open(path, "rb") as f:
            head = f.read(1 << 16)
            f.seek(max(0, path.stat().st_size - (1 << 16)))
            tail = f.read()
    except OSError:
        return False
    return any(s in head or s in tail for s in _SIGNED)


def _claim(path: Path) -> None:
    """Lists ``path`` in its directory's marker, among its files and its outputs, so
    replacing that directory later removes it with the result it was made from, and a
    later report or plot may replace it."""
    marker = read_marker(path.parent)
    if marker is None or path.name in (marker["outputs"] or ()):
        return
    # A marker written before outputs were listed: its files that are outputs stay so.
    outputs = marker["outputs"]
    if outputs is None:
        outputs = [f for f in marker["files"] if _is_output(marker, f, path.parent / f)]
    _write_marker(
        path.parent,
        marker["kind"],
        str(marker.get("state", "complete")),
        [*marker["files"], path.name],
        [*outputs, path.name],
        name=marker["name"],
    )
