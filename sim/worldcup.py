"""World Cups: series of races (by default Lang, Kurz, Short, Long) scored by placement points.

The rules (docs/rules.md, "World Cup", with the interpretations this module plays):

- Race 1: the players draw ski colours at random (`racers` of the six, as in a single race). From
  race 2 on they choose in the previous race's finishing order, winner first, and each takes the
  earliest free colour in ski colour order (the winner red, second black, ...): red picks a
  biathlete first and wins every tie.
- Biathletes are drafted in ski colour order: before every race (`redraft`, default: the book's
  set-up repeated race by race, so red skis, the last winner's, pick first), or before race 1 only
  (`redraft=False`; each player keeps its biathlete for the whole cup, so a title belongs to a
  biathlete). The draft rule: `"rated"`, each picks the
  highest-rated biathlete still free (rating: win rate in a calibration run of balanced line-ups,
  `calibrate`); `"random"`, each takes a free biathlete at random; or a preference list of names,
  each takes the first free one in that order.
- Each race scores its place as points (1st 1 point, 2nd 2, ...); lowest total takes the title,
  ties going to the better place in the last race.

Player p sits in seat p of every race, so a race's `seat` column names the player across the cup.
Race k (0-based) of cup c is race index c * len(trails) + k of the seed, and the cup's random
choices (race 1 colours, a random draft) come from a generator seeded with (seed, c), so a cup is a
function of (seed, cup index) alone: the same whatever the chunking or the number of workers. Any
race of a cup can be replayed alone: `biathlon-sim replay --trail T --biathletes ... --colours ...
--players ... --seed SEED --race INDEX` with the line-up from the cup's table.

Cups are played in chunks, each chunk race by race: one `play_block` call per race number plays
that race of every cup in the chunk, whose results set the next race's colours (and draft).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from kernels.blast import results as R
from kernels.blast import consts as C

from .blast.compile import CompiledBundle
from .blast.play import RaceSetup, play_block
from .blast.players import Player, available, resolve
from .blast.design import Design, results_table, warm_up
from .stats import paired_difference, wilson_interval
from .run import run_races
from .seeds import cell_seed

TRAILS = ("Lang", "Kurz", "Short", "Long")
#: a kept race's record: Blast's seat record, then the cup and the race's number in it (1-based)
RACE_DTYPE = np.dtype(R.SEAT_DTYPE.descr + [("cup", "i4"), ("race_no", "i2")])
DRAFT_RULES = ("rated", "random")
#: tags the generator of a cup's own random choices, apart from every other use of the seed
_CUP_STREAM = 0x0C0B


@dataclass(frozen=True)
class CupRules:
    """How the cups are played.

    trails: the races in order. racers: players per cup (2..6). draft: "rated", "random" or a
    tuple of biathlete names (a preference list, best first; names left out come after, in data
    order). redraft: draft again before every race (default, the book's set-up); False drafts once
    before race 1. players: one
    player (persona name) for every seat or one per seat.
    """

    trails: tuple[str, ...] = TRAILS
    racers: int = 4
    draft: str | tuple[str, ...] = "rated"
    redraft: bool = True
    players: tuple[str, ...] = ("default",)

    def check(self, bundle: CompiledBundle) -> None:
        """ValueError (or KeyError naming the known names) for rules the data cannot play."""
        if not self.trails:
            raise ValueError("a World Cup needs at least one race")
        for t in self.trails:
            bundle.trail_id(t)
        if not C.MIN_RACERS <= self.racers <= C.MAX_RACERS:
            raise ValueError(f"racers must lie in {C.MIN_RACERS}..{C.MAX_RACERS}, got {self.racers}")
        if self.racers > len(bundle.biathlete_names):
            raise ValueError(f"{self.racers} players but only {len(bundle.biathlete_names)} biathletes to draft")
        if len(self.players) not in (1, self.racers):
            raise ValueError(f"give one player for all seats or one per seat, got {len(self.players)}")
        if isinstance(self.draft, str):
            if self.draft not in DRAFT_RULES:
                raise ValueError(f"the draft rule is rated, random or a list of biathletes, got {self.draft!r}")
        else:
            try:
                names = [bundle.biathlete_names[bundle.biathlete_id(n)] for n in self.draft]
            except KeyError as exc:
                raise ValueError(f"the draft rule is rated, random or a preference list of biathletes; "
                                 f"{exc.args[0]}") from None
            if len(set(names)) != len(names):
                raise ValueError(f"a preference list names each biathlete once, got {', '.join(self.draft)}")
        self.seat_players()

    def seat_players(self) -> tuple[Player, ...]:
        """The player of each seat, resolved by name (KeyError naming the known ones)."""
        known = available()
        players = tuple(resolve(p, known) for p in self.players)
        return players * self.racers if len(players) == 1 else players

    def describe(self) -> str:
        draft = self.draft if isinstance(self.draft, str) else "preference list " + ",".join(self.draft)
        when = "before every race" if self.redraft else "once, before race 1"
        return (f"{len(self.trails)} races ({', '.join(self.trails)}), {self.racers} players "
                f"({', '.join(self.players)}), draft {draft} {when}")


def calibrate(bundle: CompiledBundle, rules: CupRules, races: int, seed: int, n_jobs: int = 1,
              progress: bool = False, **where) -> pd.DataFrame:
    """Each biathlete's win rate on each of the cup's trails: balanced line-ups with the cup's
    racer count and players, `races` races per trail (seed derived from `seed` and the trail).
    Returns a frame indexed by biathlete name, one column per trail plus `cup` (their mean).
    `where`: sim.run.run_races's scheduler, repair, log, command, and `out`, a folder that keeps
    each trail's races as a run in out/<trail> (resumed by the same call)."""
    out = {}
    folder = where.pop("out", None)
    for t in dict.fromkeys(rules.trails):
        design = Design(t, rules.racers, players=rules.players)
        _, info = run_races(bundle, design, races, cell_seed(seed, f"rating:{t}"), chunk_size=max(1, races // 4),
                            n_jobs=n_jobs, progress=progress, collect=False, label=f"ratings {t}",
                            out=None if folder is None else Path(folder) / t, **where)
        by = info.summary.groupby(level="biathlete").sum()
        rate = (by.wins / by.races).reindex(range(len(bundle.biathlete_names)), fill_value=0.0)
        out[t] = rate.to_numpy()
    table = pd.DataFrame(out, index=pd.Index(bundle.biathlete_names, name="biathlete"))
    table["cup"] = table[list(dict.fromkeys(rules.trails))].mean(axis=1)
    return table


def preferences(bundle: CompiledBundle, rules: CupRules, ratings: pd.DataFrame | None) -> np.ndarray | None:
    """Biathlete ids best first, one row per race (int64[races, biathletes]); None for a random
    draft. A once-only draft uses the `cup` rating for every row (only row 0 is read)."""
    nb = len(bundle.biathlete_names)
    if rules.draft == "random":
        return None
    if rules.draft == "rated":
        if ratings is None:
            raise ValueError("a rated draft needs ratings (sim.worldcup.calibrate)")
        cols = list(rules.trails) if rules.redraft else ["cup"] * len(rules.trails)
        # stable: equal ratings keep data order
        return np.stack([np.argsort(-ratings[c].to_numpy(), kind="stable") for c in cols])
    listed = [bundle.biathlete_id(n) for n in rules.draft]
    order = listed + [b for b in range(nb) if b not in listed]
    return np.tile(np.array(order, np.int64), (len(rules.trails), 1))


def standings(places: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points and final standing from places.

    places: int[..., races, players], 1 = winner. Returns (points, standing), both int[..., players]:
    points = the sum of places; standing 1 = the title: lowest points, ties to the better place in
    the last race (places in a race are all different, so that settles every tie)."""
    places = np.asarray(places)
    points = places.sum(axis=-2)
    key = points * (C.MAX_RACERS + 1) + places[..., -1, :]
    standing = np.argsort(np.argsort(key, axis=-1, kind="stable"), axis=-1, kind="stable") + 1
    return points, standing


def colours_by_finish(places: np.ndarray, ski_order: np.ndarray) -> np.ndarray:
    """Ski colours for the next race: the player who placed i-th takes the i-th ski colour.
    places: int[cups, players] (1 = winner); returns colour ids int[cups, players]."""
    return np.asarray(ski_order)[np.asarray(places) - 1]


def draft_rank(colours: np.ndarray, ski_rank: np.ndarray) -> np.ndarray:
    """Each player's place in the draft (0 = picks first): its ski colour's place in ski colour
    order among the cup's colours. colours: int[cups, players]."""
    pos = np.asarray(ski_rank)[colours]
    return np.argsort(np.argsort(pos, axis=1, kind="stable"), axis=1, kind="stable")


def _cup_rng(seed: int, cup: int) -> np.random.Generator:
    return np.random.default_rng([seed, cup, _CUP_STREAM])


def _play_cups(bundle: CompiledBundle, rules: CupRules, prefs: np.ndarray | None, seed: int, start: int,
               stop: int, keep_races: bool) -> tuple[dict[str, np.ndarray], np.ndarray | None]:
    """Cups start .. stop-1. Returns per-cup arrays (colours, biathletes, places: int[cups, races,
    players]; pick: int[cups, players], 1 = first in the race 1 draft) and, with keep_races, the
    races' seat records with the cup and race number (RACE_DTYPE), by cup, race number and seat."""
    cups = np.arange(start, stop, dtype=np.int64)
    n, P, K = len(cups), rules.racers, len(rules.trails)
    nb = len(bundle.biathlete_names)
    tables = bundle.tables
    ski_order, ski_rank = np.asarray(tables.ski_order, np.int64), np.asarray(tables.ski_rank, np.int64)
    seat_players = rules.seat_players()
    names = list(dict.fromkeys(p.name for p in seat_players))
    rngs = [_cup_rng(seed, int(c)) for c in cups]
    colours = np.zeros((n, K, P), np.int64)
    biathletes = np.zeros((n, K, P), np.int64)
    places = np.zeros((n, K, P), np.int64)
    colours[:, 0] = [rng.permutation(C.N_COLOURS)[:P] for rng in rngs]
    pick = draft_rank(colours[:, 0], ski_rank)
    rows_out = []
    for k, trail in enumerate(rules.trails):
        rank = draft_rank(colours[:, k], ski_rank)
        if k == 0 or rules.redraft:
            if prefs is None:
                order = np.array([rng.permutation(nb) for rng in rngs])
            else:
                order = np.broadcast_to(prefs[k], (n, nb))
            biathletes[:, k] = np.take_along_axis(order, rank, axis=1)
        else:
            biathletes[:, k] = biathletes[:, k - 1]
        t = bundle.trail_id(trail)
        setups = [RaceSetup(t, tuple(int(b) for b in biathletes[i, k]), tuple(int(c) for c in colours[i, k]),
                            seat_players) for i in range(n)]
        races = cups * K + k
        seats = play_block(bundle, setups, seed, races, names)
        places[:, k] = seats["place"].reshape(n, P)
        if keep_races:
            kept = np.zeros(n * P, RACE_DTYPE)
            for name in R.SEAT_DTYPE.names:
                kept[name] = seats[name]
            kept["cup"] = np.repeat(cups, P)
            kept["race_no"] = k + 1
            rows_out.append(kept)
        if k + 1 < K:
            colours[:, k + 1] = colours_by_finish(places[:, k], ski_order)
    races_rows = None
    if keep_races:
        races_rows = np.concatenate(rows_out)
        order = np.lexsort((races_rows["seat"], races_rows["race_no"], races_rows["cup"]))
        races_rows = races_rows[order]          # cup, race number, seat
    return {"cup": cups, "colours": colours, "biathletes": biathletes, "places": places, "pick": pick + 1}, races_rows


@dataclass
class WorldCups:
    """Played World Cups.

    cups: one row per cup and player: cup, player (seat), player_name, pick (1 = first in the race 1
    draft), biathlete (drafted for race 1), colour_k, biathlete_k, place_k per race k (1-based),
    points, standing (1 = the title), champion.
    races: one row per race and racer (sim.run.results_table columns plus cup and race_no), when
    kept. ratings: the calibration of a rated draft (win rate per trail), else None. seconds: the
    time taken, calibration included.
    """

    rules: CupRules
    seed: int
    cups: pd.DataFrame
    races: pd.DataFrame | None
    ratings: pd.DataFrame | None
    seconds: float
    biathlete_names: tuple[str, ...] = field(repr=False, default=())

    @property
    def n_cups(self) -> int:
        return int(self.cups.cup.nunique())

    def describe(self) -> str:
        return f"{self.n_cups:,} World Cups, seed {self.seed}: {self.rules.describe()}; {self.seconds:.1f} s"

    def title_odds(self, confidence: float = 0.95) -> pd.DataFrame:
        """Per biathlete (as drafted for race 1; with redraft, the player's first biathlete):

        drafted (cups it was drafted in), titles, title_odds = titles / cups with its Wilson interval
        (low, high): the biathlete's share of all titles, which sums to 1 over the biathletes;
        odds_when_drafted = titles / drafted; mean_points (cup total, when drafted); mean_place per
        race it raced in (every race, whoever drafted it)."""
        c = self.cups
        n = self.n_cups
        g = c.groupby("biathlete", observed=False)
        t = pd.DataFrame({"drafted": g.size(), "titles": g.champion.sum().astype(int)})
        t = t.reindex(list(self.biathlete_names), fill_value=0)
        t["title_odds"] = t.titles / n
        t["low"], t["high"] = wilson_interval(t.titles.to_numpy(), np.full(len(t), n), confidence)
        with np.errstate(invalid="ignore", divide="ignore"):
            t["odds_when_drafted"] = t.titles / t.drafted.replace(0, np.nan)
        t["mean_points"] = g.points.mean().reindex(t.index)
        K = len(self.rules.trails)
        raced = pd.concat([pd.DataFrame({"biathlete": c[f"biathlete_{k}"], "place": c[f"place_{k}"]})
                           for k in range(1, K + 1)])
        t["mean_place"] = raced.groupby("biathlete", observed=False).place.mean().reindex(t.index)
        t.index.name = "biathlete"
        return t.sort_values(["title_odds", "mean_place"], ascending=[False, True])

    def by_pick(self, confidence: float = 0.95) -> pd.DataFrame:
        """Title odds by place in the race 1 draft (1 = first pick), with Wilson intervals, the
        fair share 1 / players and mean points. Sums to 1 over the picks."""
        return self._by("pick", confidence)

    def by_player(self, confidence: float = 0.95) -> pd.DataFrame:
        """Title odds by player (persona), for cups of mixed players."""
        return self._by("player_name", confidence)

    def _by(self, key: str, confidence: float) -> pd.DataFrame:
        g = self.cups.groupby(key, observed=True)
        t = pd.DataFrame({"cups": g.size(), "titles": g.champion.sum().astype(int)})
        t["title_odds"] = t.titles / t.cups
        t["low"], t["high"] = wilson_interval(t.titles.to_numpy(), t.cups.to_numpy(), confidence)
        t["fair_share"] = g.player.size() / len(self.cups)
        t["mean_points"] = g.points.mean()
        return t

    def pick_gap(self, first: int = 1, last: int | None = None) -> dict[str, float]:
        """Title odds of the first pick minus those of the last, paired by cup (both are in every
        cup): mean, low, high, z, p, units (sim.stats.paired_difference)."""
        last = self.rules.racers if last is None else last
        w = self.cups.pivot(index="cup", columns="pick", values="champion").astype(float)
        return paired_difference((w[first] - w[last]).to_numpy())


def play_world_cups(bundle: CompiledBundle, rules: CupRules, cups: int, seed: int = 1, *, chunk_size: int = 500,
                    n_jobs: int = 1, progress: bool = False, keep_races: bool = False,
                    ratings: pd.DataFrame | None = None, rating_races: int = 9600, scheduler: str | None = None,
                    out: str | Path | None = None, repair: bool = False, log=None, command: str = "") -> WorldCups:
    """Play cups 0 .. cups-1 with `seed`. A rated draft without `ratings` calibrates first
    (`rating_races` races per trail). ValueError / KeyError for rules the data cannot play.

    scheduler: play the chunks on the dask.distributed cluster at that address. out: a folder
    where the calibration's races (out/runs/ratings/<trail>, runs) and every finished chunk of
    cups (out/runs/cups, sim.store) are kept, so that the same call resumes an interrupted one
    with its finished chunks, whatever the chunk size (more cups extend it); a folder that holds
    other cups (another seed, rules, data or draft order) is refused (sim.store.FolderError, one
    line); `repair` sets damaged parts aside and plays them again."""
    rules.check(bundle)
    if cups < 1 or chunk_size < 1:
        raise ValueError("cups and chunk size must be at least 1")
    t0 = time.perf_counter()
    where = dict(scheduler=scheduler, repair=repair, log=log, command=command)
    if rules.draft == "rated" and ratings is None:
        if rating_races < 1:
            raise ValueError("a rated draft needs rating races (at least 1 per trail)")
        ratings = calibrate(bundle, rules, rating_races, seed, n_jobs, progress, **where,
                            out=None if out is None else Path(out) / "runs" / "ratings")
    prefs = preferences(bundle, rules, ratings)
    done, store = {}, None
    if out is not None:
        store = _cup_store(Path(out) / "runs" / "cups", bundle, rules, prefs, seed, keep_races, command, repair, log)
        for a, _, path in store.finished():
            done[a] = _unpack_cups(store.read_part(path), store.read_part(store.visits / path.name), rules,
                                   store.visits / path.name)
        bounds = store.missing(cups, chunk_size)
    else:
        bounds = [(a, min(a + chunk_size, cups)) for a in range(0, cups, chunk_size)]
    for (a, b), part in _chunks(bundle, rules, prefs, seed, bounds, keep_races, n_jobs, progress, scheduler):
        if store is not None:
            store.write(a, b, *_pack_cups(*part))
        done[a] = part
    parts = [done[a] for a in sorted(done) if a < cups]
    seconds = time.perf_counter() - t0
    arrays = {k: np.concatenate([p[0][k] for p in parts]) for k in parts[0][0]}
    within = arrays["cup"] < cups               # a kept folder may hold more cups than asked for
    arrays = {k: v[within] for k, v in arrays.items()}
    table = cup_table(bundle, rules, arrays)
    races = None
    if keep_races:
        rows = np.concatenate([p[1] for p in parts])
        rows = rows[rows["cup"] < cups]
        names = list(dict.fromkeys(p.name for p in rules.seat_players()))
        races = results_table(bundle, rows, names)
    return WorldCups(rules, seed, table, races, ratings, seconds, tuple(bundle.biathlete_names))


def _chunks(bundle, rules, prefs, seed, bounds, keep_races, n_jobs, progress, scheduler=None):
    """((first cup, end), the chunk's cups) for each chunk of cups, in order, through the shared runner."""
    from .runner import Task, progress_bar, run_tasks

    if not bounds:
        return
    bar = progress_bar(sum(b - a for a, b in bounds), 0, progress, "World Cups")
    if bar is not None:
        bar.unit = " cups"
    if n_jobs != 1 or scheduler:
        warm_up(bundle, Design(rules.trails[0], rules.racers, players=rules.players))
    tasks = [Task((a, b), _play_cups, (bundle, rules, prefs, seed, a, b, keep_races)) for a, b in bounds]
    try:
        for t, r in run_tasks(tasks, n_jobs, scheduler):
            if bar is not None:
                bar.update(t.key[1] - t.key[0])
            yield t.key, r
    finally:
        if bar is not None:
            bar.close()


#: what must agree for a folder's finished chunks of cups to be reused (sim.store)
IDENTITY = ("kind", "game", "seed", "data_hash", "rules", "players", "preferences", "keep_races",
            "package_version")


def _cup_store(folder: Path, bundle, rules: CupRules, prefs, seed: int, keep_races: bool, command: str,
               repair: bool, log):
    """The store of a folder's cups (the layout of a run's folder), opened under the cups' identity
    (the seat players' weights included: an edited persona file plays other cups)."""
    from dataclasses import asdict

    from .ladder import player_record, roster
    from .run import package_version, refuse_other_kind
    from .store import ChunkStore

    refuse_other_kind(folder, "run")
    hook = roster("blast")
    m = {"kind": "worldcup", "game": "blast", "seed": seed, "data_hash": bundle.data_hash, "rules": asdict(rules),
         "players": [player_record(p, hook) for p in rules.seat_players()],
         "preferences": None if prefs is None else np.asarray(prefs).tolist(), "keep_races": keep_races,
         "package_version": package_version(), "command": command}
    store = ChunkStore.of_run(folder)
    store.open(m, IDENTITY, repair=repair, log=log)
    return store


def _pack_cups(arrays: dict[str, np.ndarray], rows: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """A chunk of `_play_cups` as the store's two records: one row per cup and player (cup, pick,
    and colour, biathlete and place in every race), and the races' records (none unless kept)."""
    n, K, P = arrays["places"].shape
    fields = [("cup", np.int64), ("pick", np.int64)] + [(f"{w}_{k}", np.int64) for k in range(K)
                                                        for w in ("colour", "biathlete", "place")]
    seats = np.empty(n * P, fields)
    seats["cup"] = np.repeat(arrays["cup"], P)
    seats["pick"] = arrays["pick"].reshape(-1)
    for k in range(K):
        for w, key in (("colour", "colours"), ("biathlete", "biathletes"), ("place", "places")):
            seats[f"{w}_{k}"] = arrays[key][:, k].reshape(-1)
    return seats, (np.zeros(0, RACE_DTYPE) if rows is None else rows)


def _unpack_cups(seats: pd.DataFrame, races: pd.DataFrame, rules: CupRules, where=""):
    """`_pack_cups`'s records (read back from a stored part) as `_play_cups` returned them."""
    P, K = rules.racers, len(rules.trails)
    n = len(seats) // P

    def grid(col: str) -> np.ndarray:
        return seats[col].to_numpy(np.int64).reshape(n, P)

    arrays = {"cup": seats.cup.to_numpy(np.int64)[::P], "pick": grid("pick")}
    for w, key in (("colour", "colours"), ("biathlete", "biathletes"), ("place", "places")):
        arrays[key] = np.stack([grid(f"{w}_{k}") for k in range(K)], axis=1)
    return arrays, (_race_records(races, where) if len(races) else None)


def _race_records(races: pd.DataFrame, where) -> np.ndarray:
    """A stored part's kept races as RACE_DTYPE records; FolderError for a part written before
    Blast's kernel filled named records (positional columns c0, c1, ...)."""
    missing = [name for name in RACE_DTYPE.names if name not in races.columns]
    if missing:
        from .store import FolderError

        raise FolderError(f"{where} holds kept races without the columns {', '.join(missing[:3])}"
                          f"{' ...' if len(missing) > 3 else ''} (written by an older biathlon-sim, whose "
                          f"races were positional columns): remove the folder or play into another one")
    out = np.zeros(len(races), RACE_DTYPE)
    for name in RACE_DTYPE.names:
        out[name] = races[name].to_numpy()
    return out


def cup_table(bundle: CompiledBundle, rules: CupRules, arrays: dict[str, np.ndarray]) -> pd.DataFrame:
    """One row per cup and player from the per-cup arrays of `_play_cups`."""
    cups, colours, bis, places, pick = (arrays[k] for k in ("cup", "colours", "biathletes", "places", "pick"))
    n, K, P = places.shape
    points, standing = standings(places)
    seats = [p.name for p in rules.seat_players()]
    names = list(bundle.biathlete_names)
    df = pd.DataFrame({
        "cup": np.repeat(cups, P),
        "player": np.tile(np.arange(P), n),
        "player_name": pd.Categorical(np.tile(seats, n), categories=list(dict.fromkeys(seats))),
        "pick": pick.reshape(-1),
        "biathlete": pd.Categorical.from_codes(bis[:, 0].reshape(-1), names),
    })
    for k in range(K):
        df[f"colour_{k + 1}"] = pd.Categorical.from_codes(colours[:, k].reshape(-1), list(C.COLOUR_NAMES))
        df[f"biathlete_{k + 1}"] = pd.Categorical.from_codes(bis[:, k].reshape(-1), names)
        df[f"place_{k + 1}"] = places[:, k].reshape(-1)
    df["points"] = points.reshape(-1)
    df["standing"] = standing.reshape(-1)
    df["champion"] = df.standing == 1
    return df


__all__ = ["CupRules", "WorldCups", "play_world_cups", "calibrate", "standings", "colours_by_finish",
           "draft_rank", "preferences", "cup_table", "TRAILS", "DRAFT_RULES"]
