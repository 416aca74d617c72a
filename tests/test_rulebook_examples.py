"""The rulebook's worked examples, set up as the book describes them and played by the kernel.

Each scenario builds a mid-race state, lets SCRIPTED seats make the book's choices, plays the
turn with the engine's own `play_turn_nb` (or the engine's turn-order function) and checks the
book's result in the event log and the state.
"""
import numpy as np
import pytest
from numba import njit

import minidata as M
from kernels.blast import consts as C
from kernels.blast import events as E
from kernels.blast.engine import next_seat_nb, open_round_nb, play_turn_nb, setup_nb
from kernels.blast.players import (
    DEFAULT_PARAMS, HEURISTIC, N_PARAMS, P_WAX, SC_ACTION, SC_BULLETS, SC_COACH, SC_DEST, SC_LANE, SC_WAX,
    SC_WIND, SCRIPTED,
)
from kernels.rng import below_nb
from kernels.blast.rules import pulse_adjust_nb, reach_nb
from kernels.blast.state import G_LOG_N, G_ROUND, G_WIND, G_WINNER, new_state
from kernels.jit import python_callable
from kernels.blast.state import (
    SEAT_BOOST_C, SEAT_BOOST_ROUND, SEAT_BOOST_S, SEAT_BULLETS, SEAT_CHOSEN, SEAT_DISC_N,
    SEAT_HAND_N, SEAT_LANE, SEAT_ON_MAT, SEAT_PLAYED, SEAT_PLAYER, SEAT_POS, SEAT_PULSE, SEAT_REMOVED_N,
    SEAT_STATUS,
)
from sim.blast import load_bundle

# The engine's helpers are compiled for kernel callers only; these versions can be called from
# Python (kernels.jit).
setup_nb, play_turn_nb, next_seat_nb, pulse_adjust_nb, reach_nb, open_round_nb = map(
    python_callable, (setup_nb, play_turn_nb, next_seat_nb, pulse_adjust_nb, reach_nb, open_round_nb))


@pytest.fixture(scope="module")
def shipped():
    return load_bundle()


def scenario(bundle, trail, biathletes, colours):
    """A state after set-up, with an empty log, in round 5; every seat SCRIPTED."""
    tb = bundle.tables
    n = len(biathletes)
    st = new_state(N_PARAMS, 4000)
    pad = lambda xs: np.array(list(xs) + [0] * (C.MAX_RACERS - len(xs)), np.int64)  # noqa: E731
    params = np.tile(DEFAULT_PARAMS, (C.MAX_RACERS, 1))
    setup_nb(tb, trail, n, pad(biathletes), pad(colours), pad([SCRIPTED] * n), params, 0, 0, st, 4000)
    st.g[G_LOG_N] = 0
    st.g[G_ROUND] = 5
    st.g[G_WIND] = C.STILL
    return st


def place(st, seat, pos, lane=0, on_mat=0, pulse=0):
    st.seat[SEAT_POS, seat], st.seat[SEAT_LANE, seat], st.seat[SEAT_ON_MAT, seat], st.seat[SEAT_PULSE, seat] = pos, lane, on_mat, pulse


def give_card(bundle, st, seat, name):
    """The seat has chosen `name` this round (taken out of its hand, as the engine does)."""
    card = bundle.card_id(name)
    st.hand[seat, 0] = card
    st.seat[SEAT_HAND_N, seat] = 1
    st.seat[SEAT_CHOSEN, seat] = card
    return card


def events_of(st, kind, seat=None):
    log = st.log[:st.g[G_LOG_N]]
    rows = log[log[:, E.COL_KIND] == kind]
    if seat is not None:
        rows = rows[rows[:, E.COL_SEAT] == seat]
    return rows[:, E.COL_ARG:]


def play(bundle, st, seat, trail):
    play_turn_nb(bundle.tables, trail, st, seat, np.zeros(C.MAX_RACERS, np.int64))


# --- initiative ----------------------------------------------------------------------------------
def test_initiative_virtuoso_beats_offset_with_red_die_3(shipped):
    """Yellow plays Virtuoso (9), Blue plays Offset (2 x red die); the red die shows 3: 6 < 9."""
    b = shipped
    owens, bakken = b.biathlete_id("Owens"), b.biathlete_id("Bakken")
    st = scenario(b, b.trail_id("Kurz"), [bakken, owens], [C.YELLOW, C.BLUE])
    st.seat[SEAT_CHOSEN, 0] = b.card_id("Virtuoso")
    st.seat[SEAT_CHOSEN, 1] = b.card_id("Offset")
    red = b.data.rules.dice.index("red")
    st.dice[red] = 3
    st.seat[SEAT_PLAYED, :] = 0
    assert next_seat_nb(b.tables, st) == 0            # Yellow first
    st.dice[red] = 5                                   # Offset now reads 10
    assert next_seat_nb(b.tables, st) == 1
    st.dice[red] = 3
    st.seat[SEAT_PLAYED, 0] = 1
    assert next_seat_nb(b.tables, st) == 1             # then Blue


def test_initiative_ties_go_by_ski_colour_order(shipped):
    b = shipped
    # a Fischer card whose printed initiative Offset (2 x red die) can equal (the values are data)
    fischer = next(x for x in b.data.biathletes if x.name == "Fischer")
    even = next(c for c in fischer.cards if c.initiative.source is None and c.initiative.base % 2 == 0
                and c.initiative.base <= 10)
    st = scenario(b, 0, [b.biathlete_id("Fischer"), b.biathlete_id("Owens")], [C.WHITE, C.GREEN])
    st.seat[SEAT_CHOSEN, 0] = b.card_id(even.name)                # initiative 2k
    st.seat[SEAT_CHOSEN, 1] = b.card_id("Offset")                 # 2 x red = 2k
    st.dice[b.data.rules.dice.index("red")] = even.initiative.base // 2
    st.seat[SEAT_PLAYED, :] = 0
    assert next_seat_nb(b.tables, st) == 1             # green comes before white


# --- movement ------------------------------------------------------------------------------------
def test_wei_movement_example(shipped):
    """2 uphill and 5 downhill steps over U, D, D, D, F, U: spaces 1 to 5 reachable, not 6."""
    b = shipped
    t = b.trail_id("Lang")
    terrain = "".join(C.TERRAIN_LETTERS[x] for x in b.tables.terrain[t, :b.tables.route_len[t]])
    start = terrain.find("UDDDFU") - 1
    assert start >= 0, "the Lang trail holds the book's terrain"
    card = b.card_id("Dragon Descent")
    assert b.tables.card_steps[card, C.TOP, :, 0].tolist() == [2, 0, 5]
    assert reach_nb(b.tables, t, start, 2, 0, 5) == start + 5
    assert reach_nb(b.tables, t, start, 3, 0, 5) >= start + 6    # one more uphill step reaches 6
    # played by the engine: Wei may stop on space 5 ...
    st = scenario(b, t, [b.biathlete_id("Wei")], [C.BLACK])
    place(st, 0, start)
    give_card(b, st, 0, "Dragon Descent")
    st.script[0, SC_ACTION] = C.TOP
    st.script[0, SC_DEST] = start + 5
    st.script[0, SC_LANE] = 0
    play(b, st, 0, t)
    assert events_of(st, E.STEPS, 0)[0, :3].tolist() == [2, 0, 5]
    assert events_of(st, E.MOVE, 0)[0, :2].tolist() == [start, start + 5]
    assert st.seat[SEAT_POS, 0] == start + 5
    # ... but space 6 is refused: the engine does not play an illegal scripted end
    st = scenario(b, t, [b.biathlete_id("Wei")], [C.BLACK])
    place(st, 0, start)
    give_card(b, st, 0, "Dragon Descent")
    st.script[0, SC_ACTION] = C.TOP
    st.script[0, SC_DEST] = start + 6
    st.script[0, SC_LANE] = 0
    with pytest.raises(ValueError, match="not a legal end of the move"):
        play(b, st, 0, t)
    assert st.seat[SEAT_POS, 0] == start and len(events_of(st, E.MOVE, 0)) == 0


# --- pulse -----------------------------------------------------------------------------------------
FISCHER_LOOP = ('terrain = "FFUUD DDFFU"', 'terrain = "DDDDD DDDDD"'), \
               ('lanes   = "22112 22221"', 'lanes   = "22222 21111"'), \
               ('heading = "EENNN EESSS"', 'heading = "NNNNN ESSSS"'), \
               ('coach = [ { space = 3, colour = "black", strength = 2 }, '
                '{ space = 8, colour = "blue", strength = 1 } ]', 'coach = []'), \
               ('top = { flat = 4, pulse = 1 }', 'top = { flat = 4, downhill = 6, pulse = 2 }')


@pytest.fixture
def fischer_bundle(minidir):
    """Route: grid 0-2, then a northbound double-lane stretch that turns south onto single lanes.

    Fischer (red) on 3; Wei (black) on 6, right lane, facing north; Olsson (yellow) on 10, single
    lane, facing south; the wind blows from the north. Fischer's card: up to 10 steps, cost 2.
    """
    for old, new in FISCHER_LOOP:
        M.edit(minidir / ("venues/testhausen.toml" if "top =" not in old else "biathletes/ann.toml"), old, new)
    return load_bundle(minidir)


@pytest.mark.parametrize("end, lane, adjust", [
    (5, 1, -1),    # right lane directly behind Wei: drafting, the headwind does not count
    (5, 0, +1),    # left lane: diagonal to Wei, no drafting, headwind
    (9, 0, -2),    # behind Olsson: drafting, and tailwind with nobody behind
    (11, 0, 0),    # just ahead of Olsson: no drafting, and she blocks the tailwind
])
def test_fischer_pulse_example(fischer_bundle, end, lane, adjust):
    b = fischer_bundle
    st = scenario(b, 0, [0, 1, 2], [C.RED, C.BLACK, C.YELLOW])
    place(st, 0, 3, 0, pulse=4)
    place(st, 1, 6, 1)
    place(st, 2, 10, 0)
    st.g[G_WIND] = C.NORTH
    out = np.zeros(2, np.int64)
    pulse_adjust_nb(st, b.tables, 0, 0, end, lane, 0, out)
    assert out.sum() == adjust
    # the whole turn, played by the engine: total change = cost 2 + adjustment (0 to 3)
    card = give_card(b, st, 0, "Ann One")
    assert reach_nb(b.tables, 0, 3, 0, 4, 6) == 13          # up to 10 spaces ahead
    st.script[0, SC_ACTION] = C.TOP
    st.script[0, SC_DEST] = end
    st.script[0, SC_LANE] = lane
    play(b, st, 0, 0)
    before, after, cost, reduction, drafting, wind = events_of(st, E.PULSE, 0)[0, :6]
    assert (before, cost, reduction) == (4, 2, 0)
    assert drafting + wind == adjust
    assert after - before == 2 + adjust
    assert b.tables.card_pulse[card, C.TOP] == 2


# --- shooting --------------------------------------------------------------------------------------
@njit
def _roll_from(state, n, faces):
    out = np.zeros(n, np.int64)
    for i in range(n):
        out[i] = below_nb(state, faces)
    return out


def rng_state_for(dice_pattern):
    """A chance-stream state whose next roll gives these faces (found by search)."""
    for k in range(1, 200_000):
        state = np.array([np.uint64(k * 0x9E3779B97F4A7C15 % 2**64)], np.uint64)
        if _roll_from(state.copy(), len(dice_pattern), 6).tolist() == list(dice_pattern):
            return state[0]
    raise AssertionError("no state found")


def test_pinto_shooting_example(shipped):
    """Pinto, pulse 5 (accuracy 3+), rolls hits on the black and blue dice, windstill: 3 hits,
    6 uphill steps at no cost; the Shoot action is icy, so Carnival is removed."""
    b = shipped
    t = b.trail_id("Short")
    assert b.data.venue_of(b.data.trails[t]).name == "Port Rock"
    rng = b.tables.range_pos[t, 0]
    st = scenario(b, t, [b.biathlete_id("Pinto")], [C.GREEN])
    place(st, 0, rng, 0, on_mat=1, pulse=5)
    carnival = give_card(b, st, 0, "Carnival")
    dice = b.data.rules.dice
    faces = [0] * len(dice)
    faces[dice.index("black")] = 4
    faces[dice.index("blue")] = 3
    faces[dice.index("red")] = 2
    faces[dice.index("green")] = 1
    st.rng[0] = rng_state_for(faces)
    bullets, discards = st.seat[SEAT_BULLETS, 0], st.seat[SEAT_DISC_N, 0]
    st.script[0, SC_ACTION] = C.SHOOT
    st.script[0, SC_BULLETS] = 0
    st.script[0, SC_COACH] = 0
    st.script[0, SC_DEST] = rng + 6
    st.script[0, SC_LANE] = 0
    play(b, st, 0, t)
    assert events_of(st, E.ROLL, 0)[0, :len(dice)].tolist() == faces
    dice_hits, wind_adj, own, coach, hits = events_of(st, E.HITS, 0)[0, :5]
    assert (dice_hits, wind_adj, own, coach, hits) == (2, 1, 0, 0, 3)
    assert events_of(st, E.STEPS, 0)[0, :3].tolist() == [6, 0, 0]
    assert events_of(st, E.PULSE, 0)[0, 2] == 0                   # Shoot costs nothing
    assert events_of(st, E.CARD_END, 0)[0, :2].tolist() == [carnival, 1]   # removed
    assert st.seat[SEAT_DISC_N, 0] == discards and st.seat[SEAT_REMOVED_N, 0] == 1 and st.seat[SEAT_BULLETS, 0] == bullets
    assert st.seat[SEAT_ON_MAT, 0] == 0 and st.seat[SEAT_POS, 0] == rng + 6


def test_crosswind_and_windstill_bounds(shipped):
    """Crosswind -1 never below 0; windstill +1 never above 5 (book: minimum 0, maximum 5)."""
    from kernels.blast.rules import shot_hits_nb
    shot_hits_nb = python_callable(shot_hits_nb)
    b = shipped
    pinto = b.biathlete_id("Pinto")
    t = b.trail_id("Short")
    facing = b.tables.heading[t, b.tables.range_pos[t, 0]]
    side = (facing + 1) % 4
    five = np.full(8, 5, np.int64)
    zero = np.zeros(8, np.int64)
    assert shot_hits_nb(b.tables, pinto, 0, five, C.STILL, facing) == (5, 5)
    assert shot_hits_nb(b.tables, pinto, 8, zero, side, facing) == (0, 0)
    assert shot_hits_nb(b.tables, pinto, 8, five, side, facing) == (5, 4)
    assert shot_hits_nb(b.tables, pinto, 8, five, facing, facing) == (5, 5)   # headwind: no change


# --- coach zones -----------------------------------------------------------------------------------
def test_owens_yellow_coach_zone(shipped):
    """Owens ended his last turn in a yellow zone worth 3: Rush More's bottom action has 3 more
    flat steps this turn, so he reaches further than its own steps allow."""
    b = shipped
    t = b.trail_id("Kurz")
    st = scenario(b, t, [b.biathlete_id("Owens")], [C.RED])
    start = 3                                       # a long flat stretch follows
    place(st, 0, start)
    give_card(b, st, 0, "Rush More")
    st.seat[SEAT_BOOST_C, 0], st.seat[SEAT_BOOST_S, 0], st.seat[SEAT_BOOST_ROUND, 0] = C.YELLOW, 3, 4
    own = b.tables.card_steps[b.card_id("Rush More"), C.BOTTOM, C.FLAT, 0]
    plain = reach_nb(b.tables, t, start, 0, own, 0)
    boosted = reach_nb(b.tables, t, start, 0, own + 3, 0)
    assert boosted == plain + 3
    st.script[0, SC_ACTION] = C.BOTTOM
    st.script[0, SC_DEST] = boosted
    st.script[0, SC_LANE] = 0
    play(b, st, 0, t)
    assert events_of(st, E.STEPS, 0)[0, :3].tolist() == [0, own + 3, 0]
    assert st.seat[SEAT_POS, 0] == boosted
    assert len(events_of(st, E.BOOST_LOST, 0)) == 0     # the boost was used
    assert st.seat[SEAT_BOOST_C, 0] == -1


def test_owens_blue_coach_zone(shipped):
    """Owens ends his move in a blue zone worth 2 with Offset's top action (cost 1): -1."""
    b = shipped
    t = b.trail_id("Lang")
    zones = np.flatnonzero((b.tables.coach_colour[t] == C.BLUE) & (b.tables.coach_strength[t] == 2))
    zone = int(zones[0])
    st = scenario(b, t, [b.biathlete_id("Owens")], [C.RED])
    place(st, 0, zone - 1, pulse=4)
    give_card(b, st, 0, "Offset")
    assert reach_nb(b.tables, t, zone - 1, 0, 4, 0) >= zone
    st.script[0, SC_ACTION] = C.TOP
    st.script[0, SC_DEST] = zone
    st.script[0, SC_LANE] = 0
    st.script[0, SC_WIND] = C.STILL
    play(b, st, 0, t)
    before, after, cost, reduction, drafting, wind = events_of(st, E.PULSE, 0)[0, :6]
    assert (cost, reduction, drafting, wind) == (1, 2, 0, 0)
    assert after - before == -1
    assert events_of(st, E.BOOST, 0)[0, :2].tolist() == [C.BLUE, 2]


# --- round start, red coach bullets, ranking ---------------------------------------------------------
def test_no_cards_left_eliminates_at_round_start_and_ranks_last(shipped):
    """Hand and discard pile both empty at the start of a round: out of the race. Eliminated
    together at a round start, the earlier ski colour ranks higher; later eliminations rank higher."""
    from kernels.blast.engine import eliminate_nb, rank_nb, round_start_nb
    eliminate_nb, rank_nb, round_start_nb = map(python_callable, (eliminate_nb, rank_nb, round_start_nb))
    b = shipped
    t = b.trail_id("Kurz")
    st = scenario(b, t, [0, 1, 2, 3], [C.RED, C.BLACK, C.YELLOW, C.GREEN])
    for seat, pos in enumerate((10, 12, 14, 16)):
        place(st, seat, pos, lane=seat % 2)
    for seat in (1, 2):                       # black and yellow hold no card at all
        st.seat[SEAT_HAND_N, seat] = 0
        st.seat[SEAT_DISC_N, seat] = 0
    st.seat[SEAT_HAND_N, 3] = 0               # green: empty hand, but a discard pile
    discards = st.seat[SEAT_DISC_N, 3]
    round_start_nb(b.tables, t, st, np.zeros(C.MAX_RACERS, np.int64))
    log = st.log[:st.g[G_LOG_N]]
    out = log[log[:, E.COL_KIND] == E.ELIMINATED]
    assert out[:, E.COL_SEAT].tolist() == [1, 2]                    # in ski colour order
    assert (out[:, E.COL_ARG] == E.CAUSE_NO_CARDS).all()
    pickup = events_of(st, E.PICKUP, 3)
    assert pickup[0, :2].tolist() == [E.PICKUP_FREE, discards]      # free pick-up of the pile
    assert st.seat[SEAT_HAND_N, 3] == discards and st.seat[SEAT_DISC_N, 3] == 0
    # red is eliminated later (pulse): it ranks above black and yellow, who tie on the round start
    from kernels.blast.state import G_ELIM, S_PLACE
    st.g[G_ROUND] = 6
    st.g[G_ELIM] += 1
    eliminate_nb(st, 0, E.CAUSE_PULSE, st.g[G_ELIM])
    rank_nb(b.tables, t, st)
    places = {s: int(st.stats[s, S_PLACE]) for s in range(4)}
    assert places == {3: 1, 0: 2, 1: 3, 2: 4}


def test_red_coach_bullets_add_hits_at_a_shot_when_they_wait(shipped, tmp_path):
    """`coach_boost = "until_usable"`: a red zone's bullets (strength 2) wait for the shot and add
    two hits there; nothing is left to expire."""
    from blastrace import SWITCHES_DEFAULT, variant_dir
    b = load_bundle(variant_dir(tmp_path, {SWITCHES_DEFAULT: SWITCHES_DEFAULT.replace(
        'coach_boost = "next_turn"', 'coach_boost = "until_usable"')}))
    t = b.trail_id("Short")
    rng = b.tables.range_pos[t, 0]
    st = scenario(b, t, [b.biathlete_id("Pinto")], [C.GREEN])
    place(st, 0, rng, 0, on_mat=1, pulse=5)
    give_card(b, st, 0, "Carnival")
    st.seat[SEAT_BOOST_C, 0], st.seat[SEAT_BOOST_S, 0], st.seat[SEAT_BOOST_ROUND, 0] = C.RED, 2, 3
    dice = b.data.rules.dice
    faces = [0] * len(dice)
    faces[dice.index("black")] = 4                 # one dice hit at accuracy 3+
    st.rng[0] = rng_state_for(faces)
    st.g[G_WIND] = b.tables.heading[t, rng]       # a headwind at the mats: no hit adjustment
    st.script[0, SC_ACTION] = C.SHOOT
    st.script[0, SC_BULLETS] = 0
    st.script[0, SC_COACH] = 2
    st.script[0, SC_DEST] = rng
    play(b, st, 0, t)
    dice_hits, wind_adj, own, coach, hits = events_of(st, E.HITS, 0)[0, :5]
    assert (dice_hits, wind_adj, own, coach, hits) == (1, 0, 0, 2, 3)
    assert len(events_of(st, E.BOOST_LOST, 0)) == 0 and st.seat[SEAT_BOOST_C, 0] == -1
    assert events_of(st, E.MOVE, 0)[0, :4].tolist() == [rng, rng, -1, 0]   # off the mat, on the range


# --- rule points of the engine audit (docs/rules.md) -------------------------------------------------
def test_illegal_scripted_choices_are_refused(shipped):
    """Wax not held, an occupied single lane and a bullet past max_hits are errors, not clamped."""
    b = shipped
    t = b.trail_id("Kurz")
    st = scenario(b, t, [b.biathlete_id("Owens"), b.biathlete_id("Wei")], [C.RED, C.BLACK])
    place(st, 0, 3)
    give_card(b, st, 0, "Rush More")
    st.script[0, SC_ACTION] = C.BOTTOM
    st.script[0, SC_WAX + C.GREEN - 1] = 1            # red skis hold no wax
    with pytest.raises(ValueError, match="more wax"):
        play(b, st, 0, t)
    # a double-lane space with its lane 0 taken: lane 0 is refused, lane 1 is played
    st = scenario(b, t, [b.biathlete_id("Owens"), b.biathlete_id("Wei")], [C.RED, C.BLACK])
    place(st, 0, 3)
    place(st, 1, 4, 0)
    give_card(b, st, 0, "Rush More")
    st.script[0, SC_ACTION] = C.BOTTOM
    st.script[0, SC_DEST] = 4
    st.script[0, SC_LANE] = 0
    with pytest.raises(ValueError, match="not a legal end"):
        play(b, st, 0, t)
    st.script[0, SC_LANE] = 1
    st.log[:] = 0
    st.g[G_LOG_N] = 0
    st.seat[SEAT_POS, 0], st.seat[SEAT_LANE, 0] = 3, 0
    play(b, st, 0, t)
    assert events_of(st, E.MOVE, 0)[0, :3].tolist() == [3, 4, 1]


def shooter(b, trail, pulse=0, biathlete="Pinto", colour=C.GREEN):
    rng = b.tables.range_pos[trail, 0]
    st = scenario(b, trail, [b.biathlete_id(biathlete)], [colour])
    place(st, 0, rng, 0, on_mat=1, pulse=pulse)
    give_card(b, st, 0, "Carnival")
    return st, rng


def test_shoot_wax_is_chosen_after_the_hits(shipped):
    """The book rolls, counts hits, then performs the action with wax: the ACTION row spends no
    wax, a WAX row follows HITS, and its step wax is in the move's steps."""
    b = shipped
    t = b.trail_id("Short")
    st, rng = shooter(b, t, pulse=5)
    st.rng[0] = rng_state_for([0, 4, 0, 0, 3])            # black and blue dice hit at 3+
    st.script[0, SC_ACTION] = C.SHOOT
    st.script[0, SC_BULLETS] = 0
    st.script[0, SC_COACH] = 0
    st.script[0, SC_WAX + C.GREEN - 1] = 2                # Pinto on green skis holds 4 green wax
    st.script[0, SC_DEST] = rng
    play(b, st, 0, t)
    log = st.log[:st.g[G_LOG_N]]
    kinds = log[:, E.COL_KIND].tolist()
    assert kinds.index(E.ROLL) < kinds.index(E.HITS) < kinds.index(E.WAX) < kinds.index(E.STEPS)
    assert events_of(st, E.ACTION, 0)[0, 2:7].tolist() == [0, 0, 0, 0, 0]
    assert events_of(st, E.WAX, 0)[0, :5].tolist() == [0, 0, 2, 0, 0]
    assert events_of(st, E.STEPS, 0)[0, :3].tolist() == [6, 0, 2]     # 3 hits x 2 uphill + 2 downhill
    assert st.wax[0, C.GREEN] == 2


def test_the_heuristic_spends_shoot_wax_knowing_the_hits(shipped):
    """A heuristic shooter with no hits adds yellow wax when a space is worth more than a token."""
    b = shipped
    t = b.trail_id("Kurz")                                 # Bad Wolfsheim: Shoot gives 2x hits flat
    st, rng = shooter(b, t, pulse=8, biathlete="Olsson", colour=C.YELLOW)
    st.seat[SEAT_PLAYER, 0] = HEURISTIC
    st.params[0, P_WAX] = 0.5                              # a token costs half a space
    st.seat[SEAT_BULLETS, 0] = 0
    st.g[G_WIND] = (b.tables.heading[t, rng] + 1) % 4      # a crosswind: -1 hit
    st.rng[0] = rng_state_for([0, 0, 0, 0, 0])             # no dice hit: 0 hits, 0 steps
    play(b, st, 0, t)
    assert events_of(st, E.HITS, 0)[0, 4] == 0
    wax = events_of(st, E.WAX, 0)[0, :5].tolist()
    assert wax[1] > 0                                      # yellow wax, decided after the hits
    assert events_of(st, E.STEPS, 0)[0, :3].tolist() == [0, wax[1], 0]


def test_range_drafting_by_default(shipped):
    """The range is a space like any other: a racer just before it drafts behind a racer on it."""
    b = shipped
    t = b.trail_id("Kurz")
    rng = b.tables.range_pos[t, 0]
    st = scenario(b, t, [b.biathlete_id("Owens"), b.biathlete_id("Wei")], [C.RED, C.BLACK])
    place(st, 0, rng - 1, 1)
    place(st, 1, rng, 3, on_mat=1)
    out = np.zeros(2, np.int64)
    pulse_adjust_nb(st, b.tables, t, 0, rng - 1, 1, 0, out)
    assert out[0] == -1
    place(st, 0, rng, 0, on_mat=1)                         # both on the range: no drafting (book)
    pulse_adjust_nb(st, b.tables, t, 0, rng, 0, 1, out)
    assert out[0] == 0


def test_red_coach_zone_at_the_range_buys_a_hit(shipped):
    """Bad Wolfsheim's range holds a red zone: arriving gives a bullet that the next turn's shot
    spends for a hit (the book's red zone note, by default switches)."""
    b = shipped
    t = b.trail_id("Kurz")
    rng = b.tables.range_pos[t, 0]
    assert (b.tables.coach_colour[t, rng], b.tables.coach_strength[t, rng]) == (C.RED, 1)
    st = scenario(b, t, [b.biathlete_id("Pinto")], [C.GREEN])
    place(st, 0, rng - 1, 0, pulse=5)
    give_card(b, st, 0, "Carnival")
    st.script[0, SC_ACTION] = C.TOP
    st.script[0, SC_DEST] = rng
    play(b, st, 0, t)
    assert events_of(st, E.BOOST, 0)[0, :2].tolist() == [C.RED, 1]
    assert st.seat[SEAT_BOOST_C, 0] == C.RED and st.seat[SEAT_ON_MAT, 0] == 1
    # the next round: the shot
    st.g[G_ROUND] = 6
    give_card(b, st, 0, "Carnival")
    st.rng[0] = rng_state_for([0, 4, 0, 0, 0])
    st.g[G_WIND] = b.tables.heading[t, rng]                # headwind at the mats: no hit adjustment
    st.script[0, SC_ACTION] = C.SHOOT
    st.script[0, SC_BULLETS] = 0
    st.script[0, SC_COACH] = 1
    st.script[0, SC_DEST] = rng + 2
    play(b, st, 0, t)
    assert events_of(st, E.HITS, 0)[0, :5].tolist() == [1, 0, 0, 1, 2]
    assert len(events_of(st, E.BOOST_LOST, 0)) == 0 and st.seat[SEAT_BOOST_C, 0] == -1


@pytest.mark.parametrize("zero_step_boost", [True, False])
def test_a_move_of_zero_steps_on_a_coach_zone(shipped, tmp_path, zero_step_boost):
    """The book: the boost goes to whoever ends the move there; a racer that stays on a blue zone
    gets it again by default, not with `zero_step_boost = false`."""
    from blastrace import SWITCHES_DEFAULT, variant_dir
    b = shipped if zero_step_boost else load_bundle(variant_dir(tmp_path, {SWITCHES_DEFAULT: SWITCHES_DEFAULT.replace(
        "zero_step_boost = true", "zero_step_boost = false")}))
    t = b.trail_id("Lang")
    zone = int(np.flatnonzero(b.tables.coach_colour[t] == C.BLUE)[0])
    st = scenario(b, t, [b.biathlete_id("Owens")], [C.RED])
    place(st, 0, zone, pulse=4)
    give_card(b, st, 0, "Offset")
    st.script[0, SC_ACTION] = C.TOP
    st.script[0, SC_DEST] = zone
    st.script[0, SC_WIND] = C.STILL
    play(b, st, 0, t)
    assert events_of(st, E.MOVE, 0)[0, :2].tolist() == [zone, zone]
    boosts = events_of(st, E.BOOST, 0)
    reduction = events_of(st, E.PULSE, 0)[0, 3]
    if zero_step_boost:
        assert boosts[:, :2].tolist() == [[C.BLUE, 2]] and reduction == 2
    else:
        assert len(boosts) == 0 and reduction == 0


# --- the readings of issue 28: pulse_floor and last_racer_wins ----------------------------------------
def switched(shipped, tmp_path, key, default, other, flip):
    """The shipped data, or a copy with one switch set the other way."""
    from blastrace import variant_dir
    return load_bundle(variant_dir(tmp_path, {f"{key} = {default}": f"{key} = {other}"})) if flip else shipped


def plain_spaces(b, t):
    """Trail spaces with no coach zone that are not the range, in route order."""
    tb = b.tables
    return [int(p) for p in range(tb.finish_pos[t]) if tb.coach_colour[t, p] == C.NO_COACH and tb.is_range[t, p] == 0]


@pytest.mark.parametrize("floor", ["total", "each_part"])
def test_pulse_floor_total_or_each_part(shipped, tmp_path, floor):
    """rules.md 4.3: pulse 0, Breather bottom (cost -2), facing into the wind with nobody ahead
    (headwind +1): the sum floored once gives 0; floored after each part, 0 then 1."""
    b = switched(shipped, tmp_path, "pulse_floor", '"total"', '"each_part"', floor == "each_part")
    t = b.trail_id("Lang")
    pos = plain_spaces(b, t)[5]
    st = scenario(b, t, [b.biathlete_id("Owens")], [C.RED])
    place(st, 0, pos, pulse=0)
    st.g[G_WIND] = b.tables.heading[t, pos]
    give_card(b, st, 0, "Breather")
    st.script[0, SC_ACTION] = C.BOTTOM
    st.script[0, SC_DEST] = pos
    play(b, st, 0, t)
    before, after, cost, blue, draft, wind = events_of(st, E.PULSE, 0)[0, :6].tolist()
    assert (before, cost, blue, draft, wind) == (0, -2, 0, 0, 1)
    assert after == (0 if floor == "total" else 1) == st.seat[SEAT_PULSE, 0]


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("last_racer_wins", [False, True])
def test_the_last_racer_left_after_a_pulse_elimination(shipped, tmp_path, last_racer_wins, n):
    """rules.md 7.2: seat 0 at pulse 10 plays Offset's top (cost 1) and is eliminated. With
    last_racer_wins and one racer left, that racer wins at once where it stands; with two left, or
    without the switch, the race goes on."""
    b = switched(shipped, tmp_path, "last_racer_wins", "false", "true", last_racer_wins)
    t = b.trail_id("Lang")
    spaces = plain_spaces(b, t)
    st = scenario(b, t, [b.biathlete_id(x) for x in ("Owens", "Pinto", "Wei")[:n]], [C.RED, C.BLACK, C.YELLOW][:n])
    for seat in range(n):
        place(st, seat, spaces[4 + 4 * seat], pulse=10 if seat == 0 else 3)
    give_card(b, st, 0, "Offset")
    st.script[0, SC_ACTION] = C.TOP
    st.script[0, SC_DEST] = spaces[4]
    play(b, st, 0, t)
    assert events_of(st, E.ELIMINATED, 0)[:, 0].tolist() == [E.CAUSE_PULSE]
    wins = events_of(st, E.WIN)
    if last_racer_wins and n == 2:
        assert wins[:, 0].tolist() == [spaces[8]] and events_of(st, E.WIN, 1).shape[0] == 1
        assert st.g[G_WINNER] == 1 and st.seat[SEAT_STATUS, 1] == E.STATUS_WON
        assert spaces[8] != b.tables.finish_pos[t]       # a win away from the finish line
    else:
        assert len(wins) == 0 and st.g[G_WINNER] == -1
        assert (st.seat[SEAT_STATUS, 1:n] == E.STATUS_RACING).all()


@pytest.mark.parametrize("last_racer_wins", [False, True])
def test_the_last_racer_left_after_a_round_start_elimination(shipped, tmp_path, last_racer_wins):
    """rules.md 7.2: at a round start seat 0 has neither hand nor discard pile and is out. With
    last_racer_wins seat 1 wins there and the round is not opened; without it the round goes on."""
    b = switched(shipped, tmp_path, "last_racer_wins", "false", "true", last_racer_wins)
    t = b.trail_id("Lang")
    spaces = plain_spaces(b, t)
    st = scenario(b, t, [b.biathlete_id("Owens"), b.biathlete_id("Pinto")], [C.RED, C.BLACK])
    place(st, 0, spaces[3], pulse=2)
    place(st, 1, spaces[6], pulse=2)
    st.seat[SEAT_HAND_N, 0] = st.seat[SEAT_DISC_N, 0] = 0
    opened = open_round_nb(b.tables, t, st, np.zeros(C.MAX_RACERS, np.int64))
    assert events_of(st, E.ELIMINATED, 0)[:, 0].tolist() == [E.CAUSE_NO_CARDS]
    if last_racer_wins:
        assert not opened and st.g[G_WINNER] == 1 and events_of(st, E.WIN, 1)[:, 0].tolist() == [spaces[6]]
        assert len(events_of(st, E.STATE)) == 0        # the race is over: no round-start STATE rows
    else:
        assert opened and st.g[G_WINNER] == -1 and len(events_of(st, E.WIN)) == 0
        assert events_of(st, E.STATE)[:, 0].tolist() == [spaces[6]]
