"""Ski Tour: Biathlon data: the shipped set loads and compiles, follows the rulebook's facts and
makes every rule reachable; every kind of bad data gives one `file: entry: field: expected`
problem and a DataError."""
import shutil

import numpy as np
import pytest

from kernels.skitour import consts as C
from sim.skitour import compile_data, data_hash, default_data_dir, load_bundle, load_data
from sim.skitour.load import parse_wax
from sim.validation import DataError, Patch


@pytest.fixture
def datadir(tmp_path):
    """A fresh copy of the shipped data set, ready to be broken."""
    return shutil.copytree(default_data_dir(), tmp_path / "skitour")


def edit(path, old, new, count=1):
    text = path.read_text()
    assert old in text, (old, path)
    path.write_text(text.replace(old, new, count))


def problems(root):
    with pytest.raises(DataError) as info:
        load_data(root)
    return [str(p) for p in info.value.problems]


def one_problem(root, *fragments):
    found = problems(root)
    assert len(found) == 1, found
    for f in fragments:
        assert f in found[0], (f, found[0])
    return found[0]


# --- the shipped data ---------------------------------------------------------------------------

def test_shipped_data_loads_and_compiles():
    b = load_bundle()
    d = b.data
    assert b.course_names == ("Starter", "Long")
    assert len(b.data_hash) == 16
    assert sorted(n.name for n in d.nations if n.side == "basic") == ["France", "Germany", "Norway", "Russia", "Sweden"]
    assert sorted(n.name for n in d.nations if n.side == "advanced") == \
        ["Austria", "Finland", "Italy", "USA", "United Kingdom"]
    boards = {n.name: n.board for n in d.nations}
    assert boards["Norway"] == boards["Austria"] and boards["Russia"] == boards["Italy"]
    assert len(d.tiles) == 20 and len(d.dice) == 4
    t = b.tables
    assert t.rules[C.R_RACE_DICE] == 10 and t.rules[C.R_TARGETS] == 5
    assert list(t.penalty_laps) == [0, 1, 1, 2, 2, 3]
    assert list(t.n_ranges) == [2, 4]
    assert list(t.start_slot) == [1, 0]          # Starter is a short race, Long a long one
    assert t.slot_value.shape[:2] == (10, 5) and t.space.shape[2] == 3
    assert all(n.wax and len(n.wax) == 8 for n in d.nations)


def test_basic_boards_share_one_layout():
    d = load_data()
    basic = [n for n in d.nations if n.side == "basic"]
    assert len({(n.stamina, n.capacity, n.full_at, n.boxes, n.sprint) for n in basic}) == 1
    advanced = [n for n in d.nations if n.side == "advanced"]
    assert all(n.stamina != basic[0].stamina for n in advanced)    # the stamina differs


def test_every_rule_is_reachable_in_the_shipped_data():
    b = load_bundle()
    d, t = b.data, b.tables
    for ci, name in enumerate(b.course_names):
        kinds = set(np.unique(t.space[ci, :t.n_rows[ci]]))
        assert kinds == {C.SPACE_NONE, C.SPACE_PLAIN, C.SPACE_GREEN, C.SPACE_RED, C.SPACE_WHITE,
                         C.SPACE_SHOOT}, name
        sides = d.course_sides(d.courses[ci])
        assert sides[0].kind == "start" and sides[-1].kind == "goal"
        assert t.free_row[ci].sum() >= 1
        assert all(t.penalty_lane[ci, r] > 0 for r in t.range_row[ci] if r >= 0)
    nations = {n.name: n for n in d.nations}
    assert 3 in nations["Austria"].full_at and 3 in nations["Italy"].full_at
    assert "flip" in nations["Italy"].boxes and "flip" in nations["United Kingdom"].boxes
    assert nations["Finland"].printed_wax is not None
    assert all(n.printed_wax is None for n in d.nations if n.name != "Finland")
    tokens = [w for n in d.nations for w in n.wax]
    icons = {a for w in tokens for a in w.actions} | ({"stamina"} if any(w.stamina for w in tokens) else set())
    assert icons == set(C.WAX_ICON_NAMES)
    assert any(w.one_of for w in tokens) and any(len(w.actions) > 1 and not w.one_of for w in tokens)
    assert any(w.stamina and w.one_of for w in tokens)


def test_shipped_courses_follow_the_books_tips():
    """No range right after a range; no uphill space right after an uphill space (same lane)."""
    b = load_bundle()
    t = b.tables
    for ci, name in enumerate(b.course_names):
        rr = [r for r in t.range_row[ci] if r >= 0]
        sides = [t.row_side[ci, r] for r in rr]
        assert all(b2 - a > 1 for a, b2 in zip(sides, sides[1:])), name
        sp = t.space[ci, :t.n_rows[ci]]
        assert not ((sp[1:] == C.SPACE_RED) & (sp[:-1] == C.SPACE_RED)).any(), name


def test_hash_ignores_the_folder_and_follows_the_values(datadir):
    assert data_hash(load_data(datadir)) == load_bundle().data_hash
    changed = load_data(datadir, [Patch("game.toml", "rules.round_cap", 99)])
    assert compile_data(changed).data_hash != load_bundle().data_hash


# --- validation: one problem per kind of bad data ------------------------------------------------

def test_toml_syntax_error_names_the_line(datadir):
    edit(datadir / "courses.toml", 'name = "Starter"', 'name = "Starter')
    one_problem(datadir, "courses.toml: line", "not valid TOML")


def test_missing_file(datadir):
    (datadir / "tiles.toml").unlink()
    found = problems(datadir)
    assert any(p.startswith("tiles.toml: is missing") for p in found), found


def test_unknown_switch_suggests_the_right_one(datadir):
    edit(datadir / "game.toml", "drafter_bonus = true", "drafter_bonuss = true")
    one_problem(datadir, "game.toml: [switches]: drafter_bonuss: is not a known field",
                "did you mean 'drafter_bonus'")


def test_bad_switch_value(datadir):
    edit(datadir / "game.toml", 'range_payment = "highest_unshot"', 'range_payment = "lowest"')
    one_problem(datadir, "game.toml: [switches]: range_payment: must be one of highest_unshot, choice")


def test_penalty_table_must_cover_every_miss_count(datadir):
    edit(datadir / "game.toml", "penalty_laps = [0, 1, 1, 2, 2, 3]", "penalty_laps = [0, 1, 1, 2, 2]")
    one_problem(datadir, "game.toml: [rules]: penalty_laps: must list the laps for 0 to 5 misses")


def test_die_faces_are_hits_and_misses(datadir):
    edit(datadir / "game.toml", 'faces = "H H H M M M"', 'faces = "H H H X M M"')
    one_problem(datadir, "game.toml: [dice.red]: faces: must list at least two faces, each H (hit) or M")


def test_exhausted_colour_must_be_a_die(datadir):
    edit(datadir / "game.toml", 'exhausted_colour = "blue"', 'exhausted_colour = "purple"')
    found = problems(datadir)
    assert "game.toml: [rules]: exhausted_colour: must name one of the dice (green, yellow, red, blue)" in found[0]


def test_stamina_row_needs_one_cell_per_target(datadir):
    edit(datadir / "nations" / "norway.toml", '"4Y  4Y  4Y  4Y  4Y"', '"4Y  4Y  4Y  4Y"')
    one_problem(datadir, "nations/norway.toml: nation 'Norway': stamina.slots[2]: must be a string of 5 cells")


def test_stamina_slot_needs_a_known_die_letter(datadir):
    edit(datadir / "nations" / "norway.toml", '"4Y  4Y  4Y  4Y  4Y"', '"4Y  4Q  4Y  4Y  4Y"')
    one_problem(datadir, "nations/norway.toml: nation 'Norway': stamina.slots[2]: cell '4Q' of column 2")


def test_stamina_values_fall_down_a_column(datadir):
    edit(datadir / "nations" / "norway.toml", '"4Y  4Y  4Y  4Y  4Y"', '"4Y  4Y  5Y  4Y  4Y"')
    one_problem(datadir, "nations/norway.toml: nation 'Norway': stamina.slots: column 3: values must fall")


def test_stamina_bottom_slot_is_blue(datadir):
    edit(datadir / "nations" / "norway.toml", '"1B  1B  1B  1B  1B"', '"1B  1B  1B  1B  1R"')
    one_problem(datadir, "nations/norway.toml: nation 'Norway': stamina.slots: column 5: the bottom slot must be blue")


def test_stamina_blue_only_at_the_bottom(datadir):
    edit(datadir / "nations" / "norway.toml", '"2R  2R  2R  2R  2R"', '"2R  2B  2R  2R  2R"')
    one_problem(datadir, "nations/norway.toml: nation 'Norway': stamina.slots: column 2: only the bottom slot may be blue")


def test_stamina_bottoms_share_one_value(datadir):
    edit(datadir / "nations" / "norway.toml", '"1B  1B  1B  1B  1B"', '"1B  1B  1B  1B  0B"')
    one_problem(datadir, "nations/norway.toml: nation 'Norway': stamina.slots: every column's bottom")


def test_stamina_column_without_gaps(datadir):
    edit(datadir / "nations" / "norway.toml", '"3Y  3Y  3Y  3Y  3Y"', '"3Y  3Y  .   3Y  3Y"')
    found = problems(datadir)
    assert "nations/norway.toml: nation 'Norway': stamina.slots[3]: column 3 has a gap" in found[0], found


def test_full_at_cannot_exceed_capacity(datadir):
    edit(datadir / "nations" / "austria.toml", "full_at  = [4, 3, 4, 3]", "full_at  = [4, 3, 5, 3]")
    one_problem(datadir, "nations/austria.toml: nation 'Austria': columns.full_at: column 3 is full at 5")


def test_boxes_are_star_or_flip(datadir):
    edit(datadir / "nations" / "italy.toml", '["flip", "star", "star", "star"]', '["flip", "star", "moon", "star"]')
    one_problem(datadir, "nations/italy.toml: nation 'Italy': columns.boxes: must list the box above each")


def test_wax_token_with_an_unknown_icon(datadir):
    edit(datadir / "nations" / "norway.toml", '"reroll_all",', '"reroll_everything",')
    one_problem(datadir, "nations/norway.toml: nation 'Norway': wax.tokens[4]: 'reroll_everything'",
                "is not a wax icon")


def test_wax_token_mixing_and_and_or(datadir):
    edit(datadir / "nations" / "france.toml", '"plus_one / minus_one"', '"sprint + plus_one / minus_one"')
    one_problem(datadir, "nations/france.toml: nation 'France': wax.tokens[6]: mixes '+' and '/'")


def test_wax_needs_every_token(datadir):
    edit(datadir / "nations" / "norway.toml", '  "reroll_all",\n', "")
    one_problem(datadir, "nations/norway.toml: nation 'Norway': wax.tokens: must list exactly 8 tokens")


def test_parse_wax_grammar():
    t, _ = parse_wax("stamina + reroll_one / plus_one")
    assert t.stamina and t.one_of and t.actions == ("reroll_one", "plus_one")
    t, _ = parse_wax("sprint + stamina")
    assert t.stamina and not t.one_of and t.actions == ("sprint",)
    assert parse_wax("stamina / sprint")[1]
    assert parse_wax("sprint + sprint")[1]


def test_a_blank_token_has_no_icon_and_compiles_to_no_bits():
    t, err = parse_wax("blank")
    assert err is None and not t.stamina and t.actions == () and not t.one_of
    assert "cannot be combined" in parse_wax("blank + sprint")[1]
    assert "cannot be combined" in parse_wax("stamina + blank")[1]
    assert "\"blank\" (no icon)" in parse_wax("")[1]
    nation = load_data().nations[0]
    texts = ["blank" if i == 2 else tok.text for i, tok in enumerate(nation.wax)]
    b = load_bundle(patches=[Patch(nation.file, "wax.tokens", texts)])
    assert b.tables.wax_icons[0, 2] == 0 and b.tables.wax_mode[0, 2] == C.WAX_ALL
    assert b.tables.wax_icons[0, 1] != 0


def test_a_printed_token_cannot_be_blank(datadir):
    edit(datadir / "nations" / "finland.toml", 'printed = "reroll_shot"', 'printed = "blank"')
    one_problem(datadir, "nations/finland.toml: nation 'Finland': wax.printed: a printed token must show an icon")


def test_a_board_has_one_side_of_each_kind(datadir):
    edit(datadir / "nations" / "austria.toml", 'side = "advanced"', 'side = "basic"')
    found = problems(datadir)
    assert len(found) == 1 and "board 1 already has a basic side" in found[0], found
    assert found[0].split(": ")[2] == "board"


def test_duplicate_nation_name(datadir):
    edit(datadir / "nations" / "austria.toml", 'name = "Austria"', 'name = "Norway"')
    found = problems(datadir)
    assert any("nations/norway.toml: nation 'Norway': name: duplicate nation name" in p for p in found), found


def test_tile_row_needs_one_cell_per_lane(datadir):
    edit(datadir / "tiles.toml", '"G . G",', '"G . G .",')
    one_problem(datadir, "tiles.toml: tile 1: b.rows[3]: must have 3 cells (rules.lanes)")


def test_tile_row_with_an_unknown_space(datadir):
    edit(datadir / "tiles.toml", '"G . G",', '"G X G",')
    one_problem(datadir, "tiles.toml: tile 1: b.rows[3]: 'X' is not a space")


def test_shooting_spaces_only_on_a_range(datadir):
    edit(datadir / "tiles.toml", '"G . G",', '"G S G",')
    one_problem(datadir, "tiles.toml: tile 1: b.rows[3]: shooting spaces (S) belong on a range side")


def test_range_needs_a_full_shooting_row(datadir):
    edit(datadir / "tiles.toml", '"S S S",', '"S . S",')
    one_problem(datadir, "tiles.toml: tile 3: a.rows[2]: a shooting row holds only S and -")


def test_range_needs_a_penalty_lane(datadir):
    edit(datadir / "tiles.toml", 'penalty_lane = 3      # moves per penalty lap\n', "")
    one_problem(datadir, "tiles.toml: tile 3: a.penalty_lane: is missing")


def test_penalty_lane_only_on_a_range(datadir):
    edit(datadir / "tiles.toml", 'kind = "start"\n', 'kind = "start"\npenalty_lane = 2\n')
    found = problems(datadir)
    assert "tiles.toml: tile 1: a.penalty_lane: only a range side has a penalty lane" in found, found


def test_course_names_an_unknown_side(datadir):
    edit(datadir / "courses.toml", '"7a", "8a"', '"7a", "21a"')
    one_problem(datadir, "courses.toml: course 'Starter': tiles[2]: there is no tile side 21a")


def test_course_lays_a_tile_once(datadir):
    edit(datadir / "courses.toml", '"7a", "8a"', '"7a", "7b"')
    one_problem(datadir, "courses.toml: course 'Starter': tiles[2]: tile 7 is already laid as 7a")


def test_course_begins_with_start_and_ends_with_goal(datadir):
    edit(datadir / "courses.toml", '"11a", "2a"]', '"2a", "11a"]')
    found = problems(datadir)
    assert "courses.toml: course 'Starter': tiles: must end with a goal side, ends with 11a (course)" in found
    assert "courses.toml: course 'Starter': tiles[7]: 2a is a goal side; only the last side may be one" in found


def test_course_without_dead_ends(datadir):
    # tile 11a's third row "R . ." becomes "R - -" over tile 11b-like narrowing: lane 3 of row 2
    # then needs two sideways steps to go on
    edit(datadir / "tiles.toml", '"R . .",', '"R - -",')
    found = problems(datadir)
    assert len(found) == 1, found
    assert "courses.toml: course 'Starter': tiles: dead end: on 11a row 2, lane 3" in found[0]


def test_patch_to_a_file_the_set_does_not_have(datadir):
    with pytest.raises(DataError) as info:
        load_data(datadir, [Patch("nations/atlantis.toml", "board", 3)])
    assert "nations/atlantis.toml" in str(info.value)


# --- the documents and the code agree --------------------------------------------------------------

def test_every_switch_is_explained_in_the_rules_and_the_format():
    import re
    from dataclasses import fields
    from pathlib import Path

    from sim.skitour.model import Switches

    docs = Path(__file__).resolve().parents[2] / "docs" / "skitour"
    rules = (docs / "rules.md").read_text()
    fmt = (docs / "data-format.md").read_text()
    for f in fields(Switches):
        assert re.search(rf"Interpretation \([^)]*switch(es)? [^)]*`{f.name}`", rules), f.name
        assert f"{f.name} =" in fmt, f.name


def test_kernels_know_nothing_of_files_or_sim():
    import ast
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "kernels" / "skitour"
    for path in folder.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            for name in names:
                assert name.split(".")[0] in ("numpy", "numba", "typing", "__future__", "kernels"), (path, name)


def test_summary_names_every_nation_and_course():
    from sim.skitour.summary import scenarios, summary

    b = load_bundle()
    text = summary(b)
    assert all(n in text for n in b.nation_names) and b.data_hash in text
    assert scenarios(b) == ("Starter", "Long")
    assert "Starter: 9 sides, 36 rows, 2 ranges (short race)" in text
    assert "Long: 16 sides, 64 rows, 4 ranges (long race)" in text


def test_stamina_value_has_a_ceiling(datadir):
    edit(datadir / "nations" / "norway.toml", '"6G  6G  6G  6G  6G"', '"600G  6G  6G  6G  6G"')
    one_problem(datadir, "nations/norway.toml: nation 'Norway': stamina.slots[0]: cell '600G' of column 1",
                "at most 99")


@pytest.mark.parametrize("key,value,expected", [
    ("reroll_shot_scope", '"range"', "must be one of turn, visit"),
    ("first_player", '"oldest"', "must be one of first_seat, drawn"),
    ("two_player_seats", '"mixed"', "must be one of alternate, together"),
    ("collapse_on", '"never"', "must be one of forced, any"),
    ("sprint_icon_column", '"yes"', "sprint_icon_column")])
def test_bad_reading_switch(datadir, key, value, expected):
    """The issue-28 reading switches: a wrong value is one line naming the file, table and key."""
    text = (datadir / "game.toml").read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if x.startswith(key + " "))
    edit(datadir / "game.toml", line, f"{key} = {value}")
    one_problem(datadir, f"game.toml: [switches]: {key}: ", expected)



EXAMPLES = ("skitour-unbalanced", "skitour-balanced-before-look", "skitour-balanced-before-reroll")


@pytest.mark.parametrize("data", [None, *EXAMPLES], ids=["shipped", *EXAMPLES])
def test_the_shipped_nations_and_the_earlier_sets_keep_the_books_facts(data, tmp_path, monkeypatch):
    """The shipped set is issue 31's balance result; the sets shipped before it (before the search,
    and balanced under the default of before) load by name from any folder (--data
    skitour-unbalanced), each of their files saying once what it is. They differ
    only in nation values, and both keep what the rulebook and the box say of the boards: one
    basic layout, every advanced nation's stamina its own, Austria and Italy with columns full at
    three, Italy's and the United Kingdom's flip boxes, Finland's printed token, eight distinct
    token sets per side."""
    from sim.data import examples_dir

    monkeypatch.chdir(tmp_path)
    new = load_bundle(data)
    old = load_bundle("skitour-unbalanced")
    assert new.nation_names == old.nation_names and new.course_names == old.course_names
    assert new.data.rules == old.data.rules and new.data.tiles == old.data.tiles
    assert new.data.switches == old.data.switches and new.data.courses == old.data.courses
    assert (new.data_hash != old.data_hash) == (data != "skitour-unbalanced")
    nations = {n.name: n for n in new.data.nations}
    basic = [n for n in nations.values() if n.side == "basic"]
    advanced = [n for n in nations.values() if n.side == "advanced"]
    assert len({(n.stamina, n.capacity, n.full_at, n.boxes, n.sprint) for n in basic}) == 1
    assert len({n.stamina for n in advanced} | {basic[0].stamina}) == 6
    assert 3 in nations["Austria"].full_at and 3 in nations["Italy"].full_at
    assert "flip" in nations["Italy"].boxes and "flip" in nations["United Kingdom"].boxes
    assert nations["Finland"].printed_wax is not None
    assert len({tuple(sorted(map(str, n.wax))) for n in nations.values()}) == 10
    for name in EXAMPLES:
        for p in (examples_dir() / name).rglob("*.toml"):
            assert p.read_text().count(f'NAMED EXAMPLE "{name}"') == 1, p
