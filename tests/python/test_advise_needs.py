"""What a transport needs of the network comes with it (docs/advisor.md, "Candidates"):
``advise --transports`` gives a candidate its transport's registry ``needs`` (Homa's
priority levels and idle-link NIC, NDP's trimming queues, ...) before the candidate's own
keys, which win; a bare ``kind`` runs exactly what the hand-written table runs."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
import tailor
from tailor import _core
from tailor.errors import ScenarioError
from tailor.transport_advisor.candidates import read_advise, registry_needs, resolve_candidates

ROOT = Path(__file__).resolve().parents[2]

#: Seven senders into host 7 of a star of FIFO ports: multi-packet messages, so that
#: Homa's grants and priorities shape the tail.
STAR = """
name = "needs"
seed = 1

[topology]
kind = "star"
hosts = 8
link = { rate = "10Gbps" }

[transport]
kind = "raw"

[[class]]
name = "rpc"
sizes_fixed = "6000B"
arrival = "poisson"
load = 0.5
pattern = "n_to_1"
senders = "0..7"
receiver = 7
messages = 1500
slo = [{ sli = "p99", threshold = 5.0 }]

[advise]
loads = [0.3, 0.95]
seeds = 1
tolerance = 0.1

[advise.candidate.bare]
transport = { kind = "homa" }

[advise.candidate.full]
transport = { kind = "homa" }
switch = { scheduler = "priority", priority_levels = 8 }
host = { nic_depth = 0 }

[advise.candidate.four]
transport = { kind = "homa", priority_levels = 4 }
switch = { priority_levels = 4 }

[advise.candidate.own]
transport = { kind = "homa", priority_levels = 1 }
defaults = false
"""


def scenario(tmp_path: Path, text: str = STAR) -> Path:
    path = tmp_path / "needs.toml"
    path.write_text(text)
    return path


def settings(path: Path, names: list[str]) -> dict[str, dict]:
    sc = tailor.Scenario.load(path)
    cs = resolve_candidates(sc, names, read_advise(path), [[("load", 0.3)]])
    return {c.name: dict(c.overrides) for c in cs}


def test_the_needs_are_the_registry_entries(tmp_path: Path) -> None:
    needs = {t["name"]: tomllib.loads(t["needs"]) for t in _core.transports()}
    assert needs["homa"] == {"switch": {"scheduler": "priority", "priority_levels": 8}, "host": {"nic_depth": 0}}
    assert needs["ndp"]["switch"]["overflow"] == "trim_random" and needs["ndp"]["switch"]["buffer_size"] == "12304B"
    assert needs["pfabric"]["switch"]["scheduler"] == "rank" and needs["dctcp"] == {"routing": {"paths": "ecmp"}}
    assert needs["raw"] == {} and all(registry_needs(k) == v for k, v in needs.items())


def test_a_bare_kind_gets_homas_switch_and_host_settings_and_its_own_keys_win(tmp_path: Path) -> None:
    s = settings(scenario(tmp_path), ["bare", "four", "own", "homa"])
    homa = {"switch.scheduler": "priority", "switch.priority_levels": 8, "host.nic_depth": 0}
    assert {k: s["bare"].get(k) for k in homa} == homa
    assert s["homa"] == {"transport": {"kind": "homa"}, **homa}  # a registry name without a table: the same
    assert s["four"]["switch.priority_levels"] == 4 and s["four"]["switch.scheduler"] == "priority"
    assert not any(k.startswith(("switch.", "host.")) for k in s["own"])
    # The engine reads what the candidate sets: the resolved switch table.
    doc = tomllib.loads(_core.resolve(str(tmp_path / "needs.toml"), list(s["four"].items()))["document"])
    assert doc["switch"]["scheduler"] == "priority" and doc["switch"]["priority_levels"] == 4


def test_a_bare_kind_gives_the_numbers_of_the_hand_written_candidate(tmp_path: Path) -> None:
    """Same seed, same points, same numbers: the bare candidate and the one with Homa's
    settings written out resolve to one scenario and search alike."""
    path = scenario(tmp_path)
    a = tailor.advise_transports(path, ["bare", "full"], out=tmp_path / "store")
    bare, full = a.candidate("bare"), a.candidate("full")
    assert bare["settings"] == full["settings"]
    assert bare["outcome"] == full["outcome"] and bare["answer"] == full["answer"]
    assert bare["failed_at"] == full["failed_at"]
    slis = [
        [(p["load"], p["verdict"], s["worst"], s["mean"], s["min_count"]) for s in p["slis"]] for p in bare["probes"]
    ]
    assert slis == [
        [(p["load"], p["verdict"], s["worst"], s["mean"], s["min_count"]) for s in p["slis"]] for p in full["probes"]
    ]
    assert len(slis) >= 2 and any(v == "pass" for ((_, v, *_),) in slis) and any(v == "fail" for ((_, v, *_),) in slis)


def test_the_shipped_candidates_resolve_as_their_tables_written_out() -> None:
    """scenarios/advise/w3-rpc-slo.toml gives each candidate only what its transport does not
    need: with the needs written out each resolves to the same scenario (same store points)."""
    path = ROOT / "scenarios" / "advise" / "w3-rpc-slo.toml"
    sc = tailor.Scenario.load(path)
    table = read_advise(path)
    for c in resolve_candidates(sc, None, table, []):
        own = table.candidates[c.name]
        written = [("transport", own["transport"])]
        for section, keys in registry_needs(c.kind).items():
            written += [(f"{section}.{k}", v) for k, v in keys.items() if k not in own.get(section, {})]
        for section in ("switch", "host", "routing"):
            written += [(f"{section}.{k}", v) for k, v in own.get(section, {}).items()]
        a = _core.resolve(str(path), [*c.overrides, ("load", 0.5)])["identity"]
        b = _core.resolve(str(path), [*written, ("load", 0.5)])["identity"]
        assert a == b, c.name


def test_a_need_the_candidate_cannot_take_names_the_transport_and_the_way_out(tmp_path: Path) -> None:
    path = scenario(
        tmp_path,
        STAR + '\n[advise.candidate.fifo]\ntransport = { kind = "homa", priority_levels = 1 }\n'
        'switch = { scheduler = "fifo" }\n',
    )
    with pytest.raises(ScenarioError) as e:
        settings(path, ["fifo"])
    assert e.value.key_path == "switch.priority_levels"
    assert "because homa needs it" in str(e.value) and "defaults = false in [advise.candidate.fifo]" in str(e.value)
    bad = scenario(tmp_path, STAR.replace("defaults = false", 'defaults = "no"'))
    with pytest.raises(ScenarioError) as e:
        read_advise(bad)
    assert e.value.key_path == "advise.candidate.own.defaults" and "accepted: true or false" in str(e.value)
