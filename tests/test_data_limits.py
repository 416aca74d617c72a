"""Every numeric field of the data format at its allowed minimum and maximum (issue 12).

Each case builds a small data set with one field (or one family of fields) at a limit, the rest
kept consistent with it (a 20-card common deck has 20 cards in cards.toml; ten range visits have a
route with ten ranges), and then either `validate` refuses it or races play cleanly: no crash, every
result row consistent, and the independent referee accepts the event log. One step past each limit
must be refused. Run under NUMBA_BOUNDSCHECK=1 (marker `boundscheck`), a kernel that indexed past an
array would raise instead of reading or writing memory that is not its own.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from kernels.blast import consts as C
from kernels.blast import events as E
from kernels.blast import state as S
from sim.blast import load_bundle
from sim.blast.eventlog import render_log
from sim.blast.load import MAX_INITIATIVE, MAX_STEPS, MAX_TOKENS, data_warnings
from sim.blast.play import make_setup, play_block, play_one
from sim.blast.referee import referee_race
from sim.blast.summary import summary
from sim.validation import DataError

pytestmark = pytest.mark.boundscheck

ALL_DICE = ["red", "black", "yellow", "green", "blue", "white"]


@dataclass
class Spec:
    """What the generated data set looks like; each case changes a few fields."""

    rules: dict = field(default_factory=dict)       # [rules] keys written as given
    switches: dict = field(default_factory=dict)
    dice: list = field(default_factory=lambda: ["red", "black", "yellow", "green", "blue"])
    die_faces: int = 6
    common: int = 4
    unique: int = 5
    visits: int = 2
    crossings: int = 3
    face_up: int = 2
    motivation: tuple = (3, 1)                       # copies of each Motivation card
    bullets: int | None = None                       # every ski colour's bullets (None: mixed)
    wax: dict | None = None                          # every ski colour's wax (None: mixed)
    steps: dict = field(default_factory=dict)        # terrain -> value written for every card step
    initiative: object = None                        # every card's initiative
    pulse: int | None = None                         # every card action's pulse
    die_mult: int = 1                                # multiplier of die values ("2x red")
    hits_mult: int = 2                               # the Shoot action's "Nx hits"
    accuracy: tuple | None = None                    # every biathlete's thresholds
    flags: int = 1
    biathletes: int = 6
    mats: int = 6
    wait_pulse: int = -2
    shoot_pulse: int = 0
    coach_strength: int = 2
    coach_space: int = 3
    lanes: str | None = None                         # every loop space's lane count
    trails: int = 1


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return str(v)


def write(root: Path, sp: Spec) -> Path:
    """Write the data set of `sp` into root (a fresh directory)."""
    (root / "biathletes").mkdir(parents=True)
    (root / "venues").mkdir()
    dice = sp.dice

    def die(i: int):
        if not dice:
            return i % 4
        colour = dice[i % len(dice)]
        return f"{sp.die_mult}x {colour}" if sp.die_mult != 1 else colour

    def val(terrain: str, default):
        return sp.steps.get(terrain, default)

    def card(name: str, i: int, kind: str = "") -> str:
        init = sp.initiative if sp.initiative is not None else (die(i) if i % 3 == 0 else (i * 3) % 11)
        pulse = [sp.pulse, sp.pulse] if sp.pulse is not None else [(i % 4) - 1, (i % 3) - 1]
        top = {"uphill": val("uphill", i % 3), "flat": val("flat", 2 + i % 3),
               "downhill": val("downhill", die(i + 1) if i % 4 == 1 else 1)}
        bottom = {"uphill": val("uphill", 1 + i % 2), "flat": val("flat", 1),
                  "downhill": val("downhill", 3)}
        extra = ', wind = true' if i % 5 == 2 else ''
        icy = ', background = "icy"' if i % 4 == 3 else ''
        t = ", ".join(f"{k} = {toml_value(v)}" for k, v in top.items())
        b = ", ".join(f"{k} = {toml_value(v)}" for k, v in bottom.items())
        return (f'[[card]]\nname = "{name}"\ninitiative = {toml_value(init)}\n'
                f'top = {{ {t}, pulse = {pulse[0]}{extra} }}\n'
                f'bottom = {{ {b}, pulse = {pulse[1]}{icy} }}\n{kind}\n')

    rules = {"die_faces": sp.die_faces, "dice": dice, "face_up_motivation": sp.face_up,
             "common_cards": sp.common, "unique_cards": sp.unique, "range_visits": sp.visits,
             "start_line_crossings": sp.crossings, "round_cap": 80} | sp.rules
    game = "[rules]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in rules.items())
    game += "[switches]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in sp.switches.items())
    game += '[gear]\nski_colours = ["red", "black", "yellow", "green", "blue", "white"]\n'
    mixed_wax = {"red": {}, "black": {"black": 2}, "yellow": {"yellow": 3}, "green": {"green": 4},
                 "blue": {"blue": 3}, "white": {"white": 2}}
    for colour in C.COLOUR_NAMES:
        bullets = sp.bullets if sp.bullets is not None else (4 if colour == "red" else 3)
        wax = sp.wax if sp.wax is not None else mixed_wax[colour]
        w = ", ".join(f"{k} = {v}" for k, v in wax.items())
        game += f"[gear.{colour}]\nbullets = {bullets}\nwax = {{ {w} }}\n"
    (root / "game.toml").write_text(game)
    (root / "cards.toml").write_text("".join(card(f"Common {i}", i) for i in range(sp.common)))
    (root / "motivation.toml").write_text("".join(
        card(f"Motivation {i}", 7 + i, f"copies = {n}") for i, n in enumerate(sp.motivation)))
    faces = sp.die_faces
    for b in range(sp.biathletes):
        acc = sp.accuracy if sp.accuracy is not None else (min(2 + b % 2, faces), min(3, faces), min(4 + b % 2, faces))
        text = (f'name = "B{b}"\nnation = "N{b}"\naccuracy = {toml_value(list(acc))}\n'
                f"flags = {{ red = {sp.flags}, black = {sp.flags}, white = {sp.flags} }}\n\n")
        text += "".join(card(f"B{b} card {i}", 11 * b + i) for i in range(sp.unique))
        (root / "biathletes" / f"b{b}.toml").write_text(text)
    loop_lanes = sp.lanes * 10 if sp.lanes else "22112 22221"
    venue = f"""name = "Limits"
[range]
mats = {sp.mats}
facing = "N"
terrain = "F"
[wait]
pulse = {sp.wait_pulse}
[shoot]
uphill = "{sp.hits_mult}x hits"
pulse = {sp.shoot_pulse}
background = "icy"
[segments.grid]
terrain = "FFF |"
lanes   = "222"
heading = "EEE"
[segments.loop]
terrain = "FFUUD DDFFU"
lanes   = "{loop_lanes}"
heading = "EENNN EESSS"
coach = [ {{ space = {sp.coach_space}, colour = "black", strength = {sp.coach_strength} }},
          {{ space = 8, colour = "blue", strength = 1 }} ]
[segments.gap]
terrain = "FD"
lanes   = "22"
heading = "WW"
[segments.stretch]
terrain = "DFF |"
lanes   = "222"
heading = "WWW"
[segments.final]
terrain = "FFU # F"
lanes   = "221   2"
heading = "EEN   N"
"""
    for t in range(sp.trails):
        venue += f'[[trail]]\nname = "T{t}"\nroute = {toml_value(route(sp.visits, sp.crossings, t))}\n'
    (root / "venues" / "limits.toml").write_text(venue)
    return root


def route(visits: int, crossings: int, shift: int = 0) -> list[str]:
    """grid | then one lap per further crossing, then the last lap to the finish; the range visits
    spread over the laps (each range followed by a short gap, so no range follows a range)."""
    laps = max(crossings, 1)
    per = [visits // laps + (1 if (i + shift) % laps < visits % laps else 0) for i in range(laps)]
    out = ["grid"]
    for lap in range(laps):
        out += ["loop"] + ["range", "gap"] * per[lap]
        out += ["stretch"] if lap < laps - 1 else ["final"]
    return out


def cases() -> list[tuple[str, dict, bool]]:
    """(name, Spec changes, expected to load). Fields at each limit load and play; one step past
    each limit must be refused."""
    out: list[tuple[str, dict, bool]] = [("baseline", {}, True)]

    def rule(key, lo, hi):
        out.append((f"{key}={lo}", {"rules": {key: lo}}, True))
        out.append((f"{key}={hi}", {"rules": {key: hi}}, True))
        out.append((f"{key}={lo - 1}", {"rules": {key: lo - 1}}, False))
        out.append((f"{key}={hi + 1}", {"rules": {key: hi + 1}}, False))

    rule("pulse_limit", 2, 99)
    out.append(("pulse_limit=2 bands", {"rules": {"pulse_limit": 2, "accuracy_bands": [0, 1]}}, True))
    out.append(("bands at the top", {"rules": {"pulse_limit": 10, "accuracy_bands": [8, 9]}}, True))
    out.append(("bands reach the limit", {"rules": {"pulse_limit": 10, "accuracy_bands": [8, 10]}}, False))
    for key in ("drafting", "headwind", "tailwind", "crosswind_hits", "windstill_hits"):
        rule(key, -5, 5)
    rule("max_hits", 1, 10)
    rule("round_cap", 1, 1000)
    for wind in ("N", "still"):
        out.append((f"initial_wind={wind}", {"rules": {"initial_wind": wind}}, True))
    # fields other fields depend on: the dependants follow them
    out += [("die_faces=2", {"die_faces": 2}, True), ("die_faces=20", {"die_faces": 20}, True),
            ("die_faces=1", {"die_faces": 1, "accuracy": (1, 1, 1)}, False),
            ("die_faces=21", {"die_faces": 21}, False),
            ("one die", {"dice": ["white"]}, True), ("six dice", {"dice": ALL_DICE}, True),
            ("no dice", {"dice": []}, False),
            ("face_up_motivation=0", {"face_up": 0, "motivation": (1,)}, True),
            ("face_up_motivation=2, smallest deck", {"face_up": 2, "motivation": (3,)}, True),
            ("face_up_motivation=3", {"face_up": 3, "motivation": (3, 3)}, False),
            ("face_up_motivation=-1", {"face_up": -1}, False),
            ("common_cards=0", {"common": 0}, True), ("common_cards=20", {"common": 20}, True),
            ("common_cards=21", {"common": 21}, False),
            ("unique_cards=1", {"unique": 1}, True), ("unique_cards=20", {"unique": 20}, True),
            ("unique_cards=0", {"unique": 0}, False), ("unique_cards=21", {"unique": 21}, False),
            ("smallest deck", {"common": 0, "unique": 1}, True),
            ("largest hand", {"common": 20, "unique": 20, "crossings": 10, "motivation": (28, 28, 8)}, True),
            ("range_visits=0", {"visits": 0}, True), ("range_visits=1", {"visits": 1}, True),
            ("range_visits=3", {"visits": 3}, True), ("range_visits=10", {"visits": 10}, True),
            ("range_visits=11", {"visits": 11}, False),
            ("start_line_crossings=1", {"crossings": 1}, True),
            ("start_line_crossings=10", {"crossings": 10}, True),
            ("start_line_crossings=0", {"crossings": 0}, False),
            ("start_line_crossings=11", {"crossings": 11}, False),
            ("ten visits in one lap", {"visits": 10, "crossings": 1}, True),
            ("copies=1", {"motivation": (1, 1, 1)}, True),
            ("copies=28", {"motivation": (28, 28, 8)}, True),
            ("copies=29", {"motivation": (29,)}, False), ("copies=0", {"motivation": (0, 3)}, False),
            ("Motivation deck of 64", {"motivation": (28, 28, 8)}, True),
            ("Motivation deck of 65", {"motivation": (28, 28, 9)}, False),
            ("bullets=0", {"bullets": 0}, True), ("bullets=20", {"bullets": MAX_TOKENS}, True),
            ("bullets=21", {"bullets": MAX_TOKENS + 1}, False), ("bullets=-1", {"bullets": -1}, False),
            ("no wax", {"wax": {}}, True),
            ("all wax at the top", {"wax": {c: MAX_TOKENS for c in C.COLOUR_NAMES[1:]}}, True),
            ("wax=21", {"wax": {"black": MAX_TOKENS + 1}}, False), ("wax=-1", {"wax": {"blue": -1}}, False),
            ("initiative=0", {"initiative": 0}, True), ("initiative=20", {"initiative": MAX_INITIATIVE}, True),
            ("initiative=21", {"initiative": MAX_INITIATIVE + 1}, False),
            ("die multiplier 2", {"die_mult": 2}, True), ("die multiplier 3", {"die_mult": 3}, False),
            ("hits multiplier 1", {"hits_mult": 1}, True), ("hits multiplier 5", {"hits_mult": 5}, True),
            ("hits multiplier 6", {"hits_mult": 6}, False),
            ("pulse=-10", {"pulse": -10}, True), ("pulse=10", {"pulse": 10}, True),
            ("pulse=11", {"pulse": 11}, False), ("pulse=-11", {"pulse": -11}, False),
            ("accuracy all 0", {"accuracy": (0, 0, 0)}, True),
            ("accuracy all die_faces", {"accuracy": (6, 6, 6)}, True),
            ("accuracy 7", {"accuracy": (6, 6, 7)}, False), ("accuracy -1", {"accuracy": (-1, 0, 0)}, False),
            ("flags=0", {"flags": 0}, True), ("flags=5", {"flags": 5}, True), ("flags=6", {"flags": 6}, False),
            ("twelve biathletes", {"biathletes": 12}, True), ("five biathletes", {"biathletes": 5}, False),
            ("mats=6", {"mats": 6}, True), ("mats=12", {"mats": 12}, True),
            ("mats=5", {"mats": 5}, False), ("mats=13", {"mats": 13}, False),
            ("wait pulse -10", {"wait_pulse": -10}, True), ("wait pulse 10", {"wait_pulse": 10}, True),
            ("shoot pulse 10", {"shoot_pulse": 10}, True),
            ("coach strength 1", {"coach_strength": 1}, True), ("coach strength 5", {"coach_strength": 5}, True),
            ("coach strength 6", {"coach_strength": 6}, False),
            ("coach on the first space", {"coach_space": 1}, True),
            ("coach on the last space", {"coach_space": 10}, True),
            ("coach past the segment", {"coach_space": 11}, False),
            ("single-lane loop", {"lanes": "1"}, True), ("double-lane loop", {"lanes": "2"}, True),
            ("three trails", {"trails": 3, "visits": 3}, True)]
    for terrain in ("uphill", "flat", "downhill"):
        out.append((f"every {terrain} step 0", {"steps": {terrain: 0}}, True))
        out.append((f"every {terrain} step {MAX_STEPS}", {"steps": {terrain: MAX_STEPS}}, True))
        out.append((f"every {terrain} step {MAX_STEPS + 1}", {"steps": {terrain: MAX_STEPS + 1}}, False))
        out.append((f"every {terrain} step -1", {"steps": {terrain: -1}}, False))
    out.append(("no steps at all", {"steps": {"uphill": 0, "flat": 0, "downhill": 0}}, True))
    out.append(("the longest move", {"steps": {t: MAX_STEPS for t in ("uphill", "flat", "downhill")},
                                     "wax": {c: MAX_TOKENS for c in C.COLOUR_NAMES[1:]},
                                     "coach_strength": 5, "hits_mult": 5, "rules": {"max_hits": 10}}, True))
    out.append(("the longest die move", {"die_faces": 20, "die_mult": 2,
                                         "steps": {"uphill": "2x red", "flat": "2x red", "downhill": "2x red"}},
                True))
    for key, values in (("mixed_lane_drafting", (True, False)), ("range_drafting", (True, False)),
                        ("coach_boost", ("next_turn", "until_usable")), ("motivation_to", ("hand", "discard")),
                        ("zero_step_boost", (True, False)), ("pulse_floor", ("each_part",)),
                        ("last_racer_wins", (True,))):
        for v in values:
            out.append((f"{key}={v}", {"switches": {key: v}}, True))
    return out


CASES = cases()


def spec(changes: dict) -> Spec:
    sp = Spec()
    for k, v in changes.items():
        setattr(sp, k, v)
    limit = sp.rules.get("pulse_limit")
    if limit is not None and "accuracy_bands" not in sp.rules:
        sp.rules = sp.rules | {"accuracy_bands": [min(2, limit - 2), min(6, limit - 1)]}
    return sp


def check_results(bundle, setups, rows, visits):
    """Every seat and visit record of a block is a possible outcome."""
    rules = bundle.data.rules
    k = 0
    for s in setups:
        r = rows[k:k + s.n]
        k += s.n
        mine = visits[visits["race"] == r[0]["race"]]
        assert sorted(r["place"]) == list(range(1, s.n + 1))
        assert r["won"].sum() <= 1
        assert (r["won"].sum() == 1) or r[0]["stalled"] == 1 or r["eliminated"].all()
        assert (r["rounds"] <= rules.round_cap).all()
        assert set(mine["shots"]) <= {0, len(rules.dice)} and set(mine["seat"]) <= set(range(s.n))
        assert ((mine["dice_hits"] == -1) == (mine["shots"] == 0)).all()
        assert ((mine["hits"] >= 0) & (mine["hits"] <= rules.max_hits)).all()
        assert ((mine["dice_hits"] >= -1) & (mine["dice_hits"] <= len(rules.dice))).all()
        assert (mine["visit"] <= min(rules.range_visits, 2)).all() and (mine["arrive_round"] >= 0).all()
        assert (r["distance_left"] >= 0).all()
        assert (r["max_pulse"] >= 0).all()


def check_log(log):
    """The seat and visit records of a race against its event log: the k-th shot of a racer is its k-th
    range visit (a racer leaves a mat only by shooting), and totals count every visit."""
    ev = log.events
    kind, seat = ev[:, E.COL_KIND], ev[:, E.COL_SEAT]
    a = ev[:, E.COL_ARG:]
    for s, row in enumerate(log.results):
        shots = a[(kind == E.HITS) & (seat == s)]
        assert row["bullets_hits"] == shots[:, 2].sum()
        assert row["motivation"] == ((kind == E.MOTIVATION) & (seat == s)).sum()
        assert row["turns"] == ((kind == E.TURN) & (seat == s)).sum()
        assert row["boosts"] == ((kind == E.BOOST) & (seat == s)).sum()
        assert row["icy"] == (a[(kind == E.CARD_END) & (seat == s), 1] == 1).sum()
        # the visits records: one per visit reached (the first two), the k-th shot's hits in the k-th
        mine = log.visits[log.visits["seat"] == s]
        assert mine["visit"].tolist() == list(range(1, len(mine) + 1)) and len(mine) >= min(len(shots), 2)
        for v, w in enumerate(mine):
            shot = v < len(shots)
            assert (w["shots"] > 0, w["hits"], w["dice_hits"]) == \
                (shot, shots[v, 4] if shot else 0, shots[v, 0] if shot else -1), f"seat {s} visit {v + 1}"
            assert w["misses"] == w["shots"] - w["hits"] and w["arrive_round"] >= 0


@pytest.mark.parametrize("name,changes,ok", CASES, ids=[c[0] for c in CASES])
def test_field_at_its_limit_is_refused_or_plays_cleanly(tmp_path, name, changes, ok):
    root = write(tmp_path / "data", spec(changes))
    try:
        bundle = load_bundle(root)
    except DataError as exc:
        assert not ok, f"{name}: refused:\n{exc}"
        for p in exc.problems:
            assert p.file and p.expected, p           # every problem says where and what
        return
    assert ok, f"{name}: one step past a limit was accepted"
    summary(bundle)                                   # what `validate` prints, and its warnings,
    data_warnings(bundle.data)                        # never fail on legal data
    n_trails = len(bundle.trail_names)
    names = bundle.biathlete_names
    setups = [make_setup(bundle, i % n_trails, list(range(i % 5, i % 5 + n)), players=kind)
              for i, (n, kind) in enumerate(((6, "heuristic"), (2, "random"), (4, "random"), (3, "heuristic")))
              if i % 5 + n <= len(names)]
    check_results(bundle, setups, *play_block(bundle, setups, 1, np.arange(len(setups)), visits=True))
    for i, s in enumerate(setups[:2]):
        log = play_one(bundle, s, 2, i)
        report = referee_race(bundle, s.trail, list(s.biathletes), list(s.colours), log.events)
        assert report.ok, f"{name}: race {i}: {report.message}"
        check_results(bundle, [s], log.results, log.visits)
        check_log(log)
        render_log(bundle, log)                       # the readable log (`replay`) too


def test_every_limit_is_walked():
    """The walk names every [rules] key, and the capacities cover the limits it walks."""
    from sim.blast.model import Rules

    walked = {k for _, changes, _ in CASES for k in changes.get("rules", {})}
    walked |= {"die_faces", "dice", "face_up_motivation", "common_cards", "unique_cards", "range_visits",
               "start_line_crossings", "accuracy_bands"}
    assert walked == set(Rules.__dataclass_fields__)
    assert S.MAX_HAND >= 20 + 20 + 10
    assert S.MAX_VISITS >= 10 and S.MAX_MOTIVATION >= 64 and S.MAX_DICE >= len(ALL_DICE)
