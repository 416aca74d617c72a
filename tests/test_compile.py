"""The compiled bundle's shapes and values against the data files they came from."""
import numpy as np
import pytest

import minidata as M
from kernels.blast import consts as C
from sim.blast import compile_data, load_bundle, load_data


@pytest.fixture
def bundle(minidir):
    return load_bundle(minidir)


def test_shapes(bundle):
    t = bundle.tables
    n_cards = 4 + 6 * 5 + 2 + 1          # common, unique, distinct Motivation, one range pseudo-card
    assert t.card_init.shape == (n_cards, 3)
    assert t.card_steps.shape == (n_cards, 2, 3, 3)
    assert t.card_pulse.shape == t.card_wind.shape == t.card_icy.shape == (n_cards, 2)
    assert t.accuracy.shape == (6, 3)
    assert t.flags.shape == (6, C.N_COLOURS)
    assert t.deck.shape == (6, 9)
    assert t.motivation.shape == (4,)    # Cheer x3, Roar
    assert t.gear_wax.shape == (6, 6)
    assert t.terrain.shape == (1, M.ROUTE_LEN)
    assert t.rules.shape == (C.N_RULES,)
    assert len(bundle.card_names) == n_cards


def test_card_values(bundle):
    t = bundle.tables
    glide = bundle.card_id("Glide")
    assert list(t.card_init[glide]) == [4, C.SRC_NONE, 0]
    assert list(t.card_steps[glide, C.TOP, C.FLAT]) == [3, C.SRC_NONE, 0]
    assert list(t.card_steps[glide, C.BOTTOM, C.DOWNHILL]) == [4, C.SRC_NONE, 0]
    assert t.card_pulse[glide, C.TOP] == 1 and t.card_icy[glide].tolist() == [0, 0]
    gust = bundle.card_id("Gust")
    dice = bundle.data.rules.dice
    assert list(t.card_init[gust]) == [0, dice.index("blue"), 1]
    assert t.card_wind[gust].tolist() == [1, 0]
    assert t.card_icy[gust].tolist() == [0, 1]
    two = bundle.card_id("Ann Two")
    assert list(t.card_init[two]) == [0, dice.index("red"), 2]
    assert t.card_pulse[two].tolist() == [1, -1]
    five = bundle.card_id("Ann Five")
    assert list(t.card_steps[five, C.TOP, C.UPHILL]) == [0, dice.index("black"), 1]
    roar = bundle.card_id("Roar")
    assert list(t.card_init[roar]) == [0, dice.index("green"), 2]
    assert t.card_kind[roar] == C.KIND_MOTIVATION and t.card_kind[glide] == C.KIND_COMMON
    assert t.card_kind[two] == C.KIND_UNIQUE


def test_range_pseudo_card_holds_wait_and_shoot(bundle):
    t = bundle.tables
    rc = t.range_card[0]
    assert t.card_kind[rc] == C.KIND_RANGE
    assert t.card_pulse[rc].tolist() == [-2, 0]
    assert list(t.card_steps[rc, C.SHOOT, C.UPHILL]) == [0, C.SRC_HITS, 2]
    assert t.card_steps[rc, C.WAIT, :, 0].tolist() == [0, 0, 0]
    assert t.card_icy[rc].tolist() == [0, 1]


def test_decks_hold_common_then_own_cards(bundle):
    t = bundle.tables
    for bi, name in enumerate(bundle.biathlete_names):
        names = [bundle.card_names[c] for c in t.deck[bi]]
        assert names[:4] == ["Glide", "Breathe", "Push", "Gust"]
        assert names[4:] == [f"{name} {w}" for w in ("One", "Two", "Three", "Four", "Five")]
        assert all(bundle.card_owner[c] == name for c in t.deck[bi, 4:])


def test_motivation_copies_expanded(bundle):
    names = [bundle.card_names[c] for c in bundle.tables.motivation]
    assert names == ["Cheer", "Cheer", "Cheer", "Roar"]


def test_biathletes(bundle):
    t = bundle.tables
    assert bundle.biathlete_names == tuple(b[0] for b in M.BIATHLETES)
    assert t.accuracy.tolist() == [[a, b, c] for _, _, a, b, c, _ in M.BIATHLETES]
    assert t.flags[0].tolist() == [2, 1, 1, 0, 0, 0]


def test_gear(bundle):
    t = bundle.tables
    assert t.gear_bullets.tolist() == [4, 3, 3, 3, 3, 3]
    assert t.gear_wax[C.RED].sum() == 0
    assert t.gear_wax[C.BLACK, C.BLACK] == 2 and t.gear_wax[C.GREEN, C.GREEN] == 4
    assert t.gear_wax.sum() == 14
    assert t.ski_order.tolist() == list(range(6)) and t.ski_rank.tolist() == list(range(6))


def test_ski_colour_order_from_data(minidir):
    M.edit(minidir / "game.toml", '["red", "black", "yellow", "green", "blue", "white"]',
           '["white", "red", "black", "yellow", "green", "blue"]')
    t = load_bundle(minidir).tables
    assert t.ski_order.tolist() == [C.WHITE, C.RED, C.BLACK, C.YELLOW, C.GREEN, C.BLUE]
    assert t.ski_rank[C.WHITE] == 0 and t.ski_rank[C.RED] == 1


def test_route(bundle):
    t = bundle.tables
    assert t.route_len[0] == M.ROUTE_LEN
    assert t.finish_pos[0] == M.FINISH_POS == M.ROUTE_LEN - 1
    assert tuple(t.range_pos[0]) == M.RANGE_POS
    assert tuple(np.flatnonzero(t.start_line[0])) == M.START_LINE_POS
    assert tuple(np.flatnonzero(t.is_range[0])) == M.RANGE_POS
    terrain = "".join("R" if r else C.TERRAIN_LETTERS[x] for x, r in zip(t.terrain[0], t.is_range[0]))
    assert terrain == "FFF" + "FFUUDDDFFU" + "R" + "DFF" + "FFUUDDDFFU" + "R" + "DFF" + "FFUF"
    # the two laps of the loop are the same physical spaces; everything else is distinct
    phys = t.physical[0]
    assert phys[3:13].tolist() == phys[17:27].tolist()
    assert phys[13] == phys[27]                       # one range
    assert phys[14:17].tolist() == phys[28:31].tolist()
    assert len(set(phys[31:].tolist()) & set(phys[:31].tolist())) == 0
    # lanes: the range holds its mats, the run-out any number of racers
    assert t.lanes[0, 13] == 6 and t.lanes[0, M.FINISH_POS] == C.MAX_RACERS
    assert t.lanes[0, 3:13].tolist() == [2, 2, 1, 1, 2, 2, 2, 2, 2, 1]
    assert t.heading[0, 13] == C.NORTH                # range facing
    assert t.heading[0, 3:8].tolist() == [C.EAST, C.EAST, C.NORTH, C.NORTH, C.NORTH]
    assert t.lap[0, :4].tolist() == [0, 0, 0, 1] and t.lap[0, -1] == 3


def test_coach_zones_on_both_laps(bundle):
    t = bundle.tables
    zones = [(int(p), int(t.coach_colour[0, p]), int(t.coach_strength[0, p]))
             for p in np.flatnonzero(t.coach_colour[0] != C.NO_COACH)]
    assert zones == [(5, C.BLACK, 2), (10, C.BLUE, 1), (19, C.BLACK, 2), (24, C.BLUE, 1)]


def test_grid_slots_nearest_the_line_first(bundle):
    t = bundle.tables
    assert t.n_grid_slots[0] == 6
    assert t.grid_slots[0].tolist() == [[2, 0], [2, 1], [1, 0], [1, 1], [0, 0], [0, 1]]


def test_rules_and_switches(bundle, minidir):
    r = bundle.tables.rules
    assert r[C.R_PULSE_LIMIT] == 10 and r[C.R_ROUND_CAP] == 40
    assert (r[C.R_BAND_LOW], r[C.R_BAND_MEDIUM]) == (2, 6)
    assert r[C.R_N_DICE] == 5 and r[C.R_DIE_FACES] == 6 and r[C.R_INITIAL_WIND] == C.STILL
    assert r[C.R_MIXED_LANE_DRAFTING] == 1 and r[C.R_COACH_BOOST] == C.COACH_NEXT_TURN
    M.edit(minidir / "game.toml", "mixed_lane_drafting = true",
           'mixed_lane_drafting = false\ncoach_boost = "until_usable"\nmotivation_to = "discard"')
    r = load_bundle(minidir).tables.rules
    assert r[C.R_MIXED_LANE_DRAFTING] == 0 and r[C.R_COACH_BOOST] == C.COACH_UNTIL_USABLE
    assert r[C.R_MOTIVATION_TO] == C.MOTIVATION_TO_DISCARD


def test_hash_names_the_content_not_the_files(minidir, tmp_path):
    a = load_bundle(minidir).data_hash
    # comments, blank lines and another location change nothing
    M.edit(minidir / "cards.toml", "[[card]]", "# a designer's note\n\n[[card]]")
    assert load_bundle(minidir).data_hash == a
    other = M.write_minidata(tmp_path / "copy")
    assert load_bundle(other).data_hash == a
    # one step more on one card changes it
    M.edit(minidir / "cards.toml", "top = { flat = 3, pulse = 1 }", "top = { flat = 4, pulse = 1 }")
    assert load_bundle(minidir).data_hash != a


def test_later_switches_keep_the_hash_at_their_defaults(minidir):
    """pulse_floor and last_racer_wins (issue 28) written out at their defaults leave the hash as it
    was before they existed (results folders stay valid); set otherwise, each changes it."""
    a = load_bundle(minidir).data_hash
    M.edit(minidir / "game.toml", "mixed_lane_drafting = true",
           'mixed_lane_drafting = true\npulse_floor = "total"\nlast_racer_wins = false')
    assert load_bundle(minidir).data_hash == a
    M.edit(minidir / "game.toml", 'pulse_floor = "total"', 'pulse_floor = "each_part"')
    b = load_bundle(minidir).data_hash
    M.edit(minidir / "game.toml", "last_racer_wins = false", "last_racer_wins = true")
    assert len({a, b, load_bundle(minidir).data_hash}) == 3


def test_compiling_twice_is_identical(minidir):
    data = load_data(minidir)
    a, b = compile_data(data), compile_data(data)
    for x, y in zip(a.tables, b.tables):
        assert np.array_equal(x, y) and x.dtype == y.dtype


def test_range_coach_zone_on_every_visit(minidir):
    M.edit(minidir / "venues" / "testhausen.toml", 'terrain = "F"\n\n[wait]',
           'terrain = "F"\ncoach = { colour = "red", strength = 2 }\n\n[wait]')
    t = load_bundle(minidir).tables
    for p in M.RANGE_POS:
        assert (t.coach_colour[0, p], t.coach_strength[0, p]) == (C.RED, 2)


def test_fork_heading_per_branch(minidir):
    """The stretch's last space leads to the loop on lap 1 and to the final lap on lap 2."""
    M.edit(minidir / "venues" / "testhausen.toml", 'heading = "WWW"', 'heading = "WWW"\nfork_heading = { final = "E" }')
    b = load_bundle(minidir)
    t = b.tables
    lap1, lap2 = M.RANGE_POS[0] + 3, M.RANGE_POS[1] + 3       # stretch 3 on each lap
    assert t.physical[0, lap1] == t.physical[0, lap2]          # one physical space ...
    assert (t.heading[0, lap1], t.heading[0, lap2]) == (C.WEST, C.EAST)   # ... facing its branch
    assert t.heading[0, lap1 - 1] == t.heading[0, lap2 - 1] == C.WEST     # only the last space forks
    assert b.layouts[0].spaces[lap2].heading == "E"


def test_new_switch_defaults(bundle, minidir):
    r = bundle.tables.rules
    assert r[C.R_RANGE_DRAFTING] == 1 and r[C.R_ZERO_STEP_BOOST] == 1
    assert r[C.R_PULSE_FLOOR] == C.PULSE_FLOOR_TOTAL and r[C.R_LAST_RACER_WINS] == 0     # issue 28's two
    M.edit(minidir / "game.toml", "mixed_lane_drafting = true",
           "mixed_lane_drafting = true\nrange_drafting = false\nzero_step_boost = false\n"
           'pulse_floor = "each_part"\nlast_racer_wins = true')
    r = load_bundle(minidir).tables.rules
    assert r[C.R_RANGE_DRAFTING] == 0 and r[C.R_ZERO_STEP_BOOST] == 0
    assert r[C.R_PULSE_FLOOR] == C.PULSE_FLOOR_EACH_PART and r[C.R_LAST_RACER_WINS] == 1
