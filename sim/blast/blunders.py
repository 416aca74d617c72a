"""Dominated decisions in Biathlon Blast races: the blunder check of the players (docs/players.md,
"Blunders").

A decision is a blunder when another legal choice of the same moment is at least as good in every
outcome. This module finds them in a race's event log, replayed by the independent referee
(sim/blast/referee.py), so it shares no code with the players it judges. Each class rests on a
rule of docs/rules.md:

- `wasted_step_wax`: a black, yellow or green wax token whose step the move did not need: the same
  end space is reachable with that token left out (4.1: the racer may stop anywhere its steps
  reach; 4.2: a token is single-use), or any step wax spent on a Wait (5.3: it is wasted). The
  same move without it keeps the token.
- `wasted_blue`: a blue wax token that did not change the pulse that counts: the pulse after the
  action is the same without it (4.3: the sum is floored at 0), or the racer crossed the finish
  within the pulse limit without it, or is eliminated for pulse either way (7.1, 7.2).
- `wasted_white`: a white wax token that gave nothing: the action had the wind symbol already (its
  own, or a white coach zone the move ended in, 6), the wind was left as it was (4.4: keeping it is
  the same as having no symbol), a second white on one action, or the turn ended the racer's race
  before the wind step (a win, an elimination).
- `wasted_bullet`: an own bullet that bought nothing: on a shot, the hit it added was not needed
  to reach the space the move ended on (5.4: hits only feed the Shoot action's steps), or a red
  coach bullet of the same shot was left to expire while an own bullet was spent (6: a boost is
  used on its turn or lost); a paid pick-up with an empty discard pile (3.1: the hand does not
  change), or paid with an own bullet off a mat while a red coach bullet, which expires otherwise,
  could pay it.
- `worse_action`: the racer played the top (bottom) action of its card when the other action of
  the same card reaches the same end space with the same wax, costs no more pulse, keeps the card
  (snowy) if this one removes it (icy), has the wind symbol if the turn used the card's, and is
  strictly better in pulse or in the card kept (4.1, 4.3, 4.5).
- `stopped_short`: the move stopped on a space when a farther space its steps reach could hold the
  racer, leaves its pulse no higher (its own wind, drafting and a blue coach zone there counted),
  within the limit, with no start line and no coach zone of the nearer space given up between
  them, and is not the range (entering the range changes what the next turn can do). Farther at
  no cost is better by every measure a player scores a move by (progress, pulse, accuracy band,
  coach zones). Not judged: what either space gives the rivals (whom it lets draft or whose
  tailwind it blocks after their own moves).
- `short_of_finish`: the move could cross the finish line within the pulse limit (7.1: that wins
  the race at once) and stopped short of it.

`count_blunders(bundle, setup, events)` returns a Counter of blunders per class, and of the
decisions checked per class (`"decisions:<class>"`), so a rate can be given.
"""
from __future__ import annotations

from collections import Counter

from kernels.blast import consts as C
from kernels.blast import events as E

from .referee import STEP_OF_WAX, _Discrepancy, _Referee, _size

CLASSES = ("wasted_step_wax", "wasted_blue", "wasted_white", "wasted_bullet", "worse_action", "stopped_short",
           "short_of_finish")


class BlunderReferee(_Referee):
    """The referee, counting dominated decisions as it replays a race."""

    def __init__(self, bundle, trail, biathletes, colours, log):
        super().__init__(bundle, trail, biathletes, colours, log)
        self.found = Counter()
        self._t = None

    def _count(self, cls: str, n: int, of: int) -> None:
        self.found["decisions:" + cls] += of
        self.found[cls] += n

    # -- the pick-up ------------------------------------------------------------------------
    def pickup(self, r, row) -> None:
        if row.a[0] == E.PICKUP_BULLET:
            waste = _size(r.discard) == 0 or (not r.on_mat and self.red_boost(r) is not None)
            self._count("wasted_bullet", int(waste), 1)
        super().pickup(r, row)

    # -- a turn: what it spent, where it went, what the alternatives give --------------------
    def turn(self, todo) -> None:
        start = self.i
        self._t = dict(wax={}, move=None, shot=None, pulse=None)
        try:
            super().turn(todo)
        finally:
            t, self._t = self._t, None
        self._judge(t, self.rows[start:self.i])

    def spend_wax(self, r, wax, row, what) -> None:
        if self._t is not None:
            self._t["r"] = r
            for c, n in wax.items():
                self._t["wax"][c] = self._t["wax"].get(c, 0) + n
        super().spend_wax(r, wax, row, what)

    def shoot(self, r, start_pending) -> int:
        hits = super().shoot(r, start_pending)
        a = self.rows[self.i - 1][E.COL_ARG:]          # the HITS row just read
        left = sum(b.left for b in start_pending if b.colour == C.RED)
        self._t["shot"] = dict(hits=hits, own=a[2], coach_left=left)
        return hits

    def move(self, r, steps, shoot):
        src = r.pos
        zone, moved = super().move(r, steps, shoot)
        self._t["move"] = dict(src=src, dst=r.pos, steps=list(steps), zone=zone, moved=moved,
                               reach=self.walk(src, steps)[0])
        return zone, moved

    # -- the judgements, one per class (a test asks each on a hand-built position) -----------
    def _pulse_at(self, r, pos, lane, on_mat, cost, blue_wax) -> int:
        """r's pulse after an action of `cost` with `blue_wax`, were it standing on (pos, lane)."""
        old = r.pos, r.lane, r.on_mat
        r.pos, r.lane, r.on_mat = pos, lane, on_mat
        try:
            draft, wind, _, _ = self.pulse_parts(r)
        finally:
            r.pos, r.lane, r.on_mat = old
        coach = None if self.spaces[pos].is_range else self.spaces[pos].coach
        blue_zone = coach[1] if coach is not None and coach[0] == "blue" else 0
        return self.pulse_sum(r.pulse, cost, blue_wax + blue_zone, draft, wind)

    def reaches(self, src: int, dst: int, steps) -> bool:
        return dst in self.walk(src, list(steps))[0]

    def unneeded_wax(self, src: int, dst: int, steps, terrain: int, n: int) -> int:
        """How many of the n step wax tokens of `terrain` the move src -> dst did without."""
        k = 0
        while k < n and self.reaches(src, dst, [x - (k + 1) * (t == terrain) for t, x in enumerate(steps)]):
            k += 1
        return k

    def unneeded_hits(self, action, hits: int, own: int, src: int, dst: int, steps) -> int:
        """How many of the `own` bullets' hits the Shoot's move src -> dst did without (`steps`: the
        turn's steps, wax and coach boosts included)."""
        extra = [x - self.value(v, hits) for x, v in zip(steps, action.steps)]
        k = 0
        while k < own and self.reaches(src, dst, [self.value(v, hits - k - 1) + e for v, e in zip(action.steps, extra)]):
            k += 1
        return k

    def unneeded_blue(self, before: int, cost: int, blue_wax: int, blue_zone: int, draft: int, wind: int,
                      at_finish: bool) -> int:
        """How many blue tokens the pulse that counts did without: the same pulse, a win within the
        limit, or an elimination either way."""
        limit = self.rules.pulse_limit

        def outcome(x):
            return "out" if x > limit else "win" if at_finish else x

        after = outcome(self.pulse_sum(before, cost, blue_wax + blue_zone, draft, wind))
        k = 0
        while k < blue_wax and outcome(self.pulse_sum(before, cost, blue_wax - k - 1 + blue_zone, draft, wind)) == after:
            k += 1
        return k

    @staticmethod
    def unneeded_white(white: int, wind_changed: bool, had_symbol: bool) -> int:
        """White tokens that gave nothing: all but one that lent the symbol for a wind change."""
        return white - int(wind_changed and not had_symbol)

    def better_action(self, mine, other, src: int, dst: int, steps, before: int, blue: int, draft: int,
                      wind: int, needs_symbol: bool) -> bool:
        """Whether the card's other action dominates the one played: it reaches the same end with
        the same wax and boosts, has the wind symbol if the turn needed the card's, removes the
        card only if this one does, costs no more pulse, and is strictly better in pulse or in the
        card kept (a win with either is no blunder; an elimination avoided is)."""
        limit = self.rules.pulse_limit
        extra = [x - self.value(v) for x, v in zip(steps, mine.steps)]
        if not self.reaches(src, dst, [self.value(v) + e for v, e in zip(other.steps, extra)]):
            return False
        if other.icy > mine.icy or (needs_symbol and not other.wind):
            return False
        a = self.pulse_sum(before, mine.pulse, blue, draft, wind)
        b = self.pulse_sum(before, other.pulse, blue, draft, wind)
        if dst == self.finish:                 # a win either way is no blunder
            return a > limit >= b
        if b > limit:
            return False
        if a > limit:
            return True
        return b <= a and (b < a or mine.icy > other.icy)

    def short_of_finish(self, r, dst: int, reach, cost: int, blue_wax: int) -> bool:
        """r (on dst) stopped short of the run-out its steps reach, where its pulse would be within
        the limit."""
        return (self.finish in reach and dst != self.finish
                and self._pulse_at(r, self.finish, 0, False, cost, blue_wax) <= self.rules.pulse_limit)

    def stopped_short(self, r, dst: int, reach, cost: int, blue_wax: int, after: int) -> bool:
        """r (on dst, pulse `after` there) could have stopped farther: a space its steps reach
        before any start line, the range or the run-out, that can hold it, with its pulse there no
        higher and within the limit. A coach zone on dst is not given up (the caller asks only
        when the move ended on none)."""
        bound = min(after, self.rules.pulse_limit)
        for q in reach:
            if q <= dst:
                continue
            sp = self.spaces[q]
            if sp.start_line or sp.is_range or sp.finish:
                return False
            for lane in range(sp.lanes):
                if self.occupant(r, q, lane) is None and self._pulse_at(r, q, lane, False, cost, blue_wax) <= bound:
                    return True
        return False

    # -- where the replay meets the judgements -----------------------------------------------
    def pulse(self, r, action, action_name, blue_wax, blue_zone) -> None:
        draft, wind, _, _ = self.pulse_parts(r)
        before = r.pulse
        after = self.pulse_sum(before, action.pulse, blue_wax + blue_zone, draft, wind)
        m = self._t["move"]
        at_finish = m is not None and m["moved"] and r.pos == self.finish
        self._t["pulse"] = dict(action=action, before=before, draft=draft, wind=wind, blue=blue_wax + blue_zone)
        self._count("wasted_blue", self.unneeded_blue(before, action.pulse, blue_wax, blue_zone, draft, wind,
                                                      at_finish), blue_wax)
        if m is not None:
            if self.finish in m["reach"]:
                self._count("short_of_finish", int(self.short_of_finish(r, m["dst"], m["reach"], action.pulse,
                                                                        blue_wax)), 1)
            short = m["zone"] is None and self.stopped_short(r, m["dst"], m["reach"], action.pulse, blue_wax, after)
            self._count("stopped_short", int(short), 1)
        super().pulse(r, action, action_name, blue_wax, blue_zone)

    def _judge(self, t, rows) -> None:
        """After the turn: wax, bullets and the action, knowing whether the wind changed."""
        r = t.get("r")
        if r is None:
            return
        kinds = {row[E.COL_KIND]: row[E.COL_ARG:] for row in rows}
        act = kinds.get(E.ACTION)
        on_mat = bool(kinds[E.TURN][1])
        wax = t["wax"]
        m, p, shot = t["move"], t["pulse"], t["shot"]
        w = kinds.get(E.WIND)
        changed = w is not None and w[0] != w[1]
        white_zone = m is not None and m["zone"] is not None and m["zone"][0] == C.WHITE
        white = wax.get(C.WHITE, 0)
        if white:
            own_symbol = p is not None and p["action"].wind
            self._count("wasted_white", self.unneeded_white(white, changed, own_symbol or white_zone), white)
        for colour, terrain in STEP_OF_WAX.items():
            n = wax.get(colour, 0)
            if n:
                wasted = n if m is None else self.unneeded_wax(m["src"], m["dst"], m["steps"], terrain, n)
                self._count("wasted_step_wax", wasted, n)
        if shot is not None and shot["own"]:
            own = shot["own"]
            unneeded = self.unneeded_hits(p["action"], shot["hits"], own, m["src"], m["dst"], m["steps"])
            self._count("wasted_bullet", min(own, max(unneeded, shot["coach_left"])), own)
        if act is not None and not on_mat and m is not None and p is not None:
            card = self.cards[act[0]]
            mine, other = (card.bottom, card.top) if act[1] == C.BOTTOM else (card.top, card.bottom)
            needs_symbol = changed and not white and not white_zone
            self._count("worse_action", int(self.better_action(
                mine, other, m["src"], m["dst"], m["steps"], p["before"], p["blue"], p["draft"], p["wind"],
                needs_symbol)), 1)


def count_blunders(bundle, setup, events) -> Counter:
    """Replay one race's log (sim.blast.play.RaceSetup, its events) and count its dominated
    decisions (module docstring). Raises ValueError when the referee does not accept the log."""
    try:
        ref = BlunderReferee(bundle, setup.trail, list(setup.biathletes), list(setup.colours), events)
        ref.run()
    except _Discrepancy as d:
        raise ValueError(f"the referee rejects the log: {d.message}") from None
    return ref.found


def count_races(bundle, scenario: str, player, racers: int, seed: int, start: int, stop: int) -> Counter:
    """Blunders and decisions over races start..stop of `scenario`, every seat played by `player`
    (the line-ups of a balanced design: biathletes and ski colours rotated)."""
    import numpy as np

    from .design import Design
    from .play import play_one

    design = Design(scenario, racers, players=(player,) if isinstance(player, str) else ("balanced",))
    players = None if isinstance(player, str) else (player,)
    tot = Counter()
    for setup, race in zip(design.setups(bundle, seed, np.arange(start, stop), players), range(start, stop)):
        log = play_one(bundle, setup, seed, race)
        tot += count_blunders(bundle, setup, log.events)
    return tot


def blunder_table(players=("balanced",), trails=None, races: int = 200, seed: int = 1, racers: int = 4,
                  bundle=None, jobs: int = 1):
    """Blunders per class for each player over `races` races per trail (default every trail), every
    seat played by that player: one row per player and class (sim.blunders.blunder_table)."""
    from ..blunders import blunder_table as table

    return table("blast", players, trails, races, seed=seed, racers=racers, bundle=bundle, jobs=jobs)
