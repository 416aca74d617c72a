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
    for command in ("validate", "run", "replay", "bench", "tune", "ladder", "compare", "worldcup", "study"):
        code, out = err_of(capsys, ["--game", game, command, "--help"])
        assert code == 0
        assert title in out.out or command in ("run", "bench", "study")
        for blast_word in ("biathlete", "conservative", "Kurz", "bibs", "trail"):
            assert blast_word not in out.out.replace("(Blast: biathlete and ski colour)", ""), (command, blast_word)


def test_mania_and_skitour_replays_name_what_the_box_names(capsys):
    code, out = err_of(capsys, ["--game", "mania", "replay", "--track", "red", "--racers", "3", "--race", "2"])
    assert code == 0, out.err
    text = out.out
    assert text.startswith("Biathlon Mania: track red, sprint, seed 1, race 2, 3 racers")
    assert "seat 1: the " in text and " figure" in text and "final ranking\n  1. " in text
    assert not __import__("re").search(r"\bseat \d+ |colour \d", text.split("set-up", 1)[1].split("\n\n", 1)[1])
    code, out = err_of(capsys, ["--game", "skitour", "replay", "--course", "Starter", "--racers", "3", "--race", "2"])
    assert code == 0, out.err
    text = out.out
    assert "wax row [" in text and "tokens " not in text and "(id " not in text and "final ranking\n  1. " in text


def test_every_help_and_readme_example_parses_and_names_files_that_exist():
    """Every example of every command's help, under every game, of the README and of docs/, is
    read by the parser of the game it names without a complaint, and every study or balance file it
    names is there (test_examples runs them; this also covers those it leaves to
    BIATHLON_ALL_EXAMPLES=1)."""
    import shlex
    from pathlib import Path

    from test_examples import EXAMPLES

    root = Path(__file__).resolve().parent.parent
    examples = [(line, "; ".join(where)) for line, where in EXAMPLES.items()]
    assert len(examples) > 40
    for line, where in examples:
        argv = shlex.split(line)[1:]
        game = argv[argv.index("--game") + 1] if "--game" in argv else None
        try:
            build_parser(game).parse_args(argv)
        except SystemExit as exc:
            raise AssertionError(f"{where}: {line}") from exc
        for word in argv:
            if word.startswith("experiments/") and word.endswith(".toml"):
                assert (root / word).is_file(), f"{where}: {line}"
        if "study" in argv and "--cells" in argv:
            from sim.study import load_study

            cells = {c.name for c in load_study(root / argv[argv.index("study") + 1]).cells}
            assert set(argv[argv.index("--cells") + 1].split(",")) <= cells, f"{where}: {line}"


@pytest.mark.parametrize("game", ["blast", "mania", "skitour"])
def test_help_lists_the_shipped_scenarios_as_the_data_has_them(game):
    from sim import games

    info = games.game(game)
    mod = info.load()
    assert tuple(mod.scenarios(mod.load_bundle(None, ()))) == info.scenarios
    sub = next(a for a in build_parser(game)._actions if a.dest == "command").choices["run"]
    option = next(a for a in sub._actions if f"--{info.scenario}" in a.option_strings)
    assert ", ".join(info.scenarios) in option.help


def test_compare_announces_its_rounding(capsys):
    code, out = err_of(capsys, ["compare", "--set", "game.toml:gear.red.bullets=5", "--trail", "Kurz", "--racers", "2",
                                "--races", "50", "--quiet"])
    assert code == 0, out.err
    assert out.out.startswith("note: 50 races rounded up to 96, per trail: whole blocks of 48")



def test_a_dry_run_counts_the_races_it_will_play_after_rounding(capsys, tmp_path):
    study = tmp_path / "s.toml"
    study.write_text('seed = 3\n[[cell]]\nname = "k"\ntrail = "Kurz"\nracers = 2\nraces = 1\n')
    code, out = err_of(capsys, ["study", str(study), "--dry-run"])
    assert code == 0, out.err
    assert ": 1 cell(s), 48 races in all" in out.out
    assert "note: cell 'k': 1 races rounded up to 48, whole balanced blocks of 48" in out.out
    study.write_text(study.read_text() + '[[cell]]\nname = "s"\ntrail = "Short"\nracers = 2\nraces = 96\n')
    code, out = err_of(capsys, ["study", str(study), "--dry-run", "--cells", "s"])
    assert code == 0, out.err
    assert ": 1 cell(s), 96 races in all" in out.out and "  s: " in out.out
    assert "  k: " not in out.out and "'k'" not in out.out       # --cells: only the cells it would play
