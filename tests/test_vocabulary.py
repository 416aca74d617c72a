"""One vocabulary (issue 29): every command names where races are run in the game's own word, in the
singular, with a comma list where several are allowed; another game's word is refused saying the
right one; replay works in every game, from a seed or from a run's or a study's folder; help under
--game X speaks of game X."""
import pytest

from sim.cli import build_parser, main


def err_of(capsys, argv):
    capsys.readouterr()
    code = main(argv)
    return code, capsys.readouterr()


@pytest.mark.parametrize("game, command, wrong, right", [
    ("mania", "run", "--trail", "--track"), ("blast", "bench", "--course", "--trail"),
    ("skitour", "ladder", "--trail", "--course"), ("skitour", "tune", "--tracks", "--course"),
    ("blast", "compare", "--track", "--trail"), ("blast", "replay", "--courses", "--trail")])
def test_another_games_word_is_refused_with_the_right_one(capsys, game, command, wrong, right):
    code, out = err_of(capsys, ["--game", game, command, wrong, "x"])
    assert code == 2 and f"{wrong} is not an option here" in out.err and f"say {right}" in out.err
    assert len(out.err.strip().splitlines()) == 1


@pytest.mark.parametrize("game, command", [(g, c) for g, cs in {
    "blast": ("run", "bench", "tune", "compare", "worldcup", "ladder", "replay"),
    "mania": ("run", "bench", "replay"), "skitour": ("run", "bench", "tune", "ladder", "replay")}.items() for c in cs])
def test_every_command_takes_the_games_word_in_the_singular(game, command):
    from sim import games

    word = games.game(game).scenario
    sub = next(a for a in build_parser(game)._actions if a.dest == "command").choices[command]
    shown = [s for a in sub._actions if a.help != "==SUPPRESS==" for s in a.option_strings]
    assert f"--{word}" in shown
    assert not [s for s in shown if s.rstrip("s") in ("--trail", "--track", "--course") and s != f"--{word}"]


def test_a_comma_list_and_the_old_plural_both_work(capsys):
    code, out = err_of(capsys, ["bench", "--trail", "Kurz,Short", "--racers", "2", "--races", "10"])
    assert code == 0, out.err
    assert [line.split()[0] for line in out.out.splitlines()[2:]] == ["Kurz", "Short"]
    assert "player balanced" in out.out                    # the default player, as everywhere
    code, out = err_of(capsys, ["bench", "--trails", "Kurz", "--racers", "2", "--races", "10"])
    assert code == 0, out.err


def test_replay_works_in_mania_from_a_seed_and_from_a_run(capsys, tmp_path):
    code, out = err_of(capsys, ["--game", "mania", "replay", "--track", "red", "--racers", "3", "--race", "2"])
    assert code == 0, out.err
    direct = out.out
    assert main(["--game", "mania", "run", "--track", "red", "--racers", "3", "--races", "6", "--quiet",
                 "--out", str(tmp_path / "r")]) == 0
    code, out = err_of(capsys, ["replay", "--run", str(tmp_path / "r"), "--race", "2"])
    assert code == 0 and out.out == direct


def test_replay_from_a_study_folder_names_the_cell(capsys, tmp_path):
    study = tmp_path / "s.toml"
    study.write_text('seed = 3\n[[cell]]\nname = "k"\ntrail = "Kurz"\nracers = 2\nraces = 48\n')
    assert main(["study", str(study), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    code, out = err_of(capsys, ["replay", "--run", str(tmp_path / "out"), "--race", "4"])
    assert code == 2 and "--cell (k)" in out.err
    code, out = err_of(capsys, ["replay", "--run", str(tmp_path / "out"), "--cell", "k", "--race", "4"])
    assert code == 0 and "race 4, 2 racers" in out.out


@pytest.mark.parametrize("game", ["mania", "skitour"])
def test_help_under_a_game_speaks_of_that_game(capsys, game):
    from sim import games

    title = games.game(game).title
    for command in ("validate", "run", "replay"):
        code, out = err_of(capsys, ["--game", game, command, "--help"])
        assert code == 0 and title in out.out or command == "run"
        for blast_word in ("biathlete", "conservative", "Kurz", "bibs"):
            assert blast_word not in out.out, (command, blast_word)
