"""Random kernel races through the independent referee (sim/skitour/referee.py).

About 1,000 races of the shipped data (both courses, 2 to 5 racers, the two-player variant,
basic and advanced nations, the random and the balanced player) and a few hundred more under
each interpretation switch flipped (data variants patched identically into the kernel's bundle
and the referee's own reading of the data). Every log must be accepted, and the referee's
coverage counters must show that every rule the brief names was exercised. The races' seat and
visit records (records.md) are checked too, except lead_changes and leader_after_range.

A disagreement this referee found and that is now fixed in the kernel: for a range visit reached
whose fifth shot was never made (the race ended first), the seat record had laps_rK = -1, while
records.md says -1 only "if not reached"; the kernel now writes 0 on arrival, and the bulk tests
check the documented reading.
"""
from __future__ import annotations

import random
from collections import Counter

import pytest

from sim.skitour.compile import load_bundle
from sim.skitour.play import play_one
from sim.skitour.referee import load_game, referee_race
from sim.validation import Patch

PLAYERS = ("random", "balanced")

SWITCH_VARIANTS = {
    "range_payment_choice": [("game.toml", "switches.range_payment", "choice")],
    "no_draft_follows_bonus": [("game.toml", "switches.draft_follows_bonus", False)],
    "no_drafter_bonus": [("game.toml", "switches.drafter_bonus", False)],
    "no_reroll_blue_removal": [("game.toml", "switches.reroll_blue_removal", False)],
    "diagonal_is_sideways": [("game.toml", "switches.diagonal_is_sideways", True)],
    "short_race_on_top": [("game.toml", "switches.short_race_on_top", True)],
}


def random_races(bundle, game, n, seed):
    """Yield (setup, log) for n varied random races."""
    rng = random.Random(seed)
    boards = {nat.name: nat.board for nat in game.nations}
    names = list(bundle.nation_names)
    for i in range(n):
        course = bundle.course_names[i % len(bundle.course_names)]
        two = rng.random() < 0.2
        n_racers = 4 if two else 2 + i % 4
        used, nations = set(), []
        for _ in range(n_racers):
            x = rng.choice([m for m in names if boards[m] not in used])
            used.add(boards[x])
            nations.append(x)
        variant = "two_player" if two else "standard"
        player = PLAYERS[(i // 2) % 2]
        seats, visits, log = play_one(bundle, course, nations, seed=seed, race=i,
                                      players=(player,), variant=variant)
        setup = dict(course=course, nations=nations, variant=variant)
        yield setup, log, (seed, i), seats, visits


def run_races(bundle, game, n, seed):
    cov = Counter()
    bad = []
    for setup, log, key, seats, visits in random_races(bundle, game, n, seed):
        rep = referee_race(game, setup, log, seats=seats, visits=visits)
        cov += rep.coverage
        if not rep.ok:
            bad.append(f"seed {key[0]} race {key[1]} {setup}: {rep.message}")
    return cov, bad


@pytest.fixture(scope="module")
def shipped():
    return load_bundle(), load_game()


MUST_COVER = (
    ["course:Starter", "course:Long", "racers:2", "racers:3", "racers:4", "racers:5",
     "variant:standard", "variant:two_players", "two_player_end", "side:basic",
     "side:advanced", "finish", "collapse",
     # preparation
     "blue_removal", "die_no_room", "five_placed", "five_back", "six_sprint", "six_box",
     "six_back",
     # column step
     "extra_columns", "sprint_column", "box_six_taken", "box_six_back", "full_at_three",
     "flip_trade", "free_column_used", "pay_range", "pay_forced",
     "pay_reason:1", "pay_reason:2", "pay_reason:3", "pay_reason:4", "pay_reason:5",
     # movement
     "step_kind:0", "step_kind:1", "step_kind:2", "step_kind:3", "step_kind:4", "passes",
     "uphill", "bonus", "bonus_steps", "bonus_free_entry", "draft", "draft_chain",
     "draft_declined", "drafter_bonus", "no_draft_behind_sprinter",
     # range
     "arrive", "shots", "reshot", "lap_turn", "left_penalty_lane",
     "shot_die:green", "shot_die:yellow", "shot_die:red", "shot_die:blue",
     # wax
     "wax_printed", "wax_slash_choice", "wax_effect_lost", "plus_applied", "minus_applied"]
    + [f"penalty_misses:{m}" for m in range(6)]
    + ["wax:" + icon for icon in ("reroll_shot", "sprint", "free_column", "reroll_one",
                                  "reroll_all", "plus_one", "minus_one", "stamina")]
)


def test_referee_accepts_1000_random_kernel_races(shipped):
    bundle, game = shipped
    cov, bad = run_races(bundle, game, 1000, seed=2026)
    assert not bad, f"{len(bad)} races refused; first: {bad[:3]}"
    assert cov["race"] == 1000
    assert cov["records_seats"] > 0 and cov["records_visits"] > 0
    for name in bundle.nation_names:
        assert cov["nation:" + name] > 0, name
    missing = [k for k in MUST_COVER if cov[k] <= 0]
    assert not missing, f"not covered: {missing}"


@pytest.mark.parametrize("variant", sorted(SWITCH_VARIANTS))
def test_referee_accepts_kernel_races_with_a_switch_flipped(variant):
    patches = SWITCH_VARIANTS[variant]
    bundle = load_bundle(patches=[Patch(f, k, v) for f, k, v in patches])
    game = load_game(patches=patches)
    cov, bad = run_races(bundle, game, 60, seed=11)
    assert not bad, f"{len(bad)} races refused; first: {bad[:3]}"
    if variant == "range_payment_choice":
        assert cov["pay_range"] > 0
    if variant == "no_drafter_bonus":
        assert cov["drafter_bonus"] == 0 and cov["draft"] > 0
    if variant == "diagonal_is_sideways":
        assert cov["step_kind:2"] > 0


def test_laps_r_of_a_visit_reached_without_its_fifth_shot(shipped):
    """Found by this referee: the kernel wrote laps_rK = -1 for a range visit reached without its
    fifth shot (records.md: -1 only if not reached); the kernel now writes 0 on arrival."""
    bundle, game = shipped
    nations = ["Norway", "USA", "Finland", "Russia"]
    seats, visits, log = play_one(bundle, "Long", nations, seed=42, race=42,
                                  players=("balanced",), variant="two_player")
    setup = dict(course="Long", nations=nations, variant="two_player")
    rep = referee_race(game, setup, log, seats=seats, visits=visits)
    assert rep.ok, rep.message


# A data variant (longer downhill bonus and others) in which a drafter's own downhill bonus can
# cross the finish line. event-log.md: "A two-player race ends the moment a racer finishes:
# END follows its FINISH at once"; the kernel writes the drafter's BONUS row between its FINISH
# and the END. Kept visible as a strict xfail.
DATA_MIX = [("game.toml", "rules.downhill_moves", 5), ("game.toml", "rules.downhill_passes", 2),
            ("game.toml", "rules.uphill_penalty", 2),
            ("nations/norway.toml", "columns.capacity", [3, 3, 4, 4]),
            ("nations/norway.toml", "columns.full_at", [3, 2, 4, 4]),
            ("nations/usa.toml", "columns.boxes", ["flip", "flip", "flip", "flip"])]


@pytest.mark.xfail(strict=True, reason="kernel writes BONUS between a two-player FINISH (in a "
                   "drafter's bonus) and END; event-log.md: END follows FINISH at once")
def test_two_player_finish_in_a_drafters_bonus_ends_the_race_at_once():
    bundle = load_bundle(patches=[Patch(f, k, v) for f, k, v in DATA_MIX])
    game = load_game(patches=DATA_MIX)
    nations = ["Germany", "United Kingdom", "Italy", "Sweden"]
    seats, visits, log = play_one(bundle, "Long", nations, seed=5, race=109,
                                  players=("balanced",), variant="two_player")
    setup = dict(course="Long", nations=nations, variant="two_player")
    rep = referee_race(game, setup, log, seats=seats, visits=visits)
    assert rep.ok, rep.message


def test_data_variant_races_are_accepted():
    """The same data variant: standard races (no two-player end) all pass."""
    bundle = load_bundle(patches=[Patch(f, k, v) for f, k, v in DATA_MIX])
    game = load_game(patches=DATA_MIX)
    cov, bad = run_races(bundle, game, 80, seed=13)
    bad = [b for b in bad if not ("expected END (two-player end)" in b
                                  and "logged BONUS" in b)]
    assert not bad, f"{len(bad)} races refused; first: {bad[:3]}"
