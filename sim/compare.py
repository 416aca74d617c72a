"""What-if comparisons in every game: a base and a changed data set played on the same races.

Both data sets play races 0 .. N-1 of the game's balanced design on each scenario (Blast's trail,
Ski Tour's course, Mania's track) with the same seed, so race *i* has the same entrants in the same
seats, the same shuffles and the same dice stream on both (common random numbers); only the change,
and what it sets in motion, differs. The game is reached through its registered module
(sim.games): `make_design`, `check_design`, `block`, `names` and `play_chunk`, and two optional
hooks, `AXIS_WORDS` (the box's words for the seat axes) and `COMPONENTS` (the per-racer counts of
the game's components that the comparison pairs).

Win rates. An entrant (Blast's biathlete, Ski Tour's nation, Mania's figure colour) races at most
once per race, and so does a value of every other seat axis (Blast's ski colour) and a seat (in a
relay: a team, counted on its first leg's row). So for a group of rows (an entrant, an entrant on
one scenario, a ski colour, a seat) each race it appears in gives one paired difference
d = won(changed) - won(base) for the same race and seat. Races are independent of each other, so
the mean of d is the change in win rate and its standard error is sd(d) / sqrt(n): the per-race
variance of the difference, far smaller than that of two independent samples because most races end
the same way on both data sets. p-values are two-sided normal tests of mean d == 0 (the arithmetic
of sim.stats.paired_difference, from sums), adjusted for the number of rows (Holm, or
Benjamini-Hochberg).

Race length and component use. Per race: rounds, and for each component column the mean over the
race's racers; d = its value on the changed data minus on the base, per race, and the same paired
interval over races (per scenario and over all of them).

Each scenario plays with its own seed, derived from the given seed and the scenario's name
(`sim.study.cell_seed`), so the races of different scenarios are independent of each other.

Chunks of races play both data sets in one task and return only sums, so memory stays flat whatever
the number of races. With an output folder, each data set's races of each scenario are kept as a
run instead (sim.run and sim.store: out/runs/base/SCENARIO, out/runs/changed/SCENARIO), so an
interrupted comparison resumes with its finished chunks; the runs are read back and paired by the
same code (`_pair`), so the tables are those of the streamed comparison. Either way the chunks go
through the shared runner (joblib workers, or a dask.distributed cluster with `scheduler`).
"""
from __future__ import annotations

import re
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from . import games
from .blocks import round_to_blocks
from .stats import benjamini_hochberg, holm, two_sided_p, wilson_interval, z_value
from .seeds import cell_seed
from .validation import Patch

CORRECTIONS = ("holm", "bh")
COUNTS = ["races", "wins_base", "wins_changed", "discordant", "place_base", "place_changed"]
#: the race length every game's records carry (the core `rounds` field)
RACE_LENGTH = {"rounds": "rounds per race"}


@dataclass(frozen=True)
class Words:
    """A game's words for compare's rows: its scenario word, seat axes (entrant first), each axis's
    scope word and label pattern (the game module's optional AXIS_WORDS: axis -> (word, pattern)),
    and the component columns it pairs (the optional COMPONENTS: column -> what it counts)."""

    game: str
    title: str
    scenario: str
    axes: tuple[str, ...]
    axis_words: dict = field(default_factory=dict)
    components: dict = field(default_factory=dict)

    @property
    def entrant(self) -> str:
        return self.axes[0]

    def scope(self, axis: str) -> str:
        return self.axis_words.get(axis, (axis, "{}"))[0]

    def label(self, axis: str, value: str) -> str:
        return self.axis_words.get(axis, (axis, "{}"))[1].format(value)

    @property
    def measures(self) -> dict:
        """Per-race figures paired: race length, then the components."""
        return {**RACE_LENGTH, **self.components}

    @property
    def keys(self) -> list[str]:
        """The index of the counts: scenario, the seat axes, seat."""
        return [self.scenario, *self.axes, "seat"]


def words(game: str | None = None) -> Words:
    info = games.game(game)
    mod = info.load()
    return Words(info.name, info.title, info.scenario, tuple(info.axes), dict(getattr(mod, "AXIS_WORDS", {})),
                 dict(getattr(mod, "COMPONENTS", {})))


def parse_set(text: str, origin: str | None = None) -> Patch:
    """A patch from 'FILE:PATH=VALUE' (VALUE in TOML: 7, [2, 4, 5], "until_usable", { black = 1 }).

    A bare word that is not TOML (until_usable) is taken as a string. ValueError saying what was
    expected when the text does not have that shape."""
    m = re.fullmatch(r"\s*([^:=]+?)\s*:\s*([^=]+?)\s*=(.*)", text, re.S)
    if not m:
        raise ValueError(f"--set {text!r}: expected FILE:PATH=VALUE, e.g. "
                         f"biathletes/olsson.toml:accuracy=[2,4,5]")
    file, path, raw = m.group(1), m.group(2), m.group(3).strip()
    if not raw:
        raise ValueError(f"--set {text!r}: no value after '='")
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError as exc:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", raw):
            raise ValueError(f"--set {text!r}: the value {raw!r} is not TOML ({exc}); strings go in "
                             f"quotes, lists in brackets: [2, 4, 5]") from None
        value = raw
    return Patch(file, path, value, origin or f"--set {text}")


def check_pairable(base, changed, scenarios: list[str], game: str | None = None, design=None) -> list[str]:
    """What keeps the two data sets from replaying the same races: one line per problem. `design`
    (one of the comparison's): the entrants and the balanced block are compared on it too."""
    w = words(game)
    mod = games.game(game).load()
    problems = []
    for t in scenarios:
        missing = [what for what, b in (("base", base), ("changed", changed)) if t not in mod.scenarios(b)]
        if missing:
            problems.append(f"no {w.scenario} {t!r} in the {' or the '.join(missing)} data "
                            f"(known: {', '.join(mod.scenarios(base))})")
    if design is not None and not problems:
        for axis in w.axes:
            a, b = mod.names(base, design)[axis], mod.names(changed, design)[axis]
            if a != b:
                problems.append(f"the changed data has {w.scope(axis)}s {', '.join(b)}, the base {', '.join(a)}: "
                                f"the same line-ups need the same {w.scope(axis)}s in the same order")
        if not problems and mod.block(base, design) != mod.block(changed, design):
            problems.append(f"the changed data's balanced line-ups come in blocks of {mod.block(changed, design)} "
                            f"races, the base's of {mod.block(base, design)}: they cannot seat the same line-ups")
    return problems


def _compare_chunk(game: str, base, changed, design, seed: int, start: int, stop: int, w: Words):
    """Races start .. stop-1 of `design` played on both data sets and paired (`_pair`)."""
    mod = games.game(game).load()
    a, _ = mod.play_chunk(base, design, seed, start, stop)
    b, _ = mod.play_chunk(changed, design, seed, start, stop)
    return _pair(a, b, start, stop - start, w)


def _pair(a, b, start: int, n: int, w: Words):
    """Races start .. start+n-1 of one design, their seat records on the base (`a`) and on the
    changed data (`b`), in the same row order (structured arrays or frames): win counts per
    (scenario, seat axes, seat), the races without a winner on each (int64[2]) and, per measure of
    `w`, the sums over races of its base value, changed value and squared difference
    (float64[measures, 3])."""
    sc = w.scenario
    for f in ("race", "seat", "team", "leg", sc, *w.axes):
        if not np.array_equal(np.asarray(a[f]), np.asarray(b[f])):
            raise RuntimeError("the two data sets did not seat the same line-ups; cannot pair their races")
    first = np.asarray(a["leg"]) == 0       # a relay team counts once, on its first leg (legs share its place)

    def take(rec, f: str) -> np.ndarray:
        return np.asarray(rec[f])[first]

    wb, wc = take(a, "won").astype(np.int64), take(b, "won").astype(np.int64)
    frame = pd.DataFrame({sc: take(a, sc), **{x: take(a, x) for x in w.axes}, "seat": take(a, "team"),
                          "races": 1, "wins_base": wb, "wins_changed": wc, "discordant": np.abs(wc - wb),
                          "place_base": take(a, "place"), "place_changed": take(b, "place")})
    race = take(a, "race")
    for key in (*w.axes, "seat"):
        if pd.DataFrame({"race": race, "k": frame[key]}).duplicated().any():
            raise RuntimeError(f"a {key} raced twice in one race; compare pairs one row per {key} and race")
    counts = frame.groupby(w.keys).sum().astype(np.int64)
    no_winner = np.array([n - _races_won(a), n - _races_won(b)], np.int64)
    r = np.asarray(a["race"]).astype(np.int64) - start
    seats = np.bincount(r, minlength=n).astype(np.float64)
    sums = np.zeros((len(w.measures), 3))
    for i, c in enumerate(w.measures):
        xb = np.bincount(r, weights=np.asarray(a[c]).astype(np.float64), minlength=n) / seats
        xc = np.bincount(r, weights=np.asarray(b[c]).astype(np.float64), minlength=n) / seats
        sums[i] = xb.sum(), xc.sum(), ((xc - xb) ** 2).sum()
    return counts, no_winner, sums


def _races_won(seats: np.ndarray) -> int:
    """Races with at least one winner (a shared finish may have several)."""
    return len(np.unique(np.asarray(seats["race"])[np.asarray(seats["won"]) > 0]))


@dataclass
class Comparison:
    """A comparison's outcome.

    table: win rates, one row per entrant (all scenarios), entrant on each scenario (with more than
    one), value of each other seat axis and seat, largest |diff| first; columns scope, label, the
    entrant, scenario, other axes and seat, races (the races the group raced in, on each data set),
    base_win and changed_win with Wilson intervals, diff (changed - base) with its paired interval
    (low, high), p, p_adjusted, significant, base_place and changed_place (mean place).
    measures: race length and component use, one row per measure and scenario (and "all"): races,
    base, changed, diff with its paired interval, p, p_adjusted, significant.
    counts: summed counts per (scenario, seat axes, seat) (COUNTS), from which any grouping follows.
    """

    table: pd.DataFrame
    measures: pd.DataFrame
    counts: pd.DataFrame
    no_winner: pd.DataFrame          # per scenario: races, base and changed races without a winner
    trails: tuple[str, ...]          # the scenarios
    seeds: dict[str, int]
    racers: int
    races: int                       # per scenario
    players: tuple[str, ...]
    correction: str
    alpha: float
    base_hash: str
    changed_hash: str
    seconds: float
    words: Words | None = None
    design: str = ""                 # the first scenario's design in one line
    chunks_reused: int = 0           # with `out`: finished chunks of an earlier call kept

    def describe(self) -> str:
        w = self.words or words()
        seeds = ", ".join(f"{t} {s}" for t, s in self.seeds.items())
        return (f"{w.title}: {self.races:,} races per {w.scenario} on {', '.join(self.trails)} "
                f"({self.races * len(self.trails):,} per data set), {self.design or f'{self.racers} racers'}; "
                f"data {self.base_hash} (base) vs {self.changed_hash} (changed); seeds per {w.scenario}: {seeds}; "
                f"{self.seconds:.1f} s")


def compare(base, changed, trails: list[str] | None = None, racers: int = 4, races: int = 9600, seed: int = 1,
            players: tuple[str, ...] | None = None, chunk_size: int = 4800, n_jobs: int = 1,
            progress: bool = False, correction: str = "holm", alpha: float = 0.05, game: str | None = None,
            options: dict | None = None, scheduler: str | None = None, out: str | Path | None = None,
            repair: bool = False, command: str = "", log=None) -> Comparison:
    """Play `races` races per scenario (`trails`: Blast's trails, Ski Tour's courses, Mania's tracks;
    default all), rounded up to whole balanced blocks of the game's design, on both data sets with
    the same seeds, and compare win rates, race length and component use, paired race by race.

    game: a registered game (default Blast); options: the game's options (Mania's format, ...).
    scheduler: the address of a dask.distributed scheduler to play the chunks on. out: a folder
    where each data set's races of each scenario are kept as a run (out/runs/base/SCENARIO,
    out/runs/changed/SCENARIO; sim.run, sim.store), so that an interrupted comparison resumes
    with its finished chunks (`repair`: set damaged parts aside and play them again); the tables
    are those of the same comparison without `out`. ValueError for data sets that cannot be
    paired, unknown scenarios or players, bad counts; sim.store.FolderError for a folder that
    holds another comparison's races.
    """
    info = games.game(game)
    mod, w = info.load(), words(info.name)
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}, got {correction!r}")
    trails = list(trails or mod.scenarios(base))
    problems = check_pairable(base, changed, trails, info.name)
    if problems:
        raise ValueError("; ".join(problems))
    if races < 1 or chunk_size < 1:
        raise ValueError("races and chunk size must be at least 1")
    info.check_racers(racers)
    players = tuple(players or (info.default_player,))
    designs = []
    for t in trails:
        try:
            d = mod.make_design(t, racers, players=tuple(players), options=options or None)
            mod.check_design(base, d)
        except KeyError as exc:
            raise ValueError(str(exc.args[0]) if exc.args else str(exc)) from None
        designs.append(d)
    problems = check_pairable(base, changed, trails, info.name, designs[0])
    if problems:
        raise ValueError("; ".join(problems))
    block = mod.block(base, designs[0])
    per_trail = round_to_blocks(races, block)
    seeds = {t: cell_seed(seed, t) for t in trails}
    t0 = time.perf_counter()
    parts, no_winner, sums, reused = [], {}, {}, [0]
    if out is None:
        tasks = [(t, d, seeds[t], a, min(a + chunk_size, per_trail))
                 for t, d in zip(trails, designs) for a in range(0, per_trail, chunk_size)]
        paired = zip((t for t, *_ in tasks), _run_tasks(info.name, base, changed, tasks, w, n_jobs, progress,
                                                       scheduler))
    else:
        paired = _stored(info.name, base, changed, trails, designs, seeds, per_trail, w, chunk_size, n_jobs,
                         progress, scheduler, Path(out), repair, command, log, reused)
    for t, (counts, nw, s) in paired:
        parts.append(counts)
        no_winner[t] = no_winner.get(t, 0) + nw
        sums[t] = sums.get(t, 0) + s
    seconds = time.perf_counter() - t0
    counts = pd.concat(parts).groupby(level=w.keys).sum()
    nw = pd.DataFrame([(t, per_trail, *no_winner[t]) for t in trails],
                      columns=[w.scenario, "races", "base", "changed"]).set_index(w.scenario)
    names = mod.names(base, designs[0])
    relay = mod.seats_per_race(designs[0]) != racers
    table = comparison_table(counts, names, len(trails) > 1, correction, alpha, game=info.name, relay=relay)
    measures = measure_table(sums, per_trail, w, correction, alpha)
    return Comparison(table, measures, counts, nw, tuple(trails), seeds, racers, per_trail, tuple(players),
                      correction, alpha, base.data_hash, changed.data_hash, seconds, w,
                      mod.describe(designs[0]).removeprefix(f"{trails[0]}, "), reused[0])


#: the folders under a comparison's --out where each data set's races are kept, per scenario
SIDES = ("base", "changed")


def _stored(game, base, changed, trails, designs, seeds, races, w: Words, chunk_size, n_jobs, progress,
            scheduler, out: Path, repair, command, log, reused: list):
    """Each scenario's races played (or resumed) as one run per data set under out/runs/, then
    read back and paired: (scenario, the sums of `_pair`) per scenario. `reused[0]` counts the
    finished chunks of an earlier call that were kept."""
    from .run import run_races
    from .store import ChunkStore

    columns = list(dict.fromkeys(["race", "seat", "team", "leg", w.scenario, *w.axes, "won", "place",
                                  *w.measures]))
    for t, d in zip(trails, designs):
        seats = []
        for side, bundle in zip(SIDES, (base, changed)):
            folder = out / "runs" / side / t
            _, info = run_races(bundle, d, races, seeds[t], game=game, chunk_size=chunk_size, n_jobs=n_jobs,
                                out=folder, progress=progress, command=command, collect=False,
                                scheduler=scheduler, label=f"{side} {t}", repair=repair, log=log)
            reused[0] += info.chunks_reused
            frame = ChunkStore.of_run(folder).read("seats", columns)
            seats.append(frame.iloc[np.lexsort((frame.seat.to_numpy(), frame.race.to_numpy()))].reset_index(drop=True))
        yield t, _pair(seats[0], seats[1], 0, races, w)


def _run_tasks(game, base, changed, tasks, w, n_jobs, progress, scheduler=None):
    """Each task's sums, in order, through the shared runner (here, joblib workers or a dask
    cluster)."""
    from .run import warm_up
    from .runner import Task, progress_bar, run_tasks

    bar = progress_bar(sum(b - a for *_, a, b in tasks), 0, progress, "base + changed")
    if n_jobs != 1 or scheduler:
        warm_up(game, base, tasks[0][1])       # compile (or load) the kernels once, before workers start
    try:
        for t, r in run_tasks([Task(t, _compare_chunk, (game, base, changed, *t[1:], w)) for t in tasks],
                              n_jobs, scheduler):
            if bar is not None:
                bar.update(t.key[4] - t.key[3])
            yield r
    finally:
        if bar is not None:
            bar.close()


def paired_from_sums(n, total_d, total_d2, confidence: float = 0.95):
    """(mean, low, high, p) of paired per-unit differences from their count, sum and sum of
    squares (arrays welcome): sim.stats.paired_difference's arithmetic without the units."""
    n, total_d, total_d2 = (np.asarray(x, np.float64) for x in (n, total_d, total_d2))
    mean = total_d / n
    with np.errstate(invalid="ignore", divide="ignore"):
        var = np.maximum(total_d2 - n * mean ** 2, 0.0) / (n - 1)        # sample variance of d
        se = np.sqrt(var / n)
        z = np.where(se > 0, mean / np.where(se > 0, se, 1), np.where(mean == 0, 0.0, np.copysign(np.inf, mean)))
    zc = z_value(confidence)
    return mean, mean - zc * se, mean + zc * se, two_sided_p(z)


def _adjusted(p: np.ndarray, correction: str) -> np.ndarray:
    return holm(p) if correction == "holm" else benjamini_hochberg(p)


def comparison_table(counts: pd.DataFrame, names: dict, per_trail: bool = True, correction: str = "holm",
                     alpha: float = 0.05, confidence: float = 0.95, game: str | None = None,
                     relay: bool = False) -> pd.DataFrame:
    """The win-rate rows from summed counts per (scenario, seat axes, seat) (COUNTS columns).

    names: the game's names of the id columns (its module's `names(bundle, design)`). Per group:
    n races, base and changed wins, and the sum of d^2 = |d| (d is -1, 0 or 1), which give the mean
    difference and its sample variance across races without the rows themselves."""
    w = words(game)
    flat = counts.reset_index()
    sc, e = w.scenario, w.entrant
    seat_word = "team" if relay else "seat"
    groups = [(w.scope(e), [e])]
    if per_trail:
        groups.append((f"{w.scope(e)} on {sc}", [e, sc]))
    groups += [(w.scope(x), [x]) for x in w.axes[1:]]
    groups.append((seat_word, ["seat"]))
    columns = [e, sc, *w.axes[1:], "seat"]
    parts = []
    for scope, keys in groups:
        g = flat.groupby(keys)[COUNTS].sum().reset_index()
        ids = {k: g[k].astype(int).to_numpy() for k in keys}
        text = {k: ([str(i + 1) for i in v] if k == "seat" else [names[k][i] for i in v]) for k, v in ids.items()}
        if keys == [e, sc]:
            label = [f"{w.label(e, a)} @ {b}" for a, b in zip(text[e], text[sc])]
        elif keys == ["seat"]:
            label = [f"{seat_word} {s}" for s in text["seat"]]
        else:
            label = [w.label(keys[0], v) for v in text[keys[0]]]
        part = pd.DataFrame({"scope": scope, "label": label,
                             **{c: text.get(c, [""] * len(g)) for c in columns}})
        parts.append(pd.concat([part, g[COUNTS]], axis=1))
    t = pd.concat(parts, ignore_index=True)
    n = t.races.to_numpy(np.float64)
    wb, wc, disc = (t[c].to_numpy(np.float64) for c in ("wins_base", "wins_changed", "discordant"))
    t["base_win"], t["changed_win"] = wb / n, wc / n
    t["base_low"], t["base_high"] = wilson_interval(wb, n, confidence)
    t["changed_low"], t["changed_high"] = wilson_interval(wc, n, confidence)
    t["diff"], t["low"], t["high"], t["p"] = paired_from_sums(n, wc - wb, disc, confidence)
    t["p_adjusted"] = _adjusted(t.p.to_numpy(), correction)
    t["significant"] = t.p_adjusted <= alpha
    t["base_place"], t["changed_place"] = t.place_base / n, t.place_changed / n
    cols = ["scope", "label", *columns, "races", "base_win", "base_low", "base_high",
            "changed_win", "changed_low", "changed_high", "diff", "low", "high", "p", "p_adjusted",
            "significant", "base_place", "changed_place"]
    order = np.lexsort((t.label.to_numpy(), -np.abs(t["diff"].to_numpy())))
    return t.iloc[order][cols].reset_index(drop=True)


def measure_table(sums: dict, races: int, w: Words, correction: str = "holm", alpha: float = 0.05,
                  confidence: float = 0.95) -> pd.DataFrame:
    """Race length and component use: per measure and scenario (and "all" with more than one),
    races, the mean per race on the base and changed data, diff with its paired interval over
    races, p, p_adjusted, significant; measures in the game's order, then scenarios."""
    scenarios = list(sums)
    rows = {t: (races, sums[t]) for t in scenarios}
    if len(scenarios) > 1:
        rows["all"] = (races * len(scenarios), sum(sums.values()))
    out = []
    for i, (col, what) in enumerate(w.measures.items()):
        for t, (n, s) in rows.items():
            out.append({"measure": what, "column": col, w.scenario: t, "races": n, "base": s[i, 0] / n,
                        "changed": s[i, 1] / n, "_d": s[i, 1] - s[i, 0], "_d2": s[i, 2]})
    m = pd.DataFrame(out)
    m["diff"], m["low"], m["high"], m["p"] = paired_from_sums(m.races, m._d, m._d2, confidence)
    m["p_adjusted"] = _adjusted(m.p.to_numpy(), correction)
    m["significant"] = m.p_adjusted <= alpha
    return m.drop(columns=["_d", "_d2"])


def format_table(table: pd.DataFrame, rows: int | None = None) -> str:
    """The win-rate comparison as text: win rates in percent, the paired interval in points, p-values."""
    t = table if rows is None else table.head(rows)
    out = pd.DataFrame({
        "row": t.label,
        "races": t.races.map("{:,}".format),
        "base": (t.base_win * 100).map("{:.2f}%".format),
        "changed": (t.changed_win * 100).map("{:.2f}%".format),
        "diff": (t["diff"] * 100).map("{:+.2f}".format),
        "95% interval": [f"[{lo * 100:+.2f}, {hi * 100:+.2f}]" for lo, hi in zip(t.low, t.high)],
        "p": t.p.map(_p_text),
        "p adjusted": t.p_adjusted.map(_p_text),
        "": np.where(t.significant, "*", ""),
    })
    return out.to_string(index=False)


def format_measures(measures: pd.DataFrame, scenario: str) -> str:
    """Race length and component use as text: per race (or per racer and race) on each data set,
    the change and its paired interval in the measure's own units."""
    m = measures
    out = pd.DataFrame({
        "measure": m.measure, scenario: m[scenario], "races": m.races.map("{:,}".format),
        "base": m.base.map("{:.3f}".format), "changed": m.changed.map("{:.3f}".format),
        "diff": m["diff"].map("{:+.3f}".format),
        "95% interval": [f"[{lo:+.3f}, {hi:+.3f}]" for lo, hi in zip(m.low, m.high)],
        "p": m.p.map(_p_text), "p adjusted": m.p_adjusted.map(_p_text), "": np.where(m.significant, "*", ""),
    })
    return out.to_string(index=False)


def _p_text(p: float) -> str:
    return "<1e-15" if p < 1e-15 else f"{p:.2g}"


__all__ = ["Comparison", "Words", "compare", "comparison_table", "measure_table", "paired_from_sums", "parse_set",
           "check_pairable", "format_table", "format_measures", "words"]
