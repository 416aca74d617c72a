"""Dominated decisions in Ski Tour races: the blunder check of the players (docs/skitour/players.md).

A decision is a blunder when another legal choice of the same moment is at least as good in every
outcome. This module finds them in a race's event log, replayed by the independent referee
(sim/skitour/referee.py), so it shares no code with the players it judges. The classes:

- `paid_entry`: the racer's own move paid more stamina for occupied spaces than the cheapest legal
  move of the same number of steps to the same end space. Same place, same everything else,
  less stamina: the cheaper route was strictly better.
- `wasted_token`: a +1 or sprint icon whose extra moves the racer never made: the move ended at a
  shooting space or across the finish line with at least that many moves left over, so the same
  move was possible without the token, which stays face up for later.
- `wasted_column`: an additional column paid for with stamina whose dice the move never used in
  the same way (the move ended early with at least that column's dice left over).
- `wasted_shot_token`: a +1 on a shooting turn that brings no shot (the visit's targets are all
  shot without it).

`count_blunders(game, setup, events)` returns a Counter of blunders per class and seat kind, and of
the decisions checked per class (`"decisions:<class>"`), so a rate can be given.
"""
from __future__ import annotations

from collections import Counter

from .referee import (
    Game, Mismatch, Referee, TAKE, W_PLUS, W_SPRINT, load_game, log_rows,
)

CLASSES = ("paid_entry", "wasted_token", "wasted_column", "wasted_shot_token")


class BlunderReferee(Referee):
    """The referee, counting dominated decisions as it replays a race."""

    def __init__(self, game: Game, setup: dict, events):
        super().__init__(game, setup, events)
        self.found = Counter()
        self._turn = None

    # -- the move: cheapest route to each end space ----------------------------------------
    def _cheapest(self, me, r, l, blocked, k, lr, memo):
        """{end space: fewest paid entries} over the legal moves of exactly k steps (or fewer,
        ending on a shooting space or across the finish line) from (r, l)."""
        key = (r, l, blocked, k, lr)
        if key in memo:
            return memo[key]
        out = {}
        for kind, r2, l2 in self.steps_from(r, l, blocked, lr):
            pay = 1 if self.pays(me, r2, l2) else 0
            if self.ends_move(r2, l2) or k == 1:
                ends = {(r2, l2): 0}
            else:
                _, b2 = self.step_effect(me, r, kind, blocked)
                ends = self._cheapest(me, r2, l2, b2, k - 1, False, memo)
            for end, p in ends.items():
                if end not in out or p + pay < out[end]:
                    out[end] = p + pay
        memo[key] = out
        return out

    def own_move(self, x, moves, leaving_range):
        r, l = x.row, x.lane
        fmemo = {}
        if self.feasible(x, r, l, False, moves, False, leaving_range, fmemo):
            target = moves
        else:
            target = max(k for k in range(moves + 1)
                         if self.feasible(x, r, l, False, k, False, leaving_range, fmemo))
        cheapest = self._cheapest(x, r, l, False, target, leaving_range, {}) if target else {}
        paid_before = x.rec["occupied_paid"]
        trail, stopped = super().own_move(x, moves, leaving_range)
        if self._turn is not None:
            self._turn["steps"] = len(trail)
            self._turn["stopped"] = stopped and not x.collapsed
            self._turn["moves"] = moves
        if trail and not x.collapsed and target:
            paid = x.rec["occupied_paid"] - paid_before
            self.found["decisions:paid_entry"] += 1
            best = cheapest.get(trail[-1])
            if best is not None and paid > best:
                self.found["paid_entry"] += 1
        return trail, stopped

    # -- tokens and columns: what the turn gained and what the move used -------------------
    def apply_wax(self, x, eff, moment, t):
        if self._turn is not None and moment in (0, 1):
            if eff & W_PLUS:
                self._turn["gains"].append(("plus", 1))
            if eff & W_SPRINT:
                self._turn["gains"].append(("sprint", x.sprint))
        super().apply_wax(x, eff, moment, t)

    def column_step(self, x, t):
        a = self.peek()
        if self._turn is not None and a is not None and a[2] == TAKE:
            man, mask, trade, free_used = a[3], a[4], a[5], a[6]
            extra = [c for c in range(5) if mask >> c & 1]
            paid = extra[free_used:] if free_used else extra
            for c in paid:
                if c == 4:
                    n = x.sprint
                else:
                    n = x.cols[c] + (1 if x.box[c] and x.cols[c] >= x.nation.full_at[c] else 0)
                self._turn["columns"].append(n)
        return super().column_step(x, t)

    def shoot(self, x, count, t):
        if self._turn is not None:
            self._turn["shots"] = count
            self._turn["left"] = self.targets - len(x.targets)
        super().shoot(x, count, t)

    def turn(self, x):
        self._turn = dict(gains=[], columns=[], steps=None, stopped=False, moves=None, shots=None)
        try:
            super().turn(x)
        finally:
            tt, self._turn = self._turn, None
        if tt["shots"] is not None:                 # a shooting turn: the referee's own count
            plus = sum(1 for g in tt["gains"] if g[0] == "plus")
            if plus:
                self.found["decisions:wasted_shot_token"] += plus
                if tt["shots"] - plus >= tt["left"]:
                    self.found["wasted_shot_token"] += plus
            return
        if tt["steps"] is None:
            return
        spare = tt["moves"] - tt["steps"] if tt["stopped"] else 0
        for _, gain in tt["gains"]:
            self.found["decisions:wasted_token"] += 1
            if gain > 0 and spare >= gain:
                self.found["wasted_token"] += 1
        for n in tt["columns"]:
            self.found["decisions:wasted_column"] += 1
            if n > 0 and spare >= n:
                self.found["wasted_column"] += 1


def count_blunders(data_dir_or_game, setup: dict, events) -> Counter:
    """Replay one race's log and count its dominated decisions (module docstring). Raises
    ValueError when the referee does not accept the log."""
    game = data_dir_or_game if isinstance(data_dir_or_game, Game) else load_game(data_dir_or_game)
    ref = BlunderReferee(game, setup, log_rows(events))
    try:
        ref.run()
    except Mismatch as e:
        raise ValueError(f"the referee rejects the log: {e}") from None
    return ref.found


_GAMES: dict = {}


def _referee_game(bundle) -> Game:
    """The referee's reading of the bundle's data (loaded once per data folder)."""
    key = str(bundle.data.source)
    if key not in _GAMES:
        _GAMES[key] = load_game(bundle.data.source)
    return _GAMES[key]


def count_races(bundle, scenario: str, player, racers: int, seed: int, start: int, stop: int,
                game: Game | None = None) -> Counter:
    """Blunders and decisions over races start..stop of course `scenario`, 4 racers on the basic
    nations (rotated), every seat played by `player`."""
    import numpy as np

    from .game import Design, nations
    from .play import play_one

    game = game or _referee_game(bundle)
    nat = nations(bundle, Design(scenario, racers), seed, np.arange(start, stop))
    tot = Counter()
    for k, i in enumerate(range(start, stop)):
        names = [bundle.nation_names[x] for x in nat[k]]
        _, _, log = play_one(bundle, scenario, names, seed=seed, race=i, players=(player,))
        tot += count_blunders(game, dict(course=scenario, nations=names), log)
    return tot


def blunder_table(players=("balanced",), courses=("Starter", "Long"), races: int = 200,
                  racers: int = 4, seed: int = 1, bundle=None, game=None, jobs: int = 1):
    """Blunders per class for each player, over `races` 4-racer races per course on the basic
    nations (rotated), every seat played by that player: a DataFrame with one row per player
    and class (blunders, decisions checked, rate); sim.blunders.blunder_table."""
    from ..blunders import blunder_table as table
    from .compile import load_bundle

    bundle = bundle or load_bundle()
    if game is not None:
        _GAMES[str(bundle.data.source)] = game
    return table("skitour", players, courses, races, seed=seed, racers=racers, bundle=bundle, jobs=jobs)
