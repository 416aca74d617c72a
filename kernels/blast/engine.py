"""The Biathlon Blast race engine: set-up, rounds and turns by the full rules (docs/rules.md).

`play_races_nb` (and kernels.blast_reference's `play_races_reference_nb`, for races with look-ahead
or reference players) play a block of races on a `RaceState` and fill the seat and visit records of
each race (`kernels.blast.results`). Every choice goes through `kernels.blast.players`; every chance
outcome comes from the race's own random stream, so a race is the same whether played alone or among
millions. With a log capacity the race writes its event log (docs/event-log.md).
"""
import numpy as np
from ..arrays import copy1_nb, copy2_nb
from ..jit import entry_hot, inline, outline_hot, splice
from ..nolit import unliteral_calls

from .consts import (
    NO_COACH, BLUE, DOWNHILL, FLAT, MAX_RACERS, N_COLOURS, MOTIVATION_TO_DISCARD, R_COACH_BOOST, R_DIE_FACES,
    R_FACE_UP_MOTIVATION, R_INITIAL_WIND, R_MAX_HITS, R_MOTIVATION_TO, R_N_DICE, R_PULSE_LIMIT,
    R_LAST_RACER_WINS, R_PULSE_FLOOR, R_ROUND_CAP, R_START_LINE_CROSSINGS, R_ZERO_STEP_BOOST, RED, UPHILL, WAIT, WHITE, COACH_UNTIL_USABLE,
    BLACK, GREEN, YELLOW,
)
from .events import (
    ACTION, BOOST, BOOST_LOST, CARD_END, CAUSE_NO_CARDS, CAUSE_PULSE, CHOOSE, DECK, ELIMINATED,
    FACE_UP, GRID, HITS, MOTIVATION, MOTIVATION_BLIND, MOVE, PICKUP, PICKUP_BULLET, PICKUP_COACH,
    PICKUP_FREE, PLACE, PULSE, ROLL, ROUND, SETUP_DICE, SETUP_DISCARD, STALL, STATE, STATUS_ELIMINATED,
    STATUS_RACING, STATUS_WON, STEPS, TURN, WIN, WIND, COL_ARG, WAX,
)
from .borrowed import borrow_state_nb, borrow_tables_nb
from .players import (
    boost_steps_nb, choose_action_nb, choose_bullets_nb, choose_card_nb, keep_bullets_nb, choose_destination_nb, choose_motivation_nb,
    farther_end_nb,
    choose_range_action_nb, choose_shoot_wax_nb, choose_wind_nb, decide_pickup_nb, plans_kept_nb, prepare_race_nb,
    SCRATCH_SHOOT_END,
)
from ..rng import below_nb, seed_stream_nb, STREAM_CHANCE, STREAM_PLAYER
from .rules import (
    facing_nb, initiative_nb, pulse_adjust_nb, pulse_total_nb, reach_nb,
    shot_hits_nb, value_nb,
)
from .state import (
    SEAT_BIATHLETE, SEAT_BOOST_C, SEAT_BOOST_ROUND, SEAT_BOOST_S, SEAT_BULLETS, SEAT_CHOSEN,
    SEAT_COLOUR, SEAT_DISC_N, SEAT_ELIM_STAMP, SEAT_HAND_N, SEAT_LANE, SEAT_ON_MAT, SEAT_PLAYED,
    SEAT_PLAYER, SEAT_POS, SEAT_PULSE, SEAT_REMOVED_N, SEAT_SECRET, SEAT_STATUS, SEAT_WAITS,
)
from .state import (
    W_ADJ, W_BOOST, W_OUT, W_PLACED, W_RED, W_STEPS, W_WAX, MAX_FACE_UP, MAX_VISITS,
    G_ELIM, G_FACE0, G_LEAD_CHANGES, G_LEADER, G_LEADER_AFTER_RANGE, G_LOG_CAP, G_LOG_N,
    G_LOG_OVERFLOW, G_MN, G_MTOP, G_N, G_ROUND, G_STALLED, G_TRAIL, G_WIND, G_WINNER,
    S_ARRIVE_PULSE0, S_ARRIVE_ROUND0, S_BOOSTS, S_BULLETS_HITS, S_BULLETS_PICKUP, S_COACH_BULLETS,
    S_CROSSWIND0, S_DICE_HITS0, S_ELIM_CAUSE, S_ELIM_ROUND, S_HITS0, S_ICY, S_ICY_LAP0, S_MAX_PULSE,
    S_MOTIVATION, S_PLACE, S_SHOT_PULSE0, S_SHOTS0, S_TURNS, S_WAITS, S_WAX0, S_WIND_CHANGES,
)
from .results import RANGE_VISITS

# range visits with records of their own (kernels.blast.results); later visits count in the totals
# (waits, bullets_hits ...) and keep their statistics in the race state
assert RANGE_VISITS <= MAX_VISITS


# --- the event log -------------------------------------------------------------------------------
@splice
def ev_nb(g, log, seat, kind, a0=0, a1=0, a2=0, a3=0, a4=0, a5=0, a6=0, a7=0, a8=0, a9=0, a10=0,
          a11=0, a12=0):
    """Append one event row (no-op when the log capacity is 0, as in bulk runs): a test of the
    capacity here, the row written by ev_write_nb's one compiled body."""
    if g[G_LOG_CAP] != 0:
        i = np.int64
        ev_write_nb(g, log, i(seat), i(kind), i(a0), i(a1), i(a2), i(a3), i(a4), i(a5), i(a6), i(a7), i(a8),
                    i(a9), i(a10), i(a11), i(a12))


@outline_hot
def ev_write_nb(g, log, seat, kind, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12):
    """One event row; a full log sets the overflow flag and writes nothing. The log's only writer:
    one compiled copy (int64 arguments: one signature), called only where the race is logged, not
    copied into each of the ~35 places that log an event."""
    cap = g[G_LOG_CAP]
    i = g[G_LOG_N]
    if i >= cap:
        g[G_LOG_OVERFLOW] = 1
        return
    row = log[i]
    row[0] = g[G_ROUND]
    row[1] = seat
    row[2] = kind
    row[COL_ARG + 0] = a0
    row[COL_ARG + 1] = a1
    row[COL_ARG + 2] = a2
    row[COL_ARG + 3] = a3
    row[COL_ARG + 4] = a4
    row[COL_ARG + 5] = a5
    row[COL_ARG + 6] = a6
    row[COL_ARG + 7] = a7
    row[COL_ARG + 8] = a8
    row[COL_ARG + 9] = a9
    row[COL_ARG + 10] = a10
    row[COL_ARG + 11] = a11
    row[COL_ARG + 12] = a12
    g[G_LOG_N] = i + 1


@inline
def ev_state_nb(st, s):
    w = st.wax[s]
    ev_nb(st.g, st.log, s, STATE, st.seat[SEAT_POS, s], st.seat[SEAT_LANE, s], st.seat[SEAT_ON_MAT, s], st.seat[SEAT_PULSE, s], st.seat[SEAT_BULLETS, s],
          w[BLACK], w[YELLOW], w[GREEN], w[BLUE], w[WHITE], st.seat[SEAT_HAND_N, s], st.seat[SEAT_DISC_N, s], st.seat[SEAT_STATUS, s])


@inline
def ev_dice_nb(g, log, d, seat, kind):
    ev_nb(g, log, seat, kind, d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7])


# --- cards ---------------------------------------------------------------------------------------
@inline
def take_from_hand_nb(hand, hand_n, s, card):
    """Remove one copy of `card` from seat s's hand (keeping the others' order); False if absent."""
    n = hand_n[s]
    for i in range(n):
        if hand[s, i] == card:
            for j in range(i, n - 1):
                hand[s, j] = hand[s, j + 1]
            hand_n[s] = n - 1
            return True
    return False


@inline
def pick_up_nb(st, s):
    """The whole discard pile into the hand; returns the number of cards picked up."""
    k = st.seat[SEAT_DISC_N, s]
    for i in range(k):
        st.hand[s, st.seat[SEAT_HAND_N, s] + i] = st.disc[s, i]
    st.seat[SEAT_HAND_N, s] += k
    st.seat[SEAT_DISC_N, s] = 0
    return k


@inline
def discard_nb(disc, disc_n, s, card):
    disc[s, disc_n[s]] = card
    disc_n[s] += 1


# --- set-up ----------------------------------------------------------------------------------------
@inline
def setup_nb(tb, trail, n, biathletes, colours, players, params, seed, race, st, log_cap):
    g = st.g
    g[:] = 0
    g[G_N] = n
    g[G_TRAIL] = trail
    g[G_WINNER] = -1
    g[G_LEADER] = -1
    g[G_LEADER_AFTER_RANGE] = -1
    g[G_LOG_CAP] = log_cap
    g[G_WIND] = tb.rules[R_INITIAL_WIND]
    seed_stream_nb(st.rng[0:1], seed, race, STREAM_CHANCE)
    seed_stream_nb(st.rng[1:2], seed, race, STREAM_PLAYER)
    chance = st.rng[0:1]
    deck_size = tb.deck.shape[1]
    for s in range(MAX_RACERS):
        st.seat[SEAT_STATUS, s] = STATUS_ELIMINATED if s >= n else STATUS_RACING
    for s in range(n):
        b = biathletes[s]
        c = colours[s]
        st.seat[SEAT_BIATHLETE, s] = b
        st.seat[SEAT_COLOUR, s] = c
        st.seat[SEAT_PLAYER, s] = players[s]
        copy1_nb(st.params[s, :params.shape[1]], params[s])   # a slice assignment needs the NRT
        st.seat[SEAT_POS, s] = 0
        st.seat[SEAT_LANE, s] = 0
        st.seat[SEAT_ON_MAT, s] = 0
        st.seat[SEAT_PULSE, s] = 0
        st.seat[SEAT_BULLETS, s] = tb.gear_bullets[c]
        for w in range(N_COLOURS):
            st.wax[s, w] = tb.gear_wax[c, w]
        st.seat[SEAT_CHOSEN, s] = -1
        st.seat[SEAT_PLAYED, s] = 0
        st.seat[SEAT_ELIM_STAMP, s] = 0
        st.seat[SEAT_BOOST_C, s] = -1
        st.seat[SEAT_BOOST_S, s] = 0
        st.seat[SEAT_BOOST_ROUND, s] = 0
        st.seat[SEAT_WAITS, s] = 0
        for i in range(deck_size):
            st.hand[s, i] = tb.deck[b, i]
        st.seat[SEAT_HAND_N, s] = deck_size
        st.seat[SEAT_DISC_N, s] = 0
        st.seat[SEAT_REMOVED_N, s] = 0
        st.seat[SEAT_SECRET, s] = 0
        st.stats[s, :] = 0
        for v in range(MAX_VISITS):
            st.stats[s, S_HITS0 + v] = -1
            st.stats[s, S_DICE_HITS0 + v] = -1
            st.stats[s, S_ARRIVE_PULSE0 + v] = -1
            st.stats[s, S_SHOT_PULSE0 + v] = -1
            st.stats[s, S_ARRIVE_ROUND0 + v] = -1
    # the initial roll
    faces = tb.rules[R_DIE_FACES]
    st.dice[:] = 0
    for i in range(tb.rules[R_N_DICE]):
        st.dice[i] = below_nb(chance, faces)
    ev_dice_nb(st.g, st.log, st.dice, -1, SETUP_DICE)
    # the Motivation deck, shuffled (Fisher-Yates), and the face-up cards
    m = tb.motivation.shape[0]
    for i in range(m):
        st.mdeck[i] = tb.motivation[i]
    for i in range(m - 1, 0, -1):
        j = below_nb(chance, i + 1)
        t = st.mdeck[i]
        st.mdeck[i] = st.mdeck[j]
        st.mdeck[j] = t
    g[G_MN] = m
    g[G_MTOP] = 0
    prepare_race_nb(st, tb)
    for i in range(m):
        ev_nb(st.g, st.log, -1, DECK, i, st.mdeck[i])
    for k in range(MAX_FACE_UP):
        g[G_FACE0 + k] = -1
    for k in range(tb.rules[R_FACE_UP_MOTIVATION]):
        refill_nb(st, k)
    # one random card of each racer to its discard pile
    for s in range(n):
        k = below_nb(chance, st.seat[SEAT_HAND_N, s])
        card = st.hand[s, k]
        take_from_hand_nb(st.hand, st.seat[SEAT_HAND_N], s, card)
        discard_nb(st.disc, st.seat[SEAT_DISC_N], s, card)
        ev_nb(st.g, st.log, s, SETUP_DISCARD, card)
    # the grid, highest initiative of that card first, ties by ski colour order
    placed = st.work[W_PLACED:W_PLACED + MAX_RACERS]
    placed[:] = 0
    for k in range(n):
        best = -1
        best_init = -1
        for s in range(n):
            if placed[s] == 1:
                continue
            ini = initiative_nb(tb, st.disc[s, 0], st.dice)
            if best < 0 or ini > best_init or (ini == best_init and tb.ski_rank[st.seat[SEAT_COLOUR, s]] < tb.ski_rank[st.seat[SEAT_COLOUR, best]]):
                best = s
                best_init = ini
        placed[best] = 1
        st.seat[SEAT_POS, best] = tb.grid_slots[trail, k, 0]
        st.seat[SEAT_LANE, best] = tb.grid_slots[trail, k, 1]
        ev_nb(st.g, st.log, best, GRID, best_init, st.seat[SEAT_POS, best], st.seat[SEAT_LANE, best])
    for s in range(n):
        if st.g[G_LOG_CAP] > 0:
            ev_state_nb(st, s)


@inline
def refill_nb(st, slot):
    """Lay the top of the Motivation deck face up in `slot` (empty if the deck is exhausted)."""
    if st.g[G_MTOP] < st.g[G_MN]:
        st.g[G_FACE0 + slot] = st.mdeck[st.g[G_MTOP]]
        st.g[G_MTOP] += 1
    else:
        st.g[G_FACE0 + slot] = -1
    ev_nb(st.g, st.log, -1, FACE_UP, slot, st.g[G_FACE0 + slot])


@inline
def spend_wax_nb(st, s, wax):
    """The player's wax decision (scratch[1..5]) spent: into `wax`, out of the racer's tokens."""
    for c in range(1, N_COLOURS):
        k = min(max(st.scratch[c], 0), st.wax[s, c])
        wax[c] = k
        st.wax[s, c] -= k
        st.stats[s, S_WAX0 + c - 1] += k


# --- eliminations and boosts -------------------------------------------------------------------
@inline
def eliminate_nb(st, s, cause, stamp):
    st.seat[SEAT_STATUS, s] = STATUS_ELIMINATED
    st.seat[SEAT_ELIM_STAMP, s] = stamp
    st.stats[s, S_ELIM_ROUND] = st.g[G_ROUND]
    st.stats[s, S_ELIM_CAUSE] = cause
    ev_nb(st.g, st.log, s, ELIMINATED, cause)


@inline
def last_racer_nb(tb, st):
    """Switch `last_racer_wins`: after an elimination, a single racer left in the race wins at once
    where it stands (WIN with its position); none left, or several, changes nothing."""
    if tb.rules[R_LAST_RACER_WINS] == 0:
        return
    left = -1
    for s in range(st.g[G_N]):
        if st.seat[SEAT_STATUS, s] == STATUS_RACING:
            if left >= 0:
                return
            left = s
    if left >= 0:
        st.seat[SEAT_STATUS, left] = STATUS_WON
        st.g[G_WINNER] = left
        ev_nb(st.g, st.log, left, WIN, st.seat[SEAT_POS, left])


# --- a round -------------------------------------------------------------------------------------
@inline
def round_start_nb(tb, trail, st, red_usable):
    """Pick-ups and eliminations for lack of cards, in ski colour order."""
    n = st.g[G_N]
    stamp = st.g[G_ELIM] + 1
    any_out = False
    for k in range(N_COLOURS):
        colour = tb.ski_order[k]
        for s in range(n):
            if st.seat[SEAT_COLOUR, s] != colour or st.seat[SEAT_STATUS, s] != STATUS_RACING:
                continue
            red_usable[s] = 0
            if st.seat[SEAT_HAND_N, s] == 0:
                if st.seat[SEAT_DISC_N, s] == 0:
                    eliminate_nb(st, s, CAUSE_NO_CARDS, stamp)
                    any_out = True
                else:
                    got = pick_up_nb(st, s)
                    ev_nb(st.g, st.log, s, PICKUP, PICKUP_FREE, got)
                continue
            coach_ok = st.seat[SEAT_BOOST_C, s] == RED and st.seat[SEAT_BOOST_ROUND, s] < st.g[G_ROUND]
            if coach_ok and st.seat[SEAT_DISC_N, s] > 0:
                red_usable[s] = 1
            d = 0
            if st.seat[SEAT_DISC_N, s] > 0 and (coach_ok or st.seat[SEAT_BULLETS, s] > 0):
                d = decide_pickup_nb(st, tb, trail, s, coach_ok)
            if d == PICKUP_BULLET and st.seat[SEAT_BULLETS, s] > 0:
                st.seat[SEAT_BULLETS, s] -= 1
                st.stats[s, S_BULLETS_PICKUP] += 1
                got = pick_up_nb(st, s)
                ev_nb(st.g, st.log, s, PICKUP, PICKUP_BULLET, got)
            elif d == PICKUP_COACH and coach_ok:
                st.seat[SEAT_BOOST_C, s] = -1
                st.stats[s, S_COACH_BULLETS] += 1
                got = pick_up_nb(st, s)
                ev_nb(st.g, st.log, s, PICKUP, PICKUP_COACH, got)
    if any_out:
        st.g[G_ELIM] = stamp
        last_racer_nb(tb, st)
    for s in range(n):
        if st.seat[SEAT_STATUS, s] == STATUS_RACING:
            if st.g[G_LOG_CAP] > 0:
                ev_state_nb(st, s)


@inline
def next_seat_nb(tb, st):
    """The seat to play next: highest initiative now among those yet to play; ties by ski colour."""
    best = -1
    best_init = 0
    card_init = tb.card_init
    ski_rank = tb.ski_rank
    status = st.seat[SEAT_STATUS]
    played = st.seat[SEAT_PLAYED]
    chosen = st.seat[SEAT_CHOSEN]
    colour = st.seat[SEAT_COLOUR]
    dice = st.dice
    for s in range(st.g[G_N]):
        if status[s] != STATUS_RACING or played[s] == 1:
            continue
        ini = value_nb(card_init[chosen[s]], dice, 0)
        if best < 0 or ini > best_init or (ini == best_init and ski_rank[colour[s]] < ski_rank[colour[best]]):
            best = s
            best_init = ini
    return best


@inline
def take_motivation_nb(tb, st, s):
    choice = choose_motivation_nb(st, tb, s)
    n_face = tb.rules[R_FACE_UP_MOTIVATION]
    card = -1
    blind = -1
    if choice >= 0 and choice < n_face and st.g[G_FACE0 + choice] >= 0:
        card = st.g[G_FACE0 + choice]
    elif choice == MOTIVATION_BLIND and st.g[G_MTOP] < st.g[G_MN]:
        blind = st.g[G_MTOP]
        card = st.mdeck[blind]
        st.g[G_MTOP] += 1
    else:
        return      # nothing left to give: no card, no event
    ev_nb(st.g, st.log, s, MOTIVATION, choice, card)
    if choice < n_face:
        refill_nb(st, choice)
    st.stats[s, S_MOTIVATION] += 1
    if tb.rules[R_MOTIVATION_TO] == MOTIVATION_TO_DISCARD:
        discard_nb(st.disc, st.seat[SEAT_DISC_N], s, card)
    else:
        st.hand[s, st.seat[SEAT_HAND_N, s]] = card
        st.seat[SEAT_HAND_N, s] += 1
        if blind >= 0:
            # drawn face down into the hand: the others do not know it until it is played
            st.seat[SEAT_SECRET, s] |= np.int64(1) << np.int64(blind)


@inline
def visit_of_nb(tb, trail, pos):
    """Which range visit (0, 1, ...) a range position is."""
    for v in range(tb.range_pos.shape[1]):
        if tb.range_pos[trail, v] == pos:
            return v
    return 0


# The turn, the turns and the round start are `inline` functions: compiled once (and cached), shared
# by the race kernel and the search kernel, and LLVM's function passes run on each part rather than
# on one huge spliced function (kernels.jit has the figures).
@inline
def play_turn_nb(tb, trail, st, s, red_usable):
    rnd = st.g[G_ROUND]
    card = st.seat[SEAT_CHOSEN, s]
    st.stats[s, S_TURNS] += 1
    if st.g[G_LOG_CAP] > 0:
        ev_nb(st.g, st.log, s, TURN, initiative_nb(tb, card, st.dice), st.seat[SEAT_ON_MAT, s])
    # a pending next-turn boost from an earlier turn
    inc_c = -1
    inc_s = 0
    if st.seat[SEAT_BOOST_C, s] >= 0 and st.seat[SEAT_BOOST_ROUND, s] < rnd:
        inc_c = st.seat[SEAT_BOOST_C, s]
        inc_s = st.seat[SEAT_BOOST_S, s]
        st.seat[SEAT_BOOST_C, s] = -1
    inc_used = False
    inc_usable = red_usable[s] == 1 and inc_c == RED
    boost_steps = st.work[W_BOOST:W_BOOST + 3]
    boost_steps_nb(inc_c, inc_s, boost_steps)

    on_mat = st.seat[SEAT_ON_MAT, s] == 1
    rc = tb.range_card[trail]
    wax = st.work[W_WAX:W_WAX + 6]
    wax[:] = 0
    if on_mat:
        choose_range_action_nb(st, tb, trail, s)
        action = st.scratch[0]
        act_card = rc
    else:
        choose_action_nb(st, tb, trail, s, card, boost_steps)
        action = st.scratch[0]
        act_card = card
    shooting = on_mat and action != WAIT
    if not shooting:        # a Shoot's wax is chosen after the hits (docs/rules.md 5.4)
        spend_wax_nb(st, s, wax)
    ev_nb(st.g, st.log, s, ACTION, card, action, wax[BLACK], wax[YELLOW], wax[GREEN], wax[BLUE], wax[WHITE])

    start = st.seat[SEAT_POS, s]
    blue_zone = 0
    white_zone = False
    visit = visit_of_nb(tb, trail, start) if on_mat else 0
    if on_mat and action == WAIT:
        st.seat[SEAT_WAITS, s] += 1
        st.stats[s, S_WAITS] += 1
        dest = start
    else:
        hits = 0
        shot_planned = False
        if on_mat:
            # Shoot: roll, count, wind, bullets
            faces = tb.rules[R_DIE_FACES]
            for i in range(tb.rules[R_N_DICE]):
                st.dice[i] = below_nb(st.rng[0:1], faces)
            ev_dice_nb(st.g, st.log, st.dice, s, ROLL)
            facing = facing_nb(tb, trail, start, 1)
            dh, h = shot_hits_nb(tb, st.seat[SEAT_BIATHLETE, s], st.seat[SEAT_PULSE, s], st.dice, st.g[G_WIND], facing)
            room = tb.rules[R_MAX_HITS] - h
            coach_max = min(inc_s, room) if inc_c == RED else 0
            if coach_max > 0:
                inc_usable = True
            choose_bullets_nb(st, tb, trail, s, h, coach_max, visit, act_card, action, boost_steps)
            coach = min(max(st.scratch[1], 0), coach_max)
            own = min(max(st.scratch[0], 0), st.seat[SEAT_BULLETS, s], room - coach)
            if own > 0:
                # the player may keep bullets its move will not need (it knows all it will know)
                kept = keep_bullets_nb(st, tb, trail, s, act_card, action, h + coach, own, boost_steps)
                shot_planned = plans_kept_nb(st, s, own, kept)
                own = kept
            if coach > 0:
                inc_used = True
                st.stats[s, S_COACH_BULLETS] += coach
            st.seat[SEAT_BULLETS, s] -= own
            st.stats[s, S_BULLETS_HITS] += own
            hits = h + own + coach
            ev_nb(st.g, st.log, s, HITS, dh, h - dh, own, coach, hits)
            st.stats[s, S_SHOTS0 + visit] = 1
            st.stats[s, S_HITS0 + visit] = hits
            st.stats[s, S_DICE_HITS0 + visit] = dh
            st.stats[s, S_SHOT_PULSE0 + visit] = st.seat[SEAT_PULSE, s]
            w = st.g[G_WIND]
            cls = 0 if w == 4 else (1 if (w != facing and w != (facing + 2) % 4) else (2 if w == facing else 3))
            st.stats[s, S_CROSSWIND0 + visit] = cls
        steps = st.work[W_STEPS:W_STEPS + 3]
        for t in range(3):
            steps[t] = value_nb(tb.card_steps[act_card, action, t], st.dice, hits)
        if on_mat and not shot_planned:
            # with the hits known, the wax of the Shoot action (unless keep_bullets_nb planned it
            # with these very hits)
            choose_shoot_wax_nb(st, tb, trail, s, steps[UPHILL] + boost_steps[UPHILL],
                                steps[FLAT] + boost_steps[FLAT], steps[DOWNHILL] + boost_steps[DOWNHILL],
                                tb.card_pulse[act_card, action])
        if on_mat:
            spend_wax_nb(st, s, wax)
            ev_nb(st.g, st.log, s, WAX, wax[BLACK], wax[YELLOW], wax[GREEN], wax[BLUE], wax[WHITE])
        steps[UPHILL] += wax[BLACK] + boost_steps[UPHILL]
        steps[FLAT] += wax[YELLOW] + boost_steps[FLAT]
        steps[DOWNHILL] += wax[GREEN] + boost_steps[DOWNHILL]
        if inc_c == BLACK or inc_c == YELLOW or inc_c == GREEN:
            inc_used = True
            inc_usable = True
        ev_nb(st.g, st.log, s, STEPS, steps[UPHILL], steps[FLAT], steps[DOWNHILL])
        cost_est = tb.card_pulse[act_card, action] - wax[BLUE]
        out = st.work[W_OUT:W_OUT + 3]
        if st.scratch[9] == 1 and not on_mat:
            # the heuristic planned this end with exactly these steps when choosing the action
            copy1_nb(out, st.scratch[6:9])
            st.scratch[9] = 0
        elif st.scratch[9] == 2 and on_mat:
            # ... or, on a Shoot, when choosing its wax
            planned = st.scratch[SCRATCH_SHOOT_END:SCRATCH_SHOOT_END + 3]
            copy1_nb(out, planned)
            planned[:] = 0
            st.scratch[9] = 0
        else:
            choose_destination_nb(st, tb, trail, s, steps[UPHILL], steps[FLAT], steps[DOWNHILL],
                                  cost_est, on_mat, out)
        end = out[0]
        if out[2] == 0 and reach_nb(tb, trail, start, steps[UPHILL], steps[FLAT], steps[DOWNHILL]) > end \
                and (tb.coach_colour[trail, end] == NO_COACH or (end == start and tb.rules[R_ZERO_STEP_BOOST] == 0)) \
                and tb.start_line[trail, end + 1] == 0 and tb.is_range[trail, end + 1] == 0 \
                and end + 1 != tb.finish_pos[trail]:
            # the steps reach a plain space past the planned end, which gives no coach zone: the
            # player may go farther (farther_end_nb's own first tests, so that it is called only here)
            farther_end_nb(st, tb, trail, s, steps[UPHILL], steps[FLAT], steps[DOWNHILL],
                           tb.card_pulse[act_card, action], wax[BLUE], wax[WHITE], out)
        dest = out[0]
        st.seat[SEAT_POS, s] = dest
        st.seat[SEAT_LANE, s] = out[1]
        st.seat[SEAT_ON_MAT, s] = out[2]
        if on_mat:
            st.seat[SEAT_WAITS, s] = 0
        ev_nb(st.g, st.log, s, MOVE, start, dest, out[1], out[2])
        for q in range(start + 1, dest + 1):
            if tb.start_line[trail, q] == 1:
                take_motivation_nb(tb, st, s)
        if st.seat[SEAT_ON_MAT, s] == 1:
            v = visit_of_nb(tb, trail, dest)
            st.stats[s, S_ARRIVE_ROUND0 + v] = rnd
        if dest != start or tb.rules[R_ZERO_STEP_BOOST] == 1:
            # the boost goes to a racer that ends its move on the zone (with zero_step_boost, also
            # after a move of zero steps)
            zc = np.int64(tb.coach_colour[trail, dest])
            if zc != NO_COACH:
                zs = tb.coach_strength[trail, dest]
                st.stats[s, S_BOOSTS] += 1
                ev_nb(st.g, st.log, s, BOOST, zc, zs)
                if zc == BLUE:
                    blue_zone = zs
                elif zc == WHITE:
                    white_zone = True
                else:
                    # a next-turn boost; one pending at a time
                    if inc_c >= 0 and not inc_used and tb.rules[R_COACH_BOOST] == COACH_UNTIL_USABLE \
                            and not inc_usable:
                        ev_nb(st.g, st.log, s, BOOST_LOST, inc_c, inc_s)
                        inc_c = -1
                    st.seat[SEAT_BOOST_C, s] = zc
                    st.seat[SEAT_BOOST_S, s] = zs
                    st.seat[SEAT_BOOST_ROUND, s] = rnd

    # pulse
    before = st.seat[SEAT_PULSE, s]
    cost = tb.card_pulse[act_card, action]
    reduction = wax[BLUE] + blue_zone
    adj = st.work[W_ADJ:W_ADJ + 2]
    pulse_adjust_nb(st, tb, trail, s, st.seat[SEAT_POS, s], st.seat[SEAT_LANE, s], st.seat[SEAT_ON_MAT, s], adj)
    after = pulse_total_nb(before, cost, reduction, adj[0], adj[1], tb.rules[R_PULSE_FLOOR])
    st.seat[SEAT_PULSE, s] = after
    ev_nb(st.g, st.log, s, PULSE, before, after, cost, reduction, adj[0], adj[1])
    if after > st.stats[s, S_MAX_PULSE]:
        st.stats[s, S_MAX_PULSE] = after
    if after > tb.rules[R_PULSE_LIMIT]:
        st.g[G_ELIM] += 1
        eliminate_nb(st, s, CAUSE_PULSE, st.g[G_ELIM])
        last_racer_nb(tb, st)
        return
    if st.seat[SEAT_POS, s] == tb.finish_pos[trail]:
        st.seat[SEAT_STATUS, s] = STATUS_WON
        st.g[G_WINNER] = s
        ev_nb(st.g, st.log, s, WIN, st.seat[SEAT_POS, s])
        return
    if st.seat[SEAT_ON_MAT, s] == 1 and not on_mat:
        st.stats[s, S_ARRIVE_PULSE0 + visit_of_nb(tb, trail, st.seat[SEAT_POS, s])] = after
    # wind
    if tb.card_wind[act_card, action] == 1 or wax[WHITE] > 0 or white_zone:
        old = st.g[G_WIND]
        new = choose_wind_nb(st, tb, trail, s)
        if new < 0 or new > 4:
            new = old
        st.g[G_WIND] = new
        if new != old:
            st.stats[s, S_WIND_CHANGES] += 1
        ev_nb(st.g, st.log, s, WIND, old, new)
    # the card
    icy = tb.card_icy[act_card, action]
    if icy == 1:
        st.seat[SEAT_REMOVED_N, s] += 1
        st.stats[s, S_ICY] += 1
        lap = tb.lap[trail, start]
        lap = min(max(lap, 1), 3)
        st.stats[s, S_ICY_LAP0 + lap - 1] += 1
    else:
        discard_nb(st.disc, st.seat[SEAT_DISC_N], s, card)
    st.seat[SEAT_CHOSEN, s] = -1
    ev_nb(st.g, st.log, s, CARD_END, card, icy)
    # a boost from an earlier turn that this turn did not use
    if inc_c >= 0 and not inc_used:
        if tb.rules[R_COACH_BOOST] == COACH_UNTIL_USABLE and not inc_usable and st.seat[SEAT_BOOST_C, s] < 0:
            st.seat[SEAT_BOOST_C, s] = inc_c          # keeps waiting for a turn that can use it
            st.seat[SEAT_BOOST_S, s] = inc_s
            st.seat[SEAT_BOOST_ROUND, s] = rnd - 1
        else:
            ev_nb(st.g, st.log, s, BOOST_LOST, inc_c, inc_s)
    if st.g[G_LOG_CAP] > 0:
        ev_state_nb(st, s)


@inline
def update_leader_nb(tb, trail, st):
    best = -1
    for s in range(st.g[G_N]):
        if st.seat[SEAT_STATUS, s] == STATUS_ELIMINATED:
            continue
        if best < 0 or st.seat[SEAT_POS, s] > st.seat[SEAT_POS, best] or (
                st.seat[SEAT_POS, s] == st.seat[SEAT_POS, best] and tb.ski_rank[st.seat[SEAT_COLOUR, s]] < tb.ski_rank[st.seat[SEAT_COLOUR, best]]):
            best = s
    if best >= 0 and best != st.g[G_LEADER]:
        if st.g[G_LEADER] >= 0:
            st.g[G_LEAD_CHANGES] += 1
        st.g[G_LEADER] = best
    visits = tb.range_pos.shape[1]
    if visits > 0 and st.g[G_LEADER_AFTER_RANGE] < 0 and best >= 0 \
            and st.seat[SEAT_POS, best] > tb.range_pos[trail, visits - 1]:
        st.g[G_LEADER_AFTER_RANGE] = best


# The round loop's parts: inline functions, called from the race loop (finish_race_nb) and from the
# search kernel's loop of the race and its rollouts.
@inline
def open_round_nb(tb, trail, st, red_usable):
    """Start the next round (pick-ups, eliminations for lack of cards); False when the race is over
    (nobody racing, the round cap reached: a stalled race, or with `last_racer_wins` the round
    start's eliminations left one racer, who won)."""
    racing = 0
    for s in range(st.g[G_N]):
        if st.seat[SEAT_STATUS, s] == STATUS_RACING:
            racing += 1
    if racing == 0:
        return False
    if st.g[G_ROUND] >= tb.rules[R_ROUND_CAP]:
        st.g[G_STALLED] = 1
        ev_nb(st.g, st.log, -1, STALL, tb.rules[R_ROUND_CAP])
        return False
    st.g[G_ROUND] += 1
    ev_nb(st.g, st.log, -1, ROUND, st.g[G_ROUND], st.g[G_WIND])
    round_start_nb(tb, trail, st, red_usable)
    if st.g[G_WINNER] >= 0:
        return False
    for s in range(st.g[G_N]):
        st.seat[SEAT_PLAYED, s] = 0
    return True


@splice
def commit_card_nb(st, s, c):
    take_from_hand_nb(st.hand, st.seat[SEAT_HAND_N], s, c)
    st.seat[SEAT_CHOSEN, s] = c
    ev_nb(st.g, st.log, s, CHOOSE, c)


@inline
def play_turns_nb(tb, trail, st, red_usable):
    """The round's turns in initiative order, once every card is chosen; True once someone won."""
    while True:
        s = next_seat_nb(tb, st)
        if s < 0:
            return False
        st.seat[SEAT_PLAYED, s] = 1
        play_turn_nb(tb, trail, st, s, red_usable)
        update_leader_nb(tb, trail, st)
        if st.g[G_WINNER] >= 0:
            return True


@splice
def finish_race_nb(tb, trail, st, red_usable, chosen):
    """Play on to the end of the race, every card chosen by its player's own function (no
    look-ahead: rollouts use this). From a round start, or with `chosen` from the turns of a round
    whose cards are already chosen (a rollout's first round): one copy of the turn serves both.
    (`while True`, not `while chosen or open_round_nb(...)`: Python 3.11 compiles a loop's condition
    twice, at the top and at the bottom, and the round start would be inlined twice.)"""
    while True:
        if not chosen:
            if not open_round_nb(tb, trail, st, red_usable):
                break
            for s in range(st.g[G_N]):
                if st.seat[SEAT_STATUS, s] == STATUS_RACING:
                    commit_card_nb(st, s, choose_card_nb(st, tb, trail, s))
        chosen = False
        if play_turns_nb(tb, trail, st, red_usable):
            break
    rank_nb(tb, trail, st)


@outline_hot
def copy_state_nb(src, dst):
    """dst := src, without the event log (dst logs nothing). One compiled body that the search
    kernel calls (at a search's start and end and at each rollout's start: a call per rollout is
    nothing beside the rollout), not three spliced copies of its 13 loops."""
    copy1_nb(dst.g, src.g)
    dst.g[G_LOG_CAP] = 0
    dst.g[G_LOG_N] = 0
    copy1_nb(dst.dice, src.dice)
    copy2_nb(dst.seat, src.seat)
    copy2_nb(dst.wax, src.wax)
    copy2_nb(dst.hand, src.hand)
    copy2_nb(dst.disc, src.disc)
    copy1_nb(dst.mdeck, src.mdeck)
    copy1_nb(dst.mworth, src.mworth)
    copy2_nb(dst.stats, src.stats)
    copy2_nb(dst.params, src.params)
    copy1_nb(dst.rng, src.rng)
    copy2_nb(dst.script, src.script)
    copy1_nb(dst.work, src.work)


@inline
def same_card_nb(tb, a, b):
    """Two card ids that play exactly alike (copies of one common card)."""
    if tb.card_kind[a] != tb.card_kind[b]:
        return False
    for i in range(3):
        if tb.card_init[a, i] != tb.card_init[b, i]:
            return False
    for act in range(2):
        if tb.card_pulse[a, act] != tb.card_pulse[b, act] or tb.card_wind[a, act] != tb.card_wind[b, act] \
                or tb.card_icy[a, act] != tb.card_icy[b, act]:
            return False
        for t in range(3):
            for i in range(3):
                if tb.card_steps[a, act, t, i] != tb.card_steps[b, act, t, i]:
                    return False
    return True


@inline
def rank_key_nb(tb, trail, st, s):
    """Seat s's sort key for the final places (lower is better)."""
    rank = tb.ski_rank[st.seat[SEAT_COLOUR, s]]
    if st.seat[SEAT_STATUS, s] == STATUS_WON:
        return rank
    if st.seat[SEAT_STATUS, s] == STATUS_RACING:
        return 1_000_000 + (tb.finish_pos[trail] - st.seat[SEAT_POS, s]) * 10 + rank
    return 100_000_000 - st.seat[SEAT_ELIM_STAMP, s] * 10 + rank


@inline
def rank_nb(tb, trail, st):
    """Final places: the winner, racers by distance to the finish, then eliminated racers.

    A selection over at most MAX_RACERS seats, the lowest seat first among equal keys (the order
    of a stable sort), with no array allocated: the race kernel is an `entry_hot` (kernels/jit.py)."""
    n = st.g[G_N]
    done = 0
    for place in range(n):
        best, best_key = -1, 0
        for s in range(n):
            if done & (1 << s):
                continue
            k = rank_key_nb(tb, trail, st, s)
            if best < 0 or k < best_key:
                best, best_key = s, k
        done |= 1 << best
        st.stats[best, S_PLACE] = place + 1
        ev_nb(st.g, st.log, best, PLACE, place + 1, st.seat[SEAT_STATUS, best])


@inline
def write_results_nb(tb, trail, st, race, out, visits, row0):
    """The seat record of each seat, out[row0 + seat], and the records of its first RANGE_VISITS
    range visits, visits[(row0 + seat) * RANGE_VISITS + visit - 1] (visit 0 for a visit it never
    reached): kernels.blast.results."""
    n = st.g[G_N]
    n_dice = tb.rules[R_N_DICE]
    for s in range(n):
        r = out[row0 + s]
        won = 1 if st.seat[SEAT_STATUS, s] == STATUS_WON else 0
        r.race = race
        r.trail = trail
        r.n_racers = n
        r.seat = s
        r.team = s
        r.leg = 0
        r.player = st.seat[SEAT_PLAYER, s]
        r.place = st.stats[s, S_PLACE]
        r.won = won
        r.finished = won
        r.eliminated = 1 if st.seat[SEAT_STATUS, s] == STATUS_ELIMINATED else 0
        r.elim_cause = st.stats[s, S_ELIM_CAUSE]
        r.rounds = st.g[G_ROUND]
        r.stalled = st.g[G_STALLED]
        r.distance_left = tb.finish_pos[trail] - st.seat[SEAT_POS, s]
        r.penalty_laps = 0
        r.lead_changes = st.g[G_LEAD_CHANGES]
        r.leader_after_range = 1 if st.g[G_LEADER_AFTER_RANGE] == s else 0
        r.colour = st.seat[SEAT_COLOUR, s]
        r.biathlete = st.seat[SEAT_BIATHLETE, s]
        r.elim_round = st.stats[s, S_ELIM_ROUND]
        r.final_pulse = st.seat[SEAT_PULSE, s]
        r.max_pulse = st.stats[s, S_MAX_PULSE]
        r.waits = st.stats[s, S_WAITS]
        r.bullets_pickup = st.stats[s, S_BULLETS_PICKUP]
        r.bullets_hits = st.stats[s, S_BULLETS_HITS]
        r.coach_bullets = st.stats[s, S_COACH_BULLETS]
        r.wax_black = st.stats[s, S_WAX0]
        r.wax_yellow = st.stats[s, S_WAX0 + 1]
        r.wax_green = st.stats[s, S_WAX0 + 2]
        r.wax_blue = st.stats[s, S_WAX0 + 3]
        r.wax_white = st.stats[s, S_WAX0 + 4]
        r.motivation = st.stats[s, S_MOTIVATION]
        r.icy = st.stats[s, S_ICY]
        r.icy_lap_1 = st.stats[s, S_ICY_LAP0]
        r.icy_lap_2 = st.stats[s, S_ICY_LAP0 + 1]
        r.icy_lap_3 = st.stats[s, S_ICY_LAP0 + 2]
        r.turns = st.stats[s, S_TURNS]
        r.boosts = st.stats[s, S_BOOSTS]
        r.wind_changes = st.stats[s, S_WIND_CHANGES]
        r.bullets_left = st.seat[SEAT_BULLETS, s]
        left = 0
        for c in range(1, N_COLOURS):
            left += st.wax[s, c]
        r.wax_left = left
        for v in range(RANGE_VISITS):
            w = visits[(row0 + s) * RANGE_VISITS + v]
            if st.stats[s, S_ARRIVE_ROUND0 + v] < 0:
                w.visit = 0
                continue
            shots = n_dice if st.stats[s, S_SHOTS0 + v] == 1 else 0
            hits = st.stats[s, S_HITS0 + v] if shots else 0
            w.race = race
            w.seat = s
            w.team = s
            w.leg = 0
            w.visit = v + 1
            w.shots = shots
            w.hits = hits
            w.misses = shots - hits
            w.penalties = 0
            w.dice_hits = st.stats[s, S_DICE_HITS0 + v]
            w.shot_pulse = st.stats[s, S_SHOT_PULSE0 + v]
            w.arrive_pulse = st.stats[s, S_ARRIVE_PULSE0 + v]
            w.arrive_round = st.stats[s, S_ARRIVE_ROUND0 + v]
            w.shot_wind = st.stats[s, S_CROSSWIND0 + v]
            w.biathlete = st.seat[SEAT_BIATHLETE, s]
            w.colour = st.seat[SEAT_COLOUR, s]


@inline
def check_capacity_nb(tb, st):
    """Refuse tables that need more room than the state has (sim.blast.compile checks every data set
    against the same capacities, naming the file and field; this guards tables made otherwise)."""
    if tb.motivation.shape[0] > st.mdeck.shape[0]:
        raise ValueError("the Motivation deck is larger than the state's MAX_MOTIVATION")
    if tb.deck.shape[1] + tb.rules[R_START_LINE_CROSSINGS] > st.hand.shape[1]:
        raise ValueError("a deck plus its Motivation cards is larger than the state's MAX_HAND")
    if tb.rules[R_FACE_UP_MOTIVATION] > MAX_FACE_UP or tb.rules[R_FACE_UP_MOTIVATION] < 0:
        raise ValueError("face_up_motivation is outside 0 .. MAX_FACE_UP")
    if tb.range_pos.shape[1] > MAX_VISITS:
        raise ValueError("more range visits than the state's MAX_VISITS")
    if tb.rules[R_N_DICE] > st.dice.shape[0] or tb.dice_colour.shape[0] != tb.rules[R_N_DICE]:
        raise ValueError("more dice than the state's MAX_DICE")
    for t in range(tb.n_grid_slots.shape[0]):
        if tb.n_grid_slots[t] < MAX_RACERS:
            raise ValueError("a start grid holds fewer than MAX_RACERS racers")


# The races without search seats (nearly all) compile without the rollout code: races with
# LOOKAHEAD or REFERENCE seats are played by kernels.blast_reference.search.play_races_reference_nb.
@entry_hot
def play_races_nb(tb, trails, n_racers, biathletes, colours, players, params, seed, races, st, out, visits,
                  log_cap):
    """Play races[i] on trails[i] with line-up row i; fill out[i * 6 + seat] for each seat and its
    range visits' records (write_results_nb). No seat
    may be LOOKAHEAD or REFERENCE (kernels.blast_reference.search.play_races_reference_nb plays those).

    trails, n_racers, races: int64[k]; biathletes, colours, players: int64[k, 6];
    params: float64[k, 6, n_params]; out, visits: kernels.blast.results.buffers(k) (rows of absent
    seats untouched);
    log_cap: room in st.log for the events of a race (0: no log; with one race, its log).
    """
    tb = borrow_tables_nb(tb)
    st = borrow_state_nb(st)
    check_capacity_nb(tb, st)
    red_usable = st.work[W_RED:W_RED + MAX_RACERS]
    for i in range(races.shape[0]):
        setup_nb(tb, trails[i], n_racers[i], biathletes[i], colours[i], players[i], params[i], seed,
                 races[i], st, log_cap)
        red_usable[:] = 0
        finish_race_nb(tb, trails[i], st, red_usable, False)
        write_results_nb(tb, trails[i], st, races[i], out, visits, i * MAX_RACERS)


unliteral_calls(globals())   # one compiled version per helper, not one per constant (kernels/nolit.py)
