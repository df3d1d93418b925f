"""tailor.parse: the one comma-list grammar and the one time grammar of every option, and
their one error form (docs/cli.md): a line naming the option, the item and the accepted values."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tailor import parse
from tailor.errors import OptionError


def test_a_list_is_its_items_stripped_without_empty_ones() -> None:
    assert parse.split(" W3, w4 ,,") == ["W3", "w4"]
    assert parse.comma_list("--x", "1, 2,", "numbers", float) == [1.0, 2.0]


@pytest.mark.parametrize(
    "call,message",
    [
        (
            lambda: parse.choices("--workloads", "W3,w9", ("W1", "W2", "W3"), "workload", case=str.upper),
            "--workloads: unknown workload 'W9'; accepted: W1, W2, W3 (comma-separated)",
        ),
        (
            lambda: parse.choices("--figures", " , ", ("fig17", "fig18"), "figure"),
            "--figures: none given; accepted: fig17, fig18 (comma-separated)",
        ),
        (
            lambda: parse.integers("--ks", "4,65", 1, 64),
            "--ks: '65' is not an integer from 1 to 64; accepted: integers from 1 to 64, comma-separated",
        ),
        (
            lambda: parse.integers("--ks", "4,four", 1, 64),
            "--ks: 'four' is not an integer from 1 to 64; accepted: integers from 1 to 64, comma-separated",
        ),
        (
            lambda: parse.numbers("--loads", "0.5,1.2", "numbers in (0, 1)", lambda x: 0 < x < 1, "a network load"),
            "--loads: '1.2' is not a network load; accepted: numbers in (0, 1)",
        ),
        (
            lambda: parse.check_time("--until", "0ms"),
            "--until: '0ms' is not a positive time; accepted: a number and a unit (ps, ns, us, ms, s), e.g. 11ms",
        ),
        (
            lambda: parse.check_time("--host-delay", "soon", also=("prototype_hw",), positive=False),
            "--host-delay: 'soon' is not a time; accepted: a number and a unit (ps, ns, us, ms, s), e.g. 11ms, "
            "prototype_hw",
        ),
    ],
)
def test_a_bad_value_is_one_line_naming_the_option_the_item_and_the_accepted(call, message: str) -> None:
    with pytest.raises(OptionError) as e:
        call()
    assert str(e.value) == message


def test_choices_come_in_their_own_order_once_aliases_replaced() -> None:
    names = ("homa", "p4", "basic")
    assert parse.choices("--variants", "BASIC, p8,homa", names, "variant", aliases={"p8": "homa"}) == ["homa", "basic"]
    assert parse.integers("--ks", "8,1,8", 1, 64) == [8, 1]


@pytest.mark.parametrize(
    "text,ns", [("10ms", 1e7), ("2.5us", 2500.0), ("2.5µs", 2500.0), ("1_000ns", 1000.0), ("500ps", 0.5), ("1s", 1e9)]
)
def test_a_time_is_read_as_the_engine_reads_it(text: str, ns: float) -> None:
    assert parse.time_ns(text) == ns


@pytest.mark.parametrize("text", ["10 fortnights", "ms", "10", "10 ms", "1__0ms", "1.ms", "-1ms", "1e3ns"])
def test_what_the_engine_refuses_as_a_time_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse.time_ns(text)


def test_until_accepts_the_engines_digit_groups() -> None:
    """``--until 1_000us`` is a time the engine reads; the reproductions' check refused it
    (its own pattern had no ``_``) before there was one time grammar."""
    from tailor.reproduce.registry import check_until

    check_until("1_000us")
    with pytest.raises(OptionError, match="--until: '1_000' is not a positive time"):
        check_until("1_000")


def test_a_trailing_comma_is_no_workload(tmp_path: Path) -> None:
    """``--workloads W3,`` is W3: PL2's traces took the empty item for a workload and
    refused it ("--workloads: ''") before the lists had one grammar."""
    from tailor.reproduce.pl2 import traces

    plan = traces.options(workloads="W3,", out=tmp_path / "t")
    assert plan.out == tmp_path / "t"


def test_the_command_exits_2_with_the_one_line(tmp_path: Path) -> None:
    p = subprocess.run(
        [sys.executable, "-m", "tailor.cli", "reproduce", "pl2-k-sweep", "--ks", "4,0", "--out", str(tmp_path / "k")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 2, p.stderr
    assert (
        p.stderr
        == "error: --ks: '0' is not an integer from 1 to 64; accepted: integers from 1 to 64, comma-separated\n"
    )
    assert not (tmp_path / "k").exists()
