"""The packet search's confirmation (tailor.swp_packet.search, docs/advisor.md "Why n seeds
promise n / (n + 1)"), on a plan whose verdicts are given: an answer that held on the
search's seeds and fails on a seed of the confirmation is never kept as holding, whatever
the search above it decides; one the confirmation cannot judge stays held on the search's
seeds, saying so."""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from tailor.decision import Probe, SeedRun
from tailor.swp_packet.points import Setting
from tailor.swp_packet.search import Search


class GivenPlan:
    """A plan whose probe at a capacity has the verdict ``verdict(capacity, seeds)``."""

    classes = [{"name": "a"}]
    slos: tuple = ()

    def __init__(self, seeds: Sequence[int], verdict: Callable[[float, int], str]) -> None:
        self.seeds, self.verdict, self.asked = tuple(seeds), verdict, []

    def slos_of(self, s: Setting) -> tuple:
        return ()

    def evaluate(
        self, asks: Sequence[tuple[Setting, float]], what: str, reporter: Any, early: bool = False
    ) -> list[Probe]:
        out = []
        for _, c in asks:
            self.asked.append(c)
            v = self.verdict(c, len(self.seeds))
            out.append(Probe(c, [SeedRun(s, f"p{c:g}-{s}") for s in self.seeds], v, "" if v == "pass" else v))
        return out


def _search(confirm_verdict: Callable[[float], str]) -> tuple[Search, GivenPlan]:
    base = GivenPlan(range(1, 3), lambda c, n: "pass" if c >= 100e9 else "fail")
    more = GivenPlan(range(1, 20), lambda c, n: confirm_verdict(c))
    s = Search(base, lambda c, fair: [1.0], 0.05)  # type: ignore[arg-type]
    s.confirm = Search(more, lambda c, fair: [1.0], 0.05)  # type: ignore[arg-type]
    return s, more


def _least(s: Search) -> Any:
    return s.least("fifo", 120e9, downward=True, floor=50e9, limit=1000e9)


def test_an_answer_failing_a_confirmation_seed_is_not_kept_when_the_search_above_cannot_decide() -> None:
    answer: Optional[float] = None

    def confirm(c: float) -> str:
        return "fail" if c <= answer else "undecided"  # type: ignore[operator]

    s, more = _search(confirm)
    answer = _least(Search(s.plan, s.weights_at, 0.05)).capacity_bps  # the search's seeds alone
    assert answer is not None and 100e9 <= answer <= 100e9 / 0.95
    f = _least(s)
    assert more.asked[0] == answer and more.asked[1] > answer, "confirmed at the answer, then above it"
    assert f.holds is False and f.answer is not None and f.answer.verdict == "fail"
    assert f.capacity_bps == answer and "fails on one of 19 seeds" in f.why


def test_an_answer_the_confirmation_cannot_judge_stays_held_on_the_searchs_seeds() -> None:
    s, _ = _search(lambda c: "undecided")
    f = _least(s)
    assert f.holds is True and len(f.answer.probes[-1].runs) == 2
    assert "not confirmed on 19 seeds" in f.why


def test_a_confirmed_answer_holds_on_every_seed_and_a_failed_one_moves_up() -> None:
    s, more = _search(lambda c: "pass" if c >= 130e9 else "fail")
    f = _least(s)
    assert f.holds is True and len(f.answer.probes[-1].runs) == 19
    assert 130e9 <= f.capacity_bps <= 130e9 / 0.95 and "fails on one of 19 seeds" in f.why
