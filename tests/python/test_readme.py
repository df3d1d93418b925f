"""The README's and docs' examples do what they say: a Python sweep example runs as a
script (the local pool spawns workers, which import the script again, so the sweep must
sit under ``if __name__ == "__main__":``), and a command whose exit status is not 0 says
so beside it; and a clone stands alone: nothing points at a folder beside the checkout,
the papers are cited by title and link, and the README's crosscheck runs on the ns-3 run
shipped in anchors/."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS_WITH_SWEEPS = [ROOT / "README.md", ROOT / "docs" / "sweeps.md"]


def python_blocks(doc: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", doc.read_text(), flags=re.S | re.M)


def sweep_example(doc: Path) -> str:
    (block,) = [b for b in python_blocks(doc) if "tailor.sweep(" in b]
    return block


def is_main_guard(node: ast.AST) -> bool:
    """``if __name__ == "__main__":``"""
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    t = node.test
    return (
        isinstance(t.left, ast.Name)
        and t.left.id == "__name__"
        and len(t.comparators) == 1
        and isinstance(t.comparators[0], ast.Constant)
        and t.comparators[0].value == "__main__"
    )


def unguarded_sweeps(source: str) -> list[int]:
    """Lines of the calls to tailor.sweep outside an ``if __name__ == "__main__":`` block."""
    tree = ast.parse(source)
    guarded = {id(n) for g in ast.walk(tree) if is_main_guard(g) for n in ast.walk(g)}
    return [
        n.lineno
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "sweep"
        and isinstance(n.func.value, ast.Name)
        and n.func.value.id == "tailor"
        and id(n) not in guarded
    ]


@pytest.mark.parametrize("doc", DOCS_WITH_SWEEPS, ids=lambda p: p.name)
def test_python_sweep_examples_call_the_sweep_under_the_main_guard(doc: Path) -> None:
    lines = unguarded_sweeps(sweep_example(doc))
    assert lines == [], (
        f'{doc.name}: tailor.sweep called outside `if __name__ == "__main__":` (line {lines} of the example)'
    )


def test_the_readme_sweep_example_runs_as_a_script(tmp_path: Path) -> None:
    """The README's example, unchanged, as a script: its scenario path is a copy of the
    scenario cut to 20 messages, so the 11 runs take seconds."""
    scenario = tmp_path / "scenarios" / "swp" / "websearch-60.toml"
    scenario.parent.mkdir(parents=True)
    text = (ROOT / "scenarios" / "swp" / "websearch-60.toml").read_text()
    assert "messages = 2000" in text
    scenario.write_text(text.replace("messages = 2000", "messages = 20"))
    script = tmp_path / "example.py"
    script.write_text(sweep_example(ROOT / "README.md"))
    p = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    assert len(list((tmp_path / "sweeps" / "sched" / "points").iterdir())) == 2 * 5


def readme_command(name: str) -> tuple[list[str], str]:
    """The README's example line of ``tailor NAME``: its arguments and its comment (with
    the comment-only lines that continue it)."""
    lines = (ROOT / "README.md").read_text().splitlines()
    for i, line in enumerate(lines):
        m = re.match(rf"\.venv/bin/tailor ({name} [^#]*?)\s*#\s*(.*)$", line)
        if m:
            comment = [m.group(2)]
            for more in lines[i + 1 :]:
                if not re.match(r"\s+#", more):
                    break
                comment.append(more.strip().lstrip("#").strip())
            return m.group(1).split(), " ".join(comment)
    raise AssertionError(f"the README shows no `tailor {name}` example")


def test_the_readme_compare_example_says_its_exit_status() -> None:
    """`tailor compare` exits 1 when the fast model misses its accuracy targets: the
    README's example must say which status it ends with, and be right."""
    args, comment = readme_command("compare")
    m = re.search(r"exits (\d)", comment)
    assert m, f"the README's `tailor {' '.join(args)}` does not say its exit status: # {comment}"
    p = subprocess.run(
        [sys.executable, "-m", "tailor.cli", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert p.returncode == int(m.group(1)), p.stdout[-1500:] + p.stderr[-1500:]


# ---------------------------------------------------------------------------- a clone stands alone

#: A path to the project's working folder beside the checkout (papers, anchors, workloads,
#: design notes): it exists on the machine tailor was built on, not in a user's clone.
OUTSIDE = re.compile(
    r"\.\./shared\b|\bshared/(?:anchors|papers|workloads|hooks)\b|\bshared/(?:DESIGN|STYLE)\.md"
    r"|parents?\b[^\n]*/\s*[\"']shared[\"']"
)
#: What a user reads or runs: the README, docs, code, scripts, scenarios, tests, anchors' READMEs.
SCANNED = [
    "README.md",
    "Makefile",
    "pyproject.toml",
    "docs",
    "python",
    "crates",
    "scripts",
    "scenarios",
    "tests",
    "anchors",
    "workloads",
]
TEXT = {".md", ".py", ".rs", ".toml", ".sh", ".txt", ".cc", ".cfg", ".ini", ".yml", ".yaml"}


def scanned_files() -> list[Path]:
    files = []
    for name in SCANNED:
        p = ROOT / name
        if p.is_file():
            files.append(p)
        elif p.is_dir():
            files += [
                f
                for f in sorted(p.rglob("*"))
                if f.is_file()
                and (f.suffix in TEXT or f.name == "Makefile")
                and "target" not in f.relative_to(ROOT).parts
                and "__pycache__" not in f.parts
            ]
    return files


def test_nothing_points_outside_the_repository() -> None:
    """A user's clone has no ``../shared`` beside it: no README, doc, module, script,
    scenario or test may send them there (papers are cited by title and link in
    docs/papers.md; the ns-3 runs and their sources ship in anchors/)."""
    here = Path(__file__).resolve()
    files = [f for f in scanned_files() if f.resolve() != here]
    assert len(files) > 200, "the scan found too few files to mean anything"
    hits = [
        f"{f.relative_to(ROOT)}:{n}: {line.strip()}"
        for f in files
        for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert hits == [], "paths outside the repository:\n" + "\n".join(hits)


def test_the_pattern_catches_what_it_is_for() -> None:
    for bad in [
        "../shared/anchors/ns3/results/x",
        "`shared/papers/swp.txt`",
        "see ../shared/DESIGN.md",
        "shared/workloads/hpcc_fb_hadoop.cdf",
        "(shared/DESIGN.md)",
        'ROOT.parent / "shared" / "anchors"',
        "Path(__file__).parents[2] / 'shared'",
    ]:
        assert OUTSIDE.search(bad), bad
    for fine in ["a shared buffer", "shared FIFO", "shared_buffer", "anchors/ns3/results", "docs/papers.md"]:
        assert not OUTSIDE.search(fine), fine


def test_the_papers_are_cited_with_a_link() -> None:
    """docs/papers.md names each of the four papers with its venue and a link."""
    text = (ROOT / "docs" / "papers.md").read_text()
    for title, link in [
        ("Less is More", "usenix.org/conference/nsdi12"),
        ("Homa: A Receiver-Driven", "arxiv.org/abs/1803.09615"),
        ("PL2: Towards Predictable Low Latency", "arxiv.org/abs/2101.06537"),
        ("SWP: Microsecond Network SLOs Without Priorities", "arxiv.org/abs/2103.01314"),
    ]:
        row = next((line for line in text.splitlines() if title in line), "")
        assert link in row, f"docs/papers.md: {title!r} without its link"


def test_the_readme_crosscheck_example_runs_on_the_shipped_anchor(tmp_path: Path) -> None:
    """`tailor crosscheck ns3 RUN` as the README shows it: RUN ships in the repository (with
    the ns-3 source and scripts that made it) and the comparison passes (exit 0)."""
    args, _ = readme_command("crosscheck")
    run = ROOT / args[-1]
    assert run.is_dir() and run.resolve().is_relative_to(ROOT), (
        f"the README's crosscheck run {args[-1]} is not in the repository"
    )
    anchor = run.parents[1]
    for f in ["README.md", "build.sh", "run.sh", "dctcp_bottleneck.cc"]:
        assert (anchor / f).is_file(), f"{anchor.relative_to(ROOT)}: {f} (the run's provenance) is missing"
    p = subprocess.run(
        [sys.executable, "-m", "tailor.cli", *args, "--out", str(tmp_path / "x")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stdout[-1500:] + p.stderr[-1500:]
    assert "PASS" in p.stdout
