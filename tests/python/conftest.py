"""Shared fixtures: the repository's scenarios and one quickstart run per session."""

from __future__ import annotations

from pathlib import Path

import pytest

import tailor

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "scenarios" / "quickstart.toml"


@pytest.fixture(scope="session")
def quickstart() -> Path:
    return QUICKSTART


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
