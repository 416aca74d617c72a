"""The race kernels' capacities against the data (issue 12): data beyond them is refused by the
validator and by compile (file: entry: field: why), tables made around both are refused by the
kernel itself, and data right at them plays. Marked `boundscheck`: their point is that no kernel
indexes past an array, which `make test` checks by running every test with NUMBA_BOUNDSCHECK=1
(an index past an array then raises instead of touching foreign memory)."""
import dataclasses

import numba
import numpy as np
import pytest

import minidata as M
from kernels.blast import events as E
from kernels.blast import state as S
from kernels.blast.results import RANGE_VISITS
from sim.blast import compile_data, load_bundle, load_data
from sim.blast.compile import capacity_problems
from sim.blast.play import make_setup, play_block, play_one
from sim.blast.referee import referee_race
from sim.validation import DataError, Patch
from test_data_limits import check_log, check_results

pytestmark = pytest.mark.boundscheck


def refused(root, patches=()):
    with pytest.raises(DataError) as info:
        load_bundle(root, patches)
    return [str(p) for p in info.value.problems]


def test_face_up_motivation_beyond_the_slots_is_refused(minidir):
    found = refused(minidir, [Patch("game.toml", "rules.face_up_motivation", S.MAX_FACE_UP + 1)])
    assert found == ["game.toml: [rules]: face_up_motivation: must be a whole number from 0 to 2 (the "
                     "engine has 2 face-up Motivation slots), got 3"]


def test_motivation_deck_beyond_the_engine_deck_is_refused(minidir):
    # Cheer x3 + Roar: 3 + 62 copies would be 65 cards
    M.edit(minidir / "motivation.toml", "copies = 3", "copies = 28")
    M.edit(minidir / "motivation.toml", 'name = "Roar"', 'name = "Roar"\ncopies = 28')
    M.edit(minidir / "motivation.toml", "[[card]]\nname = \"Roar\"",
           "[[card]]\nname = \"Howl\"\ninitiative = 1\ntop = { flat = 1 }\nbottom = { flat = 1 }\n"
           "copies = 9\n\n[[card]]\nname = \"Roar\"")
    assert refused(minidir) == ["motivation.toml: copies: the Motivation deck holds at most 64 cards "
                                "(copies counted; the engine's deck), found 65"]
    M.edit(minidir / "motivation.toml", "copies = 9", "copies = 8")
    bundle = load_bundle(minidir)
    assert bundle.tables.motivation.shape == (S.MAX_MOTIVATION,)
    play_and_check(bundle)


def test_compile_checks_data_made_without_the_validator(minidir):
    data = load_data(minidir)
    rules = dataclasses.replace(data.rules, face_up_motivation=3, range_visits=11, unique_cards=61,
                                start_line_crossings=0)
    motivation = tuple(dataclasses.replace(c, copies=40) for c in data.motivation)
    bad = dataclasses.replace(data, rules=rules, motivation=motivation)
    found = [str(p) for p in capacity_problems(bad)]
    expected = [
        "game.toml: [rules]: face_up_motivation: must be a whole number from 0 to 2",
        "game.toml: [rules]: range_visits: must be a whole number from 0 to 10",
        "game.toml: [rules]: start_line_crossings: must be at least 1",
        "game.toml: [rules]: unique_cards: a hand can grow to 65 cards",
        "motivation.toml: copies: the Motivation deck holds at most 64 cards (copies counted; the "
        "engine's deck), found 80",
        "venues/testhausen.toml: trail 'Loop': route: passes the range 2 times; rules.range_visits is 11",
    ]
    for e in expected:
        assert any(f.startswith(e) for f in found), (e, found)
    with pytest.raises(DataError):
        compile_data(bad)
    assert capacity_problems(data) == []
    assert capacity_problems(load_bundle().data) == []


def test_kernel_refuses_tables_larger_than_its_state(minidir):
    bundle = load_bundle(minidir)
    t = bundle.tables
    big = {"motivation": np.resize(t.motivation, S.MAX_MOTIVATION + 1),
           "deck": np.resize(t.deck, (t.deck.shape[0], S.MAX_HAND)),
           "range_pos": np.zeros((1, S.MAX_VISITS + 1), np.int32),
           "n_grid_slots": t.n_grid_slots - 1}
    setup = make_setup(bundle, 0, [0, 1])
    for name, array in big.items():
        tampered = dataclasses.replace(bundle, tables=t._replace(**{name: array}))
        with pytest.raises(ValueError):
            play_block(tampered, [setup], 1, [0])


def play_and_check(bundle, races=3):
    """A few races of several sizes and players: results consistent, event logs refereed."""
    n = len(bundle.biathlete_names)
    setups = [make_setup(bundle, i % len(bundle.trail_names), list(range(k)), players=kind)
              for i, (k, kind) in enumerate(((6, "heuristic"), (2, "random"), (4, "heuristic")))
              if k <= n][:races]
    check_results(bundle, setups, *play_block(bundle, setups, 3, np.arange(len(setups)), visits=True))
    for i, s in enumerate(setups):
        log = play_one(bundle, s, 4, i)
        report = referee_race(bundle, s.trail, list(s.biathletes), list(s.colours), log.events)
        assert report.ok, report.message
        check_log(log)


def three_visits(minidir):
    """The mini data set with a third lap: three range visits, four start-line crossings."""
    M.edit(minidir / "venues" / "testhausen.toml", '"stretch", "final"',
           '"stretch", "loop", "range", "stretch", "final"')
    M.edit(minidir / "game.toml", "round_cap = 40", "round_cap = 60\nrange_visits = 3\nstart_line_crossings = 4")
    return load_bundle(minidir)


def test_three_range_visits_keep_each_visits_statistics(minidir):
    """Visits 1 and 2 have visits records; the third counts in the totals and never overwrites
    another statistic (it wrote into visit 1's hits before issue 12)."""
    bundle = three_visits(minidir)
    assert bundle.tables.range_pos.shape == (1, 3) and RANGE_VISITS == 2
    play_and_check(bundle)
    third = 0
    for race in range(12):
        log = play_one(bundle, make_setup(bundle, 0, list(range(6))), 9, race)
        check_log(log)
        kind, seat = log.events[:, E.COL_KIND], log.events[:, E.COL_SEAT]
        third += sum(((kind == E.HITS) & (seat == s)).sum() == 3 for s in range(6))
    assert third > 0, "no racer shot three times: the test shows nothing"


def test_lookahead_players_on_data_at_the_limits(minidir):
    from kernels.blast.players import P_ROLLOUTS
    from sim.blast.players import resolve

    bundle = three_visits(minidir)
    look = resolve("lookahead")
    weights = list(look.weights)
    weights[P_ROLLOUTS] = 2                                      # two rollouts per card
    look = dataclasses.replace(look, weights=tuple(weights))
    setups = [make_setup(bundle, 0, list(range(4)), players=[look, "heuristic", "random", look])]
    check_results(bundle, setups, *play_block(bundle, setups, 5, [0], visits=True))


@pytest.mark.skipif(not numba.config.BOUNDSCHECK, reason="only under NUMBA_BOUNDSCHECK=1")
def test_boundscheck_is_on_in_the_kernels(minidir):
    """Under NUMBA_BOUNDSCHECK=1 the compiled race kernel really checks indices: a deck naming a
    card id past the card tables raises IndexError (run without bounds checks, it would read
    foreign memory, so this only runs under NUMBA_BOUNDSCHECK=1, as make test runs). A kernel compiled
    without checks and handed back by the cache would fail here."""
    bundle = load_bundle(minidir)
    t = bundle.tables
    deck = t.deck.copy()
    deck[:, :] = len(bundle.card_names) + 5000
    tampered = dataclasses.replace(bundle, tables=t._replace(deck=deck))
    with pytest.raises(IndexError):
        play_block(tampered, [make_setup(bundle, 0, [0, 1])], 1, [0])


def test_shipped_data_plays_within_bounds():
    """Every shipped trail, every race size, every player kind (under NUMBA_BOUNDSCHECK=1 with
    every index checked): results consistent with the event logs."""
    from kernels.blast.players import P_ROLLOUTS
    from sim.blast.players import resolve

    bundle = load_bundle()
    look = resolve("lookahead")
    weights = list(look.weights)
    weights[P_ROLLOUTS] = 1
    look = dataclasses.replace(look, weights=tuple(weights))
    kinds = ["heuristic", "random", "sprinter", "sharpshooter", "conservative", "tuned"]
    rng = np.random.default_rng(12)
    setups = []
    for trail in range(len(bundle.trail_names)):
        for n in range(2, 7):
            bis = [int(b) for b in rng.choice(len(bundle.biathlete_names), n, replace=False)]
            setups.append(make_setup(bundle, trail, bis, players=[kinds[(trail + n + k) % 6] for k in range(n)]))
    check_results(bundle, setups, *play_block(bundle, setups, 8, np.arange(len(setups)), visits=True))
    for i, s in enumerate(setups[::4]):
        check_log(play_one(bundle, s, 8, i))
    with_look = [dataclasses.replace(s, players=(look,) + s.players[1:]) for s in setups[:3]]
    check_results(bundle, with_look, *play_block(bundle, with_look, 8, np.arange(3), visits=True))
