"""The checked-in stub python/tailor/_core.pyi matches the compiled module."""

from __future__ import annotations

import ast
import inspect
import subprocess
from pathlib import Path

import pytest
from tailor import _core

STUB = Path(__file__).resolve().parents[2] / "python" / "tailor" / "_core.pyi"


def stub_names() -> dict[str, ast.AST]:
    tree = ast.parse(STUB.read_text())
    names: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
    return names


def public(name: str) -> bool:
    return not name.startswith("_") or name == "__version__"


def test_stub_and_module_have_the_same_names() -> None:
    compiled = {n for n in dir(_core) if public(n) and n not in {"__doc__", "__file__", "__name__"}}
    # Module attributes every extension has are not part of the API.
    compiled -= {"__all__", "__loader__", "__package__", "__spec__"}
    assert compiled == set(stub_names())


@pytest.mark.parametrize("name", [n for n, node in stub_names().items() if isinstance(node, ast.FunctionDef)])
def test_signatures_match(name: str) -> None:
    node = stub_names()[name]
    assert isinstance(node, ast.FunctionDef)
    stub = [a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]
    stub_defaults = len(node.args.defaults)
    sig = inspect.signature(getattr(_core, name))
    params = list(sig.parameters.values())
    assert [p.name for p in params] == stub
    with_default = [p.name for p in params if p.default is not inspect.Parameter.empty]
    assert with_default == stub[len(stub) - stub_defaults :]


def test_typed_package_ships_its_marker_and_stub() -> None:
    """PEP 561: py.typed and the stub sit in the package maturin builds from python-source."""
    tomllib = pytest.importorskip("tomllib")
    root = STUB.parents[2]
    maturin = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["maturin"]
    package = root / maturin["python-source"] / "tailor"
    assert maturin["module-name"] == "tailor._core"
    assert (package / "py.typed").is_file() and (package / "_core.pyi") == STUB
    # maturin leaves out of the wheel what .gitignore matches (PyO3/maturin#695), so both
    # must be tracked and not ignored (--no-index: as if they were not tracked).
    files = ["python/tailor/py.typed", "python/tailor/_core.pyi"]
    tracked = subprocess.run(["git", "ls-files", "--error-unmatch", *files], cwd=root, capture_output=True, text=True)
    if tracked.returncode != 0 and "not a git repository" in tracked.stderr:
        pytest.skip("not a git checkout")
    assert tracked.returncode == 0, tracked.stderr
    ignored = subprocess.run(["git", "check-ignore", "--no-index", *files], cwd=root, capture_output=True, text=True)
    assert ignored.returncode == 1 and ignored.stdout == "", (
        f"ignored by git, so left out of the wheel: {ignored.stdout}"
    )
