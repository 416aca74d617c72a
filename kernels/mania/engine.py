"""The Biathlon Mania race kernel: plays a block of races and fills the seat and visit records.

Rules: docs/mania/rules.md (section numbers below refer to it). Log: docs/mania/event-log.md.

The kernel is deliberately plain: the track, the game and the set-up are three packed int arrays
(layouts in `consts`), the race state small int32 tables (seat, team, counters, and the racers
on each position, kept by `place_nb`). No NamedTuples, so calls are cheap even without inlining
tricks. Every die goes through `draw_nb`, which takes scripted faces first (tests) and the race's
random stream after.

Each race owns its stream: `seed_stream_nb(rng, seed, race index, STREAM_CHANCE)`, so a race's
records do not depend on the block it was played in, and `races` may be any indices.

Every helper is compiled for the plain types of its arguments (kernels/nolit.py), not once per
constant or integer width a caller passes: `ev_nb` was compiled 24 times, once per event kind;
now the kernel compiles 32 functions instead of 57 and its first compile took 5.9 against 6.7
CPU s side by side (benchmarks/compile_time.py mania --races=20000, empty caches), same tables.
The entry point allocates nothing and is compiled without reference counting (kernels/jit.py,
`entry_hot`): the kernel's compile took 5.1 and 5.3 against 5.6 and 5.7 CPU s checked
(NUMBA_BOUNDSCHECK=1 NUMBA_OPT=1), two runs side by side, same tables.
"""
from __future__ import annotations

import numpy as np

from kernels.borrow import borrow_nb
from kernels.jit import entry_hot, inline, outline
from kernels.nolit import unliteral_calls
from kernels.rng import STREAM_CHANCE, below_nb, seed_stream_nb

from .consts import (
    BLUE, CALIBRE, CN_CALIBRES, CN_FINISH_ROUND, CN_GROUP, CN_MISSES, CN_O_ROLLS,
    CN_PEN_LOOPS, CN_SKIPS, CN_SPARES, CN_T_JUMPS, CN_T_SQUARES, CN_TURNS, CN_X_ROLLS,
    CT_LOG_N, CT_LOG_OVERFLOW, CT_SCRIPT, CT_VISITS, EV_ARRIVE, EV_FINISH, EV_GROUP,
    EV_HANDOVER, EV_LAST_RANGE, EV_LEADER, EV_MOVE, EV_O, EV_PLACE, EV_RACE, EV_ROLL,
    EV_ROUND, EV_SEAT, EV_SHOOT_END, EV_SHOT, EV_SKIP, EV_STALL, EV_STATE, EV_T, EV_X,
    FINISH_AREA, FINISHED, G_CALIBRE_SPARE, G_CHAIN, G_EXIT_SAME, G_EXIT_SQUARE, G_FINISH_TIES,
    G_HALVE_UP, G_LINES, G_NUM_FACES, G_NUM_N, G_PENALTY_GATE, G_ROUND_CAP, G_SHOOT_FACES,
    G_SHOOT_N, G_SHOTS_ALL, G_SPECIALS_PASS, G_SPECIALS_PUSH, G_TARGETS, G_TWO_RACERS,
    G_ZONE_STEPS, GATE_ONE, GATE_TWO, HIT, LOOP, MARK_O, MARK_T, MARK_X, MAX_SUB, PENALTY,
    RANGE, ROLL_EXIT, ROLL_MOVE, ROLL_O, ROLL_X, ST_FIRED, ST_FROM_PEN, ST_HITS, ST_LAP,
    ST_LEFT, ST_OVER, ST_OWED, ST_PASS_O, ST_PASS_T, ST_PASS_X, ST_SKIP, ST_SPARES, ST_SQ,
    ST_STAGE, ST_STANDING, ST_VISIT, START, SU_DIE, SU_FORMAT, SU_LAPS, SU_LEGS, SU_LOG,
    SU_NUM_DICE, SU_SEATS, SU_SHOOT_DICE, SU_SHOOT_MASK, SU_SHOOTINGS, SU_SPARES, SU_TEAMS,
    SU_TRACK, TIES_SHARED, TIES_TURN, TM_DONE, TM_LEFT, TM_LEG, TM_PLACE, TR_CORR, TR_ENTRY,
    TR_EXIT, TR_F, TR_HDR, TR_N, TR_P, VS_CALIBRES, VS_ROW, VS_SPARE_HITS, VS_SPARES, VS_TURNS,
    WAITING, WHITE,
)

BIG = 1 << 20
NO_MOVE = -1           # a turn on the range that moves nobody (a purpose no roll has)


# --- chance and the log ----------------------------------------------------------------------
@inline
def draw_nb(rng, script, ct, n):
    """A die face index in [0, n): the next scripted face while the script lasts (tests), then
    the race's random stream. The one place where chance enters the game."""
    i = ct[CT_SCRIPT]
    if i < script.shape[0]:
        ct[CT_SCRIPT] = i + 1
        f = script[i]
        if f < 0 or f >= n:
            raise ValueError("scripted die face out of range for this die")
        return f
    return below_nb(rng, n)


@inline
def ev_nb(log, ct, rnd, seat, kind, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9):
    """Append one event row (callers write only where the race is logged)."""
    i = np.int64
    ev_write_nb(log, ct, i(rnd), i(seat), i(kind), i(a0), i(a1), i(a2), i(a3), i(a4), i(a5), i(a6), i(a7),
                i(a8), i(a9))


@outline
def ev_write_nb(log, ct, rnd, seat, kind, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9):
    """One event row; a full log sets the overflow flag and writes nothing. The log's only writer:
    one compiled copy (int64 arguments: one signature), not one per event."""
    i = ct[CT_LOG_N]
    if i >= log.shape[0]:
        ct[CT_LOG_OVERFLOW] = 1
        return
    log[i, 0] = rnd
    log[i, 1] = seat
    log[i, 2] = kind
    log[i, 3] = a0
    log[i, 4] = a1
    log[i, 5] = a2
    log[i, 6] = a3
    log[i, 7] = a4
    log[i, 8] = a5
    log[i, 9] = a6
    log[i, 10] = a7
    log[i, 11] = a8
    log[i, 12] = a9
    ct[CT_LOG_N] = i + 1


# --- the track --------------------------------------------------------------------------------
@inline
def zone_at_nb(tr, stage, sq):
    """The zone of a position (section 5): START area, range and finish line count as white."""
    n = tr[TR_N]
    if stage == LOOP:
        return tr[TR_HDR + sq]
    if stage == PENALTY:
        return tr[TR_HDR + 3 * n + sq]
    if stage == FINISH_AREA:
        return tr[TR_HDR + 3 * n + tr[TR_P] + sq]
    return WHITE


@inline
def next_pos_nb(tr, su, lap, stage, sq, owed):
    """The next position along a racer's own route (section 6): (lap, stage, square, owed)."""
    n = tr[TR_N]
    if stage == START:
        return 1, LOOP, 0, owed
    if stage == LOOP:
        e = tr[TR_ENTRY]
        if sq == e and owed > 0:
            return lap, PENALTY, 0, owed
        if sq < n - 1:
            return lap, LOOP, sq + 1, owed
        if lap >= su[SU_LAPS]:
            if tr[TR_F] > 0:
                return lap, FINISH_AREA, 0, owed
            return lap, FINISHED, 0, owed
        if (su[SU_SHOOT_MASK] >> (lap - 1)) & 1:
            return lap, RANGE, 0, owed
        return lap + 1, LOOP, 0, owed
    if stage == PENALTY:
        if sq < tr[TR_P] - 1:
            return lap, PENALTY, sq + 1, owed
        if owed > 1:
            return lap, PENALTY, 0, owed - 1
        return lap, LOOP, tr[TR_ENTRY] + 1, 0
    if stage == FINISH_AREA:
        if sq < tr[TR_F] - 1:
            return lap, FINISH_AREA, sq + 1, owed
        return lap, FINISHED, 0, owed
    if stage == RANGE:
        return lap + 1, LOOP, tr[TR_EXIT], owed
    return lap, stage, sq, owed


@inline
def place_nb(st, occ, seat, stage, sq):
    """Put `seat` on (stage, sq). Every change of a racer's position goes through here, so that
    `occ[stage, sq]`, the racers on each position, stays in step with the seat table."""
    occ[st[seat, ST_STAGE], st[seat, ST_SQ]] -= 1
    occ[stage, sq] += 1
    st[seat, ST_STAGE] = stage
    st[seat, ST_SQ] = sq


@inline
def advance_nb(tr, su, st, occ, cnt, seat):
    """One step along the route for `seat`, in place; counts completed penalty loops."""
    lap = st[seat, ST_LAP]
    stage = st[seat, ST_STAGE]
    sq = st[seat, ST_SQ]
    if stage == PENALTY and sq == tr[TR_P] - 1:
        cnt[seat, CN_PEN_LOOPS] += 1
    from_pen = 1 if stage == PENALTY else 0
    lap, stage, sq, owed = next_pos_nb(tr, su, lap, stage, sq, st[seat, ST_OWED])
    st[seat, ST_FROM_PEN] = from_pen if stage == LOOP else 0
    st[seat, ST_LAP] = lap
    place_nb(st, occ, seat, stage, sq)
    st[seat, ST_OWED] = owed
    return stage


@inline
def full_nb(tr, g, st, occ, seat, stage, sq):
    """Whether the position is full for `seat` standing on it (section 7): as many other racers
    as it holds, or, under penalty_gate "bypass", one other on the same branch of the fork.
    `occ` counts the others (place_nb): a scan of every seat's position here took a fifth of a
    red sprint's time (perf, benchmarks/skitour_profile.py)."""
    c = occ[stage, sq] - 1
    if stage == LOOP:
        e = tr[TR_ENTRY]
        if sq != e and sq != e + 1:
            return c >= 1
        gate = g[G_PENALTY_GATE]
        if gate == GATE_TWO:
            return c >= 2
        if gate == GATE_ONE or c >= 2:
            return c >= 1
        if c == 0:
            return False
        for s in range(st.shape[0]):
            if s != seat and st[s, ST_STAGE] == LOOP and st[s, ST_SQ] == sq:
                if sq == e:         # the fork: into the penalty loop (owing) or past it
                    return (st[s, ST_OWED] > 0) == (st[seat, ST_OWED] > 0)
                return st[s, ST_FROM_PEN] == st[seat, ST_FROM_PEN]   # the join
        return False
    if stage == PENALTY:
        return c >= 1
    if stage == FINISH_AREA:
        return c >= tr[TR_CORR]
    return False


@inline
def dist_nb(tr, su, rl, st, seat):
    """Distance left of one racer (section 12); `rl[l]` is R(l)."""
    n = tr[TR_N]
    p = tr[TR_P]
    e = tr[TR_ENTRY]
    stage = st[seat, ST_STAGE]
    sq = st[seat, ST_SQ]
    lap = st[seat, ST_LAP]
    owed = st[seat, ST_OWED]
    if stage == LOOP:
        if sq <= e:
            return n - 1 - sq + owed * p + rl[lap]
        return n - 1 - sq + rl[lap]
    if stage == PENALTY:
        return p - 1 - sq + (owed - 1) * p + n - 1 - e + rl[lap]
    if stage == RANGE:
        return 1 + n - 1 - tr[TR_EXIT] + owed * p + rl[lap + 1]
    if stage == FINISH_AREA:
        return tr[TR_F] - sq
    if stage == FINISHED:
        return 0
    return n + rl[1]          # START area, WAITING


@inline
def team_dist_nb(tr, su, rl, st, tm, team):
    """A team's distance left: its active leg's plus a whole leg per leg still to run."""
    if tm[team, TM_DONE]:
        return 0
    legs = su[SU_LEGS]
    leg = tm[team, TM_LEG]
    full = tr[TR_N] + rl[1]
    return dist_nb(tr, su, rl, st, team * legs + leg) + full * (legs - 1 - leg)


# --- moving -----------------------------------------------------------------------------------
@inline
def passed_nb(tr, st, seat):
    """specials_on "passing" (section 11): note the mark of the loop square just stepped onto;
    1 if it is a T, which ends the move there."""
    if st[seat, ST_STAGE] != LOOP:
        return 0
    mark = tr[TR_HDR + tr[TR_N] + st[seat, ST_SQ]]
    if mark == MARK_X:
        st[seat, ST_PASS_X] += 1
    elif mark == MARK_O:
        st[seat, ST_PASS_O] += 1
    elif mark == MARK_T:
        st[seat, ST_PASS_T] = 1
        return 1
    return 0


@inline
def dice_move_nb(tr, g, su, st, occ, cnt, seat, roll):
    """Move `seat` by `roll` under the zone rule (section 5); the steps taken. Stops on
    entering the range or crossing the finish line (and, specials_on "passing", on a T). Leaves
    the unused part of the roll in ST_LEFT (squares; half-points under zone_rule "steps")."""
    steps = 0
    passing = g[G_SPECIALS_PASS] != 0
    by_steps = g[G_ZONE_STEPS] != 0
    st[seat, ST_PASS_X] = 0
    st[seat, ST_PASS_O] = 0
    st[seat, ST_PASS_T] = 0
    if by_steps:
        budget = 2 * roll           # half-points: a white square costs 2, blue 4, green 1
    else:
        z = zone_at_nb(tr, st[seat, ST_STAGE], st[seat, ST_SQ])
        if z == WHITE:
            budget = roll           # squares
        elif z == BLUE:
            budget = (roll + g[G_HALVE_UP]) // 2
        else:
            budget = 2 * roll
        sq = st[seat, ST_SQ]
        if (not passing and st[seat, ST_STAGE] == LOOP and sq + budget < tr[TR_N]
                and (st[seat, ST_OWED] == 0 or sq > tr[TR_ENTRY])):
            place_nb(st, occ, seat, LOOP, sq + budget)   # within the loop, no penalty loop to enter
            st[seat, ST_FROM_PEN] = 0 if budget > 0 else st[seat, ST_FROM_PEN]
            st[seat, ST_LEFT] = 0
            return budget
    while budget > 0:
        if by_steps:
            lap, stage, sq, owed = next_pos_nb(tr, su, st[seat, ST_LAP], st[seat, ST_STAGE],
                                               st[seat, ST_SQ], st[seat, ST_OWED])
            z = zone_at_nb(tr, stage, sq)
            cost = 2 if z == WHITE else (4 if z == BLUE else 1)
            if budget >= cost:
                budget -= cost
            elif g[G_HALVE_UP]:
                budget = 0
            else:
                break
        else:
            budget -= 1
        stage = advance_nb(tr, su, st, occ, cnt, seat)
        steps += 1
        if stage == RANGE or stage == FINISHED:
            break
        if passing and passed_nb(tr, st, seat):
            break
    st[seat, ST_LEFT] = budget
    return steps


@inline
def push_nb(tr, g, su, st, occ, cnt, seat):
    """The group rule (section 7): step on while the position is full; squares gained."""
    k = 0
    while True:
        stage = st[seat, ST_STAGE]
        sq = st[seat, ST_SQ]
        if stage != LOOP and stage != PENALTY and stage != FINISH_AREA:
            break
        if not full_nb(tr, g, st, occ, seat, stage, sq):
            break
        advance_nb(tr, su, st, occ, cnt, seat)
        k += 1
    if k > 0:
        st[seat, ST_LEFT] = 0
    cnt[seat, CN_GROUP] += k
    return k


@inline
def arrive_nb(g, su, st, occ, vs, visits, ct, seat, race, rnd, legs):
    """Line up on the range (section 8): the furthest free line; open the visit record."""
    line = g[G_LINES]
    while line > 1 and occ[RANGE, line] > 0:     # the racer itself stands on line 0
        line -= 1
    place_nb(st, occ, seat, RANGE, line)
    st[seat, ST_VISIT] += 1
    st[seat, ST_FIRED] = 0
    st[seat, ST_HITS] = 0
    st[seat, ST_STANDING] = g[G_TARGETS]
    st[seat, ST_SPARES] = su[SU_SPARES]
    st[seat, ST_OVER] = 0
    st[seat, ST_OWED] = 0
    row = ct[CT_VISITS]
    ct[CT_VISITS] = row + 1
    vs[seat, VS_ROW] = row
    vs[seat, VS_CALIBRES] = 0
    vs[seat, VS_SPARES] = 0
    vs[seat, VS_SPARE_HITS] = 0
    vs[seat, VS_TURNS] = 0
    v = visits[row]
    v.race = race
    v.seat = seat
    v.team = seat // legs
    v.leg = seat % legs
    v.visit = st[seat, ST_VISIT]
    v.shots = 0
    v.hits = 0
    v.misses = 0
    v.penalties = 0
    v.line = line
    v.calibres = 0
    v.spare_shots = 0
    v.spare_hits = 0
    v.arrive_round = rnd
    v.shoot_turns = 0
    return line


@inline
def shoot_nb(g, su, st, cnt, vs, visits, rng, script, ct, log, logging, seat, rnd):
    """One shooting turn (section 8): fire the turn's dice (shots_per_turn "all": the whole
    shooting); 1 if the shooting is now over."""
    die = su[SU_DIE]
    nf = g[G_SHOOT_N + die]
    base = G_SHOOT_FACES + die * MAX_SUB
    targets = g[G_TARGETS]
    dice = 1 if g[G_TWO_RACERS] else su[SU_SHOOT_DICE]
    every = g[G_SHOTS_ALL] != 0
    cal_spare = g[G_CALIBRE_SPARE] != 0
    vs[seat, VS_TURNS] += 1
    while True:
        fired = st[seat, ST_FIRED]
        if fired < targets:
            k = targets - fired if every else min(dice, targets - fired)
            spare = 0
        else:
            k = min(st[seat, ST_SPARES], st[seat, ST_STANDING])
            if not every:
                k = min(dice, k)
            spare = 1
        for _ in range(k):
            if spare and st[seat, ST_SPARES] <= 0:
                break                   # a calibre's re-roll used the last spare
            f = draw_nb(rng, script, ct, nf)
            kind = g[base + f]
            rf = -1
            rk = -1
            if kind == CALIBRE:
                cnt[seat, CN_CALIBRES] += 1
                vs[seat, VS_CALIBRES] += 1
                if spare and cal_spare and st[seat, ST_SPARES] < 2:
                    hit = False         # no spare left for the re-roll: the calibre misses
                else:
                    rf = draw_nb(rng, script, ct, nf)
                    rk = g[base + rf]
                    hit = rk == HIT
                    if spare and cal_spare:
                        st[seat, ST_SPARES] -= 1
                        cnt[seat, CN_SPARES] += 1
                        vs[seat, VS_SPARES] += 1
            else:
                hit = kind == HIT
            st[seat, ST_FIRED] += 1
            if hit:
                st[seat, ST_HITS] += 1
                st[seat, ST_STANDING] -= 1
            if spare:
                st[seat, ST_SPARES] -= 1
                cnt[seat, CN_SPARES] += 1
                vs[seat, VS_SPARES] += 1
                if hit:
                    vs[seat, VS_SPARE_HITS] += 1
            if logging:
                ev_nb(log, ct, rnd, seat, EV_SHOT, st[seat, ST_FIRED], spare, f, kind, rf, rk,
                      1 if hit else 0, st[seat, ST_HITS], st[seat, ST_STANDING], 0)
        standing = st[seat, ST_STANDING]
        over = st[seat, ST_FIRED] >= targets and (standing == 0 or st[seat, ST_SPARES] == 0)
        if over or not every:
            break
    v = visits[vs[seat, VS_ROW]]
    v.shots = st[seat, ST_FIRED]
    v.hits = st[seat, ST_HITS]
    v.calibres = vs[seat, VS_CALIBRES]
    v.spare_shots = vs[seat, VS_SPARES]
    v.spare_hits = vs[seat, VS_SPARE_HITS]
    v.shoot_turns = vs[seat, VS_TURNS]
    if over:
        st[seat, ST_OVER] = 1
        st[seat, ST_OWED] = standing
        cnt[seat, CN_MISSES] += standing
        v.misses = standing
        v.penalties = standing
        if logging:
            ev_nb(log, ct, rnd, seat, EV_SHOOT_END, st[seat, ST_VISIT], st[seat, ST_FIRED],
                  st[seat, ST_HITS], standing, vs[seat, VS_SPARES], 0, 0, 0, 0, 0)
        return 1
    return 0


@inline
def finish_nb(su, st, occ, tm, cnt, ct, log, logging, seat, rnd, counts):
    """The racer crossed the line (section 10): place, or relay handover (section 3)."""
    legs = su[SU_LEGS]
    team = seat // legs
    leg = seat % legs
    cnt[seat, CN_FINISH_ROUND] = rnd
    if leg == legs - 1:
        tm[team, TM_LEFT] = st[seat, ST_LEFT]
    if leg < legs - 1:
        nxt = seat + 1
        tm[team, TM_LEG] = leg + 1
        place_nb(st, occ, nxt, START, 0)
        st[nxt, ST_LAP] = 1
        if logging:
            ev_nb(log, ct, rnd, seat, EV_FINISH, 0, leg, 0, 0, 0, 0, 0, 0, 0, 0)
            ev_nb(log, ct, rnd, nxt, EV_HANDOVER, team, leg + 1, 0, 0, 0, 0, 0, 0, 0, 0)
    else:
        counts[0] += 1
        tm[team, TM_DONE] = 1
        tm[team, TM_PLACE] = counts[0]
        if logging:
            ev_nb(log, ct, rnd, seat, EV_FINISH, counts[0], leg, 0, 0, 0, 0, 0, 0, 0, 0)


@inline
def x_nb(tr, su, rl, st, tm, cnt, ct, log, logging, seat, team, rnd, tdist, may_extra):
    """An X square acts (section 11): skip for the first, extra move for the last; 1 if an
    extra move is granted."""
    own = team_dist_nb(tr, su, rl, st, tm, team)
    lo = BIG
    hi = -1
    for t in range(su[SU_TEAMS]):
        if t != team:
            d = tdist[t]            # up to date: only this racer has moved
            lo = min(lo, d)
            hi = max(hi, d)
    outcome = 0
    if hi >= 0:
        is_first = own <= lo
        is_last = own >= hi
        if is_first and not is_last:
            outcome = 1
            st[seat, ST_SKIP] = 1
        elif is_last and not is_first:
            if may_extra:
                outcome = 2
                cnt[seat, CN_X_ROLLS] += 1
            else:
                outcome = 3
    else:
        lo = -1
    if logging:
        ev_nb(log, ct, rnd, seat, EV_X, outcome, own, lo, hi, 0, 0, 0, 0, 0, 0)
    return 1 if outcome == 2 else 0


@inline
def o_nb(cnt, ct, log, logging, seat, rnd, may_extra):
    """An O square acts (section 11); 1 if an extra move is granted."""
    if may_extra:
        cnt[seat, CN_O_ROLLS] += 1
    if logging:
        ev_nb(log, ct, rnd, seat, EV_O, 1 if may_extra else 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    return 1 if may_extra else 0


@inline
def pushed_nb(tr, g, su, st, occ, tm, cnt, vs, visits, ct, log, logging, seat, rnd, race, legs,
              counts):
    """The group rule after a move or a T jump, with its GROUP row, a range arrival or a finish;
    returns (squares gained, 1 if the racer is now in the range or over the line)."""
    pushed = push_nb(tr, g, su, st, occ, cnt, seat)
    if pushed == 0:
        return 0, 0
    stage = st[seat, ST_STAGE]
    line = 0
    if stage == RANGE:
        line = arrive_nb(g, su, st, occ, vs, visits, ct, seat, race, rnd, legs)
    if logging:
        ev_nb(log, ct, rnd, seat, EV_GROUP, pushed, st[seat, ST_LAP], stage, st[seat, ST_SQ],
              0, 0, 0, 0, 0, 0)
    if stage == RANGE:
        if logging:
            ev_nb(log, ct, rnd, seat, EV_ARRIVE, st[seat, ST_VISIT], line, 0, 0, 0, 0, 0, 0, 0, 0)
        return pushed, 1
    if stage == FINISHED:
        finish_nb(su, st, occ, tm, cnt, ct, log, logging, seat, rnd, counts)
        return pushed, 1
    return pushed, 0


@inline
def t_nb(tr, g, su, st, occ, tm, cnt, vs, visits, ct, log, logging, seat, rnd, race, legs, counts):
    """A T square acts (section 11): the jump, then the group rule; 1 if that push reached the
    range or the line."""
    sq = st[seat, ST_SQ]
    target = tr[TR_HDR + 2 * tr[TR_N] + sq]
    place_nb(st, occ, seat, LOOP, target)
    cnt[seat, CN_T_JUMPS] += 1
    cnt[seat, CN_T_SQUARES] += target - sq
    if logging:
        ev_nb(log, ct, rnd, seat, EV_T, sq, target, target - sq, 0, 0, 0, 0, 0, 0, 0)
    pushed, ended = pushed_nb(tr, g, su, st, occ, tm, cnt, vs, visits, ct, log, logging, seat, rnd,
                              race, legs, counts)
    return ended


@inline
def turn_moves_nb(tr, g, su, rl, st, occ, tm, cnt, vs, visits, rng, script, ct, log, logging,
                  seat, rnd, race, purpose, counts, tdist):
    """A move and its chain of extra moves (sections 5, 7, 8, 10, 11). Returns 1 when the racer
    left its final range visit with this move (for leader_after_range)."""
    legs = su[SU_LEGS]
    team = seat // legs
    nnum = g[G_NUM_N]
    ndice = 1 if g[G_TWO_RACERS] else su[SU_NUM_DICE]
    passing = g[G_SPECIALS_PASS] != 0
    left_last = 0
    first = True
    pend_x = 0
    pend_o = 0
    while True:
        line = 0
        # the roll
        f1 = draw_nb(rng, script, ct, nnum)
        v1 = g[G_NUM_FACES + f1]
        f2 = -1
        v2 = 0
        if ndice == 2:
            f2 = draw_nb(rng, script, ct, nnum)
            v2 = g[G_NUM_FACES + f2]
        roll = v1 + v2
        if logging:
            ev_nb(log, ct, rnd, seat, EV_ROLL, purpose, ndice, f1, f2, v1, v2, roll, 0, 0, 0)
        if purpose == ROLL_EXIT:
            if st[seat, ST_VISIT] == su[SU_SHOOTINGS] and (seat % legs) == legs - 1:
                left_last = 1
            if g[G_EXIT_SQUARE]:
                st[seat, ST_LAP] += 1
                place_nb(st, occ, seat, LOOP, tr[TR_EXIT])
        lap0 = st[seat, ST_LAP]
        stage0 = st[seat, ST_STAGE]
        sq0 = st[seat, ST_SQ]
        steps = dice_move_nb(tr, g, su, st, occ, cnt, seat, roll)
        stage = st[seat, ST_STAGE]
        if stage == RANGE:
            line = arrive_nb(g, su, st, occ, vs, visits, ct, seat, race, rnd, legs)
        if logging:
            ev_nb(log, ct, rnd, seat, EV_MOVE, lap0, stage0, sq0, steps, st[seat, ST_LAP], stage,
                  st[seat, ST_SQ], 0, 0, 0)
        if stage == RANGE:
            if logging:
                ev_nb(log, ct, rnd, seat, EV_ARRIVE, st[seat, ST_VISIT], line, 0, 0, 0, 0, 0, 0,
                      0, 0)
            break
        if stage == FINISHED:
            finish_nb(su, st, occ, tm, cnt, ct, log, logging, seat, rnd, counts)
            break
        may_extra = first or g[G_CHAIN] != 0
        if passing:
            # specials_on "passing": the move ends (a T stepped onto jumps at once; else the
            # group rule and the special of a square it pushes onto), then every X and O
            # stepped onto acts, X first
            if st[seat, ST_PASS_T]:
                if t_nb(tr, g, su, st, occ, tm, cnt, vs, visits, ct, log, logging, seat, rnd, race,
                        legs, counts):
                    break
            else:
                pushed, ended = pushed_nb(tr, g, su, st, occ, tm, cnt, vs, visits, ct, log, logging,
                                          seat, rnd, race, legs, counts)
                if ended:
                    break
                if (pushed > 0 and steps > 0 and g[G_SPECIALS_PUSH]
                        and st[seat, ST_STAGE] == LOOP):
                    mark = tr[TR_HDR + tr[TR_N] + st[seat, ST_SQ]]
                    if mark == MARK_X:
                        pend_x += x_nb(tr, su, rl, st, tm, cnt, ct, log, logging, seat, team,
                                       rnd, tdist, may_extra)
                    elif mark == MARK_T:
                        if t_nb(tr, g, su, st, occ, tm, cnt, vs, visits, ct, log, logging, seat,
                                rnd, race, legs, counts):
                            break
                    elif mark == MARK_O:
                        pend_o += o_nb(cnt, ct, log, logging, seat, rnd, may_extra)
            for _ in range(st[seat, ST_PASS_X]):
                pend_x += x_nb(tr, su, rl, st, tm, cnt, ct, log, logging, seat, team, rnd,
                               tdist, may_extra)
            for _ in range(st[seat, ST_PASS_O]):
                pend_o += o_nb(cnt, ct, log, logging, seat, rnd, may_extra)
        else:
            pushed, ended = pushed_nb(tr, g, su, st, occ, tm, cnt, vs, visits, ct, log, logging,
                                      seat, rnd, race, legs, counts)
            if ended:
                break
            if pushed > 0 and not g[G_SPECIALS_PUSH]:
                break
            if steps == 0 or st[seat, ST_STAGE] != LOOP:
                break
            mark = tr[TR_HDR + tr[TR_N] + st[seat, ST_SQ]]
            if mark == MARK_X:
                pend_x += x_nb(tr, su, rl, st, tm, cnt, ct, log, logging, seat, team, rnd,
                               tdist, may_extra)
            elif mark == MARK_T:
                t_nb(tr, g, su, st, occ, tm, cnt, vs, visits, ct, log, logging, seat, rnd, race,
                     legs, counts)
            elif mark == MARK_O:
                pend_o += o_nb(cnt, ct, log, logging, seat, rnd, may_extra)
        if pend_x > 0:
            pend_x -= 1
            purpose = ROLL_X
        elif pend_o > 0:
            pend_o -= 1
            purpose = ROLL_O
        else:
            break
        first = False
    return left_last


@inline
def tie_places_nb(g, tm, cnt, order, n_teams, legs, n_done):
    """finish_ties (section 10): re-place the teams that finished. Ordered by the round their
    last leg crossed, then (leftover) the larger unused roll of the crossing move, then crossing
    order; shared: the teams of one round share the best of their places."""
    for p in range(1, n_done + 1):
        for t in range(n_teams):
            if tm[t, TM_DONE] and tm[t, TM_PLACE] == p:
                order[p - 1] = t
    shared = g[G_FINISH_TIES] == TIES_SHARED
    for i in range(1, n_done):            # insertion sort, stable
        t = order[i]
        rt = cnt[t * legs + legs - 1, CN_FINISH_ROUND]
        j = i - 1
        while j >= 0:
            u = order[j]
            ru = cnt[u * legs + legs - 1, CN_FINISH_ROUND]
            if ru > rt or (not shared and ru == rt and tm[u, TM_LEFT] < tm[t, TM_LEFT]):
                order[j + 1] = u
                j -= 1
            else:
                break
        order[j + 1] = t
    prev = -1
    place = 0
    for i in range(n_done):
        t = order[i]
        r = cnt[t * legs + legs - 1, CN_FINISH_ROUND]
        if not shared or r != prev:
            place = i + 1
        prev = r
        tm[t, TM_PLACE] = place


@inline
def log_state_nb(tr, su, rl, st, cnt, ct, log, seat, rnd):
    ev_nb(log, ct, rnd, seat, EV_STATE, st[seat, ST_LAP], st[seat, ST_STAGE], st[seat, ST_SQ],
          st[seat, ST_OWED], st[seat, ST_FIRED], st[seat, ST_STANDING], st[seat, ST_SPARES],
          st[seat, ST_SKIP], dist_nb(tr, su, rl, st, seat), cnt[seat, CN_TURNS])


# --- the block entry point --------------------------------------------------------------------
@entry_hot
def play_races_nb(tr, g, su, seed, races, colours, script, seats_out, visits_out, log, ct,
                  st, occ, tm, cnt, vs, rng, aux):
    """Play `races` (int64 race indices) of one set-up; fill the records.

    tr: int16[track row], g: int16[G_LEN], su: int64[SU_LEN] (consts for all three).
    colours: int16[len(races), seats] figure colours (cosmetic) or -1.
    script: int64 faces drawn before the random stream (empty for random races).
    seats_out: SEAT_DTYPE[len(races) * seats], row = race slot * seats + seat.
    visits_out: VISIT_DTYPE[len(races) * seats * shootings]; ct[CT_VISITS] rows are written.
    log: int16[rows, LOG_COLS]; written when su[SU_LOG] is 1 (one race per call is sensible).
    ct: int64[CT_N] counters (visits written, log rows, log overflow, script faces used).
    Work space the caller allocates (and so keeps alive): st int32[seats, ST_N], occ
    int32[stages, max(loop squares, range lines + 1, MAX_SUB)] (the racers on each position,
    place_nb), tm int32[teams, TM_N], cnt int32[seats, CN_N], vs int32[seats, VS_N],
    rng uint64[1], aux int64[1 + 2 * teams + laps + 2].

    Every array is used through a borrowed view (kernels/borrow.py): numba's atomic reference
    counts on arrays handed to helpers took 85% of the time (measured with perf).
    """
    tr = borrow_nb(tr)
    g = borrow_nb(g)
    su = borrow_nb(su)
    races = borrow_nb(races)
    colours = borrow_nb(colours)
    script = borrow_nb(script)
    seats_out = borrow_nb(seats_out)
    visits_out = borrow_nb(visits_out)
    log = borrow_nb(log)
    ct = borrow_nb(ct)
    st = borrow_nb(st)
    occ = borrow_nb(occ)
    tm = borrow_nb(tm)
    cnt = borrow_nb(cnt)
    vs = borrow_nb(vs)
    rng = borrow_nb(rng)
    aux = borrow_nb(aux)
    n = su[SU_SEATS]
    n_teams = su[SU_TEAMS]
    legs = su[SU_LEGS]
    laps = su[SU_LAPS]
    logging = su[SU_LOG] != 0
    round_cap = g[G_ROUND_CAP]
    nl = tr[TR_N]
    counts = aux[0:1]
    order = aux[1:1 + n_teams]
    tdist = aux[1 + n_teams:1 + 2 * n_teams]
    rl = aux[1 + 2 * n_teams:1 + 2 * n_teams + laps + 2]
    # R(l), rules.md section 12
    rl[:] = 0
    rl[laps] = tr[TR_F] + 1
    for lap in range(laps - 1, 0, -1):
        if (su[SU_SHOOT_MASK] >> (lap - 1)) & 1:
            rl[lap] = 2 + nl - 1 - tr[TR_EXIT] + rl[lap + 1]
        else:
            rl[lap] = nl + rl[lap + 1]

    for slot in range(races.shape[0]):
        race = races[slot]
        seed_stream_nb(rng, seed, race, STREAM_CHANCE)
        st[:, :] = 0
        occ[:, :] = 0
        occ[START, 0] = n
        tm[:, :] = 0
        cnt[:, :] = 0
        vs[:, :] = -1
        counts[0] = 0
        for s in range(n):
            st[s, ST_LAP] = 1 if s % legs == 0 else 0
            if s % legs:
                place_nb(st, occ, s, WAITING, 0)
            cnt[s, CN_FINISH_ROUND] = -1
        full = nl + rl[1]
        for t in range(n_teams):
            tdist[t] = full * legs
        best = full * legs                 # the least of tdist, kept up to date below
        leader = -1
        lead_changes = 0
        last_range_team = -1
        if logging:
            ev_nb(log, ct, 0, -1, EV_RACE, su[SU_TRACK], su[SU_FORMAT], n, n_teams, legs,
                  su[SU_NUM_DICE], su[SU_SHOOT_DICE], su[SU_DIE], round_cap, 0)
            for s in range(n):
                ev_nb(log, ct, 0, s, EV_SEAT, s // legs, s % legs, colours[slot, s], 0, 0, 0, 0,
                      0, 0, 0)
            for s in range(n):
                log_state_nb(tr, su, rl, st, cnt, ct, log, s, 0)
        rnd = 0
        done = False
        while rnd < round_cap and not done:
            rnd += 1
            if logging:
                ev_nb(log, ct, rnd, -1, EV_ROUND, rnd, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            for team in range(n_teams):
                if tm[team, TM_DONE]:
                    continue
                seat = team * legs + tm[team, TM_LEG]
                if st[seat, ST_SKIP]:
                    st[seat, ST_SKIP] = 0
                    cnt[seat, CN_SKIPS] += 1
                    if logging:
                        ev_nb(log, ct, rnd, seat, EV_SKIP, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                        log_state_nb(tr, su, rl, st, cnt, ct, log, seat, rnd)
                    continue
                cnt[seat, CN_TURNS] += 1
                left_last = 0
                # a move off the range (ROLL_EXIT: after the last shot, or on the next turn), or
                # on the course (ROLL_MOVE); one call site, so the move is compiled once
                purpose = ROLL_MOVE
                if st[seat, ST_STAGE] == RANGE:
                    purpose = ROLL_EXIT
                    if st[seat, ST_OVER] == 0:
                        over = shoot_nb(g, su, st, cnt, vs, visits_out, rng, script, ct, log,
                                        logging, seat, rnd)
                        if not (over and g[G_EXIT_SAME]):
                            purpose = NO_MOVE
                if purpose != NO_MOVE:
                    left = turn_moves_nb(tr, g, su, rl, st, occ, tm, cnt, vs, visits_out, rng,
                                         script, ct, log, logging, seat, rnd, race, purpose,
                                         counts, tdist)
                    if purpose == ROLL_EXIT:
                        left_last = left
                if logging:
                    log_state_nb(tr, su, rl, st, cnt, ct, log, seat, rnd)
                # the leader (section 12); only the acting team's distance has changed, so the
                # least distance is read again only when that team held it and fell back
                # (reading tdist whole just after this store stalled on every turn: perf)
                old = tdist[team]
                d = team_dist_nb(tr, su, rl, st, tm, team)
                tdist[team] = d
                if d <= best:
                    best = d
                elif old == best:
                    best = BIG
                    for t in range(n_teams):
                        if tdist[t] < best:     # not min(): one compile of it fewer here
                            best = tdist[t]
                new = leader
                if leader < 0 or tdist[leader] != best:
                    for t in range(n_teams):
                        if tdist[t] == best:
                            new = t
                            break
                if new != leader:
                    if leader >= 0:
                        lead_changes += 1
                    leader = new
                    if logging:
                        ev_nb(log, ct, rnd, -1, EV_LEADER, leader, lead_changes, best, 0, 0, 0,
                              0, 0, 0, 0)
                if left_last and last_range_team < 0:
                    last_range_team = leader
                    if logging:
                        ev_nb(log, ct, rnd, -1, EV_LAST_RANGE, leader, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                if counts[0] == n_teams:
                    done = True
                    break
        stalled = 0 if done else 1
        if stalled:
            if logging:
                ev_nb(log, ct, rnd, -1, EV_STALL, round_cap, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            # places for the teams still racing: by distance left, ties by team
            k = 0
            for t in range(n_teams):
                if not tm[t, TM_DONE]:
                    order[k] = t
                    tdist[t] = team_dist_nb(tr, su, rl, st, tm, t)
                    k += 1
            for i in range(1, k):          # insertion sort, stable
                t = order[i]
                j = i - 1
                while j >= 0 and tdist[order[j]] > tdist[t]:
                    order[j + 1] = order[j]
                    j -= 1
                order[j + 1] = t
            for i in range(k):
                tm[order[i], TM_PLACE] = counts[0] + 1 + i
        if g[G_FINISH_TIES] != TIES_TURN:
            tie_places_nb(g, tm, cnt, order, n_teams, legs, counts[0])
        # records
        base = slot * n
        for s in range(n):
            team = s // legs
            r = seats_out[base + s]
            r.race = race
            r.scenario = su[SU_TRACK]
            r.n_racers = n
            r.seat = s
            r.team = team
            r.leg = s % legs
            r.player = 0
            r.place = tm[team, TM_PLACE]
            r.won = 1 if tm[team, TM_PLACE] == 1 else 0
            r.finished = 1 if st[s, ST_STAGE] == FINISHED else 0
            r.eliminated = 0
            r.elim_cause = 0
            r.rounds = rnd
            r.stalled = stalled
            r.distance_left = dist_nb(tr, su, rl, st, s)
            r.penalty_laps = cnt[s, CN_PEN_LOOPS]
            r.lead_changes = lead_changes
            r.leader_after_range = 1 if team == last_range_team else 0
            r.format = su[SU_FORMAT]
            r.colour = colours[slot, s]
            r.turns = cnt[s, CN_TURNS]
            r.skips = cnt[s, CN_SKIPS]
            r.x_rolls = cnt[s, CN_X_ROLLS]
            r.o_rolls = cnt[s, CN_O_ROLLS]
            r.t_jumps = cnt[s, CN_T_JUMPS]
            r.t_squares = cnt[s, CN_T_SQUARES]
            r.group_squares = cnt[s, CN_GROUP]
            r.calibres = cnt[s, CN_CALIBRES]
            r.spare_shots = cnt[s, CN_SPARES]
            r.misses = cnt[s, CN_MISSES]
            r.finish_round = cnt[s, CN_FINISH_ROUND]
        if logging:
            for p in range(1, n_teams + 1):
                for t in range(n_teams):
                    if tm[t, TM_PLACE] == p:
                        for leg in range(legs):
                            s = t * legs + leg
                            ev_nb(log, ct, rnd, s, EV_PLACE, p,
                                  1 if st[s, ST_STAGE] == FINISHED else 0,
                                  dist_nb(tr, su, rl, st, s), 0, 0, 0, 0, 0, 0, 0)


unliteral_calls(globals())   # one compiled version per helper, not one per constant (kernels/nolit.py)
