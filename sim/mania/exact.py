"""Exact answers for Biathlon Mania by Markov chain, written from docs/mania/rules.md alone.

Two questions have exact answers the simulator must match:

- `penalty_distribution(faces, targets, spare_shots)`: the distribution of penalty loops one
  shooting costs (targets still standing), for a die given by its faces;
- `turns_distribution(data, track, fmt, ...)`: for one racer alone on the track (a time trial),
  the distribution of the number of turns (= rounds) to cross the finish line.

Alone, a racer is never pushed by the group rule and X does nothing (it is both first and last),
so its race is a Markov chain whose step is one turn. The chain follows every switch of
game.toml's `[switches]`: those a lone racer can feel (zone rule, rounding, exit, extra rolls,
shots per turn, two dice, calibre and spares, specials on landing or passing) change the chain;
`penalty_gate`, `finish_ties` and `specials_after_push` need a second racer and cannot change a
lone racer's turns. The chain here is an independent, plain
Python restatement of the rules (it does not call the kernel): exact fractions are not needed,
floats sum the probabilities of a few thousand states.
"""
from __future__ import annotations

from collections import defaultdict
from functools import lru_cache

import numpy as np

from .load import ManiaData, Track

# stages, as in docs/mania/event-log.md
START, LOOP, PENALTY, RANGE, FINISH_AREA, FINISHED = 0, 1, 2, 3, 4, 5
WHITE, BLUE, GREEN = 0, 1, 2
X, T, O = 1, 2, 3


def hit_probability(faces) -> float:
    """One shot: white hits; calibre is rolled again and hits only on white."""
    n = len(faces)
    white = sum(f == "white" for f in faces) / n
    calibre = sum(f == "calibre" for f in faces) / n
    return white + calibre * white


def _shot_outcomes(faces, spare: bool, spares_left: int, calibre_uses_spare: bool):
    """One shot (rules.md section 8): [(probability, hit, spares it uses)]. A calibre is rolled
    again; on a spare shot under `calibre_uses_spare` the re-roll uses one more spare, and on
    the last spare there is none: the calibre misses."""
    n = len(faces)
    white = sum(f == "white" for f in faces) / n
    calibre = sum(f == "calibre" for f in faces) / n
    black = 1 - white - calibre
    use = 1 if spare else 0
    if spare and calibre_uses_spare:
        if spares_left >= 2:
            return [(white, True, 1), (black, False, 1), (calibre * white, True, 2),
                    (calibre * (1 - white), False, 2)]
        return [(white, True, 1), (black + calibre, False, 1)]
    return [(white + calibre * white, True, use), (black + calibre * (1 - white), False, use)]


def shooting_turns(faces, targets: int, spares: int, calibre_uses_spare: bool, per_turn: int,
                   fired: int, standing: int, spares_left: int):
    """One turn at the range: {(fired, standing, spares left): probability}. `per_turn`: the
    shots a turn may fire (shooting dice), 0 for the whole shooting (shots_per_turn "all")."""
    cur = {(fired, standing, spares_left): 1.0}
    done: dict = defaultdict(float)
    while cur:
        nxt: dict = defaultdict(float)
        for (f, st, sp), p in cur.items():
            if f < targets:
                k, spare = targets - f, False
            else:
                k, spare = min(sp, st), True
            if per_turn:
                k = min(per_turn, k)
            states = {(f, st, sp): p}
            for _ in range(k):
                step: dict = defaultdict(float)
                for (f2, st2, sp2), p2 in states.items():
                    if spare and sp2 <= 0:
                        step[(f2, st2, sp2)] += p2
                        continue
                    for q, hit, use in _shot_outcomes(faces, spare, sp2, calibre_uses_spare):
                        step[(f2 + 1, st2 - hit, sp2 - use)] += p2 * q
                states = step
            for key, p2 in states.items():
                over = key[0] >= targets and (key[1] == 0 or key[2] == 0)
                (done if over or per_turn else nxt)[key] += p2
        cur = nxt
    return dict(done)


def penalty_distribution(faces, targets: int = 5, spare_shots: int = 0,
                         calibre_uses_spare: bool = False) -> np.ndarray:
    """P(k targets standing after the shooting), k = 0..targets: `targets` ordinary shots, then
    spare shots, one per standing target, at most `spare_shots` (rules.md section 8); with
    `calibre_uses_spare`, a calibre's re-roll on a spare shot uses up a spare (section 3)."""
    dist = np.zeros(targets + 1)
    for (_, standing, _), p in shooting_turns(faces, targets, spare_shots, calibre_uses_spare, 0,
                                              0, targets, spare_shots).items():
        dist[standing] += p
    return dist


class _Chain:
    """One racer alone: the turn's transition from a state to a distribution of states.

    A state: (lap, stage, square, owed, fired, standing, spares, over)."""

    def __init__(self, data: ManiaData, track: Track, fmt: str, number_dice: int,
                 shooting_dice: int, shooting_die: str | None):
        f = data.format(fmt)
        sw = data.switches
        self.track = track
        self.n = len(track.loop)
        self.laps = f.laps
        self.shoot_after = set(f.shootings)
        self.spares = f.spare_shots
        self.targets = data.rules.targets
        if sw.two_dice == "two_racers":       # each racer rolls one die of each kind
            number_dice = shooting_dice = 1
        self.kdice = 0 if sw.shots_per_turn == "all" else shooting_dice
        self.faces = getattr(data.dice, shooting_die or f.shooting_die)
        self.cal_spare = sw.calibre_uses_spare
        self.passing = sw.specials_on == "passing"
        self.halve_up = sw.halve_rounding == "up"
        self.steps_rule = sw.zone_rule == "steps"
        self.exit_same = sw.exit_roll == "same_turn"
        self.exit_square = sw.exit_from == "exit_square"
        self.chain = sw.chain_extra_rolls
        faces = data.dice.number
        rolls: dict[int, float] = defaultdict(float)
        for a in faces:
            if number_dice == 1:
                rolls[a] += 1 / len(faces)
            else:
                for b in faces:
                    rolls[a + b] += 1 / len(faces) ** 2
        self.rolls = sorted(rolls.items())

    # --- the route (section 6)
    def next_pos(self, lap, stage, sq, owed):
        t, n = self.track, self.n
        if stage == START:
            return 1, LOOP, 0, owed
        if stage == LOOP:
            if sq == t.penalty_entry and owed > 0:
                return lap, PENALTY, 0, owed
            if sq < n - 1:
                return lap, LOOP, sq + 1, owed
            if lap == self.laps:
                return (lap, FINISH_AREA, 0, owed) if t.finish else (lap, FINISHED, 0, owed)
            if lap in self.shoot_after:
                return lap, RANGE, 0, owed
            return lap + 1, LOOP, 0, owed
        if stage == PENALTY:
            if sq < len(t.penalty) - 1:
                return lap, PENALTY, sq + 1, owed
            if owed > 1:
                return lap, PENALTY, 0, owed - 1
            return lap, LOOP, t.penalty_entry + 1, 0
        if stage == FINISH_AREA:
            if sq < len(t.finish) - 1:
                return lap, FINISH_AREA, sq + 1, owed
            return lap, FINISHED, 0, owed
        if stage == RANGE:
            return lap + 1, LOOP, t.range_exit, owed
        raise AssertionError(stage)

    def zone(self, stage, sq):
        t = self.track
        if stage == LOOP:
            return t.loop[sq].zone
        if stage == PENALTY:
            return t.penalty[sq].zone
        if stage == FINISH_AREA:
            return t.finish[sq].zone
        return WHITE

    # --- one move of `roll` (section 5); returns the position, the steps taken, and under
    # specials_on "passing" the O squares stepped onto and whether it stopped on a T
    def dice_move(self, pos, roll):
        lap, stage, sq, owed = pos
        steps = 0
        n_o = 0
        t_stop = False

        def note(stage, sq):
            nonlocal n_o, t_stop
            if self.passing and stage == LOOP:
                mark = self.track.loop[sq].mark
                n_o += mark == O
                t_stop = mark == T
            return t_stop
        if not self.steps_rule:
            z = self.zone(stage, sq)
            k = roll if z == WHITE else (2 * roll if z == GREEN else
                                         (roll + 1) // 2 if self.halve_up else roll // 2)
            while steps < k:
                lap, stage, sq, owed = self.next_pos(lap, stage, sq, owed)
                steps += 1
                if stage in (RANGE, FINISHED) or note(stage, sq):
                    break
        else:
            budget = 2 * roll
            while budget > 0:
                nxt = self.next_pos(lap, stage, sq, owed)
                cost = (2, 4, 1)[self.zone(nxt[1], nxt[2])]
                if budget >= cost:
                    budget -= cost
                elif self.halve_up:
                    budget = 0
                else:
                    break
                lap, stage, sq, owed = nxt
                steps += 1
                if stage in (RANGE, FINISHED) or note(stage, sq):
                    break
        return (lap, stage, sq, owed), steps, n_o, t_stop

    @lru_cache(maxsize=None)
    def single(self, pos, first: bool, exit_move: bool):
        """One dice move (sections 5, 11): {(end position, extra moves it earns): probability}.
        Alone, X does nothing (the racer is first and last) and nobody pushes."""
        out: dict = defaultdict(float)
        for roll, pr in self.rolls:
            start = pos
            if exit_move and self.exit_square:
                start = (pos[0] + 1, LOOP, self.track.range_exit, pos[3])
            end, steps, n_o, t_stop = self.dice_move(start, roll)
            lap, stage, sq, owed = end
            may = first or self.chain
            if stage in (RANGE, FINISHED) or steps == 0:
                out[(end, 0)] += pr
            elif self.passing:
                if t_stop:
                    end = (lap, LOOP, self.track.t_target(sq), owed)
                out[(end, n_o if may else 0)] += pr
            elif stage != LOOP:
                out[(end, 0)] += pr
            else:
                mark = self.track.loop[sq].mark
                if mark == T:
                    out[((lap, LOOP, self.track.t_target(sq), owed), 0)] += pr
                else:
                    out[(end, 1 if mark == O and may else 0)] += pr
        return dict(out)

    @lru_cache(maxsize=None)
    def extras(self, pos, owed: int):
        """Where `owed` extra moves from `pos` leave the racer (each may earn more)."""
        if owed == 0 or pos[1] in (RANGE, FINISHED):
            return {pos: 1.0}
        out: dict = defaultdict(float)
        for (end, more), pr in self.single(pos, False, False).items():
            for e2, p2 in self.extras(end, owed - 1 + more).items():
                out[e2] += pr * p2
        return dict(out)

    @lru_cache(maxsize=None)
    def moves(self, pos, first: bool, exit_move: bool):
        """Distribution of (position) at the end of a move and its extra moves (section 11)."""
        out: dict = defaultdict(float)
        for (end, owed), pr in self.single(pos, first, exit_move).items():
            for e2, p2 in self.extras(end, owed).items():
                out[e2] += pr * p2
        return dict(out)

    def turn(self, state):
        lap, stage, sq, owed, fired, standing, spares, over = state
        out: dict = defaultdict(float)
        if stage == RANGE and not over:
            shots = shooting_turns(self.faces, self.targets, self.spares, self.cal_spare,
                                   self.kdice, fired, standing, spares)
            for (f2, s2, sp2), pr in shots.items():
                done = f2 >= self.targets and (s2 == 0 or sp2 == 0)
                if done and self.exit_same:
                    for e, p2 in self.moves((lap, RANGE, 0, s2), True, True).items():
                        out[self.with_pos(e)] += pr * p2
                elif done:
                    out[(lap, RANGE, 0, s2, f2, s2, sp2, 1)] += pr
                else:
                    out[(lap, RANGE, 0, 0, f2, s2, sp2, 0)] += pr
            return out
        exit_move = stage == RANGE
        for e, pr in self.moves((lap, stage, sq, owed), True, exit_move).items():
            out[self.with_pos(e)] += pr
        return out

    def with_pos(self, pos):
        lap, stage, sq, owed = pos
        if stage == RANGE:           # a fresh visit
            return (lap, RANGE, 0, 0, 0, self.targets, self.spares, 0)
        return (lap, stage, sq, owed, 0, 0, 0, 0)


def turns_distribution(data: ManiaData, track: str, fmt: str, *, number_dice: int = 1,
                       shooting_dice: int = 1, shooting_die: str | None = None,
                       legs: int = 1, tail: float = 1e-12, max_turns: int = 5000) -> np.ndarray:
    """P(a lone racer crosses the finish line on turn t), t = 0, 1, ... (index = turns).

    Relay: `legs` legs run one after another; a leg starts at the turn after the previous one
    finished, so the team's turns are the sum of the legs' (a convolution). The array stops
    where the mass still racing falls below `tail`."""
    chain = _Chain(data, data.track(track), fmt, number_dice, shooting_dice, shooting_die)
    state0 = (1, START, 0, 0, 0, 0, 0, 0)
    cur = {state0: 1.0}
    cache: dict = {}
    probs = [0.0]
    for _ in range(max_turns):
        nxt: dict = defaultdict(float)
        for s, p in cur.items():
            tr = cache.get(s)
            if tr is None:
                tr = cache[s] = chain.turn(s)
            for s2, p2 in tr.items():
                nxt[s2] += p * p2
        done = sum(p for s, p in nxt.items() if s[1] == FINISHED)
        probs.append(done)
        cur = {s: p for s, p in nxt.items() if s[1] != FINISHED}
        if sum(cur.values()) < tail:
            break
    leg = np.array(probs)
    out = leg
    for _ in range(legs - 1):
        out = np.convolve(out, leg)
    return out
