"""The tailor command, run as a user runs it (a subprocess)."""

from __future__ import annotations

import errno
import json
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import tailor
import typer
from tailor.cli import app
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]


def tailor_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tailor.cli", *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=120
    )


def test_run_prints_the_table_and_where_results_are(quickstart: Path, tmp_path: Path) -> None:
    out = tmp_path / "q"
    p = tailor_cli("run", quickstart, "--seed", "7", "--out", out)
    assert p.returncode == 0, p.stderr
    for text in ("websearch", "rpc", "p99.9", "all sizes", "ECN marks", str(out)):
        assert text in p.stdout
    # stderr is not a terminal: progress is JSON lines there, never mixed into stdout.
    lines = [json.loads(line) for line in p.stderr.splitlines()]
    assert lines[-1]["event"] == "done" and lines[-1]["completed"] == 3400 and lines[-1]["fraction"] == 1.0
    assert all(line["event"] == "progress" and line["scenario"] == "quickstart" for line in lines[:-1])
    assert "{" not in p.stdout
    assert json.loads((out / "summary.json").read_text())["seed"] == 7


def test_quiet_run_writes_nothing_on_stderr(quickstart: Path, tmp_path: Path) -> None:
    p = tailor_cli("run", quickstart, "--out", tmp_path / "q", "--quiet", "--progress-json")
    assert p.returncode == 0, p.stderr
    assert p.stderr == "", "--quiet wins over --progress-json"
    assert "results:" in p.stdout


def test_run_default_out_dir_and_json_progress(quickstart: Path, tmp_path: Path) -> None:
    p = tailor_cli("run", quickstart, "--seed", "5", "--csv", "--progress-json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    out = tmp_path / "runs" / "quickstart-packet-s5"
    assert (out / "messages.csv").exists() and (out / "messages.parquet").exists()
    lines = [json.loads(line) for line in p.stderr.splitlines()]
    assert lines and lines[-1]["completed"] == 3400
    summary = json.loads((out / "summary.json").read_text())
    assert (lines[-1]["events"], lines[-1]["sim_ns"]) == (summary["events"], summary["sim_ns"])


def test_check_ok(quickstart: Path) -> None:
    p = tailor_cli("check", quickstart)
    assert p.returncode == 0, p.stderr
    assert "quickstart" in p.stdout and "16 hosts" in p.stdout and "dctcp" in p.stdout


@pytest.mark.parametrize("command", ["check", "run"])
def test_bad_scenario_exits_2_naming_file_and_key(command: str, bad_scenario: Path, tmp_path: Path) -> None:
    out = tmp_path / "never"
    args = ["--out", out] if command == "run" else []
    p = tailor_cli(command, bad_scenario, *args, cwd=tmp_path)
    assert p.returncode == 2
    assert f"{bad_scenario}: transport.knd:" in p.stderr
    assert "Traceback" not in p.stderr and p.stdout == ""
    assert not out.exists() and not (tmp_path / "runs").exists()


@pytest.mark.parametrize("command", ["check", "run"])
def test_a_typo_in_advise_exits_2_naming_the_key(command: str, quickstart: Path, tmp_path: Path) -> None:
    """``[advise]`` is read by the engine's strict reader like every table: ``seed`` for
    ``seeds`` is refused by ``run`` (which ran before, ignoring the table) and by ``check``."""
    bad = tmp_path / "typo.toml"
    bad.write_text(quickstart.read_text() + "\n[advise]\nseed = 3\n")
    out = tmp_path / "never"
    p = tailor_cli(command, bad, *(["--out", out] if command == "run" else []), cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    assert p.stderr == (
        f"error: {bad}: advise.seed: unknown key; accepted keys here: candidate, loads, seeds, tolerance, transports\n"
    )
    assert p.stdout == "" and not out.exists()


def test_version() -> None:
    p = tailor_cli("--version")
    assert p.returncode == 0 and p.stdout.strip() == f"tailor {tailor.__version__}"
    # The Python package's version is the engine crate's (the workspace version).
    tomllib = pytest.importorskip("tomllib")
    cargo = tomllib.loads((ROOT / "Cargo.toml").read_text())
    assert tailor.__version__ == cargo["workspace"]["package"]["version"]
    crate = tomllib.loads((ROOT / "crates" / "tailor-py" / "Cargo.toml").read_text())
    assert crate["package"]["version"] == {"workspace": True}


@pytest.mark.parametrize("command", ["run", "check"])
def test_help_shows_an_example(command: str) -> None:
    p = tailor_cli(command, "--help")
    assert p.returncode == 0
    assert f"Example: tailor {command} scenarios/quickstart.toml" in p.stdout


def every_command(group: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """The path of every command and group under the click group ``group`` (typer's
    TyperGroup, on typer's own copy of click), ``group`` itself first."""
    found = [path]
    for name, command in group.commands.items():
        if hasattr(command, "commands"):  # a group: typer.add_typer
            found += every_command(command, (*path, name))
        else:
            found.append((*path, name))
    return found


COMMANDS = every_command(typer.main.get_command(app))


def test_every_command_is_walked() -> None:
    assert {"run", "check", "advise", "compare"} <= {p[0] for p in COMMANDS if len(p) == 1}
    assert ("reproduce", "swp-fig1") in COMMANDS and ("crosscheck", "ns3") in COMMANDS


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: " ".join(p) or "tailor")
def test_every_help_shows_an_example(path: tuple[str, ...]) -> None:
    """A new command (or group) without an example in its help fails here."""
    r = CliRunner().invoke(app, [*path, "--help"], prog_name="tailor")
    assert r.exit_code == 0, r.output
    assert "Example" in r.output, f"`tailor {' '.join(path)} --help` shows no example"
    examples = r.output[r.output.index("Example") :]  # the epilog, after the options
    assert f"tailor {' '.join(path)}".rstrip() in examples


def test_every_error_class_is_a_tailor_error() -> None:
    classes = [c for c in vars(tailor.errors).values() if isinstance(c, type) and issubclass(c, BaseException)]
    assert len(classes) >= 5
    for c in classes:
        assert issubclass(c, tailor.errors.TailorError), c
        assert c.__name__ in tailor.errors.__all__, f"{c.__name__} missing from tailor.errors.__all__"


def test_the_rust_mapping_names_only_tailor_errors() -> None:
    """crates/tailor-py/src/errors.rs is the one place engine errors become exceptions."""
    source = (ROOT / "crates" / "tailor-py" / "src" / "errors.rs").read_text()
    named = set(re.findall(r'raise\(py, "(\w+)"', source))
    assert named == {"ScenarioError", "WorkloadError", "RunError", "Cancelled", "Stalled", "MemoryExceeded", "Deadlock"}
    for name in named:
        assert issubclass(getattr(tailor.errors, name), tailor.errors.TailorError)


def test_run_error_exits_2_with_its_message(quickstart: Path, tmp_path: Path) -> None:
    out = tmp_path / "occupied"
    out.mkdir()
    (out / "precious.txt").write_text("mine")
    p = tailor_cli("run", quickstart, "--out", out)
    assert p.returncode == 2
    assert p.stderr.startswith("error: ") and str(out) in p.stderr and "Traceback" not in p.stderr
    assert (out / "precious.txt").read_text() == "mine"


@pytest.mark.parametrize(
    "raised, status, said",
    [
        (lambda: typer.Abort(), 130, ""),
        (
            lambda: OSError(errno.ENOSPC, "No space left on device", "/runs/x/messages.parquet"),
            1,
            "error: No space left on device: /runs/x/messages.parquet; free space and run again",
        ),
    ],
)
def test_main_turns_an_abort_or_a_full_disk_into_a_status(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], raised: Any, status: int, said: str
) -> None:
    """An abort is 130 and a full disk a one-line error, not the AttributeError that
    `clicks.Abort` (absent from typer's copy of click) raised over either before."""
    import tailor.cli as cli

    def app(**_: Any) -> None:
        raise raised()

    monkeypatch.setattr(cli, "app", app)
    with pytest.raises(SystemExit) as e:
        cli.main()
    assert e.value.code == status
    assert capsys.readouterr().err.strip() == said


def test_main_lets_another_os_error_through(monkeypatch: pytest.MonkeyPatch) -> None:
    import tailor.cli as cli

    def app(**_: Any) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(cli, "app", app)
    with pytest.raises(PermissionError):
        cli.main()


def test_ctrl_c_cancels_the_run_and_leaves_nothing(tmp_path: Path) -> None:
    scenario = Path(__file__).resolve().parents[2] / "scenarios" / "swp" / "websearch-60.toml"
    out = tmp_path / "interrupted"
    cmd = [sys.executable, "-m", "tailor.cli", "run", str(scenario), "--out", str(out), "--progress-json"]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as p:
        assert p.stderr is not None
        first = p.stderr.readline()  # the run is under way once progress is reported
        assert json.loads(first)["events"] > 0
        p.send_signal(signal.SIGINT)
        stdout, stderr = p.communicate(timeout=60)
    assert p.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    assert stdout == ""
    assert list(tmp_path.iterdir()) == []


def test_model_engine_writes_the_same_result_format(tmp_path: Path) -> None:
    scenario = Path(__file__).resolve().parents[2] / "scenarios" / "swp" / "websearch-30.toml"
    out = tmp_path / "m"
    p = tailor_cli("run", str(scenario), "--engine", "model", "--out", str(out), "--quiet")
    assert p.returncode == 0, p.stderr
    assert p.stderr == "", "--quiet: nothing on stderr"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["engine"] == "model"
    assert summary["messages"]["completed"] == 2000
    assert tailor.Result(out).messages.height == 2000


OUT_OF_SCOPE = 'class[1].pattern: "all_to_all" spreads traffic over many links (to 16 receivers); the fast model has one bottleneck'


def test_the_model_refuses_traffic_without_one_bottleneck(quickstart: Path, tmp_path: Path) -> None:
    """quickstart's RPCs go between every pair of hosts: the model would squeeze them
    through the incast's link (p99 5.07 against 2.03 on the packet engine)."""
    p = tailor_cli("run", quickstart, "--engine", "model", "--out", tmp_path / "m", "--quiet")
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith(f"error: {quickstart}: {OUT_OF_SCOPE}"), p.stderr
    assert "accepted: n_to_1 into one receiver" in p.stderr and '[model] bottleneck = "link"' in p.stderr
    assert not (tmp_path / "m").exists()
    with pytest.raises(tailor.errors.ScenarioError) as e:
        tailor.run(quickstart, out=tmp_path / "api", engine="model")
    assert e.value.key_path == "class[1].pattern"
    # The packet engine has no such limit.
    assert tailor_cli("check", quickstart).returncode == 0


def test_a_sweep_on_the_model_refuses_out_of_scope_points_before_running(quickstart: Path, tmp_path: Path) -> None:
    p = tailor_cli("sweep", quickstart, "--set", "seed=1,2", "--engine", "model", "--out", tmp_path / "s", "-q")
    assert p.returncode == 2, p.stderr
    assert OUT_OF_SCOPE in p.stderr
    assert not (tmp_path / "s").exists()
    # A point whose override sends the RPCs into the incast's receiver (host 15, n_to_1's default) is in scope.
    p = tailor_cli(
        "sweep",
        quickstart,
        "--set",
        "seed=1",
        "--set",
        "class[1].pattern=n_to_1",
        "--engine",
        "model",
        "--out",
        tmp_path / "s",
        "--dry-run",
    )
    assert p.returncode == 0, p.stderr


def test_a_stated_bottleneck_runs_on_the_model(quickstart: Path, tmp_path: Path) -> None:
    stated = tmp_path / "stated.toml"
    stated.write_text(quickstart.read_text() + '\n[model]\nbottleneck = "link"\n')
    r = tailor.run(stated, out=tmp_path / "m", engine="model")
    assert r.summary["engine"] == "model" and r.summary["messages"]["completed"] == 3400
    assert r.summary["model"]["bottleneck"] == '[model] bottleneck = "link" (stated, not checked)'


def test_unknown_engine_exits_2(quickstart: Path, tmp_path: Path) -> None:
    p = tailor_cli("run", str(quickstart), "--engine", "fluid", "--out", str(tmp_path / "x"))
    assert p.returncode == 2
    assert "--engine" in p.stderr and "packet, model" in p.stderr
    assert not (tmp_path / "x").exists()


def listed_summaries(output: str) -> dict[str, str]:
    """The Commands section of a group's help: name -> summary (wrapped lines joined)."""
    section = output.split("Commands:\n", 1)[1]
    rows: dict[str, str] = {}
    name = None
    for line in section.splitlines():
        if not line.strip() or not line.startswith("  "):
            break
        m = re.match(r"  (\S+)\s{2,}(.*)", line)
        if m and not line.startswith("   "):
            name = m.group(1)
            rows[name] = m.group(2).strip()
        elif name is not None:
            rows[name] += " " + line.strip()
    return rows


def group_of(path: tuple[str, ...]) -> Any:
    command = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]
    return command


@pytest.mark.parametrize("width", [50, 80, 120])
@pytest.mark.parametrize(
    "path", [p for p in COMMANDS if hasattr(group_of(p), "commands")], ids=lambda p: " ".join(p) or "tailor"
)
def test_command_lists_show_whole_sentences(path: tuple[str, ...], width: int) -> None:
    """`tailor --help` and each group's --help list every command with its whole summary:
    click cuts a long docstring's first sentence at the column limit ("...(SWP..."), so
    every command and group states a short summary that is one complete sentence."""
    group = group_of(path)
    r = CliRunner().invoke(app, [*path, "--help"], prog_name="tailor", terminal_width=width)
    assert r.exit_code == 0, r.output
    listed = listed_summaries(r.output)
    assert set(listed) == set(group.commands)
    for name, text in listed.items():
        assert not text.endswith("..."), f"`tailor {' '.join((*path, name))}`: summary cut: {text!r}"
        assert text.endswith("."), f"`tailor {' '.join((*path, name))}`: summary is not a sentence: {text!r}"
        whole = " ".join(group.commands[name].get_short_help_str(limit=10_000).split())
        assert text == whole, f"`tailor {' '.join((*path, name))}`: listed {text!r}, its summary is {whole!r}"
        assert len(text) <= 60, f"`tailor {' '.join((*path, name))}`: summary longer than one line: {text!r}"


# -- start-up and command-line errors ------------------------------------------------


def test_the_cli_and_check_load_neither_polars_nor_numpy_nor_matplotlib_nor_ray(quickstart: Path) -> None:
    """What keeps `tailor --version`, `--help` and `check` quick (1.9 s when they loaded)."""
    code = (
        "import sys\nfrom tailor.cli import main\nsys.argv = ['tailor', 'check', sys.argv[1]]\n"
        "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        "print(sorted(m for m in ('polars', 'numpy', 'matplotlib', 'ray') if m in sys.modules))"
    )
    p = subprocess.run([sys.executable, "-c", code, str(quickstart)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[-1] == "[]", p.stdout


def test_the_api_names_stay_the_functions_once_their_modules_are_imported() -> None:
    code = (
        "import tailor\nfrom tailor.run import SEED_MAX\nfrom tailor.sweep import grid\nimport tailor.advise\n"
        "print(all(callable(f) and f.__module__ == m for f, m in [(tailor.run, 'tailor.run'), (tailor.sweep, "
        "'tailor.sweep'), (tailor.advise, 'tailor.advise'), (tailor.open, 'tailor.store')]))"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.stdout.strip() == "True", p.stderr


@pytest.mark.parametrize(
    "args, says",
    [
        (
            ["run", "{q}", "--seed", "2^63"],
            "error: --seed: '2^63' is not an integer; accepted: an integer from 0 to 2^63 - 1",
        ),
        (
            ["run", "{q}", "--seed", "9223372036854775808"],
            "error: --seed: '9223372036854775808' is out of range; accepted:",
        ),
        (
            ["advise", "{q}", "--tolerance", "nan"],
            "error: --tolerance: 'nan' is not a number; accepted: a number from 0.001 to 0.5",
        ),
        (["run"], "error: missing argument 'scenario'"),
        (["run", "{q}", "--bogus"], "error: no such option: --bogus"),
        (["frob"], "error: no such command 'frob'"),
        (["reproduce", "nope"], "error: unknown reproduction 'nope'; accepted: swp-fig1"),
    ],
)
def test_a_bad_command_line_is_one_error_line_in_tailors_words(quickstart: Path, args: list[str], says: str) -> None:
    p = tailor_cli(*[a.format(q=quickstart) for a in args])
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith(says) and len(p.stderr.splitlines()) == 1, p.stderr
    assert "Input should" not in p.stderr and "Usage:" not in p.stderr and "--help" in p.stderr
