"""Which scenario a run ran, and whether a scenario file is that one (docs/results.md).

A run keeps its scenario beside its results, ``scenario.toml``: the document after
overrides, keys sorted, with the seed the run used written in (the engine writes it,
``tailor::output::run_document``), and ``summary.json``'s ``scenario_sha256`` is the
SHA-256 of that file's bytes. A scenario file is the run's when, resolved the same way
(parsed, checked, the run's seed set), its document has that hash: an edited file — a
changed load, an added class, another sizes table — is not, though its ``name`` is.

Runs written before the hash existed hold neither; for them a file is only checked by
name, and the report says it could not be verified.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tailor.errors import OptionError

__all__ = ["KEPT", "Shown", "scenario_as_run", "sha256"]

#: The scenario a run keeps in its directory.
KEPT = "scenario.toml"


@dataclass(frozen=True)
class Shown:
    """The scenario a report shows: its TOML (None when there is none to show) and a
    sentence saying where it came from, or why there is none."""

    text: str | None
    source: str


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def scenario_as_run(run_dir: Path, summary: dict[str, Any], given: str | os.PathLike[str] | None = None) -> Shown:
    """The scenario of the run in ``run_dir`` (its ``summary``) to show: the kept
    ``scenario.toml`` when its hash is the run's. With ``given`` (``--scenario FILE``), the
    file is checked against the run first and refused with OptionError, naming both, when
    it is not the scenario that ran."""
    ran = summary.get("scenario_sha256")
    kept = run_dir / KEPT
    kept_bytes = _read(kept)
    if ran is None:
        return _unhashed(run_dir, summary, given, kept_bytes)
    kept_ok = kept_bytes is not None and sha256(kept_bytes) == ran
    if given is not None:
        document = _resolved(Path(given), summary)
        if sha256(document.encode()) != ran:
            raise OptionError(_mismatch(Path(given), document, run_dir, kept if kept_ok else None))
        return Shown(
            document,
            f"{given}, resolved with the run's seed {summary.get('seed')}: the scenario that ran "
            f"(its SHA-256 is summary.json's scenario_sha256)",
        )
    if kept_ok:
        return Shown(kept_bytes.decode("utf-8", errors="replace"), f"{kept}, the scenario as run")  # type: ignore[union-attr]
    if kept_bytes is not None:
        return Shown(
            None,
            f"{kept} was changed after the run (its SHA-256 is not summary.json's scenario_sha256), so "
            "it is not shown; pass --scenario FILE to show a file checked against the run",
        )
    return Shown(
        None,
        f"The run directory no longer holds its {KEPT}; pass --scenario FILE to show a file checked "
        "against the run (by summary.json's scenario_sha256)",
    )


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes() if path.is_file() else None
    except OSError:
        return None


def _resolved(f: Path, summary: dict[str, Any]) -> str:
    """``f``'s document as a run of it with the run's seed keeps it (checked: a file that
    does not parse now raises ScenarioError, naming it)."""
    from tailor import _core

    if not f.is_file():
        what = "not a file" if f.exists() else "no such file"
        raise OptionError(f"--scenario: {f}: {what}; accepted: the scenario file the run ran")
    seed = summary.get("seed")
    return str(_core.resolve(os.fspath(f), [("seed", seed)] if isinstance(seed, int) else [])["document"])


def _mismatch(f: Path, document: str, run_dir: Path, kept: Path | None) -> str:
    """The refusal of ``f``, naming the run's scenario and, when it is there, the keys
    that differ."""
    ran = f"{kept}" if kept is not None else f"the scenario summary.json's scenario_sha256 names (its {KEPT} is gone)"
    keys = _differing(document, kept.read_text(encoding="utf-8")) if kept is not None else []
    where = f" (they differ at {', '.join(keys[:4])}{', …' if len(keys) > 4 else ''})" if keys else ""
    return (
        f"--scenario: {f} is not the scenario the run in {run_dir} ran: resolved with the run's seed it differs "
        f"from {ran}{where}. Without --scenario the report shows the run's own"
    )


def _differing(a: str, b: str) -> list[str]:
    """The dotted key paths at which two TOML documents differ (empty when one does not
    parse here)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        return []
    try:
        return _diff(tomllib.loads(a), tomllib.loads(b), "")
    except tomllib.TOMLDecodeError:
        return []


def _diff(a: Any, b: Any, at: str) -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        return [
            k for key in sorted(set(a) | set(b)) for k in _diff(a.get(key), b.get(key), f"{at}.{key}" if at else key)
        ]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and any(isinstance(x, dict) for x in a):
        return [k for i, (x, y) in enumerate(zip(a, b, strict=True)) for k in _diff(x, y, f"{at}[{i}]")]
    return [] if a == b else [at]


def _unhashed(
    run_dir: Path, summary: dict[str, Any], given: str | os.PathLike[str] | None, kept: bytes | None
) -> Shown:
    """A run of a tailor that kept no hash of its scenario: a file is checked by name only."""
    name = summary.get("scenario")
    unverified = "not verified: the run, written by a tailor before runs kept a hash of their scenario, cannot tell"
    if given is not None:
        f = Path(given)
        try:
            text = f.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise OptionError(f"--scenario: cannot read {f} ({e.__class__.__name__}: {e})") from None
        found = _toml_name(text, f)
        if found is not None and name is not None and found != name:
            raise OptionError(f"--scenario: {f} is scenario '{found}', but the run in {run_dir} is of '{name}'")
        return Shown(text, f"{f} ({unverified} whether this file, as it is now, is the one that ran)")
    if kept is not None:
        return Shown(kept.decode("utf-8", errors="replace"), str(run_dir / KEPT))
    recorded = summary.get("scenario_file")
    if recorded:
        f = Path(recorded)
        if f.is_file():
            text = f.read_text(encoding="utf-8", errors="replace")
            if _toml_name(text, f) == name:
                return Shown(text, f"{f} (as it is now; {unverified} whether it changed since)")
    return Shown(
        None,
        f"The run directory does not hold its scenario ({recorded or 'file not recorded'}); "
        "pass --scenario FILE to include it.",
    )


def _toml_name(text: str, f: Path) -> str | None:
    """The scenario's name (its ``name`` key, default the file stem), or None when the
    text cannot be parsed here."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        return None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise OptionError(f"--scenario: {f} is not valid TOML ({e})") from None
    return str(doc.get("name", f.stem))
