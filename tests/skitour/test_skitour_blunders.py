"""The blunder check (sim/skitour/blunders.py): dominated decisions found by replaying kernel races
through the independent referee.

- The check finds what it looks for: the random player makes every class of blunder, and the
  cheapest route to each end space is what the geometry says.
- The default player and every shipped heuristic persona make none, in any class, on both
  courses. (The full check over 10,000 races a course is a command: docs/skitour/players.md,
  "Blunders".)
"""
from __future__ import annotations

import pytest

from sim.skitour.blunders import BlunderReferee, blunder_table
from sim.skitour.compile import load_bundle
from sim.skitour.referee import load_game


@pytest.fixture(scope="module")
def shipped():
    return load_bundle(), load_game()


def test_the_random_player_makes_every_class_of_blunder(shipped):
    bundle, game = shipped
    t = blunder_table(["random"], ["Starter", "Long"], races=20, seed=3, bundle=bundle, game=game)
    by = t.set_index("blunder")
    for c in ("paid_entry", "wasted_token", "wasted_column"):
        assert by.loc[c, "decisions"] > 0
        assert by.loc[c, "count"] > 0, f"the check found no {c} in 40 random races"


def test_the_default_and_the_personas_make_no_dominated_decision(shipped):
    """60 races a course for the default, 15 for each other persona (CI's time; the command in
    docs/skitour/players.md checks 10,000)."""
    bundle, game = shipped
    for player, races in (("balanced", 60), ("sprinter", 15), ("sharpshooter", 15),
                          ("steady", 15)):
        t = blunder_table([player], ["Starter", "Long"], races=races, seed=11, bundle=bundle,
                          game=game)
        checked = dict(zip(t["blunder"], t["decisions"]))
        assert checked["paid_entry"] > 15 * races
        found = {c: n for c, n in zip(t["blunder"], t["count"]) if n}
        assert found == {}, f"{player} made dominated decisions: {found}"


class _Me:
    """The racer whose cheapest routes are asked for (the referee only compares identities)."""


def test_cheapest_route_counts_the_fewest_paid_entries_to_each_end(shipped):
    _, game = shipped
    ref = BlunderReferee(game, dict(course="Starter", nations=["Norway", "France"]), [])
    ref.course = type("C", (), {})()
    # three lanes, eight plain rows, nothing free
    ref.course.cells = [[".", ".", "."] for _ in range(8)]
    ref.course.free_rows = 0
    ref.n_rows, ref.lanes, ref.targets = 8, 3, 5
    ref.sw = dict(ref.sw)

    class Other:
        def __init__(self, row, lane):
            self.row, self.lane = row, lane

        def on_course(self):
            return True

    me = _Me()
    ref.racers = [Other(3, 0)]
    ends = ref._cheapest(me, 2, 0, False, 3, False, {})
    # three steps: straight on to (5, 0) must pass through the occupied (3, 0) and pays once;
    # (4, 1) is reached by (3, 0) then sideways (one paid entry) or round by (2, 1) for free
    assert ends[(5, 0)] == 1
    assert ends[(4, 1)] == 0
    # one step: only straight on reaches row 3 in lane 0, and it pays
    assert ref._cheapest(me, 2, 0, False, 1, False, {})[(3, 0)] == 1


def test_the_planned_move_counts_the_payments_it_can_still_make(shipped):
    """Long race 374 (seed 1, every seat benchmarks/personas/skitour_last_spend.toml): seat 1,
    four steps from row 58 with stamina for one voluntary payment after two paid columns, planned
    through two occupied spaces, paid the first, could not pay the second and stepped round it to
    an end a free route reached (one paid_entry). The planned move now prices an entry beyond the
    payments the racer can still make as one it cannot choose (kernels/skitour/engine.py,
    move_value_nb), so it takes the free route."""
    from pathlib import Path

    from sim.skitour.blunders import count_races

    bundle, game = shipped
    cand = Path(__file__).resolve().parents[2] / "benchmarks/personas/skitour_last_spend.toml"
    found = count_races(bundle, "Long", str(cand), 4, 1, 374, 375, game=game)
    assert found["decisions:paid_entry"] > 50
    assert sum(n for k, n in found.items() if k.startswith("paid_entry")) == 0
