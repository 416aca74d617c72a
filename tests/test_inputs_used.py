"""Every input is used or refused (issue 29): each case a new user tried that was accepted and then
ignored or misread, that lost work, or that got a useless message, now refused with one line that
names the input and what was expected (or honoured). None of them plays a race before refusing."""
import errno
import re
import shutil
from pathlib import Path

import pytest

from sim.cli import main

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "sim" / "data"


def refused(capsys, argv, *words, lines=1):
    """`argv` exits 2 with `lines` line(s) on stderr holding every word, no traceback, no errno."""
    capsys.readouterr()
    assert main([str(a) for a in argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == lines and "Traceback" not in err, err
    assert not re.search(r"Errno|: \d+$", err), err
    for word in words:
        assert word in err, err
    return err


# --- accepted, then ignored or misread --------------------------------------------------------

def test_a_persona_weight_that_is_not_a_number_is_refused(tmp_path, capsys):
    persona = tmp_path / "nan.toml"
    persona.write_text('name = "nanny"\n[weights]\nprogress = nan\n')
    refused(capsys, ["run", "--trail", "Kurz", "--races", "5", "--players", persona, "--quiet"],
            "progress", "finite number", lines=2)


def test_mania_refuses_a_colour_named_twice(capsys):
    refused(capsys, ["--game", "mania", "run", "--track", "red", "--colours", "red,red,blue,green", "--races", "4"],
            "red is named twice")


def test_blast_colours_without_a_line_up_are_refused(capsys):
    refused(capsys, ["run", "--trail", "Kurz", "--colours", "red,black,yellow,green", "--races", "4"],
            "fixed line-up", "--biathletes")


def test_a_pairing_with_no_such_cell_is_refused(tmp_path, capsys):
    study = tmp_path / "ghost.toml"
    study.write_text('seed = 1\n[[cell]]\nname = "a"\ntrail = "Kurz"\nraces = 48\nsame_races_as = "ghost"\n')
    refused(capsys, ["study", study, "--dry-run"], "same_races_as", "no cell 'ghost'", lines=2)


@pytest.mark.parametrize("cut, missing", [(r"\nrelay = \[[^\]]*\]", "[dice]: relay: is missing"),
                                          (r"\[dice\][^\[]*\[[^\]]*\][^\[]*\[[^\]]*\][^\[]*\[[^\]]*\]\n",
                                           "game.toml: dice: is missing")])
def test_mania_data_without_its_dice_is_refused(tmp_path, capsys, cut, missing):
    data = shutil.copytree(DATA / "mania", tmp_path / "mania")
    text = (data / "game.toml").read_text()
    cut_text = re.sub(cut, "\n", text, count=1)
    assert cut_text != text
    (data / "game.toml").write_text(cut_text)
    refused(capsys, ["--game", "mania", "validate", data], missing, lines=2)


def test_personas_in_a_mania_balance_file_are_refused(tmp_path, capsys):
    text = (ROOT / "experiments" / "balance_mania.toml").read_text()
    text = text.replace("racers = [4, 8]", 'racers = [4, 8]\npersonas = ["balanced"]')
    (tmp_path / "b.toml").write_text(text)
    err = refused(capsys, ["balance", tmp_path / "b.toml", "--dry-run"], "personas", "has no players")
    assert "Biathlon Mania" in err


def test_a_target_persona_no_design_plays_is_refused(tmp_path, capsys):
    text = (ROOT / "experiments" / "balance_mania.toml").read_text()
    text = text.replace('scenarios = ["red"]', 'scenarios = ["red"]\npersonas = ["sprinter"]', 1)
    (tmp_path / "b.toml").write_text(text)
    refused(capsys, ["balance", tmp_path / "b.toml", "--dry-run"], "no persona 'sprinter'")


def test_balance_minutes_must_be_a_number(capsys):
    refused(capsys, ["balance", "experiments/balance_mania.toml", "--max-minutes", "nan", "--dry-run"],
            "--max-minutes", "above 0")


@pytest.mark.parametrize("rows", ["-1", "0"])
def test_compare_rows_must_be_at_least_one(capsys, rows):
    refused(capsys, ["compare", "--set", "game.toml:gear.red.bullets=5", "--races", "48", "--rows", rows], "--rows")


def test_legs_without_the_relay_format_is_refused(capsys):
    refused(capsys, ["--game", "mania", "run", "--track", "red", "--legs", "3", "--races", "4"],
            "legs applies to the relay format only", "sprint")


def test_an_empty_cell_list_is_refused(capsys):
    refused(capsys, ["study", "experiments/smoke.toml", "--out", "/tmp/never", "--cells", ""],
            "--cells names no cell", "balanced-Kurz")


# --- lost work ----------------------------------------------------------------------------------

def test_tune_checks_its_check_seed_before_playing(tmp_path, capsys):
    refused(capsys, ["tune", "--start", "balanced", "--trails", "Kurz", "--check-seed", "-1",
                     "--out", tmp_path / "t.toml"], "--check-seed")


# --- useless messages ---------------------------------------------------------------------------

def test_a_full_disk_is_said_in_words(tmp_path, capsys, monkeypatch):
    import reports.report
    import sim.store

    def full(*_, **__):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "r" / "part.tmp"))

    assert main(["run", "--trail", "Kurz", "--racers", "3", "--races", "48", "--quiet", "--out", str(tmp_path / "r")]) == 0
    monkeypatch.setattr(reports.report, "build_report", full)
    refused(capsys, ["report", tmp_path / "r", "--out", tmp_path / "rep", "--quiet"], "the disk is full", "part.tmp")
    monkeypatch.setattr(sim.store, "_write_parquet", full)
    err = refused(capsys, ["run", "--trail", "Kurz", "--racers", "3", "--races", "96", "--quiet",
                           "--out", tmp_path / "r2"], "the disk is full", "part.tmp", "resumes")
    assert "28" not in err.replace(str(tmp_path), "")     # no errno (the temporary path may hold a 28)


def test_a_missing_file_is_said_in_words(tmp_path, capsys):
    refused(capsys, ["replay", "--run", tmp_path / "nothing", "--race", "0"], "nothing is not the folder of a run")


def test_one_syntax_error_is_one_problem(tmp_path, capsys):
    data = shutil.copytree(DATA / "skitour", tmp_path / "skitour")
    with open(data / "game.toml", "a") as f:
        f.write("x = = 1\n")
    refused(capsys, ["--game", "skitour", "validate", data], "game.toml: line", "not valid TOML", lines=2)


@pytest.mark.parametrize("game, folder, owner", [("skitour", "blast", "Biathlon Blast"),
                                                 ("mania", "skitour", "Ski Tour: Biathlon"),
                                                 ("blast", "mania", "Biathlon Mania")])
def test_another_games_data_is_named_as_such(capsys, game, folder, owner):
    refused(capsys, ["--game", game, "validate", DATA / folder], f"is a {owner} data directory", "--game")


def test_a_ladder_in_mania_says_mania_has_no_players(capsys):
    refused(capsys, ["--game", "mania", "ladder", "--track", "red"], "Biathlon Mania has none")


def test_a_knob_with_no_choices_says_so(tmp_path, capsys):
    text = (ROOT / "experiments" / "balance_mania.toml").read_text()
    knob = text.index("[[knob]]")
    text = text[:knob] + '[[knob]]\nname = "empty"\nfile = "game.toml"\npath = "rules.round_cap"\nchoices = []\n\n' \
        + text[knob:]
    (tmp_path / "b.toml").write_text(text)
    err = refused(capsys, ["balance", tmp_path / "b.toml", "--dry-run"], "choices", "at least two values")
    assert "min" not in err


def test_a_ladder_table_goes_into_a_folder_it_makes(tmp_path, capsys):
    out = tmp_path / "missing" / "dir" / "l.csv"
    assert main(["ladder", "--trail", "Kurz", "--vs", "balanced,random", "--racers", "2", "--races", "96",
                 "--quiet", "--out", str(out)]) == 0
    assert out.exists()


def test_a_skitour_persona_with_a_syntax_error_is_named(tmp_path, capsys):
    persona = tmp_path / "bad.toml"
    persona.write_text('name = "x"\nkind = = 1\n')
    refused(capsys, ["--game", "skitour", "run", "--course", "Starter", "--races", "5", "--players", persona],
            "bad.toml", "not valid TOML")


def test_a_game_that_disagrees_with_the_study_file_or_the_results_folder_is_refused(tmp_path, capsys):
    """A study file and a results folder name their game: a --game naming another is refused, not
    silently overruled; naming the same game is accepted."""
    refused(capsys, ["--game", "mania", "study", ROOT / "experiments" / "skitour.toml", "--dry-run"],
            "--game mania", "Ski Tour: Biathlon's", "say --game skitour")
    (tmp_path / "run").mkdir()
    assert main(["--game", "mania", "run", "--track", "red", "--racers", "3", "--races", "6", "--quiet",
                 "--out", str(tmp_path / "run" / "m")]) == 0
    refused(capsys, ["--game", "blast", "report", tmp_path / "run" / "m", "--out", tmp_path / "r"],
            "--game blast", "Biathlon Mania's", "say --game mania")
    assert not (tmp_path / "r").exists()
    refused(capsys, ["--game", "skitour", "replay", "--run", tmp_path / "run" / "m", "--race", "1"],
            "--game skitour", "Biathlon Mania's", "say --game mania")
    capsys.readouterr()
    assert main(["--game", "mania", "replay", "--run", str(tmp_path / "run" / "m"), "--race", "1"]) == 0
