"""The rulebook's rules as worked examples with scripted dice (docs/mania/rules.md sections).

Tracks: tests/mania/maniadata.py (the test track and the tiny track, drawn square by square).
A script lists die face indices in the order the game rolls them; after it the race goes on with
its random stream, so each test checks only the events its script decides.
"""
from __future__ import annotations

import numpy as np

from kernels.mania import consts as C
from maniadata import BLACK, CALIBRE, R_BLACK, R_CALIBRE, R_WHITE, WHITE, events, n, rows
from sim.mania import play_one

LOOP, START, RANGE, PENALTY = C.LOOP, C.START, C.RANGE, C.PENALTY


def moves(log, seat=0):
    """(steps, (lap, stage, square) where the dice move ended) per MOVE of `seat`."""
    return [(a[3], (a[4], a[5], a[6])) for a in events(log, C.EV_MOVE, seat)]


def play(bundle, script, n_racers=1, track="test", fmt="sprint", **kw):
    return play_one(bundle, track, fmt, n_racers, seed=1, script=script, **kw)


# --- section 5: zones ---------------------------------------------------------------------------
def test_white_blue_halved_rounding_up(testdata):
    # START -6-> square 5; white 5 -2-> 7 (blue); blue 7 rolls 3 -> ceil(3/2) = 2 squares
    _, _, log = play(testdata, n(6, 2, 3))
    assert moves(log)[:3] == [(6, (1, LOOP, 5)), (2, (1, LOOP, 7)), (2, (1, LOOP, 9))]


def test_blue_halved_rounding_down(make_bundle):
    _, _, log = play(make_bundle(halve_rounding="down"), n(6, 2, 3, 1))
    # blue 7 rolls 3 -> 1 square; blue 8 rolls 1 -> 0 squares: the racer stays
    assert moves(log)[2:4] == [(1, (1, LOOP, 8)), (0, (1, LOOP, 8))]


def test_green_doubled(testdata):
    # 5 -6-> 11 (white); 11 -1-> 12 (green); green 12 rolls 1 -> 2 squares
    _, _, log = play(testdata, n(6, 6, 1, 1))
    assert moves(log)[1:4] == [(6, (1, LOOP, 11)), (1, (1, LOOP, 12)), (2, (1, LOOP, 14))]


def test_zone_of_the_starting_square_sets_the_whole_move(testdata):
    # white 11 rolls 3: three squares, although squares 12-14 are green
    _, _, log = play(testdata, n(6, 6, 3))
    assert moves(log)[2] == (3, (1, LOOP, 14))


def test_zone_rule_steps_pays_each_square(make_bundle):
    b = make_bundle(zone_rule="steps", halve_rounding="down")
    # white 5 rolls 4 = 8 half-points: white 6 costs 2, blue 7 costs 4, blue 8 would cost 4 with
    # 2 left: the racer stops on 7
    _, _, log = play(b, n(6, 4))
    assert moves(log)[1] == (2, (1, LOOP, 7))
    # under the default "start" rule the same roll from white 5 moves 4 squares
    _, _, log = play(make_bundle(), n(6, 4))
    assert moves(log)[1] == (4, (1, LOOP, 9))


def test_zone_rule_steps_rounds_the_last_step_up(make_bundle):
    b = make_bundle(zone_rule="steps", halve_rounding="up")
    # as above, but the 2 half-points left buy blue square 8
    _, _, log = play(b, n(6, 4))
    assert moves(log)[1] == (3, (1, LOOP, 8))


def test_two_number_dice_are_summed_into_one_move(testdata):
    _, _, log = play(testdata, n(2, 3), number_dice=2)
    roll = events(log, C.EV_ROLL, 0)[0]
    assert roll[1:7] == (2, 1, 2, 2, 3, 5)
    assert moves(log)[0] == (5, (1, LOOP, 4))


# --- section 7: the group rule ------------------------------------------------------------------
def test_group_rule_closest_gap_and_whole_group(testdata):
    # seat 0 -> 3, seat 1 -> 5, seat 2 lands on 3: the gap at 4; seat 3 lands on 3: 3, 4, 5 are
    # a whole group, so it goes in front of it to 6
    _, s, log = play(testdata, n(4, 6, 4, 4), n_racers=4)
    assert events(log, C.EV_GROUP, 2)[0][:4] == (1, 1, LOOP, 4)
    assert events(log, C.EV_GROUP, 3)[0][:4] == (3, 1, LOOP, 6)
    assert not [r for r in rows(log, None, [C.EV_GROUP]) if r[0] == 1 and r[1] in (0, 1)]


def test_penalty_entry_and_exit_squares_hold_two(testdata):
    # square 1 is the penalty entry: seats 0 and 1 both stand on it; seat 2 is pushed to square 2
    # (the exit square), which also holds two
    _, _, log = play(testdata, n(2, 2, 2), n_racers=3)
    assert moves(log, 0)[0] == (2, (1, LOOP, 1))
    assert moves(log, 1)[0] == (2, (1, LOOP, 1))
    assert not [r for r in rows(log, 1, [C.EV_GROUP]) if r[0] == 1]
    assert events(log, C.EV_GROUP, 2)[0][:4] == (1, 1, LOOP, 2)


# --- section 8: the range and shooting -----------------------------------------------------------
def _to_range_two():
    # tiny track: seat 0 -> 5, seat 1 -> 4; seat 0 rolls 6: 6,7,8,9, range (one step lost);
    # seat 1 rolls 6: 5..9, range
    return n(6, 5, 6, 6)


def test_range_lines_up_first_at_the_furthest_line(testdata):
    _, _, log = play(testdata, _to_range_two(), n_racers=2, track="tiny")
    assert moves(log, 0)[1] == (5, (1, RANGE, 8))
    assert moves(log, 1)[1] == (6, (1, RANGE, 7))
    assert events(log, C.EV_ARRIVE, 0)[0][:2] == (1, 8)
    assert events(log, C.EV_ARRIVE, 1)[0][:2] == (1, 7)


def test_calibre_is_rolled_again_and_only_white_hits(testdata):
    shots = [CALIBRE, WHITE, CALIBRE, BLACK,     # round 3: seat 0 hit, seat 1 miss
             CALIBRE, CALIBRE, BLACK,            # round 4: seat 0 miss (calibre twice), seat 1 miss
             WHITE, WHITE, WHITE, WHITE, WHITE, WHITE]
    seats, visits, log = play(testdata, _to_range_two() + shots + n(1, 3, 2, 6), n_racers=2,
                              track="tiny")
    s0 = events(log, C.EV_SHOT, 0)
    assert [(a[3], a[5], a[6]) for a in s0[:2]] == [(C.CALIBRE, C.HIT, 1), (C.CALIBRE, C.CALIBRE, 0)]
    s1 = events(log, C.EV_SHOT, 1)
    assert [(a[3], a[5], a[6]) for a in s1[:2]] == [(C.CALIBRE, C.MISS, 0), (C.MISS, -1, 0)]
    # one shot per turn with one shooting die: 5 turns, rounds 3..7
    assert [r[0] for r in rows(log, 0, [C.EV_SHOT])][:5] == [3, 4, 5, 6, 7]
    assert events(log, C.EV_SHOOT_END, 0)[0][:5] == (1, 5, 4, 1, 0)
    assert events(log, C.EV_SHOOT_END, 1)[0][:5] == (1, 5, 3, 2, 0)
    first = visits[visits["visit"] == 1]
    assert sorted(first["penalties"].tolist()) == [1, 2]
    assert (first["calibres"][first["seat"] == 0] == 2).all()

    # section 8, leaving: round 8, seat 0 rolls 1: the first step lands on the range exit
    # (square 0); seat 1 rolls 3: 0, 1 (the penalty entry), then into the penalty loop
    assert moves(log, 0)[2] == (1, (2, LOOP, 0))
    assert moves(log, 1)[2] == (3, (2, PENALTY, 0))
    # round 9: seat 0 rolls 2: 1 (entry), penalty 0; seat 1 rolls 6: P1, P0, P1 (two loops),
    # exit square 2, then 3, 4
    assert moves(log, 0)[3] == (2, (2, PENALTY, 0))
    assert moves(log, 1)[3] == (6, (2, LOOP, 4))
    after9 = [r for r in rows(log, 1, [C.EV_STATE]) if r[0] == 9][0]
    assert after9[3:6] == (2, LOOP, 4) and after9[6] == 0      # no loops owed any more


def test_exit_roll_in_the_same_turn(make_bundle):
    b = make_bundle(exit_roll="same_turn")
    _, _, log = play(b, n(6, 6) + [WHITE] * 5 + n(2), track="tiny")
    r7 = [r[2] for r in rows(log, 0) if r[0] == 7]
    assert r7[:4] == [C.EV_SHOT, C.EV_SHOOT_END, C.EV_ROLL, C.EV_MOVE]
    assert moves(log)[2] == (2, (2, LOOP, 1))


def test_exit_from_the_exit_square(make_bundle):
    b = make_bundle(exit_from="exit_square")
    _, _, log = play(b, n(6, 6) + [WHITE] * 5 + n(1), track="tiny")
    # placed on square 0 first, then the whole roll of 1: square 1
    move = events(log, C.EV_MOVE, 0)[2]
    assert move[:7] == (2, LOOP, 0, 1, 2, LOOP, 1)


def test_two_shooting_dice_fire_two_shots_a_turn(testdata):
    _, _, log = play(testdata, n(6, 6) + [WHITE] * 5, track="tiny", shooting_dice=2)
    per_round = [r[0] for r in rows(log, 0, [C.EV_SHOT])]
    assert per_round[:5] == [3, 3, 4, 4, 5]


# --- relay: spare shots and handover ------------------------------------------------------------
def test_relay_spare_shots_and_handover(testdata):
    script = (n(6, 6)
              + [R_BLACK, R_BLACK, R_BLACK, R_WHITE, R_WHITE]   # rounds 3-7: 3 standing
              + [R_WHITE, R_BLACK, R_CALIBRE, R_WHITE]          # spares: hit, miss, calibre-hit
              + n(3, 6, 6)                                      # exit, penalty loop, to the range
              + [R_BLACK, R_WHITE, R_WHITE, R_WHITE, R_WHITE]   # 1 standing
              + [R_WHITE]                                       # one spare clears it
              + n(6, 6))                                        # exit, over the line
    seats, visits, log = play(testdata, script, n_racers=2, track="tiny", fmt="relay", legs=2)
    ends = events(log, C.EV_SHOOT_END, 0)
    assert ends[0][:5] == (1, 8, 4, 1, 3)
    assert ends[1][:5] == (2, 6, 5, 0, 1)
    spares = [a for a in events(log, C.EV_SHOT, 0) if a[1]]
    assert [(a[0], a[6]) for a in spares] == [(6, 1), (7, 0), (8, 1), (6, 1)]
    leg0 = visits[visits["seat"] == 0]
    assert leg0["spare_shots"].tolist() == [3, 1]
    assert leg0["spare_hits"].tolist() == [2, 1]
    assert leg0["penalties"].tolist() == [1, 0]
    # round 11: exit 3 -> 0, 1, penalty 0; round 12: 6 -> P1, exit square 2, 3, 4, 5, 6
    assert moves(log, 0)[2:4] == [(3, (2, PENALTY, 0)), (6, (2, LOOP, 6))]
    fin = [r for r in rows(log, 0, [C.EV_FINISH])]
    assert fin[0][0] == 21 and fin[0][3:5] == (0, 0)
    hand = rows(log, 1, [C.EV_HANDOVER])
    assert hand[0][0] == 21 and hand[0][3:5] == (0, 1)
    assert rows(log, 1, [C.EV_ROLL])[0][0] == 22
    assert seats["penalty_laps"][0] == 1
    assert seats["place"].tolist() == [1, 1]       # one team: both legs carry its place


# --- section 10: finish ---------------------------------------------------------------------------
def test_finish_needs_no_exact_roll(testdata):
    script = (n(6, 6) + [WHITE] * 5 + n(6, 6) + [WHITE] * 5 + n(6, 5, 6))
    seats, _, log = play(testdata, script, track="tiny")
    assert moves(log)[-1] == (1, (3, C.FINISHED, 0))       # rolled 6, one step was enough
    assert moves(log)[-2] == (5, (3, C.FINISH_AREA, 0))
    assert events(log, C.EV_FINISH, 0)[0][:2] == (1, 0)
    assert seats["rounds"][0] == 17 and seats["finished"][0] == 1 and seats["place"][0] == 1
    assert seats["distance_left"][0] == 0


# --- section 11: X, T, O ----------------------------------------------------------------------------
def test_x_first_skips_the_next_turn(testdata):
    # seat 0 runs ahead: 5, 11, 17, then 18 (X) while seat 1 is at 2: first -> skip
    seats, _, log = play(testdata, n(6, 1, 6, 1, 6, 1, 1, 1, 1), n_racers=2)
    x = events(log, C.EV_X, 0)[0]
    assert x[0] == 1 and x[1] < x[2]
    assert rows(log, 0, [C.EV_SKIP])[0][0] == 5
    assert [r[0] for r in rows(log, 0, [C.EV_ROLL])][:5] == [1, 2, 3, 4, 6]
    assert seats["skips"][0] >= 1


def test_x_last_rolls_again_and_t_sends_to_the_downhill(testdata):
    script = n(6, 1, 6, 6, 6, 5, 3, 6, 1, 1, 2)
    seats, _, log = play(testdata, script, n_racers=2)
    # round 4: seat 0 lands on T (20): to the start of the next green zone, 22
    assert events(log, C.EV_T, 0)[0][:3] == (20, 22, 2)
    # round 5: seat 1 lands on X (18) far behind seat 0: last -> extra move (2) -> T -> 22? no:
    # 22 is free (seat 0 moved on to 24), so seat 1 stands on 22
    x = events(log, C.EV_X, 1)[0]
    assert x[0] == 2 and x[1] > x[3]
    r5 = [(r[2], r[3]) for r in rows(log, 1) if r[0] == 5]
    assert (C.EV_ROLL, C.ROLL_X) in r5
    assert events(log, C.EV_T, 1)[0][:3] == (20, 22, 2)
    assert seats["x_rolls"][1] >= 1 and seats["t_jumps"][0] >= 1


def test_x_does_nothing_to_a_lone_racer(testdata):
    _, _, log = play(testdata, n(6, 6, 6, 1))
    assert events(log, C.EV_X, 0)[0][:4] == (0, events(log, C.EV_X, 0)[0][1], -1, -1)


def test_t_into_a_taken_square_uses_the_group_rule(testdata):
    _, _, log = play(testdata, n(5, 6, 6, 6, 6, 6, 1, 3, 5), n_racers=2)
    assert events(log, C.EV_T, 1)[0][:3] == (20, 22, 2)
    r5 = [r for r in rows(log, 0) if r[0] == 5]
    kinds = [r[2] for r in r5]
    assert kinds[:4] == [C.EV_ROLL, C.EV_MOVE, C.EV_T, C.EV_GROUP]
    assert r5[3][3:7] == (1, 1, LOOP, 23)


def _o_then_x():
    # seat 1 lands on O (16): extra move of 2 to X (18) while last
    return n(6, 1, 6, 6, 6, 5, 3, 5, 2, 1)


def test_o_rolls_again_and_extra_moves_chain(testdata):
    _, _, log = play(testdata, _o_then_x(), n_racers=2)
    r4 = [(r[2], r[3]) for r in rows(log, 1) if r[0] == 4]
    assert (C.EV_O, 1) in r4 and (C.EV_ROLL, C.ROLL_O) in r4 and (C.EV_ROLL, C.ROLL_X) in r4
    assert events(log, C.EV_X, 1)[0][0] == 2


def test_no_chaining_when_switched_off(make_bundle):
    _, _, log = play(make_bundle(chain_extra_rolls=False), _o_then_x(), n_racers=2)
    r4 = [(r[2], r[3]) for r in rows(log, 1) if r[0] == 4]
    assert (C.EV_ROLL, C.ROLL_O) in r4 and (C.EV_ROLL, C.ROLL_X) not in r4
    assert events(log, C.EV_X, 1)[0][0] == 3


def test_pushed_onto_o_takes_effect_only_with_the_switch(make_bundle):
    # r1: s0 -> 4, s1 -> 5; r2: s0 4 -6-> 10, s1 5 -6-> 11; r3: s0 blue 10 -6-> 13,
    # s1 11 -4-> 15; r4: s0 green 13 -1-> 15 taken -> pushed to 16 (O)
    script = n(5, 6, 6, 6, 6, 4, 1, 2)
    _, _, log = play(make_bundle(specials_after_push=True), script, n_racers=2)
    assert events(log, C.EV_GROUP, 0)[0][:4] == (1, 1, LOOP, 16)
    assert events(log, C.EV_O, 0)[0][0] == 1
    _, _, log = play(make_bundle(specials_after_push=False), script, n_racers=2)
    assert events(log, C.EV_GROUP, 0)[0][:4] == (1, 1, LOOP, 16)
    assert not [r for r in rows(log, 0, [C.EV_O]) if r[0] == 4]


def test_figure_colours_are_recorded_only(testdata):
    a, _, la = play(testdata, n(6, 6), n_racers=2, colours=[3, 1])
    b, _, lb = play(testdata, n(6, 6), n_racers=2, colours=[0, 7])
    assert a["colour"].tolist() == [3, 1]
    for f in a.dtype.names:
        if f != "colour":
            assert np.array_equal(a[f], b[f]), f
    keep = [C.EV_SEAT]
    assert np.array_equal(la[~np.isin(la[:, 2], keep)], lb[~np.isin(lb[:, 2], keep)])
