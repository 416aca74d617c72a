"""Ski Tour's strength reference (kind "reference", kernels/skitour/engine.py): it decides on what
a racer at the table knows, its budget is honoured, and its races are legal.

Small budgets (one or two rollouts, a one-round horizon) keep each test to a few seconds; the
kernel is the race kernel every Ski Tour test compiles.
"""
from __future__ import annotations


import numpy as np
import pytest

from kernels.skitour import consts as C
from kernels.skitour import engine as E
from sim.skitour.compile import load_bundle
from sim.skitour.game import Design, nations as lineup
from sim.skitour.play import _run, play_one
from kernels.skitour.players import PARAM_NAMES
from sim.skitour.players import SEARCH, get_player, with_weights
from sim.skitour.referee import load_game, referee_race


@pytest.fixture(scope="module")
def bundle():
    return load_bundle()


def reference(rollouts=2.0, horizon=1.0, decisions=16.0):
    """The shipped reference persona with a small budget."""
    ref = get_player("reference")
    w = list(ref.weights)
    for key, value in (("rollouts", rollouts), ("horizon", horizon), ("decisions", decisions)):
        w[PARAM_NAMES.index(key)] = value
    return with_weights(ref, "reference", w)


def nations(bundle):
    """Four nations of the basic side (as ladders race them)."""
    return [str(bundle.nation_names[i]) for i in lineup(bundle, Design("Starter", 4), 1, np.arange(1))[0]]


def first_turn_rows(log, seat):
    """The log from its start to the first die rolled after `seat`'s first TURN: all the seat can
    have seen and decided before a die of its turn is rolled."""
    rows = [tuple(int(v) for v in r) for r in log]
    turn = next(i for i, r in enumerate(rows) if r[2] == C.EV_TURN and r[1] == seat)
    end = next((i for i in range(turn + 1, len(rows)) if rows[i][2] == C.EV_ROLL), len(rows))
    return rows[:end], rows[turn:end]


def test_the_reference_decides_only_on_what_it_can_know(bundle):
    """Seat 0's first turn, searched: the faces of round 1's preparation (all it has seen) are
    scripted alike, the dice to come differ; its decisions before its next roll must not."""
    nat = nations(bundle)
    players = (reference(), "balanced")
    seen_n = None
    searched = 0
    for seed in (1, 2, 3):
        rng = np.random.default_rng(seed)
        # how many faces round 1's preparation rolls (every seat, before seat 0's first turn)
        _, _, log = play_one(bundle, "Starter", nat, seed=seed, players=("balanced",))
        rows = [tuple(int(v) for v in r) for r in log]
        turn = next(i for i, r in enumerate(rows) if r[2] == C.EV_TURN)
        seen_n = sum(r[4] for r in rows[:turn] if r[2] == C.EV_ROLL)
        seen = list(rng.integers(0, 6, seen_n))
        runs = []
        for future in range(2):
            script = seen + list(np.random.default_rng(100 * seed + future).integers(0, 6, 300))
            _, _, log, ct = _run(bundle, "Starter", nat, seed, [0], players=players,
                                 seat_players=[0, 1, 1, 1], script=script, log_rows=20_000)
            runs.append((log, int(ct[E.CT_ROLLOUTS])))
        (a, ra), (b, rb) = runs
        assert ra > 0 and rb > 0
        head_a, turn_a = first_turn_rows(a, 0)
        head_b, turn_b = first_turn_rows(b, 0)
        assert head_a == head_b, f"seed {seed}: the decisions changed with dice it had not seen"
        assert any(r[2] in (C.EV_TAKE, C.EV_WAX) for r in turn_a)
        assert [tuple(r) for r in a] != [tuple(r) for r in b]   # the dice to come did differ
        searched += ra
    assert seen_n > 0 and searched > 0


def test_the_budget_is_honoured(bundle):
    """rollouts = 0 plays exactly its heuristic (the default's weights it keeps); otherwise every
    searched decision plays `rollouts` rollouts per option, and `decisions` caps the decisions
    searched per turn."""
    nat = nations(bundle)
    own = with_weights(get_player("balanced"), "own", get_player("reference").weights)
    base = _run(bundle, "Starter", nat, 5, [0], players=(own, "balanced"),
                seat_players=[0, 1, 1, 1], log_rows=20_000)
    off = _run(bundle, "Starter", nat, 5, [0], players=(reference(rollouts=0.0), "balanced"),
               seat_players=[0, 1, 1, 1], log_rows=20_000)
    assert np.array_equal(base[2], off[2]) and int(off[3][E.CT_ROLLOUTS]) == 0
    counts = {}
    for r, d in ((1.0, 1.0), (3.0, 1.0), (1.0, 3.0)):
        seats, _, _, ct = _run(bundle, "Starter", nat, 5, [0],
                               players=(reference(rollouts=r, decisions=d), "balanced"),
                               seat_players=[0, 1, 1, 1])
        counts[r, d] = int(ct[E.CT_ROLLOUTS])
        turns = int(seats["turns"][0])
        assert counts[r, d] % int(r) == 0
        # at most `decisions` decisions a turn, each at most MAX_OPTIONS options
        assert 0 < counts[r, d] <= r * d * turns * 40
    assert counts[3.0, 1.0] > counts[1.0, 1.0] and counts[1.0, 3.0] > counts[1.0, 1.0]


def test_reference_races_are_legal(bundle):
    """A few races of the reference against lookahead and balanced, through the independent
    referee (records too)."""
    game = load_game()
    nat = nations(bundle)
    ref = reference(rollouts=1.0)
    for race, course in ((0, "Starter"), (1, "Long"), (2, "Starter")):
        seats, visits, log = play_one(bundle, course, nat, seed=7, race=race,
                                      players=(ref, "lookahead", "balanced"),
                                      seat_players=[0, 1, 0, 2], log_rows=20_000)
        setup = dict(course=course, nations=list(nat), variant="standard")
        rep = referee_race(game, setup, log, seats=seats, visits=visits)
        assert rep.ok, f"race {race} on {course}: {rep.message}"
        assert seats["finished"].sum() + seats["eliminated"].sum() >= 1


def test_the_reference_persona(bundle):
    """The shipped persona: kind reference, every style weight the default's (issue 27 item 2's
    look_extra, look_first, draft_next and bonus_stay included: the reference is built on today's
    default), a budget."""
    ref = get_player("reference")
    bal = get_player("balanced")
    assert ref.kind == C.PLAYER_REFERENCE
    k = PARAM_NAMES.index("rollouts")
    style = [j for j, name in enumerate(PARAM_NAMES) if name not in SEARCH]
    assert [ref.weights[j] for j in style] == [bal.weights[j] for j in style]
    assert all(ref.weights[PARAM_NAMES.index(name)] > 0.0
               for name in ("draft_next", "bonus_stay", "look_extra", "look_first"))
    assert ref.weights[k] >= 1


def test_the_search_counters(bundle):
    """The kernel counts the reference's searched decisions by kind (engine.CT_SEARCH, read by
    benchmarks/skitour_reference_decisions.py): at most `decisions` a turn, a change at most once
    per searched decision, and never a decision outside its own turn (drafting behind others)."""
    nat = nations(bundle)
    seats, _, _, ct = _run(bundle, "Starter", nat, 5, [0, 1],
                           players=(reference(rollouts=2.0, decisions=5.0), "balanced"),
                           seat_players=[0, 1, 1, 1])
    tab = ct[E.CT_SEARCH:E.CT_SEARCH + E.N_DK * E.SEARCH_STATS].reshape(E.N_DK, E.SEARCH_STATS)
    searched, changed, to_first, from_first = tab.T
    turns = int(seats["turns"].reshape(2, 4)[:, 0].sum())
    assert 0 < searched.sum() <= 5 * turns
    assert searched[E.DK_STEP] > 0 and searched[E.DK_FIRST] > 0
    assert np.all(changed <= searched) and np.all(to_first + from_first <= changed)
    assert searched[E.DK_DRAFT] == 0 and searched[E.DK_PAY] == 0


@pytest.mark.parametrize("key, value, lo, hi", [("stamina_rows", "-0.5", 0, 10), ("stamina_rows", "11", 0, 10),
                                                ("stamina_cap", "2.5", 0, 2)])
def test_the_stamina_weights_ranges(tmp_path, key, value, lo, hi):
    """The rollout score's stamina weights are persona settings with a range: out of it, one line
    naming the file, the weight and the range."""
    bad = tmp_path / "ref.toml"
    bad.write_text(f'name = "ref"\nkind = "reference"\nbase = "reference"\n[weights]\n{key} = {value}\n')
    with pytest.raises(ValueError, match=rf"ref.toml: weights.{key}: expected a number from {lo} to {hi}, "
                                         rf"got {value}"):
        get_player(str(bad))
    assert key in SEARCH                  # a budget setting of the reference: `tune` leaves it


def test_the_stamina_weights_reach_the_rollout_score(bundle):
    """stamina_rows values a stamina point left at a rollout's end: priced at ten rows, the
    reference spends less stamina than with rows alone; stamina_cap (stamina counted at most this
    much per row to go) changes its choices again (a tiny cap counts about the rows alone)."""
    nat = nations(bundle)

    def run(rows, cap):
        ref = reference(rollouts=2.0, horizon=2.0)
        w = list(ref.weights)
        w[PARAM_NAMES.index("stamina_rows")] = rows
        w[PARAM_NAMES.index("stamina_cap")] = cap
        seats, _, log, ct = _run(bundle, "Starter", nat, 3, [0, 1], players=(with_weights(ref, "r", w), "balanced"),
                                 seat_players=[0, 1, 1, 1], log_rows=40_000)
        return seats["stamina_used"].reshape(2, 4)[:, 0].sum(), log

    used0, log0 = run(0.0, 0.0)
    used10, log10 = run(10.0, 0.0)
    _, log_cap = run(10.0, 0.05)
    assert used10 < used0
    assert not np.array_equal(log_cap, log10)
