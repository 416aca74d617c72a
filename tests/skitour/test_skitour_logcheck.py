"""The event log against the rules, recomputed in plain Python over random races: every roll's
count, the placement of every die (blue removal, ones to fours, fives, sixes), the dice of every
column step, the column of every stamina payment, the die and result of every shot and the laps
owed. A check that the log carries what docs/skitour/event-log.md promises (not a referee)."""
from __future__ import annotations

import numpy as np
import pytest

from kernels.skitour import consts as C
from sim.skitour import load_bundle
from sim.skitour.play import play_one


@pytest.fixture(scope="module")
def bundle():
    return load_bundle()


def place(t, nat, b, faces, sixes, on_blue):
    """§3: place `faces` on board b (the dice already left the available dice)."""
    cap = t.capacity[nat]
    fives = sum(1 for f in faces if f == 5)
    n6 = sum(1 for f in faces if f == 6)
    d5 = min(on_blue, fives)
    d6 = min(on_blue - d5, n6)
    back = d5 + d6
    for f in faces:
        if 1 <= f <= 4:
            if b[f - 1] < cap[f - 1]:
                b[f - 1] += 1
            else:
                back += 1
    for _ in range(fives - d5):
        c = 3
        for k in (2, 1, 0):
            if b[k] > b[c]:
                c = k
        if b[c] < cap[c]:
            b[c] += 1
        else:
            back += 1
    assert len(sixes) == n6 - d6
    for dest in sixes:
        if dest < 0:
            legal = b[4] < t.sprint_capacity[nat] or any(b[5 + c] == 0 and b[c] > 0 for c in range(4))
            assert not legal, "a six sent back while a legal place existed"
            back += 1
        elif dest == 4:
            assert b[4] < t.sprint_capacity[nat]
            b[4] += 1
        else:
            assert b[5 + dest] == 0 and b[dest] > 0
            b[5 + dest] = 1
    b[9] += back
    return len(faces) - back


def check_log(bundle, log):
    t = bundle.tables
    rules = t.rules
    nt = int(rules[C.R_TARGETS])
    start = int(log[0][6])
    nat, board, mk, shots, tg, turn = {}, {}, {}, {}, {}, {}
    pending = {}
    for row in log:
        kind, s = int(row[2]), int(row[1])
        a = [int(x) for x in row[3:]]
        if kind == C.EV_SEAT:
            nat[s] = a[0]
            board[s] = [0] * 9 + [int(rules[C.R_RACE_DICE])]
            mk[s] = [start] * nt
            shots[s], tg[s] = 0, [0] * nt
        elif kind == C.EV_ROLL:
            b = board[s]
            if a[0] == C.ROLL_PREP:
                assert a[1] == (b[9] + 1) // 2
            elif a[0] == C.ROLL_ALL:
                assert a[1] == sum(b[:9])
                b[9] += sum(b[:9])
                b[:9] = [0] * 9
            b[9] -= a[1]
            blue = 0
            if a[0] == C.ROLL_PREP or rules[C.R_REROLL_BLUE_REMOVAL]:
                blue = sum(1 for c in range(nt) if mk[s][c] == t.n_slots[nat[s], c] - 1)
            pending[s] = (a[2:2 + a[1]], [], blue)
        elif kind == C.EV_LIFT:
            board[s][a[0]] -= 1
            board[s][9] += 1
        elif kind == C.EV_SIX:
            pending[s][1].append(a[1])
        elif kind == C.EV_BOARD:
            faces, sixes, blue = pending.pop(s)
            placed = place(t, nat[s], board[s], faces, sixes, blue)
            assert board[s] == a[:10] and placed == a[10]
        elif kind == C.EV_TURN:
            turn[s] = a[0]
        elif kind == C.EV_TAKE:
            b, n = board[s], nat[s]
            dice = 0
            for c in [a[0]] + [c for c in range(5) if a[1] >> c & 1]:
                if c == 4:
                    dice += b[4]
                    b[9] += b[4]
                    b[4] = 0
                    continue
                six = b[5 + c]
                full = b[c] >= t.full_at[n, c]
                dice += b[c] + (1 if six and full and not a[2] >> c & 1 else 0)
                b[9] += b[c] + six
                b[c] = 0
                b[5 + c] = 0
            assert dice == a[4]
        elif kind == C.EV_PAY and a[0] >= 0:
            n = nat[s]
            at_range = turn.get(s) == 1
            ok = [c for c in range(nt) if mk[s][c] < t.n_slots[n, c] - 1 and not (at_range and c < shots[s])]
            best = max(ok, key=lambda c: (t.slot_value[n, c, mk[s][c]], -c))
            assert a[0] == best
            mk[s][a[0]] += 1
            assert a[1] == mk[s][a[0]]
        elif kind == C.EV_ARRIVE:
            shots[s], tg[s] = 0, [0] * nt
        elif kind in (C.EV_SHOT, C.EV_RESHOT):
            n = nat[s]
            if kind == C.EV_SHOT:
                assert a[0] == shots[s]
                assert a[1] == t.slot_die[n, a[0], mk[s][a[0]]]
                shots[s] += 1
            assert a[3] == int(t.die_faces[a[1], a[2]] == C.FACE_HIT)
            tg[s][a[0]] = a[3]
        elif kind == C.EV_LAPS:
            misses = nt - sum(tg[s])
            assert a[0] == misses and a[1] == t.penalty_laps[misses]


@pytest.mark.parametrize("course,side", [("Starter", "basic"), ("Long", "advanced")])
def test_logs_follow_the_rules(bundle, course, side):
    pool = [i for i in range(len(bundle.nation_names))
            if bundle.tables.nation_side[i] == C.NATION_SIDES.index(side)]
    for race in range(8):
        for players in (("random",), ("balanced", "sprinter", "random", "steady", "sharpshooter")):
            n = 5 if len(players) > 1 else 4
            _, _, log = play_one(bundle, course, pool[:n], seed=17, race=race, players=players,
                                 seat_players=[j % len(players) for j in range(n)])
            check_log(bundle, log)
