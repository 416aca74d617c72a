"""Loading, validating and compiling Mania data: every problem names file, entry and field."""
from __future__ import annotations

import numpy as np
import pytest

from kernels.mania import consts as C
from maniadata import TEST_TRACK, copy_shipped, write_data
from sim.mania import compile_data, data_hash, load_bundle, load_data
from sim.validation import DataError, Patch


def problems(root, patches=()):
    with pytest.raises(DataError) as exc:
        load_data(root, list(patches))
    return [str(p) for p in exc.value.problems]


def test_shipped_data_loads_and_reaches_every_rule(shipped):
    d = shipped.data
    assert shipped.track_names == ("red", "yellow")
    assert [t.length_m for t in d.tracks] == [2000, 3000]
    assert len(shipped.data_hash) == 16
    for t in d.tracks:
        zones = {s.zone for s in t.loop}
        marks = {s.mark for s in t.loop}
        assert zones == {C.WHITE, C.BLUE, C.GREEN}
        assert {C.MARK_X, C.MARK_T, C.MARK_O} <= marks
        assert t.penalty and t.finish and t.corridors < 8      # corridors can fill up
    assert d.dice.individual.count("white") == 4 and d.dice.relay.count("black") == 2
    assert [f.laps for f in d.formats] == [3, 5, 3]
    assert [len(f.shootings) for f in d.formats] == [2, 4, 2]


def test_data_hash_ignores_comments_but_not_values(tmp_path):
    root = copy_shipped(tmp_path / "d")
    h = data_hash(load_data(root))
    red = root / "tracks" / "red.toml"
    red.write_text("# another comment\n" + red.read_text())
    assert data_hash(load_data(root)) == h
    assert data_hash(load_data(root, [Patch("tracks/red.toml", "finish.corridors", 2)])) != h


def test_compiled_track_row(testdata):
    t = testdata.tracks[testdata.track_id("test")]
    n = t[C.TR_N]
    assert n == 26 and t[C.TR_EXIT] == 1 and t[C.TR_ENTRY] == 1 and t[C.TR_P] == 2
    h = C.TR_HDR
    assert t[h + 7] == C.BLUE and t[h + 12] == C.GREEN
    assert t[h + n + 16] == C.MARK_O and t[h + n + 18] == C.MARK_X and t[h + n + 20] == C.MARK_T
    assert t[h + 2 * n + 20] == 22 and t[h + 2 * n + 19] == -1


def _track(tmp_path, body):
    return write_data(tmp_path / "d", {"bad": body})


def test_bad_square_token_names_the_square(tmp_path):
    body = TEST_TRACK.replace('"w w w w w w w"', '"w w w q w wZ w"')
    out = problems(_track(tmp_path, body))
    assert "tracks/bad.toml: loop: square 3: must be a zone letter w, b or g with an optional " \
           "mark X, T or O; got 'q'" in out
    assert any(p.startswith("tracks/bad.toml: loop: square 5:") and "'wZ'" in p for p in out)


def test_range_exit_must_be_white_and_before_the_penalty_entry(tmp_path):
    out = problems(_track(tmp_path, TEST_TRACK.replace("range_exit = 1", "range_exit = 7")))
    assert any(p.startswith("tracks/bad.toml: range_exit: must be a white loop square") for p in out)
    out = problems(_track(tmp_path, TEST_TRACK.replace("range_exit = 1", "range_exit = 3")))
    assert any(p.startswith("tracks/bad.toml: range_exit: must be at most penalty.entry (1)")
               for p in out)


def test_t_needs_a_downhill_ahead_and_must_follow_the_penalty_exit(tmp_path):
    body = TEST_TRACK.replace('"wO w wX w wT w g g w w"', '"wO w wX w wT w w w w w"')
    body = body.replace('"w g g g w"', '"w w w w w"')
    out = problems(_track(tmp_path, body))
    assert "tracks/bad.toml: loop: square 20: a T square needs the start of a green zone after " \
           "it on the loop" in out
    body = TEST_TRACK.replace('"w w w w w w w"', '"wT w w w w w w"')
    out = problems(_track(tmp_path, body))
    assert "tracks/bad.toml: loop: square 0: a T square must lie after the penalty exit square (2)" \
        in out


def test_marks_are_refused_on_penalty_and_finish_squares(tmp_path):
    body = TEST_TRACK.replace('squares = "w w"\ncorridors', 'squares = "w wO"\ncorridors')
    body = body.replace('entry = 1\nsquares = "w w"', 'entry = 1\nsquares = "wX w"')
    out = problems(_track(tmp_path, body))
    assert "tracks/bad.toml: penalty.squares: square 0: must carry no mark here; got 'wX'" in out
    assert "tracks/bad.toml: finish.squares: square 1: must carry no mark here; got 'wO'" in out


def test_unknown_and_missing_keys(tmp_path):
    body = TEST_TRACK.replace("corridors = 2", "corridor = 2")
    out = problems(_track(tmp_path, body))
    assert "tracks/bad.toml: finish.corridors: is missing" in out
    assert any(p.startswith("tracks/bad.toml: finish.corridor: is not a known field (did you mean "
                            "'corridors'?)") for p in out)


def test_duplicate_track_names(tmp_path):
    root = write_data(tmp_path / "d", {"a": TEST_TRACK, "b": TEST_TRACK})
    out = problems(root)
    assert any(p.startswith("tracks/b.toml: name: must be unique") for p in out)


def test_game_file_problems(tmp_path):
    root = copy_shipped(tmp_path / "d")
    out = problems(root, [
        Patch("game.toml", "switches.zone_rule", "sideways"),
        Patch("game.toml", "dice.individual", ["white", "grey"]),
        Patch("game.toml", "dice.number", [0, 1, 2]),
        Patch("game.toml", "formats.sprint.shootings", [2, 1]),
        Patch("game.toml", "formats.relay.max_teams", 9),
        Patch("game.toml", "rules.round_cap", 0),
    ])
    assert "game.toml: [switches]: zone_rule: must be one of start, steps; got 'sideways'" in out
    assert any(p.startswith("game.toml: [dice]: individual: must list 2 to 20 faces") for p in out)
    assert any(p.startswith("game.toml: [dice]: number: must list 2 to 20 faces") for p in out)
    assert any(p.startswith("game.toml: [formats.sprint]: shootings: must list increasing laps")
               for p in out)
    assert any(p.startswith("game.toml: [formats.relay]: max_teams: must be a whole number") for p in out)
    assert any(p.startswith("game.toml: [rules]: round_cap: must be a whole number") for p in out)


def test_missing_files(tmp_path):
    (tmp_path / "empty").mkdir()
    out = problems(tmp_path / "empty")
    assert "game.toml: is missing (see docs/mania/data-format.md)" in out
    assert "tracks/: must hold at least one track file (tracks/NAME.toml)" in out


def test_a_designer_variant_plays(tmp_path):
    root = copy_shipped(tmp_path / "d")
    b = load_bundle(root, [Patch("tracks/red.toml", "finish.corridors", 1),
                           Patch("game.toml", "dice.number", [1, 1, 2, 2, 3, 3])])
    from sim.mania import play_block

    seats, _ = play_block(b, "red", "sprint", 4, 1, np.arange(20))
    assert (seats["finished"] == 1).all()
    assert compile_data(b.data).data_hash == b.data_hash


def test_every_rule_happens_on_the_shipped_tracks(shipped):
    """Zones, X (both ways), T, O, the range, penalty loops, two racers on the penalty entry or
    exit square, and full finish corridors all occur in ordinary races on both tracks."""
    from sim.mania import play_one

    for track in shipped.track_names:
        seen = set()
        for race in range(12):
            _, _, log = play_one(shipped, track, "mass_start", 8, seed=2, race=race)
            kinds = set(log[:, 2].tolist())
            seen |= {k for k in (C.EV_T, C.EV_O, C.EV_SKIP, C.EV_ARRIVE) if k in kinds}
            x = log[log[:, 2] == C.EV_X]
            seen |= {("X", int(o)) for o in x[:, 3]}
            group = log[log[:, 2] == C.EV_GROUP]
            seen |= {("group", int(s)) for s in group[:, 5]}
            moves = log[log[:, 2] == C.EV_MOVE]
            seen |= {("zone", shipped.data.track(track).loop[int(q)].zone)
                     for st, q in zip(moves[:, 8], moves[:, 9]) if st == C.LOOP}
            seen |= {("penalty",) for st in moves[:, 8] if st == C.PENALTY}
            # two racers at once on the penalty entry or exit square (from the STATE rows)
            entry = shipped.data.track(track).penalty_entry
            where: dict[int, tuple[int, int]] = {}
            for r in log[log[:, 2] == C.EV_STATE]:
                where[int(r[1])] = (int(r[4]), int(r[5]))
                spots = [w for w in where.values() if w in ((C.LOOP, entry), (C.LOOP, entry + 1))]
                if len(spots) > len(set(spots)):
                    seen.add(("two on one square",))
        want = {C.EV_T, C.EV_O, C.EV_SKIP, C.EV_ARRIVE, ("X", 1), ("X", 2),
                ("group", C.LOOP), ("group", C.FINISH_AREA), ("penalty",),
                ("zone", C.WHITE), ("zone", C.BLUE), ("zone", C.GREEN), ("two on one square",)}
        assert want <= seen, (track, want - seen)


def test_rule_reading_switches_are_validated(tmp_path):
    """Every reading switch of rules.md refuses a value it does not know, naming its values."""
    root = copy_shipped(tmp_path / "d")
    out = problems(root, [
        Patch("game.toml", "switches.shots_per_turn", "five"),
        Patch("game.toml", "switches.two_dice", "sum"),
        Patch("game.toml", "switches.calibre_uses_spare", "yes"),
        Patch("game.toml", "switches.specials_on", "over"),
        Patch("game.toml", "switches.penalty_gate", 2),
        Patch("game.toml", "switches.finish_ties", "seat"),
    ])
    assert "game.toml: [switches]: shots_per_turn: must be one of one, all; got 'five'" in out
    assert "game.toml: [switches]: two_dice: must be one of one_racer, two_racers; got 'sum'" in out
    assert any(p.startswith("game.toml: [switches]: calibre_uses_spare: must be true or false")
               for p in out), out
    assert "game.toml: [switches]: specials_on: must be one of landing, passing; got 'over'" in out
    assert "game.toml: [switches]: penalty_gate: must be one of two, one, bypass; got 2" in out
    assert ("game.toml: [switches]: finish_ties: must be one of turn_order, leftover, shared; "
            "got 'seat'") in out


def test_reading_switches_reach_the_kernel(tmp_path):
    """Each switch value sets its own slot of the compiled game row (and nothing else)."""
    root = copy_shipped(tmp_path / "d")
    base = load_bundle(root).game
    cases = [("shots_per_turn", "all", C.G_SHOTS_ALL, 1), ("two_dice", "two_racers", C.G_TWO_RACERS, 1),
             ("calibre_uses_spare", True, C.G_CALIBRE_SPARE, 1),
             ("specials_on", "passing", C.G_SPECIALS_PASS, 1),
             ("penalty_gate", "one", C.G_PENALTY_GATE, C.GATE_ONE),
             ("penalty_gate", "bypass", C.G_PENALTY_GATE, C.GATE_BYPASS),
             ("finish_ties", "leftover", C.G_FINISH_TIES, C.TIES_LEFTOVER),
             ("finish_ties", "shared", C.G_FINISH_TIES, C.TIES_SHARED)]
    for key, value, slot, want in cases:
        g = load_bundle(root, [Patch("game.toml", f"switches.{key}", value)]).game
        assert g[slot] == want and base[slot] == 0, key
        assert (np.delete(g, slot) == np.delete(base, slot)).all(), key


def test_summary_names_the_readings_in_force(tmp_path):
    from sim.mania.game import summary

    root = copy_shipped(tmp_path / "d")
    text = summary(load_bundle(root, [Patch("game.toml", "switches.finish_ties", "shared")]))
    assert "finish_ties = shared" in text and "calibre_uses_spare = false" in text
