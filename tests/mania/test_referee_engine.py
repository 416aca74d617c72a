"""The Mania race kernel against the independent referee (sim/mania/referee.py).

The kernel's event logs (sim.mania.play.play_one) are replayed by the referee, which knows
nothing of the kernel's code: every race must be accepted, and together the races must exercise
every rule the referee checks (the coverage counters). Skipped with a reason while the kernel
(sim/mania/play.py) is not there.

* 1,200 races on the shipped data: every format, both tracks, 2..8 racers, relays of 2..8 teams
  of 1..4 legs, one or two number dice and shooting dice, some with the other shooting die and
  with figure colours;
* each interpretation switch value other than the default on its own (50 races each);
* an edge data set (1 finish corridor, a round cap that stalls races, time trials) for the rules
  the shipped data rarely reaches: a group push over the finish line, stalled races, X for a
  racer who is first and last;
* 360 races on 12 random data sets (short loops, marks beside the stadium, zoned penalty and
  finish squares, odd dice, random switches, targets and spare shots);
* the kernel, given the hand logs' dice (script), writes the hand-written logs of
  tests/mania/referee_logs exactly;
* corrupted kernel logs are refused (the referee is not a rubber stamp).
"""
import random
import re
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).parents[2]
if not (ROOT / "sim" / "mania" / "play.py").exists():
    pytest.skip("the Mania kernel is not there yet (sim/mania/play.py missing)",
                allow_module_level=True)
mania = pytest.importorskip("sim.mania", reason="sim.mania does not import")
if not hasattr(mania, "play_one") or not hasattr(mania, "load_bundle"):
    pytest.skip("sim.mania has no play_one/load_bundle yet", allow_module_level=True)

from sim.mania import load_bundle, play_one  # noqa: E402
from sim.mania.referee import (EVENT_NAMES, EV_PLACE, EV_ROLL, EV_SHOT, EV_STATE,  # noqa: E402
                               RANGE, WAITING, load_game, referee_race)

SHIPPED = ROOT / "sim" / "data" / "mania"
HERE = Path(__file__).parent / "referee_logs"
KINDS = {v: k for k, v in EVENT_NAMES.items()}
SEED = 20261126

# every rule the referee checks, to be reached by the races on the shipped data
MAIN_COVERAGE = [
    "move_zone_w", "move_zone_b", "move_zone_g", "move_blue_odd",
    "group_push", "group_to_front", "group_into_gap", "group_push_over_several",
    "group_into_range", "group_in_penalty_loop", "group_in_finish_area",
    "two_on_penalty_entry_square", "two_on_penalty_exit_square",
    "range_arrive", "range_line_beside_another", "shot_hit", "shot_miss",
    "calibre_hit", "calibre_miss", "spare_shot", "spare_hit",
    "shooting_clean", "shooting_with_penalties", "penalty_loops_owed",
    "penalty_loop_entered", "penalty_loop_again", "penalty_loop_left",
    "penalty_entry_passed_straight", "exit_move", "roll_purpose_3",
    "X_first", "skip", "X_last", "X_middle", "roll_purpose_1",
    "T", "T_then_group", "O", "O_extra_move", "roll_purpose_2", "extra_move_chained",
    "special_X_after_push", "special_T_after_push", "special_O_after_push",
    "finish", "handover", "relay_team_finish", "lead_change", "last_range",
]
SWITCH_FLIPS = {
    "halve_rounding": ('"down"', ["zero_step_move"]),
    "zone_rule": ('"steps"', ["steps_last_partial"]),
    "exit_roll": ('"same_turn"', ["exit_move"]),
    "exit_from": ('"exit_square"', ["exit_placed_on_exit_square"]),
    "specials_after_push": ("false", ["group_push"]),
    "chain_extra_rolls": ("false", ["X_last_no_chain", "O_no_chain"]),
    "shots_per_turn": ('"all"', ["whole_shooting_in_one_turn"]),
    "two_dice": ('"two_racers"', ["two_racers_one_number_die"]),
    "calibre_uses_spare": ("true", ["calibre_reroll_used_a_spare", "calibre_no_spare_for_reroll"]),
    "specials_on": ('"passing"', ["passing_X", "passing_O", "passing_T_stop",
                                  "passing_several_specials"]),
    "penalty_gate": ('"bypass"', ["gate_same_branch_entry", "gate_same_branch_exit",
                                  "gate_other_branch_entry", "gate_other_branch_exit"]),
    "penalty_gate=one": ('"one"', ["group_push"]),
    "finish_ties": ('"leftover"', ["finish_order_by_roll_left"]),
    "finish_ties=shared": ('"shared"', ["finish_place_shared"]),
}
#: coverage that a switch value must never reach (the referee would also refuse such a race)
SWITCH_NEVER = {
    "penalty_gate=one": ["two_on_penalty_entry_square", "two_on_penalty_exit_square"],
}
EDGE_COVERAGE = ["group_over_finish", "finish_via_group", "stall", "X_first_and_last"]


def race_setups(rng, n, min_racers=2):
    """`n` random set-ups cycling through format x track."""
    for i in range(n):
        fmt = ("sprint", "mass_start", "relay")[i % 3]
        track = ("red", "yellow")[(i // 3) % 2]
        kw = dict(number_dice=rng.choice([1, 2]), shooting_dice=rng.choice([1, 2]))
        if rng.random() < 0.15:
            kw["shooting_die"] = rng.choice(["individual", "relay"])
        if fmt == "relay":
            teams, legs = rng.randint(min_racers, 8), rng.randint(1, 4)
            kw.update(teams=teams, legs=legs)
            n_seats = teams * legs
        else:
            n_seats = rng.randint(min_racers, 8)
        if rng.random() < 0.2:
            kw["colours"] = np.array(rng.sample(range(8 * 4), n_seats) if fmt == "relay"
                                     else rng.sample(range(8), n_seats), dtype=np.int64)
        yield i, track, fmt, n_seats, kw


def referee_setup(bundle, track, fmt, n_seats, kw):
    setup = dict(track=track, format=fmt, track_id=list(bundle.track_names).index(track),
                 number_dice=kw["number_dice"], shooting_dice=kw["shooting_dice"],
                 shooting_die=kw.get("shooting_die"))
    if fmt == "relay":
        setup.update(teams=kw["teams"], legs=kw["legs"])
    else:
        setup["racers"] = n_seats
    if "colours" in kw:
        setup["colours"] = [int(c) for c in kw["colours"]]
    return setup


def referee_many(data_dir, n, rng_seed, min_racers=2):
    bundle = load_bundle(data_dir)
    game = load_game(data_dir)
    rng = random.Random(rng_seed)
    cov, failures, races = Counter(), [], 0
    for i, track, fmt, n_seats, kw in race_setups(rng, n, min_racers):
        _, _, log = play_one(bundle, track, fmt, n_seats, seed=SEED, race=i, **kw)
        setup = referee_setup(bundle, track, fmt, n_seats, kw)
        rep = referee_race(game, setup, log)
        races += 1
        cov.update(rep.coverage)
        if not rep.ok:
            failures.append(f"seed {SEED} race {i} {setup}: {rep.message}")
    return races, cov, failures


def patched_data(tmp_path, name, game_subs=(), track_subs=()):
    d = tmp_path / name
    shutil.copytree(SHIPPED, d)
    g = d / "game.toml"
    text = g.read_text()
    for pattern, repl in game_subs:
        text, k = re.subn(pattern, repl, text, flags=re.M)
        assert k == 1, pattern
    g.write_text(text)
    for t in (d / "tracks").glob("*.toml"):
        text = t.read_text()
        for pattern, repl in track_subs:
            text, k = re.subn(pattern, repl, text, flags=re.M)
            assert k == 1, pattern
        t.write_text(text)
    return d


def test_kernel_races_accepted_with_full_coverage():
    races, cov, failures = referee_many(SHIPPED, 1200, 1)
    print(f"\n{races} races refereed, {len(failures)} refused")
    for k in sorted(cov):
        print(f"  {k}: {cov[k]}")
    assert not failures, "\n".join(failures[:5])
    assert races == 1200
    missing = [k for k in MAIN_COVERAGE if cov[k] == 0]
    assert not missing, missing


@pytest.mark.parametrize("switch", sorted(SWITCH_FLIPS))
def test_kernel_races_accepted_with_switch_flipped(tmp_path, switch):
    value, keys = SWITCH_FLIPS[switch]
    key = switch.split("=")[0]
    d = patched_data(tmp_path, key, [(rf"^{key} = \S+", f"{key} = {value}")])
    races, cov, failures = referee_many(d, 50, 2)
    assert not failures, "\n".join(failures[:5])
    missing = [k for k in keys if cov[k] == 0]
    assert not missing, missing
    reached = [k for k in SWITCH_NEVER.get(switch, []) if cov[k]]
    assert not reached, reached


def test_kernel_races_accepted_on_edge_data(tmp_path):
    d = patched_data(tmp_path, "edge", [(r"^round_cap = 600", "round_cap = 45")],
                     [(r"^corridors = 3", "corridors = 1")])
    races, cov, failures = referee_many(d, 400, 3, min_racers=1)
    assert not failures, "\n".join(failures[:5])
    missing = [k for k in EDGE_COVERAGE if cov[k] == 0]
    assert not missing, missing


# ---------------------------------------------------------------------------------------------
# random data sets: short loops, marks next to the stadium, zoned penalty and finish squares,
# odd dice, every switch; the shipped tracks never bring a racer round a whole lap in one move
# or leave it on a full exit square, these do


def random_track(rng, name):
    n = rng.randint(10, 45)
    e = rng.randint(0, min(n - 2, 8))
    x = rng.randint(0, e)
    zones = [rng.choice("wwbbg") for _ in range(n)]
    zones[x] = "w"
    marks = [""] * n
    for i in range(n):
        if i not in (e, e + 1):
            u = rng.random()
            marks[i] = "X" if u < 0.08 else "O" if u < 0.14 else "T" if u < 0.2 and i > e + 1 else ""
        if marks[i] == "T" and not any(zones[j] == "g" and zones[j - 1] != "g"
                                       for j in range(i + 1, n)):
            marks[i] = ""
    pen = " ".join(rng.choice("wbg") for _ in range(rng.randint(1, 5)))
    fin = " ".join(rng.choice("wbg") for _ in range(rng.randint(0, 5)))
    loop = " ".join(z + m for z, m in zip(zones, marks))
    return (f'name = "{name}"\nlength_m = 1000\nloop = ["{loop}"]\nrange_exit = {x}\n'
            f'[penalty]\nentry = {e}\nsquares = "{pen}"\n'
            f'[finish]\nsquares = "{fin}"\ncorridors = {rng.randint(1, 3)}\n')


def random_game(rng):
    def die():
        faces = [rng.choice(["white", "white", "black", "calibre"]) for _ in range(rng.randint(2, 6))]
        return "[" + ", ".join(f'"{f}"' for f in faces) + "]"

    def fmt(name, relay):
        laps = rng.randint(2, 4)
        shootings = sorted(rng.sample(range(1, laps), rng.randint(1, laps - 1)))
        return (f"[formats.{name}]\nlaps = {laps}\nshootings = {shootings}\n"
                f'shooting_die = "{rng.choice(["individual", "relay"])}"\n'
                f"spare_shots = {rng.randint(0, 4)}\nrelay = {str(relay).lower()}\n"
                + ("max_teams = 8\nmax_legs = 4\n" if relay else ""))
    switches = {k: rng.choice(v) for k, v in dict(
        halve_rounding=['"up"', '"down"'], zone_rule=['"start"', '"steps"'],
        exit_roll=['"next_turn"', '"same_turn"'], exit_from=['"range"', '"exit_square"'],
        specials_after_push=["true", "false"], chain_extra_rolls=["true", "false"],
        shots_per_turn=['"one"', '"all"'], two_dice=['"one_racer"', '"two_racers"'],
        calibre_uses_spare=["true", "false"], specials_on=['"landing"', '"passing"'],
        penalty_gate=['"two"', '"one"', '"bypass"'],
        finish_ties=['"turn_order"', '"leftover"', '"shared"']).items()}
    return (f"[rules]\nround_cap = {rng.choice([60, 300])}\ntargets = {rng.randint(1, 6)}\n"
            f"range_lines = 8\nmax_racers = 8\n"
            f"[dice]\nnumber = {sorted(rng.sample(range(1, 9), rng.randint(2, 6)))}\n"
            f"individual = {die()}\nrelay = {die()}\n[switches]\n"
            + "".join(f"{k} = {v}\n" for k, v in switches.items())
            + fmt("sprint", False) + fmt("mass_start", False) + fmt("relay", True))


def test_kernel_races_accepted_on_random_data(tmp_path):
    rng = random.Random(11)
    failures, races = [], 0
    for k in range(12):
        d = tmp_path / f"data{k}"
        (d / "tracks").mkdir(parents=True)
        (d / "game.toml").write_text(random_game(rng))
        for name in ("a", "b"):
            (d / "tracks" / f"{name}.toml").write_text(random_track(rng, name))
        bundle, game = load_bundle(d), load_game(d)
        for i in range(30):
            fmt, track = rng.choice(["sprint", "mass_start", "relay"]), rng.choice(["a", "b"])
            kw = dict(number_dice=rng.choice([1, 2]), shooting_dice=rng.choice([1, 2]))
            if fmt == "relay":
                kw.update(teams=rng.randint(1, 8), legs=rng.randint(1, 4))
                n = kw["teams"] * kw["legs"]
            else:
                n = rng.randint(1, 8)
            _, _, log = play_one(bundle, track, fmt, n, seed=k, race=i, log_rows=200_000, **kw)
            rep = referee_race(game, referee_setup(bundle, track, fmt, n, kw), log)
            races += 1
            if not rep.ok:
                failures.append(f"data set {k} ({(d / 'game.toml').read_text()!r}, "
                                f"{(d / 'tracks' / f'{track}.toml').read_text()!r}) "
                                f"race {i}: {rep.message}")
    assert races == 360
    assert not failures, "\n".join(failures[:3])


# ---------------------------------------------------------------------------------------------
# the hand-written logs, played by the kernel with their dice


def parse_log(path):
    rows = []
    for line in Path(path).read_text().splitlines():
        tok = line.split("#")[0].split()
        if tok:
            row = [int(tok[0]), int(tok[1]), KINDS[tok[2]]] + [int(t) for t in tok[3:]]
            rows.append(row + [0] * (13 - len(row)))
    return np.array(rows, dtype=np.int16)


def dice_of(log):
    out = []
    for r in log:
        if r[2] == EV_ROLL:
            out += [int(r[5])] + ([int(r[6])] if r[4] == 2 else [])
        elif r[2] == EV_SHOT:
            out += [int(r[5])] + ([int(r[7])] if r[7] >= 0 else [])
    return out


@pytest.mark.parametrize("name, track, fmt, n, kw", [
    ("sprint_mini", "mini", "sprint", 2, {}),
    ("relay_flat", "flat", "relay", 2, dict(teams=1, legs=2)),
])
def test_kernel_writes_the_hand_logs(name, track, fmt, n, kw):
    hand = parse_log(HERE / f"{name}.log")
    bundle = load_bundle(HERE / "data")
    _, _, log = play_one(bundle, track, fmt, n, seed=0, race=0, script=dice_of(hand), **kw)
    log = np.asarray(log)
    assert log.shape == hand.shape
    for i, (a, b) in enumerate(zip(log.tolist(), hand.tolist())):
        assert a == b, (i, a, b)


# ---------------------------------------------------------------------------------------------
# corrupted kernel logs are refused


def test_corrupted_kernel_logs_refused():
    bundle = load_bundle(SHIPPED)
    game = load_game(SHIPPED)
    rng = random.Random(5)
    refused = 0
    for i, track, fmt, n_seats, kw in race_setups(rng, 12):
        _, _, log = play_one(bundle, track, fmt, n_seats, seed=SEED, race=i, **kw)
        log = np.asarray(log)
        setup = referee_setup(bundle, track, fmt, n_seats, kw)
        assert referee_race(game, setup, log).ok
        cells = []
        for j, r in enumerate(log):
            for a in range(10):
                if (r[2] == EV_ROLL and a in (2, 3)) or (r[2] == EV_SHOT and a in (2, 4)):
                    continue        # chance: another face of the same kind is legal too
                if r[2] == EV_STATE and (a in (4, 5, 6) and r[4] != RANGE
                                         or a == 8 and r[4] == WAITING
                                         or a == 0 and r[4] == 0):
                    continue        # values the docs leave open
                if r[2] == EV_PLACE and fmt == "relay" and a in (1, 2):
                    continue
                if r[2] == KINDS["MOVE"] and a == 0 and r[4] == 0:
                    continue
                cells.append((j, a))
        for j, a in rng.sample(cells, 20):
            bad = log.copy()
            bad[j, 3 + a] += 1
            rep = referee_race(game, setup, bad)
            assert not rep.ok, (i, j, a, log[j].tolist())
            refused += 1
    assert refused == 240


def test_referee_reads_the_switches_of_the_race():
    """A race played under other readings passes only when the referee is told those readings."""
    from sim.validation import Patch

    sw = dict(shots_per_turn="all", calibre_uses_spare=True, specials_on="passing",
              penalty_gate="bypass", finish_ties="leftover")
    bundle = load_bundle(SHIPPED, [Patch("game.toml", f"switches.{k}", v) for k, v in sw.items()])
    _, _, log = play_one(bundle, "red", "relay", 8, seed=5, race=0, legs=2)
    game = load_game(SHIPPED)
    setup = dict(track="red", format="relay", teams=4, legs=2)
    assert referee_race(game, {**setup, "switches": sw}, log).ok
    for key in sw:                       # each reading on its own is seen by the referee
        rep = referee_race(game, {**setup, "switches": {k: v for k, v in sw.items() if k != key}}, log)
        assert not rep.ok, key
