"""What a store point is keyed by (tailor.store): the digest of the engine build, of the
resolved scenario with the bytes of its inputs, the seed and the engine; and the manifest's
own checksum. docs/sweeps.md says what a point's id covers."""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Any

from tailor import _core

__all__ = ["FORMAT", "build_id", "point_id", "config_id", "file_digest", "manifest_digest"]

#: Format of the point directory and of the id's hash input; bumped on any change.
#: 2: point.json lists every file's size and SHA-256 and holds its own checksum.
FORMAT = 2


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
        h.update(b"\0" + file_digest(Path(f)).encode())
    return h.hexdigest()[:24]


def point_id(resolved: dict[str, Any], seed: int, engine: str) -> str:
    """The store key of a resolved scenario (``_core.resolve``) run with ``seed`` on ``engine``."""
    return _digest(resolved, engine, resolved["identity"], seed)


def config_id(resolved: dict[str, Any], engine: str) -> str:
    """What a point computes but for its seed (summaries across seeds group by it)."""
    return _digest(resolved, engine, resolved["config"], None)[:16]


def file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def manifest_digest(meta: dict[str, Any]) -> str:
    """The SHA-256 of a point manifest's content but its own checksum (keys sorted)."""
    body = {k: v for k, v in meta.items() if k != "sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
