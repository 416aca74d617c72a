"""The referee against hand-built event logs of the mini data set.

Two short legal races are written out row by row, every value worked out by hand from
docs/rules.md (the comments show the arithmetic), with no engine involved:

* LOOP: two racers on the mini trail "Loop": wax, a start-line crossing, a coach zone used on the
  next turn (black) and on the same turn (blue), mixed-lane drafting, a wind change, tailwind,
  a paid pick-up, a zero-step move;
* QUICK: three racers on an added trail "Quick" whose grid leads straight into the range: forced
  stops on the lowest free mats, all three Motivation choices (face-up, blind, empty-deck refill),
  a Wait, two Shoots (windstill, a bullet for a hit, icy Shoot background) and the turn order
  re-sorted by the new dice.

Both end at a round cap of 2 (STALL, then PLACE). Each corrupted variant changes one row and must
be rejected with a message that names the problem.
"""
import pytest

from kernels.blast import events as E
from minidata import edit
from sim.blast import load_bundle
from sim.blast.referee import RefereeReport, format_report, referee_race

BLACK_SKIS, RED_SKIS, YELLOW_SKIS = 1, 0, 2
ANN, BO, CY = 0, 1, 2            # biathlete ids (data order)
STILL, NORTH = 4, 0


TRAILS = ('\n[[trail]]\nname = "Quick"\n'
          'route = ["grid", "range", "stretch", "loop", "range", "stretch", "final"]\n'
          '\n[[trail]]\nname = "Sprint"\n'
          'route = ["grid", "range", "stretch", "range", "stretch", "final"]\n')


def make_bundle(minidir, round_cap):
    edit(minidir / "game.toml", "round_cap = 40", f"round_cap = {round_cap}")
    venue = minidir / "venues" / "testhausen.toml"
    venue.write_text(venue.read_text() + TRAILS)
    return load_bundle(minidir)


@pytest.fixture
def bundle(minidir):
    """The mini data with a round cap of 2 and two more trails, "Quick" and "Sprint"."""
    return make_bundle(minidir, 2)


@pytest.fixture
def sprint_bundle(minidir):
    return make_bundle(minidir, 3)


@pytest.fixture
def red_bundle(minidir):
    """The Loop trail with a red coach zone (strength 1) instead of the black one on loop 3."""
    edit(minidir / "game.toml", "round_cap = 40", "round_cap = 2")
    edit(minidir / "venues" / "testhausen.toml", 'colour = "black", strength = 2', 'colour = "red", strength = 1')
    return load_bundle(minidir)


class Log:
    """Rows in the documented layout: round, seat, kind, a0..a12."""

    def __init__(self, bundle):
        self.b = bundle
        self.rows: list[list[int]] = []
        self.round = 0

    def __call__(self, kind, seat=-1, *args):
        args = [self.b.card_id(a) if isinstance(a, str) else a for a in args]
        self.rows.append([self.round, seat, kind] + list(args) + [0] * (E.N_ARGS - len(args)))

    def state(self, seat, pos, lane, mat, pulse, bullets, wax, hand, discard, status=0):
        self(E.STATE, seat, pos, lane, mat, pulse, bullets, *wax, hand, discard, status)


def setup_common(log, discards):
    log(E.SETUP_DICE, -1, 3, 1, 4, 0, 2)                     # red 3, black 1, yellow 4, green 0, blue 2
    for k, c in enumerate(["Roar", "Cheer", "Cheer", "Cheer"]):
        log(E.DECK, -1, k, c)
    log(E.FACE_UP, -1, 0, "Roar")
    log(E.FACE_UP, -1, 1, "Cheer")                          # deck left: Cheer, Cheer
    for seat, c in enumerate(discards):
        log(E.SETUP_DISCARD, seat, c)


def loop_race(b):
    """Seat 0 Ann on black skis (3 bullets, 2 black wax), seat 1 Bo on red skis (4 bullets)."""
    log = Log(b)
    setup_common(log, ["Ann Two", "Glide"])                  # initiatives 2x red = 6 and 4
    log(E.GRID, 0, 6, 2, 0)                                  # front slot: grid 3, lane 0
    log(E.GRID, 1, 4, 2, 1)
    ann0 = (2, 0, 0, 0, 3, (2, 0, 0, 0, 0), 8, 1)
    bo0 = (2, 1, 0, 0, 4, (0, 0, 0, 0, 0), 8, 1)
    log.state(0, *ann0)
    log.state(1, *bo0)

    log.round = 1
    log(E.ROUND, -1, 1, STILL)
    log.state(0, *ann0)
    log.state(1, *bo0)
    log(E.CHOOSE, 0, "Ann Four")                             # initiative 7
    log(E.CHOOSE, 1, "Push")                                 # initiative 5
    # Ann: Ann Four top F3 D3 cost 1, + 1 black wax: U1 F3 D3. 3 F (flat), 4 F (flat), 5 U (uphill); 6 U out.
    log(E.TURN, 0, 7, 0)
    log(E.ACTION, 0, "Ann Four", 0, 1, 0, 0, 0, 0)
    log(E.STEPS, 0, 1, 3, 3)
    log(E.MOVE, 0, 2, 5, 0, 0)
    log(E.MOTIVATION, 0, 0, "Roar")                          # entering 3 crosses the start line
    log(E.FACE_UP, -1, 0, "Cheer")                           # deck left: Cheer
    log(E.BOOST, 0, 1, 2)                                    # loop 3: black zone, strength 2
    log(E.PULSE, 0, 0, 1, 1, 0, 0, 0)
    log(E.CARD_END, 0, "Ann Four", 0)
    log.state(0, 5, 0, 0, 1, 3, (1, 0, 0, 0, 0), 8, 2)
    # Bo: Push bottom F2 D2 cost 1, wind. 3 F, 4 F; 5 U out. Stops on 4 (double) lane 0, directly
    # behind Ann on single-lane 5 (mixed_lane_drafting): drafting -1. Sets the wind to N.
    log(E.TURN, 1, 5, 0)
    log(E.ACTION, 1, "Push", 1, 0, 0, 0, 0, 0)
    log(E.STEPS, 1, 0, 2, 2)
    log(E.MOVE, 1, 2, 4, 0, 0)
    log(E.MOTIVATION, 1, 2, "Cheer")                         # blind draw: the deck is now empty
    log(E.PULSE, 1, 0, 0, 1, 0, -1, 0)
    log(E.WIND, 1, STILL, NORTH)
    log(E.CARD_END, 1, "Push", 0)
    log.state(1, 4, 0, 0, 0, 4, (0, 0, 0, 0, 0), 8, 2)

    log.round = 2
    log(E.ROUND, -1, 2, NORTH)
    log(E.PICKUP, 1, 1, 2)                                   # Bo pays a bullet for Glide + Push
    log.state(0, 5, 0, 0, 1, 3, (1, 0, 0, 0, 0), 8, 2)
    log.state(1, 4, 0, 0, 0, 3, (0, 0, 0, 0, 0), 10, 0)
    log(E.CHOOSE, 0, "Ann One")                              # initiative 9
    log(E.CHOOSE, 1, "Gust")                                 # initiative = blue die = 2
    # Ann: Ann One bottom U2 D5 cost 1 + black boost 2: U4 D5. 6 U, 7-9 D, 10 F (uphill step).
    # Loop 8 is a blue zone (strength 1): cost 1 - 1. Facing S with wind N: tailwind -1, nobody behind.
    log(E.TURN, 0, 9, 0)
    log(E.ACTION, 0, "Ann One", 1, 0, 0, 0, 0, 0)
    log(E.STEPS, 0, 4, 0, 5)
    log(E.MOVE, 0, 5, 10, 0, 0)
    log(E.BOOST, 0, 4, 1)
    log(E.PULSE, 0, 1, 0, 1, 1, 0, -1)
    log(E.CARD_END, 0, "Ann One", 0)
    log.state(0, 10, 0, 0, 0, 3, (1, 0, 0, 0, 0), 7, 3)
    # Bo: Gust top F2 cost 1, wind: 5 is uphill, so Bo stays. Facing E, wind N: crosswind.
    log(E.TURN, 1, 2, 0)
    log(E.ACTION, 1, "Gust", 0, 0, 0, 0, 0, 0)
    log(E.STEPS, 1, 0, 2, 0)
    log(E.MOVE, 1, 4, 4, 0, 0)
    log(E.PULSE, 1, 0, 1, 1, 0, 0, 0)
    log(E.WIND, 1, NORTH, STILL)
    log(E.CARD_END, 1, "Gust", 0)
    log.state(1, 4, 0, 0, 1, 3, (0, 0, 0, 0, 0), 9, 1)
    log(E.STALL, -1, 2)
    log(E.PLACE, 0, 1, 0)                                    # 24 spaces from the run-out (34)
    log(E.PLACE, 1, 2, 0)                                    # 30 spaces
    return log.rows


def quick_race(b):
    """Seat 0 Ann (black skis), seat 1 Bo (red skis: 4 bullets), seat 2 Cy (yellow skis: 3 yellow wax)."""
    log = Log(b)
    setup_common(log, ["Ann Two", "Glide", "Cy One"])        # initiatives 6, 4, 6
    log(E.GRID, 0, 6, 2, 0)                                  # Ann before Cy: black before yellow
    log(E.GRID, 2, 6, 2, 1)
    log(E.GRID, 1, 4, 1, 0)
    ann0 = (2, 0, 0, 0, 3, (2, 0, 0, 0, 0), 8, 1)
    bo0 = (1, 0, 0, 0, 4, (0, 0, 0, 0, 0), 8, 1)
    cy0 = (2, 1, 0, 0, 3, (0, 3, 0, 0, 0), 8, 1)
    for seat, s in enumerate((ann0, bo0, cy0)):
        log.state(seat, *s)

    log.round = 1
    log(E.ROUND, -1, 1, STILL)
    for seat, s in enumerate((ann0, bo0, cy0)):
        log.state(seat, *s)
    log(E.CHOOSE, 0, "Ann Four")                             # 7
    log(E.CHOOSE, 1, "Push")                                 # 5
    log(E.CHOOSE, 2, "Cy Three")                             # 3
    # Ann enters the range (3, terrain F) with a flat step: forced stop, mat 0, crossing the start line.
    log(E.TURN, 0, 7, 0)
    log(E.ACTION, 0, "Ann Four", 0, 0, 0, 0, 0, 0)
    log(E.STEPS, 0, 0, 3, 3)
    log(E.MOVE, 0, 2, 3, 0, 1)
    log(E.MOTIVATION, 0, 0, "Roar")
    log(E.FACE_UP, -1, 0, "Cheer")                           # deck left: Cheer
    log(E.PULSE, 0, 0, 1, 1, 0, 0, 0)
    log(E.CARD_END, 0, "Ann Four", 0)
    log.state(0, 3, 0, 1, 1, 3, (2, 0, 0, 0, 0), 8, 2)
    # Bo passes Cy on grid 3 and takes mat 1; draws blind; keeps the wind still.
    log(E.TURN, 1, 5, 0)
    log(E.ACTION, 1, "Push", 1, 0, 0, 0, 0, 0)
    log(E.STEPS, 1, 0, 2, 2)
    log(E.MOVE, 1, 1, 3, 1, 1)
    log(E.MOTIVATION, 1, 2, "Cheer")                         # the deck is now empty
    log(E.PULSE, 1, 0, 1, 1, 0, 0, 0)
    log(E.WIND, 1, STILL, STILL)
    log(E.CARD_END, 1, "Push", 0)
    log.state(1, 3, 1, 1, 1, 4, (0, 0, 0, 0, 0), 8, 2)
    # Cy: Cy Three bottom F2 cost -1: mat 2; takes face-up slot 1, which stays empty (-1).
    log(E.TURN, 2, 3, 0)
    log(E.ACTION, 2, "Cy Three", 1, 0, 0, 0, 0, 0)
    log(E.STEPS, 2, 0, 2, 0)
    log(E.MOVE, 2, 2, 3, 2, 1)
    log(E.MOTIVATION, 2, 1, "Cheer")
    log(E.FACE_UP, -1, 1, -1)
    log(E.PULSE, 2, 0, 0, -1, 0, 0, 0)                       # 0 - 1 floored at 0
    log(E.CARD_END, 2, "Cy Three", 0)
    log.state(2, 3, 2, 1, 0, 3, (0, 3, 0, 0, 0), 8, 2)

    log.round = 2
    log(E.ROUND, -1, 2, STILL)
    log(E.PICKUP, 0, 1, 2)                                   # Ann pays a bullet for Ann Two + Ann Four
    log.state(0, 3, 0, 1, 1, 2, (2, 0, 0, 0, 0), 10, 0)
    log.state(1, 3, 1, 1, 1, 4, (0, 0, 0, 0, 0), 8, 2)
    log.state(2, 3, 2, 1, 0, 3, (0, 3, 0, 0, 0), 8, 2)
    log(E.CHOOSE, 0, "Ann One")                              # 9
    log(E.CHOOSE, 1, "Bo Two")                               # 2x red: 6 now
    log(E.CHOOSE, 2, "Push")                                 # 5
    # Ann shoots: dice 2 5 0 1 3; pulse 1 is low, accuracy 2+: 3 hits; still +1; one bullet: 5
    # hits. Shoot = 2x hits uphill = 10; with the hits known she adds 1 black wax (WAX row).
    log(E.TURN, 0, 9, 1)
    log(E.ACTION, 0, "Ann One", 1, 0, 0, 0, 0, 0)
    log(E.ROLL, 0, 2, 5, 0, 1, 3)
    log(E.HITS, 0, 3, 1, 1, 0, 5)
    log(E.WAX, 0, 1, 0, 0, 0, 0)
    log(E.STEPS, 0, 11, 0, 0)
    log(E.MOVE, 0, 3, 5, 0, 0)
    log(E.PULSE, 0, 1, 1, 0, 0, 0, 0)
    log(E.CARD_END, 0, "Ann One", 1)                         # Shoot is icy: removed
    log.state(0, 5, 0, 0, 1, 1, (1, 0, 0, 0, 0), 9, 0)
    # the red die now shows 2: Bo Two is 4, so Cy (Push 5) plays before Bo. Cy waits (yellow wax wasted).
    log(E.TURN, 2, 5, 1)
    log(E.ACTION, 2, "Push", 0, 0, 1, 0, 0, 0)
    log(E.PULSE, 2, 0, 0, -2, 0, 0, 0)
    log(E.CARD_END, 2, "Push", 0)
    log.state(2, 3, 2, 1, 0, 3, (0, 2, 0, 0, 0), 7, 3)
    # Bo shoots: dice 1 4 5 2 0, accuracy 3+: 2 hits, still +1 = 3: 6 uphill steps. Stops on
    # stretch 1 lane 0, directly behind Ann (stretch 2 lane 0): drafting -1.
    log(E.TURN, 1, 4, 1)
    log(E.ACTION, 1, "Bo Two", 1, 0, 0, 0, 0, 0)
    log(E.ROLL, 1, 1, 4, 5, 2, 0)
    log(E.HITS, 1, 2, 1, 0, 0, 3)
    log(E.WAX, 1, 0, 0, 0, 0, 0)
    log(E.STEPS, 1, 6, 0, 0)
    log(E.MOVE, 1, 3, 4, 0, 0)
    log(E.PULSE, 1, 1, 0, 0, 0, -1, 0)
    log(E.CARD_END, 1, "Bo Two", 1)
    log.state(1, 4, 0, 0, 0, 4, (0, 0, 0, 0, 0), 7, 2)
    log(E.STALL, -1, 2)
    log(E.PLACE, 0, 1, 0)                                    # 19 from the run-out (24)
    log(E.PLACE, 1, 2, 0)                                    # 20
    log(E.PLACE, 2, 3, 0)                                    # 21
    return log.rows


def run_loop(b, rows):
    return referee_race(b, b.trail_id("Loop"), [ANN, BO], [BLACK_SKIS, RED_SKIS], rows)


def run_quick(b, rows):
    return referee_race(b, b.trail_id("Quick"), [ANN, BO, CY], [BLACK_SKIS, RED_SKIS, YELLOW_SKIS], rows)


def find(rows, kind, seat, rnd, nth=0):
    hits = [i for i, r in enumerate(rows) if r[2] == kind and r[1] == seat and r[0] == rnd]
    return hits[nth]


def rejected(report: RefereeReport, *words):
    assert not report.ok, report.message
    for w in words:
        assert w in report.message, f"{w!r} not in: {report.message}"
    return report


# --------------------------------------------------------------------------- legal races

def test_legal_loop_race_is_accepted(bundle):
    rows = loop_race(bundle)
    rep = run_loop(bundle, rows)
    assert rep.ok, rep.message
    assert rep.events_checked == len(rows)
    assert "stalled" in rep.message


def test_legal_quick_race_is_accepted(bundle):
    rows = quick_race(bundle)
    rep = run_quick(bundle, rows)
    assert rep.ok, rep.message
    assert rep.events_checked == len(rows)


def test_trailing_zero_rows_are_padding(bundle):
    rows = loop_race(bundle) + [[0] * E.N_COLS] * 3
    assert run_loop(bundle, rows).ok


def test_format_report(bundle):
    rows = loop_race(bundle)
    assert "accepted" in format_report(run_loop(bundle, rows))
    rows[find(rows, E.PULSE, 0, 1)][4] = 2
    text = str(run_loop(bundle, rows))
    assert "DISCREPANCY" in text and "event" in text


# --------------------------------------------------------------------------- corrupted variants

def test_unreachable_move(bundle):
    rows = loop_race(bundle)
    rows[find(rows, E.MOVE, 0, 1)][4] = 6                   # MOVE a1: to 6 instead of 5
    rep = rejected(run_loop(bundle, rows), "MOVE to 6", "not reachable", "furthest reachable space is 5",
                   "uphill and no uphill step is left", "U1 F3 D3", "round 1", "(Ann)")
    assert rep.events_checked == find(rows, E.MOVE, 0, 1)   # the rows before it were accepted


def test_occupied_lane(bundle):
    rows = quick_race(bundle)
    rows[find(rows, E.MOVE, 1, 2)][4] = 5                   # Bo onto stretch 2 lane 0, where Ann is
    rejected(run_quick(bundle, rows), "MOVE ends on 5", "lane 0", "held by seat 0 (Ann)", "lane 1 is free")


def test_lowest_free_mat(bundle):
    rows = quick_race(bundle)
    rows[find(rows, E.MOVE, 1, 1)][5] = 0                   # Bo onto mat 0, where Ann is
    rejected(run_quick(bundle, rows), "mat 0", "lowest-numbered free mat is 1")


def test_wrong_pulse_tailwind(bundle):
    rows = loop_race(bundle)
    i = find(rows, E.PULSE, 0, 2)
    rows[i][4], rows[i][8] = 1, 0                           # ignores the tailwind
    rejected(run_loop(bundle, rows), "PULSE gives after 1", "the rules give 0", "tailwind")


def test_wrong_pulse_drafting(bundle):
    rows = loop_race(bundle)
    i = find(rows, E.PULSE, 1, 1)
    rows[i][4], rows[i][7] = 1, 0                           # Bo not drafting behind Ann
    rejected(run_loop(bundle, rows), "PULSE gives after 1", "drafting -1", "seat 0 (Ann) directly ahead")


def test_wrong_turn_order_after_a_shot(bundle):
    rows = quick_race(bundle)
    cy = find(rows, E.TURN, 2, 2)
    bo = find(rows, E.TURN, 1, 2)
    stall = find(rows, E.STALL, -1, 2)
    rows = rows[:cy] + rows[bo:stall] + rows[cy:bo] + rows[stall:]   # Bo plays before Cy
    rejected(run_quick(bundle, rows), "TURN for seat 1 (Bo)", "seat 2 (Cy", "plays next", "red 2")


def test_wrong_turn_order_simple(bundle):
    rows = loop_race(bundle)
    ann = find(rows, E.TURN, 0, 1)
    bo = find(rows, E.TURN, 1, 1)
    end = find(rows, E.ROUND, -1, 2)
    rows = rows[:ann] + rows[bo:end] + rows[ann:bo] + rows[end:]
    rejected(run_loop(bundle, rows), "TURN for seat 1 (Bo)", "seat 0 (Ann", "plays next")


def test_wrong_initiative(bundle):
    rows = quick_race(bundle)
    rows[find(rows, E.TURN, 1, 2)][3] = 6                   # Bo Two read with the old red die
    rejected(run_quick(bundle, rows), "TURN gives initiative 6", "red die shows 2")


def test_card_not_in_hand(bundle):
    rows = loop_race(bundle)
    rows[find(rows, E.CHOOSE, 0, 1)][3] = bundle.card_id("Ann Two")
    rejected(run_loop(bundle, rows), "CHOOSE Ann Two", "not in Ann's hand", "discard pile")


def test_wax_not_held(bundle):
    rows = loop_race(bundle)
    rows[find(rows, E.ACTION, 0, 1)][8] = 1                 # a5: 1 blue wax
    rejected(run_loop(bundle, rows), "spends 1 blue wax", "holds 0 blue wax")


def test_wrong_hits(bundle):
    rows = quick_race(bundle)
    rows[find(rows, E.HITS, 0, 2)][3] = 4
    rejected(run_quick(bundle, rows), "HITS says 4 dice hits", "low band", "accuracy 2+", "3 dice hit")


def test_bullet_beyond_max_hits(bundle):
    rows = quick_race(bundle)
    i = find(rows, E.HITS, 1, 2)
    rows[i][5], rows[i][7] = 3, 6                           # Bo: 3 own bullets on 3 hits
    rejected(run_quick(bundle, rows), "at most 5 hits")


def test_missed_motivation_crossing(bundle):
    rows = loop_race(bundle)
    i = find(rows, E.MOTIVATION, 0, 1)
    del rows[i:i + 2]                                       # MOTIVATION and its FACE_UP
    rejected(run_loop(bundle, rows), "MOTIVATION", "crosses the start line", "3 (loop 1)")


def test_motivation_refill_from_top(bundle):
    rows = loop_race(bundle)
    rows[find(rows, E.FACE_UP, -1, 1)][4] = bundle.card_id("Roar")
    rejected(run_loop(bundle, rows), "FACE_UP lays Roar", "top of the deck is Cheer")


def test_wind_change_without_symbol(bundle):
    rows = loop_race(bundle)
    i = find(rows, E.PULSE, 0, 1)
    rows.insert(i + 1, [1, 0, E.WIND, STILL, 1] + [0] * 11)
    rejected(run_loop(bundle, rows), "WIND changes the wind", "no wind symbol")


def test_wrong_state(bundle):
    rows = quick_race(bundle)
    rows[find(rows, E.STATE, 1, 1, nth=1)][13] = 9           # Bo's hand after his turn: 8
    rejected(run_quick(bundle, rows), "STATE disagrees", "hand size 9 (should be 8)")


def test_missing_coach_boost_steps(bundle):
    rows = loop_race(bundle)
    rows[find(rows, E.STEPS, 0, 2)][3] = 2                  # forgets the black boost from round 1
    rejected(run_loop(bundle, rows), "STEPS says U2 F0 D5", "U4 F0 D5", "black coach boost 2")


def test_card_fate_at_the_range(bundle):
    rows = quick_race(bundle)
    rows[find(rows, E.CARD_END, 0, 2)][4] = 0
    rejected(run_quick(bundle, rows), "Shoot action has an icy background", "removed")


def test_grid_order(bundle):
    rows = quick_race(bundle)
    i = find(rows, E.GRID, 0, 0)
    rows[i], rows[i + 1] = rows[i + 1], rows[i]
    rejected(run_quick(bundle, rows), "GRID places seat 2 (Cy)", "seat 0 (Ann", "ties by ski colour order")


def test_deck_not_a_permutation(bundle):
    rows = loop_race(bundle)
    rows[find(rows, E.DECK, -1, 0)][4] = bundle.card_id("Cheer")
    rejected(run_loop(bundle, rows), "not a shuffle of the Motivation deck")


def test_setup_discard_not_own_card(bundle):
    rows = loop_race(bundle)
    rows[find(rows, E.SETUP_DISCARD, 0, 0)][3] = bundle.card_id("Bo One")
    rejected(run_loop(bundle, rows), "Bo One", "not one of Ann's")


def test_pickup_without_bullet(bundle):
    rows = quick_race(bundle)
    rows[find(rows, E.PICKUP, 0, 2)][3] = E.PICKUP_COACH
    rejected(run_quick(bundle, rows), "red coach bullet", "no pending red coach boost")


def test_wrong_place_order(bundle):
    rows = loop_race(bundle)
    i = find(rows, E.PLACE, 0, 2)
    rows[i], rows[i + 1] = rows[i + 1], rows[i]
    rejected(run_loop(bundle, rows), "PLACE 2 goes to seat 1", "distance to the finish")


def test_unused_argument_must_be_zero(bundle):
    rows = loop_race(bundle)
    rows[find(rows, E.CHOOSE, 1, 1)][6] = 7
    rejected(run_loop(bundle, rows), "a3 is 7")


def test_truncated_log(bundle):
    rows = loop_race(bundle)[:-3]
    rejected(run_loop(bundle, rows), "the log ends", "STALL")



# --------------------------------------------------------------------------- red coach boosts

def red_loop_race(b):
    """The Loop race with loop 3 a red zone: Ann's round-1 boost is a red bullet, unused in round 2."""
    rows = loop_race(b)
    i = find(rows, E.BOOST, 0, 1)
    rows[i][3:5] = [0, 1]                                    # red, strength 1
    rows[find(rows, E.STEPS, 0, 2)][3] = 2                   # no black boost: U2 D5 still reaches 10
    i = find(rows, E.CARD_END, 0, 2)
    rows.insert(i + 1, [2, 0, E.BOOST_LOST, 0, 1] + [0] * 11)
    return rows


def test_red_boost_lost_next_turn(red_bundle):
    rows = red_loop_race(red_bundle)
    rep = run_loop(red_bundle, rows)
    assert rep.ok, rep.message
    del rows[find(rows, E.BOOST_LOST, 0, 2)]
    rejected(run_loop(red_bundle, rows), "BOOST_LOST", "red coach boost 1 was not used")


def test_red_boost_pays_the_pickup(red_bundle):
    rows = red_loop_race(red_bundle)
    del rows[find(rows, E.BOOST_LOST, 0, 2)]
    i = find(rows, E.PICKUP, 1, 2)                           # Bo's pick-up; Ann follows in ski colour order
    rows.insert(i + 1, [2, 0, E.PICKUP, E.PICKUP_COACH, 2] + [0] * 11)
    rows[find(rows, E.STATE, 0, 2)][13:15] = [10, 0]         # round start: Ann holds 10, discard 0
    rows[find(rows, E.STATE, 0, 2, nth=1)][13:15] = [9, 1]   # after Ann One
    rep = run_loop(red_bundle, rows)
    assert rep.ok, rep.message
    # a pick-up out of ski colour order (Ann before Bo) is refused
    j = find(rows, E.PICKUP, 0, 2)
    rows[j], rows[j - 1] = rows[j - 1], rows[j]
    rejected(run_loop(red_bundle, rows), "PICKUP", "ski colour order")


# --------------------------------------------------------------------------- a finish

def ann_leads_round_one(b):
    """Set-up on the Sprint trail (Ann and Bo discard Ann Two and Glide), then round 1 up to Ann's
    TURN with Ann Four (Bo chose Push). Returns the log."""
    log = Log(b)
    setup_common(log, ["Ann Two", "Glide"])
    log(E.GRID, 0, 6, 2, 0)
    log(E.GRID, 1, 4, 2, 1)
    ann, bo = (2, 0, 0, 0, 3, (2, 0, 0, 0, 0), 8, 1), (2, 1, 0, 0, 4, (0,) * 5, 8, 1)
    log.state(0, *ann)
    log.state(1, *bo)
    log.round = 1
    log(E.ROUND, -1, 1, STILL)
    log.state(0, *ann)
    log.state(1, *bo)
    log(E.CHOOSE, 0, "Ann Four")
    log(E.CHOOSE, 1, "Push")
    log(E.TURN, 0, 7, 0)
    return log


def sprint_race(b):
    """Trail "Sprint": grid 0-2, range 3, stretch 4-6 |, range 7, stretch 8-10 |, final 11-13 #, run-out 14."""
    log = ann_leads_round_one(b)
    log(E.ACTION, 0, "Ann Four", 0, 0, 0, 0, 0, 0)
    log(E.STEPS, 0, 0, 3, 3)
    log(E.MOVE, 0, 2, 3, 0, 1)
    log(E.MOTIVATION, 0, 0, "Roar")
    log(E.FACE_UP, -1, 0, "Cheer")
    log(E.PULSE, 0, 0, 1, 1, 0, 0, 0)
    log(E.CARD_END, 0, "Ann Four", 0)
    log.state(0, 3, 0, 1, 1, 3, (2, 0, 0, 0, 0), 8, 2)
    log(E.TURN, 1, 5, 0)
    log(E.ACTION, 1, "Push", 1, 0, 0, 0, 0, 0)
    log(E.STEPS, 1, 0, 2, 2)
    log(E.MOVE, 1, 2, 3, 1, 1)
    log(E.MOTIVATION, 1, 2, "Cheer")
    log(E.PULSE, 1, 0, 1, 1, 0, 0, 0)
    log(E.WIND, 1, STILL, STILL)
    log(E.CARD_END, 1, "Push", 0)
    log.state(1, 3, 1, 1, 1, 4, (0,) * 5, 8, 2)

    log.round = 2
    log(E.ROUND, -1, 2, STILL)
    log.state(0, 3, 0, 1, 1, 3, (2, 0, 0, 0, 0), 8, 2)
    log.state(1, 3, 1, 1, 1, 4, (0,) * 5, 8, 2)
    log(E.CHOOSE, 0, "Ann One")                              # 9
    log(E.CHOOSE, 1, "Breathe")                              # 2
    # five hits (windstill cannot pass max_hits: adjustment 0): 10 uphill steps, but the move stops
    # on entering the range again (7); mat 0 is free there, Bo holds mat 1 of the same range.
    log(E.TURN, 0, 9, 1)
    log(E.ACTION, 0, "Ann One", 1, 0, 0, 0, 0, 0)
    log(E.ROLL, 0, 5, 5, 5, 5, 5)
    log(E.HITS, 0, 5, 0, 0, 0, 5)
    log(E.WAX, 0, 0, 0, 0, 0, 0)
    log(E.STEPS, 0, 10, 0, 0)
    log(E.MOVE, 0, 3, 7, 0, 1)
    log(E.MOTIVATION, 0, 1, "Cheer")
    log(E.FACE_UP, -1, 1, -1)
    log(E.PULSE, 0, 1, 1, 0, 0, 0, 0)
    log(E.CARD_END, 0, "Ann One", 1)
    log.state(0, 7, 0, 1, 1, 3, (2, 0, 0, 0, 0), 8, 2)
    log(E.TURN, 1, 2, 1)
    log(E.ACTION, 1, "Breathe", 0, 0, 0, 0, 0, 0)
    log(E.PULSE, 1, 1, 0, -2, 0, 0, 0)
    log(E.CARD_END, 1, "Breathe", 0)
    log.state(1, 3, 1, 1, 0, 4, (0,) * 5, 7, 3)

    log.round = 3
    log(E.ROUND, -1, 3, STILL)
    log.state(0, 7, 0, 1, 1, 3, (2, 0, 0, 0, 0), 8, 2)
    log.state(1, 3, 1, 1, 0, 4, (0,) * 5, 7, 3)
    log(E.CHOOSE, 0, "Ann Three")                            # 3
    log(E.CHOOSE, 1, "Bo One")                               # 8
    log(E.TURN, 1, 8, 1)
    log(E.ACTION, 1, "Bo One", 0, 0, 0, 0, 0, 0)
    log(E.PULSE, 1, 0, 0, -2, 0, 0, 0)
    log(E.CARD_END, 1, "Bo One", 0)
    log.state(1, 3, 1, 1, 0, 4, (0,) * 5, 6, 4)
    # 3 dice hits + still = 4: 8 uphill + 1 black wax; 7 steps to the run-out (14).
    log(E.TURN, 0, 3, 1)
    log(E.ACTION, 0, "Ann Three", 1, 0, 0, 0, 0, 0)
    log(E.ROLL, 0, 3, 3, 3, 0, 0)
    log(E.HITS, 0, 3, 1, 0, 0, 4)
    log(E.WAX, 0, 1, 0, 0, 0, 0)
    log(E.STEPS, 0, 9, 0, 0)
    log(E.MOVE, 0, 7, 14, 0, 0)
    log(E.MOTIVATION, 0, 0, "Cheer")
    log(E.FACE_UP, -1, 0, -1)
    log(E.PULSE, 0, 1, 1, 0, 0, 0, 0)
    log(E.WIN, 0, 14)
    log(E.PLACE, 0, 1, 1)
    log(E.PLACE, 1, 2, 0)
    return log.rows


def run_sprint(b, rows):
    return referee_race(b, b.trail_id("Sprint"), [ANN, BO], [BLACK_SKIS, RED_SKIS], rows)


def test_finish_and_win(sprint_bundle):
    bundle = sprint_bundle
    rows = sprint_race(bundle)
    rep = run_sprint(bundle, rows)
    assert rep.ok, rep.message
    assert "Ann (seat 0) won" in rep.message
    bad = [r[:] for r in rows]
    bad[find(bad, E.PLACE, 0, 3)][4] = 0
    rejected(run_sprint(bundle, bad), "PLACE gives status 0", "the winner")
    bad = rows[:find(rows, E.WIN, 0, 3)] + [[3, 0, E.CARD_END, bundle.card_id("Ann Three"), 1] + [0] * 11]
    rejected(run_sprint(bundle, bad), "WIN", "crossed the finish line")
    bad = [r[:] for r in rows]
    bad[find(bad, E.MOVE, 0, 2)][3:7] = [3, 8, 0, 0]         # past the range without stopping
    rejected(run_sprint(bundle, bad), "not reachable", "a move that enters the range stops there")


# --------------------------------------------------------------------------- an elimination

@pytest.fixture
def harsh_bundle(minidir):
    """Round cap 2, pulse limit 9, and Ann Four's top action costs 10 pulse."""
    edit(minidir / "game.toml", "round_cap = 40", "round_cap = 2\npulse_limit = 9")
    edit(minidir / "biathletes" / "ann.toml", "top = { flat = 3, downhill = 3, pulse = 1 }",
         "top = { flat = 3, downhill = 3, pulse = 10 }")
    return load_bundle(minidir)


def elim_race(b):
    log = ann_leads_round_one(b)
    log(E.ACTION, 0, "Ann Four", 0, 1, 0, 0, 0, 0)
    log(E.STEPS, 0, 1, 3, 3)
    log(E.MOVE, 0, 2, 5, 0, 0)
    log(E.MOTIVATION, 0, 0, "Roar")
    log(E.FACE_UP, -1, 0, "Cheer")
    log(E.BOOST, 0, 1, 2)
    log(E.PULSE, 0, 0, 10, 10, 0, 0, 0)                      # 10 > 9: out, the turn ends here
    log(E.ELIMINATED, 0, E.CAUSE_PULSE)
    log(E.TURN, 1, 5, 0)                                     # Ann has left the course: no drafting
    log(E.ACTION, 1, "Push", 1, 0, 0, 0, 0, 0)
    log(E.STEPS, 1, 0, 2, 2)
    log(E.MOVE, 1, 2, 4, 0, 0)
    log(E.MOTIVATION, 1, 2, "Cheer")
    log(E.PULSE, 1, 0, 1, 1, 0, 0, 0)
    log(E.WIND, 1, STILL, STILL)
    log(E.CARD_END, 1, "Push", 0)
    log.state(1, 4, 0, 0, 1, 4, (0,) * 5, 8, 2)
    log.round = 2
    log(E.ROUND, -1, 2, STILL)
    log.state(1, 4, 0, 0, 1, 4, (0,) * 5, 8, 2)
    log(E.CHOOSE, 1, "Gust")
    log(E.TURN, 1, 2, 0)
    log(E.ACTION, 1, "Gust", 0, 0, 0, 0, 0, 0)
    log(E.STEPS, 1, 0, 2, 0)
    log(E.MOVE, 1, 4, 4, 0, 0)
    log(E.PULSE, 1, 1, 2, 1, 0, 0, 0)
    log(E.WIND, 1, STILL, STILL)
    log(E.CARD_END, 1, "Gust", 0)
    log.state(1, 4, 0, 0, 2, 4, (0,) * 5, 7, 3)
    log(E.STALL, -1, 2)
    log(E.PLACE, 1, 1, 0)
    log(E.PLACE, 0, 2, 2)
    return log.rows


def test_pulse_elimination(harsh_bundle):
    b = harsh_bundle
    rows = elim_race(b)
    rep = run_loop(b, rows)
    assert rep.ok, rep.message
    bad = [r[:] for r in rows]
    del bad[find(bad, E.ELIMINATED, 0, 1)]
    rejected(run_loop(b, bad), "ELIMINATED", "pulse 10 is above the limit 9")
    bad = [r[:] for r in rows]
    i = find(bad, E.PULSE, 1, 1)
    bad[i][4], bad[i][7] = 0, -1                            # drafting behind the eliminated Ann
    rejected(run_loop(b, bad), "PULSE gives after 0", "no drafting")
    bad = [r[:] for r in rows]
    i = find(bad, E.PLACE, 1, 2)
    bad[i], bad[i + 1] = bad[i + 1], bad[i]
    rejected(run_loop(b, bad), "place 1 belongs to seat 1 (Bo")


def test_the_last_racer_left_wins_where_it_stands(harsh_bundle, minidir):
    """last_racer_wins (R25): Ann's elimination leaves Bo alone, who wins at once on his grid slot;
    the log without the switch, a WIN on another space, or one the switch does not allow is refused."""
    rows = elim_race(harsh_bundle)
    i = find(rows, E.ELIMINATED, 0, 1)
    won = rows[:i + 1] + [[1, 1, E.WIN, 2] + [0] * 12, [1, 1, E.PLACE, 1, 1] + [0] * 11,
                          [1, 0, E.PLACE, 2, 2] + [0] * 11]
    rejected(run_loop(harsh_bundle, won), "TURN", "WIN")                 # default: Bo plays on
    edit(minidir / "game.toml", "mixed_lane_drafting = true", "mixed_lane_drafting = true\nlast_racer_wins = true")
    b = load_bundle(minidir)
    rep = run_loop(b, won)
    assert rep.ok and "won as the last racer left" in rep.message, rep.message
    bad = [r[:] for r in won]
    bad[i + 1][3] = 4
    rejected(run_loop(b, bad), "WIN gives position 4", "Bo stands on")
    rejected(run_loop(b, rows), "last_racer_wins = true")                # the race going on is refused


# --------------------------------------------------------------------------- rule audit (issue 12)

def test_shoot_wax_comes_after_the_hits(bundle):
    rows = quick_race(bundle)
    i = find(rows, E.ACTION, 0, 2)
    bad = [r[:] for r in rows]
    bad[i][5] = 1                                            # the black wax spent with the action
    rejected(run_quick(bundle, bad), "ACTION spends wax on a Shoot", "after the hits")
    bad = [r for k, r in enumerate(rows) if k != find(rows, E.WAX, 0, 2)]
    rejected(run_quick(bundle, bad), "WAX for seat 0 (Ann) was expected", "once the hits are known")
    bad = [r[:] for r in rows]
    bad[find(bad, E.WAX, 0, 2)][3] = 3                       # Ann holds 2 black wax
    rejected(run_quick(bundle, bad), "WAX spends 3 black wax", "holds 2")
    bad = [r[:] for r in rows]
    j = find(bad, E.ACTION, 2, 2)                            # Cy's Wait: its wax is in ACTION
    bad.insert(j + 1, [2, 2, E.WAX] + [0] * E.N_ARGS)
    rejected(run_quick(bundle, bad), "only a Shoot chooses its wax after rolling")


def zero_step_loop(minidir, zero_step_boost):
    """The Loop race with a green zone (1) on loop 2, where Bo ends round 1 and stays in round 2."""
    edit(minidir / "game.toml", "round_cap = 40", "round_cap = 2")
    edit(minidir / "game.toml", "mixed_lane_drafting = true",
         f"mixed_lane_drafting = true\nzero_step_boost = {str(zero_step_boost).lower()}")
    edit(minidir / "venues" / "testhausen.toml", '{ space = 3, colour = "black"',
         '{ space = 2, colour = "green", strength = 1 }, { space = 3, colour = "black"')
    b = load_bundle(minidir)
    rows = loop_race(b)
    rows.insert(find(rows, E.PULSE, 1, 1), [1, 1, E.BOOST, 3, 1] + [0] * 11)      # Bo's move ends on loop 2
    rows[find(rows, E.STEPS, 1, 2)][3:6] = [0, 2, 1]                              # + the green boost
    rows.insert(find(rows, E.PULSE, 1, 2), [2, 1, E.BOOST, 3, 1] + [0] * 11)      # stays there: again
    return b, rows


def test_a_zero_step_move_on_a_zone_boosts_by_default(minidir):
    b, rows = zero_step_loop(minidir, True)
    rep = run_loop(b, rows)
    assert rep.ok, rep.message


def test_a_zero_step_move_gives_no_boost_when_switched_off(minidir):
    b, rows = zero_step_loop(minidir, False)
    rejected(run_loop(b, rows), "BOOST but a move of zero steps gives no boost", "zero_step_boost = false")
