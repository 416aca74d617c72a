"""Tuning a heuristic persona's weights by the cross-entropy method (docs/players.md), for any game
with players (sim.ladder's players hook: Biathlon Blast and Ski Tour: Biathlon).

The search runs over the game's tuned weights (the hook's `tuned`; Blast: TUNED, every weight but
progress, which is the unit of the move score, so that scaling every score weight together changes
no choice, and the look-ahead's rollouts and place_credit; Ski Tour: all of them). Each generation
draws a population of weight vectors from a normal distribution (mean: the current weights; spread
per weight: the hook's `spread` at first; Blast: SPREAD), clipped to the ranges in the hook's
`weights` (Blast: sim.blast.players.WEIGHTS; Ski Tour: sim.skitour.players.WEIGHTS). The current
mean itself is candidate 0, so each generation also measures where the search stands.

Each candidate plays in one seat against copies of the start persona in the others (or of the
`opponent` given: any player, the strength reference among them), rotated through every seat,
with balanced line-ups on every trail (course) given: sim.ladder's seat arrangements. A candidate is a player held in memory (the start's kind with other weights), never
a file.
All candidates of a generation play the same race indices (common random numbers: the comparison
between candidates is not blurred by line-up and dice luck), and each generation plays new ones:
generation g on trail t plays races (g * trails + t) * k .. + k of the seed. The best quarter
(the elite) gives the next mean and spread, smoothed with the previous ones, and the spread never
falls below a tenth of its start, so that noisy early winners cannot freeze the search.

The result is the last mean, rounded to three decimals (the weights the persona file holds), then
checked on a seed the tuning never used: the tuned persona against its start (or its opponent,
when one is given), head to head.

With `follow`, the opponent takes each candidate's values of the searched weights: a strength
reference built on the start then meets every candidate as the reference built on that candidate,
and the check measures the tuned persona against the reference built on it. That is issue 27's
measure of a default (docs/players.md, "A reference built on the player it meets"): a search on a
player's own weights gains about twice as much against it as against a player of the same strength
whose weights differ, so a candidate tuned against a fixed reference learns to be unlike the
reference's base rather than strong.
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from . import games
from .ladder import Ladder, Player, head_to_head, play_arrangements, roster, rotations


ELITE = 0.25       # share of the population that makes the next generation
SMOOTHING = 0.7    # weight of the elite against the previous mean and spread
FLOOR = 0.1        # the spread never falls below this share of its start


@dataclass
class Generation:
    """One generation: the mean it started from, every candidate's weights and win rate."""

    index: int
    races: tuple[int, int]            # race indices played (each trail its own share of them)
    mean: np.ndarray                  # float[len(weights)]: the weights of candidate 0
    spread: np.ndarray                # float[len(weights)]
    candidates: np.ndarray            # float[population, len(weights)]
    win_rates: np.ndarray             # float[population]
    races_per_candidate: int
    seconds: float

    def line(self, generations: int, fair_share: float) -> str:
        elite = np.sort(self.win_rates)[::-1][:_elite_count(len(self.win_rates))]
        return (f"generation {self.index + 1}/{generations}: mean weights win {self.win_rates[0]:.2%} "
                f"(fair share {fair_share:.2%}), best candidate {self.win_rates.max():.2%}, elite "
                f"{elite.mean():.2%}, population {self.win_rates.mean():.2%}; "
                f"{len(self.win_rates)} x {self.races_per_candidate:,} races in {self.seconds:.0f} s")


@dataclass
class TuneResult:
    start: Player
    tuned: Player
    trails: tuple[str, ...]
    racers: int
    seed: int
    check_seed: int
    generations: list[Generation] = field(default_factory=list)
    check: Ladder | None = None
    game: str = games.DEFAULT
    weights: tuple[str, ...] = ()        # the weights searched
    param_names: tuple[str, ...] = ()    # the game's weight order
    options: dict | None = None
    opponent: Player | None = None       # the player in the other seats (None: the start)
    follow: bool = False                 # the opponent took each candidate's searched weights

    @property
    def against(self) -> Player:
        """The player the candidates raced against and the check measures against."""
        return self.start if self.opponent is None else self.opponent

    @property
    def description(self) -> str:
        """The tuned persona's description (its file's)."""
        built = " built on each candidate" if self.follow else ""
        return (f"Tuned from {self.start.name} by the cross-entropy method against {self.against.name}{built} "
                f"on {', '.join(self.trails)} with {self.racers} racers.")

    def weight_changes(self) -> str:
        """'name start -> tuned' for every tuned weight that moved."""
        out = []
        for key in self.weights:
            i = self.param_names.index(key)
            a, b = self.start.weights[i], self.tuned.weights[i]
            if round(a, 3) != round(b, 3):
                out.append(f"{key} {a:g} -> {b:g}")
        return ", ".join(out) or "no weight moved"

    def check_line(self) -> str:
        c = self.check
        other = self.followed(self.tuned).name if self.follow else self.against.name
        return (f"check on seed {self.check_seed} (never used in tuning), {self.tuned.name} vs "
                f"{other} head to head, {c.races:,} races on {', '.join(c.trails)}: "
                + c.verdict(self.tuned.name, other))

    def followed(self, candidate: Player) -> Player:
        """The opponent with `candidate`'s values of the searched weights (`follow`)."""
        hook = roster(self.game)
        idx = [self.param_names.index(k) for k in self.weights]
        full = np.array(self.against.weights)
        full[idx] = np.array(candidate.weights)[idx]
        return hook.with_weights(self.against, f"{self.against.name}-on-{candidate.name}", full)


def _elite_count(population: int) -> int:
    return max(2, math.ceil(ELITE * population))


def tune(bundle, start: str | Player, trails: list[str], racers: int = 4,
         generations: int = 10, population: int = 16, races_per_candidate: int = 2000, seed: int = 1,
         n_jobs: int = 1, check_races: int = 20_000, check_seed: int | None = None, name: str = "tuned",
         weights: tuple[str, ...] | None = None, report: Callable[[str], None] | None = None, *,
         game: str | None = None, options: dict | None = None,
         opponent: str | Player | None = None, scheduler: str | None = None, keep=None,
         repair: bool = False, log=None, follow: bool = False) -> TuneResult:
    """Improve `start`'s weights by the cross-entropy method (module docstring), then check.

    game: default Blast; options: the game's options (Ski Tour's side). trails: Ski Tour's
    courses. weights: the weights to search (default: the game's tuned weights). opponent: the
    player in the other seats and in the check (default: start), e.g. the strength reference.
    races_per_candidate: races each candidate plays per generation, over all trails and seats
    (rounded up to a multiple of trails x racers). check_races: races per trail of the final
    head-to-head, on check_seed (default seed + 1). report: called with one line per generation.
    The result depends only on the arguments, not on n_jobs. scheduler: play on the
    dask.distributed cluster at that address. keep: a folder where each generation's races
    (keep/generation-001, ...) and the check's (keep/check-after-NNN) are kept (sim.ladder.play_arrangements),
    so that the same call resumes an interrupted tuning: finished generations are read back (the
    search then draws the same candidates from them) and a generation's finished chunks are
    reused; a folder that holds another tuning is refused (sim.store.FolderError, one line).
    follow: the opponent takes each candidate's values of the searched weights (module docstring);
    it needs an opponent whose searched weights are the start's (a reference built on it).
    """
    game = games.game(game).name
    hook = roster(game)
    weights = tuple(hook.tuned if weights is None else weights)
    known = hook.available()
    start = hook.resolve(start, known)
    against = start if opponent is None else hook.resolve(opponent, known)
    if not hook.heuristic(start):
        raise ValueError(f"only heuristic personas can be tuned; {start.name!r} is {hook.kind_name(start)}")
    if name.lower() in (start.name, against.name) or name.lower() in hook.reserved:
        raise ValueError(f"the tuned persona needs a name of its own, not {name!r}")
    unknown = [k for k in weights if k not in hook.spread]
    if unknown:
        raise ValueError(f"cannot tune {unknown[0]!r}; tunable weights: {', '.join(hook.spread)}")
    if follow:
        if against is start:
            raise ValueError("following the candidates needs an opponent (--vs), e.g. the strength reference")
        at = {k: hook.param_names.index(k) for k in weights}
        differ = [k for k, i in at.items() if against.weights[i] != start.weights[i]]
        if differ:
            k = differ[0]
            raise ValueError(f"following the candidates needs an opponent built on {start.name}: "
                             f"{against.name}'s {k} is {against.weights[at[k]]:g}, "
                             f"{start.name}'s {start.weights[at[k]]:g}")
    if not trails:
        raise ValueError(f"give at least one {games.game(game).scenario}")
    for trail in trails:
        hook.check(bundle, trail, (start,) + (against,) * (racers - 1), options)
    if generations < 1 or population < 2 or races_per_candidate < 1 or check_races < 1:
        raise ValueError("generations, races and check races must be at least 1 and the population at least 2")
    check_seed = seed + 1 if check_seed is None else check_seed
    if check_seed == seed:
        raise ValueError("the check needs a seed the tuning does not use")
    report = report or (lambda line: None)
    if keep is not None:
        keep = _claim(Path(keep), {"kind": "tune", "game": game, "start": start.name, "against": against.name,
                                   "name": name,
                                   "weights": list(weights), "trails": list(trails), "racers": racers,
                                   "population": population, "races_per_candidate": races_per_candidate,
                                   "seed": seed, "options": dict(options or {}), "data_hash": bundle.data_hash,
                                   **({"follow": True} if follow else {})})
    where = dict(scheduler=scheduler, repair=repair, log=log)

    idx = np.array([hook.param_names.index(k) for k in weights])
    lo = np.array([hook.weights[k][0] for k in weights])
    hi = np.array([hook.weights[k][1] for k in weights])
    spread0 = np.array([hook.spread[k] for k in weights])
    mean = np.array(start.weights)[idx]
    spread = spread0.copy()
    rng = np.random.default_rng([seed, 0xCE])              # the search's own stream, never global state
    per = math.ceil(races_per_candidate / (len(trails) * racers))  # races per trail and seat rotation
    result = TuneResult(start, start, tuple(trails), racers, seed, check_seed, game=game, weights=weights,
                        param_names=tuple(hook.param_names), options=dict(options) if options else None,
                        opponent=None if against is start else against, follow=follow)
    k_elite = _elite_count(population)

    def player(i: int, w: np.ndarray) -> Player:
        full = np.array(start.weights)
        full[idx] = w
        return hook.with_weights(start, f"{name}-candidate-{i}", full)

    for g in range(generations):
        t0 = time.perf_counter()
        draws = np.clip(mean + spread * rng.standard_normal((population - 1, len(weights))), lo, hi)
        cands = np.vstack([mean, draws])
        players = [player(i, w) for i, w in enumerate(cands)]
        jobs = generation_jobs(players, [result.followed(p) for p in players] if follow else against,
                               list(trails), racers, per, g)
        rows = play_arrangements(bundle, jobs, seed, n_jobs, game=game, options=options, **where,
                                 out=None if keep is None else keep / f"generation-{g + 1:03d}")
        names = [p.name for p in players]
        won = rows[rows.player_name.isin(names)].groupby("player_name", observed=True).won.mean()
        rates = won.reindex(names).to_numpy()
        gen = Generation(g, (g * len(trails) * per, (g + 1) * len(trails) * per), mean.copy(), spread.copy(),
                         cands, rates, per * racers * len(trails), time.perf_counter() - t0)
        result.generations.append(gen)
        report(gen.line(generations, 1 / racers))
        order = np.argsort(-rates, kind="stable")
        elite = cands[order[:k_elite]]
        mean = SMOOTHING * elite.mean(axis=0) + (1 - SMOOTHING) * mean
        spread = np.maximum(SMOOTHING * elite.std(axis=0) + (1 - SMOOTHING) * spread, FLOOR * spread0)

    full = np.array(start.weights)
    full[idx] = np.round(np.clip(mean, lo, hi), 3)
    tuned = hook.with_weights(start, name.lower(), full, result.description)
    result.tuned = tuned
    result.check = head_to_head(bundle, tuned, result.followed(tuned) if follow else against, list(trails), racers,
                                check_races, check_seed, n_jobs,
                                known=known, game=game, options=options, **where,
                                out=None if keep is None else keep / f"check-after-{generations:03d}")
    report(result.check_line())
    return result


def generation_jobs(candidates: list[Player], against: Player | list[Player], trails: list[str], racers: int,
                    per: int, g: int) -> list[tuple[str, tuple, int, int]]:
    """The ladder jobs of generation `g` (sim.ladder.play_arrangements): every candidate in one
    seat against `against` in the others (a list: candidate i's own opponent), rotated through every
    seat, `per` races on each trail; all candidates on the same race indices, new ones each generation."""
    jobs = []
    for t, trail in enumerate(trails):
        first = (g * len(trails) + t) * per
        for i, p in enumerate(candidates):
            o = against[i] if isinstance(against, list) else against
            jobs += [(trail, arr, first, first + per) for arr in rotations([p] + [o] * (racers - 1), racers)]
    return jobs


def _claim(folder: Path, ident: dict) -> Path:
    """`folder` as a tuning's: tune.json written there, or, if there, naming this tuning (the number
    of generations and the check may differ: they change no generation's races); FolderError (one
    line) for a folder of other work."""
    from .run import folder_kind
    from .store import FolderError, _short, read_json

    marker = folder / "tune.json"
    if marker.exists():
        old = read_json(marker, "tuning's description", "remove the folder and tune again")
        key = next((k for k in ident if old.get(k) != json.loads(json.dumps(ident[k]))), None)
        if key is not None:
            raise FolderError(f"{folder} holds another tuning ({key} differs: {_short(old.get(key))} there, "
                              f"{_short(ident[key])} now); choose another folder or remove it")
    elif folder_kind(folder) or (folder.is_dir() and any(folder.iterdir())):
        raise FolderError(f"{folder} holds other work than a tuning (no tune.json); choose another folder")
    folder.mkdir(parents=True, exist_ok=True)
    marker.write_text(json.dumps(ident, indent=2))
    return folder


__all__ = ["tune", "TuneResult", "Generation", "generation_jobs"]
