"""Shared fixtures: the repository's scenarios and one quickstart run per session."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import tailor

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "scenarios" / "quickstart.toml"


def _stating_the_bottleneck() -> Path:
    """quickstart with ``[model] bottleneck = "link"``: its RPCs go between every pair of
    hosts, so the fast model refuses quickstart itself (docs/model.md, "Scope"). Tests that
    need a quick model run of it, not an accurate one, state the link (same name, same
    packet run)."""
    work = Path(tempfile.mkdtemp(prefix="tailor-tests-"))
    atexit.register(shutil.rmtree, work, True)
    path = work / "quickstart.toml"
    path.write_text(QUICKSTART.read_text() + '\n[model]\nbottleneck = "link"\n')
    return path


QUICKSTART_MODEL = _stating_the_bottleneck()


@pytest.fixture(scope="session")
def quickstart() -> Path:
    return QUICKSTART


@pytest.fixture(scope="session")
def quickstart_model() -> Path:
    return QUICKSTART_MODEL


@pytest.fixture(scope="session")
def result7(tmp_path_factory: pytest.TempPathFactory) -> tailor.Result:
    """quickstart with seed 7, run once for the tests that only read it."""
    return tailor.run(QUICKSTART, seed=7, out=tmp_path_factory.mktemp("runs") / "q7")


@pytest.fixture
def bad_scenario(tmp_path: Path) -> Path:
    """quickstart with an unknown key: [transport] knd = "dctcp" (beside kind)."""
    text = QUICKSTART.read_text().replace('kind = "dctcp"', 'kind = "dctcp"\nknd = "dctcp"')
    assert 'knd = "dctcp"' in text
    path = tmp_path / "typo.toml"
    path.write_text(text)
    return path


class Recorder:
    """A sweep listener that remembers what it was told."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def cached(self, point: str, params: dict[str, Any]) -> None:
        self.events.append(("cached", point))

    def started(self, point: str, params: dict[str, Any]) -> None:
        self.events.append(("started", point))

    def finished(self, point: str, params: dict[str, Any], wall_s: float) -> None:
        self.events.append(("finished", point))

    def failed(self, point: str, params: dict[str, Any], message: str) -> None:
        self.events.append(("failed", point))

    def of(self, kind: str) -> set[str]:
        return {p for k, p in self.events if k == kind}
