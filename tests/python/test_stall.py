"""A run that makes no progress stops with one line and exit status 2 (the engine's
watchdog, ``crates/tailor/src/engine/stall.rs``; docs/scenario.md, "A run that makes no
progress"), instead of spinning until it is killed.

No scenario that passes ``check`` livelocks any more: the routes the watchdog was built
against (a buffer or class queue smaller than one packet, Homa's zero unscheduled bytes,
PL2's threshold below t + K, pFabric's packet larger than its buffer) are refused at their
keys, and crates/tailor/tests/key_ranges.rs draws values inside every accepted range without
finding another. The engine's side is therefore tested in Rust on livelocks built on the
parsed network (crates/tailor/tests/stall.rs); here, the old route is refused, and the CLI
and the API turn the engine's ``Stalled`` into one line, status 2 and nothing written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

LIVELOCK = """
[topology]
kind = "star"
hosts = 4
link = { rate = "100Gbps", delay = "1us" }
[switch]
scheduler = "rank"
overflow = "evict"
[host]
nic_depth = 0
[transport]
kind = "pfabric"
[[class]]
name = "a"
sizes_fixed = "10KB"
arrival = "poisson"
load = 0.5
pattern = "all_to_all"
messages = 20
queue_limit = "1B"
"""

MESSAGE = (
    "the run made no progress: no message completed and no payload byte arrived from 26.115 ms to 126.2 ms "
    "of simulated time (50003968 events) with 20 messages active; likely cause: packets are dropped"
)


def test_the_one_byte_queue_that_livelocked_pfabric_is_refused_before_it_runs(tmp_path: Path) -> None:
    from tailor.cli import app

    scenario = tmp_path / "livelock.toml"
    scenario.write_text(LIVELOCK)
    r = CliRunner().invoke(app, ["check", str(scenario)], prog_name="tailor")
    assert r.exit_code == 2, r.output
    assert "class[0].queue_limit" in r.output and "below one full packet" in r.output, r.output


def _stalling_engine(*args: Any, **kwargs: Any) -> None:
    """The engine's call, as it ends when the watchdog fires: after writing into its stage."""
    from tailor.errors import Stalled

    stage = Path(args[1])
    (stage / "messages.parquet").write_bytes(b"partial")
    raise Stalled(MESSAGE, 0.026115, 0.1262, 50_003_968, 20)


def test_a_stalled_run_is_one_error_line_status_2_and_nothing_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tailor import _core
    from tailor.cli import app

    monkeypatch.setattr(_core, "run", _stalling_engine)
    out = tmp_path / "out"
    quickstart = Path(__file__).resolve().parents[2] / "scenarios" / "quickstart.toml"
    r = CliRunner().invoke(app, ["run", str(quickstart), "--out", str(out), "--quiet"], prog_name="tailor")
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output
    errors = [line for line in r.output.splitlines() if line.startswith("error:")]
    assert errors == [f"error: {MESSAGE}"], r.output
    assert not out.exists(), "nothing is written for a run that made no progress"


def test_the_python_api_raises_stalled_with_the_stretch_as_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tailor
    from tailor import _core
    from tailor.errors import Stalled, TailorError

    monkeypatch.setattr(_core, "run", _stalling_engine)
    quickstart = Path(__file__).resolve().parents[2] / "scenarios" / "quickstart.toml"
    with pytest.raises(Stalled) as caught:
        tailor.run(quickstart, out=tmp_path / "out")
    e = caught.value
    assert isinstance(e, TailorError)
    assert e.active == 20 and e.events == 50_003_968 and e.at_s - e.since_s >= 0.1
    assert str(e) == e.message
    assert not (tmp_path / "out").exists()
