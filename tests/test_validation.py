"""Every class of bad input gives a specific problem naming file, entry and field."""
import re

import pytest

import minidata as M
from minidata import edit
from sim.blast.load import load_data
from sim.validation import DataError


def problems(root):
    with pytest.raises(DataError) as info:
        load_data(root)
    return [str(p) for p in info.value.problems]


def one_problem(root, *fragments):
    """Exactly one problem, containing every fragment."""
    found = problems(root)
    assert len(found) == 1, found
    for f in fragments:
        assert f in found[0], (f, found[0])
    return found[0]


def test_minidata_is_valid(minidir):
    data = load_data(minidir)
    assert len(data.biathletes) == 6
    assert data.trails[0].name == "Loop"


def test_toml_syntax_error_names_the_line(minidir):
    edit(minidir / "cards.toml", 'name = "Push"', 'name = "Push')
    one_problem(minidir, "cards.toml: line 14", "not valid TOML")


def test_missing_field(minidir):
    edit(minidir / "biathletes" / "ann.toml", 'nation = "Norway"\n', "")
    one_problem(minidir, "biathletes/ann.toml: biathlete 'Ann': nation: is missing")


def test_missing_action(minidir):
    edit(minidir / "cards.toml", 'bottom = { uphill = 1, pulse = -1 }\n', "")
    one_problem(minidir, "cards.toml: card 'Breathe': bottom: is missing")


def test_unknown_key_suggests_the_right_one(minidir):
    edit(minidir / "cards.toml", "top = { flat = 3, pulse = 1 }", "top = { flatt = 3, pulse = 1 }")
    one_problem(minidir, "cards.toml: card 'Glide': top.flatt: is not a known field", "did you mean 'flat'")


def test_unknown_switch(minidir):
    edit(minidir / "game.toml", "mixed_lane_drafting = true", "mixed_lane_draftin = true")
    one_problem(minidir, "game.toml: [switches]: mixed_lane_draftin: is not a known field")


def test_a_switch_value_outside_its_readings_is_named(minidir):
    edit(minidir / "game.toml", "mixed_lane_drafting = true", 'mixed_lane_drafting = true\npulse_floor = "sum"')
    one_problem(minidir, "game.toml: [switches]: pulse_floor:", "total", "each_part")
    edit(minidir / "game.toml", 'pulse_floor = "sum"', 'last_racer_wins = "yes"')
    one_problem(minidir, "game.toml: [switches]: last_racer_wins:")


def test_unknown_colour_in_gear_wax(minidir):
    edit(minidir / "game.toml", "wax = { black = 2 }", "wax = { purple = 2 }")
    one_problem(minidir, "game.toml: [gear.black]: wax.purple: is not a wax colour")


def test_red_wax_is_not_a_wax_colour(minidir):
    edit(minidir / "game.toml", "wax = { black = 2 }", "wax = { red = 2 }")
    one_problem(minidir, "[gear.black]: wax.red: is not a wax colour")


def test_unknown_coach_colour(minidir):
    edit(minidir / "venues" / "testhausen.toml", 'colour = "black"', 'colour = "pink"')
    one_problem(minidir, "venues/testhausen.toml: segment 'loop': segments.loop.coach[0].colour: "
                         "must be a colour: red, black")


def test_unknown_terrain_letter(minidir):
    edit(minidir / "venues" / "testhausen.toml", 'terrain = "FFUUD DDFFU"', 'terrain = "FFUUX DDFFU"')
    one_problem(minidir, "segment 'loop': segments.loop.terrain: 'X' at space 5 is not a terrain")


def test_unknown_heading(minidir):
    edit(minidir / "venues" / "testhausen.toml", 'heading = "EENNN EESSS"', 'heading = "EENNQ EESSS"')
    one_problem(minidir, "segments.loop.heading: 'Q' at space 5 is not a heading")


def test_unknown_lane_count(minidir):
    edit(minidir / "venues" / "testhausen.toml", 'lanes   = "22112 22221"', 'lanes   = "22113 22221"')
    one_problem(minidir, "segments.loop.lanes: '3' at space 5 is not a lane count")


def test_unknown_die(minidir):
    edit(minidir / "cards.toml", 'initiative = "blue"', 'initiative = "white"')
    one_problem(minidir, "card 'Gust': initiative: there is no white die")


def test_die_multiplier_out_of_range(minidir):
    edit(minidir / "cards.toml", 'initiative = "blue"', 'initiative = "3x blue"')
    one_problem(minidir, "card 'Gust': initiative: multiplier must be 1 to 2")


def test_hits_only_in_shoot_action(minidir):
    edit(minidir / "cards.toml", "top = { uphill = 2, pulse = 2 }", 'top = { uphill = "2x hits", pulse = 2 }')
    one_problem(minidir, "card 'Push': top.uphill: 'hits' is only allowed in a venue's Shoot action")


def test_negative_steps(minidir):
    edit(minidir / "cards.toml", "top = { flat = 3, pulse = 1 }", "top = { flat = -3, pulse = 1 }")
    one_problem(minidir, "card 'Glide': top.flat: must be a whole number from 0 to 20", "got -3")


def test_absurd_numbers(minidir):
    edit(minidir / "game.toml", "bullets = 4", "bullets = 400")
    edit(minidir / "cards.toml", "top = { flat = 3, pulse = 1 }", "top = { flat = 3, pulse = 99 }")
    found = problems(minidir)
    assert len(found) == 2, found
    assert any("[gear.red]: bullets: must be a whole number from 0 to 20, got 400" in f for f in found)
    assert any("card 'Glide': top.pulse: must be a whole number from -10 to 10, got 99" in f for f in found)


def test_wrong_type(minidir):
    edit(minidir / "cards.toml", "initiative = 4", 'initiative = 4.5')
    one_problem(minidir, "card 'Glide': initiative: must be a whole number from 0 to 20")


def test_accuracy_must_not_improve_with_pulse(minidir):
    edit(minidir / "biathletes" / "bo.toml", "accuracy = [3, 3, 4]", "accuracy = [3, 2, 4]")
    one_problem(minidir, "biathletes/bo.toml: biathlete 'Bo': accuracy: must not get better")


def test_accuracy_needs_three_thresholds(minidir):
    edit(minidir / "biathletes" / "bo.toml", "accuracy = [3, 3, 4]", "accuracy = [3, 3]")
    one_problem(minidir, "biathlete 'Bo': accuracy: must be three hit thresholds")


def test_biathlete_needs_exactly_five_unique_cards(minidir):
    path = minidir / "biathletes" / "cy.toml"
    text = path.read_text()
    path.write_text(text[: text.index('[[card]]\nname = "Cy Five"')])
    one_problem(minidir, "biathletes/cy.toml: biathlete 'Cy': card: must list exactly 5 unique cards", "found 4")


def test_six_unique_cards_is_also_wrong(minidir):
    path = minidir / "biathletes" / "cy.toml"
    path.write_text(path.read_text() + '\n[[card]]\nname = "Cy Six"\ninitiative = 1\n'
                    'top = { flat = 1 }\nbottom = { flat = 1 }\n')
    one_problem(minidir, "card: must list exactly 5 unique cards", "found 6")


def test_common_card_count(minidir):
    path = minidir / "cards.toml"
    text = path.read_text()
    path.write_text(text[: text.index('[[card]]\nname = "Gust"')])
    one_problem(minidir, "cards.toml: card: must list exactly 4 common cards", "found 3")


def test_duplicate_card_name(minidir):
    edit(minidir / "biathletes" / "ann.toml", 'name = "Ann Three"', 'name = "Glide"')
    one_problem(minidir, "biathletes/ann.toml: card 'Glide': name: duplicate card name", "cards.toml")


def test_duplicate_biathlete_name(minidir):
    edit(minidir / "biathletes" / "bo.toml", 'name = "Bo"', 'name = "Ann"')
    # Bo's cards keep their names, so only the biathlete name clashes
    one_problem(minidir, "biathletes/bo.toml: biathlete 'Ann': name: duplicate biathlete name")


def test_duplicate_trail_name(minidir):
    venue = minidir / "venues" / "testhausen.toml"
    venue.write_text(venue.read_text() + '\n[[trail]]\nname = "Loop"\nroute = ["grid", "loop", "range", '
                     '"stretch", "loop", "range", "stretch", "final"]\n')
    one_problem(minidir, "trail 'Loop': name: duplicate trail name")


def test_trail_without_range(minidir):
    edit(minidir / "venues" / "testhausen.toml", '"loop", "range", "stretch", "loop", "range"',
         '"loop", "stretch", "loop"')
    one_problem(minidir, "trail 'Loop': route: must pass the shooting range exactly 2 times", "passes it 0")


def test_trail_without_finish(minidir):
    edit(minidir / "venues" / "testhausen.toml", 'terrain = "FFU # F"', 'terrain = "FFU   F"')
    one_problem(minidir, "trail 'Loop': route: must have exactly one finish line")


def test_finish_marker_off_the_route(minidir):
    edit(minidir / "venues" / "testhausen.toml", 'terrain = "FFU # F"', 'terrain = "FFU F #"')
    found = problems(minidir)
    assert any("the finish line is typed after the last space of the route" in f for f in found), found


def test_finish_must_end_the_route(minidir):
    edit(minidir / "venues" / "testhausen.toml", 'terrain = "FFU # F"', 'terrain = "F # FUF"')
    one_problem(minidir, "the finish line must be followed by exactly one space", "2 more follow it")


def test_start_line_count(minidir):
    edit(minidir / "venues" / "testhausen.toml", 'terrain = "DFF |"', 'terrain = "DFF"')
    one_problem(minidir, "must cross the start line exactly 3 times", "crosses it 1 times")


def test_route_strings_of_different_lengths(minidir):
    edit(minidir / "venues" / "testhausen.toml", 'heading = "EENNN EESSS"', 'heading = "EENNN EESS"')
    one_problem(minidir, "segment 'loop': segments.loop.heading: route strings must have the same length",
                "terrain has 10 spaces, lanes 10, heading 9")


def test_coach_zone_off_the_segment(minidir):
    edit(minidir / "venues" / "testhausen.toml", "space = 8,", "space = 11,")
    one_problem(minidir, "segments.loop.coach[1].space: must be a whole number from 1 to 10, got 11")


def test_unknown_segment_in_route(minidir):
    edit(minidir / "venues" / "testhausen.toml", '"stretch", "final"', '"strech", "final"')
    one_problem(minidir, "trail 'Loop': route[6]: 'strech' is not a segment of this venue")


def test_start_grid_too_small(minidir):
    edit(minidir / "venues" / "testhausen.toml", 'lanes   = "222"\nheading = "EEE"',
         'lanes   = "212"\nheading = "EEE"')
    one_problem(minidir, "trail 'Loop': route: the start grid", "holds 5 racers; it must hold 6")


def test_range_with_too_few_mats(minidir):
    edit(minidir / "venues" / "testhausen.toml", "mats = 6", "mats = 4")
    one_problem(minidir, "range.mats: must be a whole number from 6 to 12, got 4")


def test_ski_colour_order_must_be_a_permutation(minidir):
    edit(minidir / "game.toml", '"green", "blue", "white"]', '"green", "blue", "blue"]')
    one_problem(minidir, "game.toml: [gear]: ski_colours: must list each of the six colours once")


def test_missing_gear_colour(minidir):
    edit(minidir / "game.toml", "[gear.white]\nbullets = 3\nwax = { white = 2 }\n", "")
    one_problem(minidir, "game.toml: [gear]: white: is missing")


def test_accuracy_bands_checked(minidir):
    edit(minidir / "game.toml", "round_cap = 40", "round_cap = 40\naccuracy_bands = [6, 2]")
    one_problem(minidir, "[rules]: accuracy_bands: must be two whole numbers")


def test_every_problem_reported_at_once(minidir):
    edit(minidir / "cards.toml", "top = { flat = 3, pulse = 1 }", "top = { flatt = 3, pulse = 1 }")
    edit(minidir / "biathletes" / "ann.toml", 'nation = "Norway"\n', "")
    edit(minidir / "venues" / "testhausen.toml", "space = 8,", "space = 11,")
    found = problems(minidir)
    assert len(found) == 3, found
    assert [f.split(":")[0] for f in found] == ["cards.toml", "biathletes/ann.toml", "venues/testhausen.toml"]


def test_not_a_directory(tmp_path):
    found = problems(tmp_path / "nowhere")
    assert found == [f"{tmp_path / 'nowhere'}: must be a data directory (see docs/data-format.md)"]


# --- limits that follow from other fields (issue 12) ---------------------------------------------
def test_pulse_limit_leaves_room_for_the_accuracy_bands(minidir):
    edit(minidir / "game.toml", "round_cap = 40", "round_cap = 40\npulse_limit = 1\naccuracy_bands = [0, 1]")
    found = problems(minidir)
    assert found[0] == ("game.toml: [rules]: pulse_limit: must be a whole number from 2 to 99 (accuracy_bands "
                        "need 0 <= low < medium < pulse_limit), got 1"), found


def test_a_route_needs_a_start_line(minidir):
    edit(minidir / "game.toml", "round_cap = 40", "round_cap = 40\nstart_line_crossings = 0")
    found = problems(minidir)
    assert ("game.toml: [rules]: start_line_crossings: must be a whole number from 1 to 10 (the spaces "
            "before the first start line are the start grid), got 0") in found


def test_range_visits_beyond_the_engine(minidir):
    edit(minidir / "game.toml", "round_cap = 40", "round_cap = 40\nrange_visits = 11")
    assert ("game.toml: [rules]: range_visits: must be a whole number from 0 to 10 (the engine keeps "
            "statistics for up to 10 visits), got 11") in problems(minidir)


def test_no_common_cards_is_an_empty_cards_file(minidir):
    (minidir / "cards.toml").write_text("# no common cards in this variant\n")
    one_problem(minidir, "cards.toml: card: must list exactly 4 common cards (rules.common_cards), found 0")
    edit(minidir / "game.toml", "round_cap = 40", "round_cap = 40\ncommon_cards = 0")
    assert load_data(minidir).common == ()


# --- warnings: legal, but probably not what the designer meant (issue 12, item 4) --------------
def warnings_of(root):
    from sim.blast.load import data_warnings

    return [str(w) for w in data_warnings(load_data(root))]


def test_shipped_and_mini_data_have_no_warnings(minidir):
    from sim.blast.load import data_warnings

    assert data_warnings(load_data()) == []
    assert warnings_of(minidir) == []


def test_warning_for_a_terrain_no_card_can_enter(minidir):
    """Without uphill steps on any card, only black wax, black coach boosts and the Shoot action
    (2x hits uphill) move racers up the hills: legal, but a warning."""
    for name in ("cards.toml", "motivation.toml", *(f"biathletes/{b[0].lower()}.toml" for b in M.BIATHLETES)):
        path = minidir / name
        text = re.sub(r"uphill = (\d+|\"[^\"]+\")", "uphill = 0", path.read_text())
        path.write_text(text)
    found = warnings_of(minidir)
    assert found == [
        "cards.toml: card: no card (common, unique or Motivation) has a step that can enter uphill spaces "
        "(uphill steps), and trails 'Loop' (7) have such spaces: only black wax, coach boosts of those "
        "colours or a venue's Shoot action can move a racer there"], found
    load_data(minidir)                                      # still valid


def test_warning_for_one_biathlete_who_cannot_climb(minidir):
    path = minidir / "biathletes" / "bo.toml"
    path.write_text(re.sub(r"uphill = (\d+|\"[^\"]+\")", "uphill = 0", path.read_text()))
    for name in ("cards.toml", "motivation.toml"):
        p = minidir / name
        p.write_text(re.sub(r"uphill = (\d+|\"[^\"]+\")", "uphill = 0", p.read_text()))
    found = warnings_of(minidir)
    assert len(found) == 1 and found[0].startswith(
        "biathletes/bo.toml: biathlete 'Bo': card: no card of Bo's deck nor of the Motivation deck has a step "
        "that can enter uphill spaces"), found


def test_warning_for_a_trail_longer_than_the_round_cap(minidir):
    edit(minidir / "game.toml", "round_cap = 40", "round_cap = 2")
    found = warnings_of(minidir)
    assert len(found) == 1, found
    assert found[0].startswith("venues/testhausen.toml: trail 'Loop': route: a race needs at least 3 rounds "
                               "to finish even if every turn moved"), found
    assert found[0].endswith("but rules.round_cap is 2: every race on this trail will stall")


def test_warning_for_a_biathlete_who_never_hits(minidir):
    edit(minidir / "biathletes" / "cy.toml", "accuracy = [2, 4, 4]", "accuracy = [6, 6, 6]")
    assert warnings_of(minidir) == [
        "biathletes/cy.toml: biathlete 'Cy': accuracy: every threshold is 6 or more but the dice show 0 to 5: "
        "Cy's dice can never hit (hits come only from windstill, bullets and red coach boosts)"]


RANGE = 'terrain = "F"\n\n[wait]'


def test_range_coach_zone_is_checked(minidir):
    edit(minidir / "venues" / "testhausen.toml", RANGE,
         'terrain = "F"\ncoach = { colour = "pink", strength = 6, space = 1 }\n\n[wait]')
    found = problems(minidir)
    assert len(found) == 3, found
    assert any("venues/testhausen.toml: venue 'Testhausen': range.coach.colour: must be a colour: red" in f
               for f in found)
    assert any("range.coach.strength: must be a whole number from 1 to 5, got 6" in f for f in found)
    assert any("range.coach.space: is not a known field" in f for f in found)


def test_range_coach_zone_is_accepted(minidir):
    edit(minidir / "venues" / "testhausen.toml", RANGE,
         'terrain = "F"\ncoach = { colour = "red", strength = 1 }\n\n[wait]')
    venue = load_data(minidir).venues[0]
    assert (venue.range.coach.colour, venue.range.coach.strength) == ("red", 1)


def test_fork_heading_must_be_a_heading(minidir):
    edit(minidir / "venues" / "testhausen.toml", 'heading = "WWW"', 'heading = "WWW"\nfork_heading = { final = "Q" }')
    one_problem(minidir, "venues/testhausen.toml: segment 'stretch': segments.stretch.fork_heading.final: "
                         "must be a heading, one of N, E, S, W")


def test_fork_heading_must_name_a_branch_of_the_route(minidir):
    edit(minidir / "venues" / "testhausen.toml", 'heading = "WWW"', 'heading = "WWW"\nfork_heading = { finale = "E" }')
    one_problem(minidir, "venues/testhausen.toml: segment 'stretch': segments.stretch.fork_heading.finale: "
                         "'finale' never follows segment 'stretch' in a trail's route of this venue "
                         "(it is followed by: final, loop)")


def test_a_named_example_set_loads_by_name_from_any_folder(tmp_path, monkeypatch, capsys):
    """--data NAME (and load_data(NAME)) finds a shipped example set (sim/data/examples/NAME) from any
    folder; an unknown name is a missing folder."""
    from sim.cli import main
    from sim.data import example_names, examples_dir

    assert "blast-unbalanced" in example_names()
    monkeypatch.chdir(tmp_path)
    data = load_data("blast-unbalanced")
    assert {b.name for b in data.biathletes} >= {"Bakken", "Owens", "Olsson", "Pinto"}
    assert main(["validate", "blast-unbalanced"]) == 0
    assert "valid" in capsys.readouterr().out
    assert (examples_dir() / "blast-unbalanced" / "game.toml").read_text().count("NAMED EXAMPLE") == 1
    with pytest.raises(DataError, match="must be a data directory"):
        load_data("no-such-example")


def test_data_hash_recipe_is_fixed():
    """The data hash is part of every results folder's identity (ledgers): the recipe must not
    change, or folders played before would be refused. Pinned on a tiny data class, in both forms
    the games use (sim.validation.data_hash)."""
    from dataclasses import dataclass

    from sim.validation import data_hash

    @dataclass
    class Nation:
        name: str
        file: str

    @dataclass
    class Data:
        source: str
        nations: list
        speed: float

    d = Data("/some/folder", [Nation("Norway", "nations/norway.toml")], 1.5)
    assert data_hash(d, 1) == "6b3257ecc5b50a47"                  # Blast's and Mania's form
    assert data_hash(d, 1, game="skitour", file_lists=("nations",)) == "bb16b49a08ccf371"     # Ski Tour's
    moved = Data("/elsewhere", [Nation("Norway", "n/norway.toml")], 1.5)
    assert data_hash(moved, 1, game="skitour", file_lists=("nations",)) == "bb16b49a08ccf371"
    assert data_hash(moved, 1) != data_hash(d, 1)                 # the file names count there
    assert data_hash(Data("/some/folder", d.nations, 1.6), 1) != data_hash(d, 1)


def test_a_patch_that_changes_an_arrays_length_keeps_it_one_element_a_line():
    """The balance search writes its data through apply_patch on a parse that keeps comments: a
    multi-line array made longer or shorter (a stamina column) stays one element a line, with each
    comment beside the element it described; an array of the same length is edited in place."""
    import tomllib

    import tomlkit

    from sim.validation import Patch, apply_patch

    text = 'slots = [\n  "5G",\n  "4Y",  # the yellow row\n  "1B",\n]\nsquares = [1, 2, 3]  # the track\n'
    doc = tomlkit.parse(text)
    assert apply_patch(doc, Patch("nation.toml", "slots", ["6G", "5G", "4Y", "1B"], "test")) is None
    assert apply_patch(doc, Patch("nation.toml", "squares", [2, 3, 4], "test")) is None
    out = tomlkit.dumps(doc)
    assert out == ('slots = [\n  "6G",\n  "5G",\n  "4Y",  # the yellow row\n  "1B",\n]\n'
                   'squares = [2, 3, 4]  # the track\n')
    doc = tomlkit.parse(out)
    assert apply_patch(doc, Patch("nation.toml", "slots", ["5G", "1B"], "test")) is None
    assert tomllib.loads(tomlkit.dumps(doc))["slots"] == ["5G", "1B"]
    assert tomlkit.dumps(doc).startswith('slots = [\n  "5G",\n  "1B",\n]\n')
