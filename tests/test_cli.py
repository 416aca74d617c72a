"""The command line: summaries on good data, one line per problem and exit 2 on bad data."""
import subprocess
import sys

import minidata as M


def run(*args):
    return subprocess.run([sys.executable, "-m", "sim.cli", *args], capture_output=True, text=True)


def test_validate_shipped_data():
    r = run("validate")
    assert r.returncode == 0, r.stderr
    assert "OK: the data is valid." in r.stdout
    for trail in ("Lang", "Kurz", "Short", "Long"):
        assert f"- {trail}:" in r.stdout


def test_validate_summary_of_own_data(minidir):
    r = run("validate", str(minidir))
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "#234  Ann" in out                      # bib from the accuracy tile
    assert "4 common" in out and "30 unique" in out and "4 Motivation" in out
    assert "Testhausen - Loop: 35 spaces" in out
    assert "start line entering 3, 17, 31; range at 13, 27" in out
    assert "5 black x2 (loop 3)" in out            # coach zones with their place on the route


def test_bad_data_exits_2_with_one_line_per_problem(minidir):
    M.edit(minidir / "cards.toml", "top = { flat = 3, pulse = 1 }", "top = { flatt = 3, pulse = 1 }")
    M.edit(minidir / "venues" / "testhausen.toml", "space = 8,", "space = 11,")
    r = run("validate", str(minidir))
    assert r.returncode == 2
    assert "Traceback" not in r.stderr + r.stdout
    lines = r.stderr.strip().splitlines()
    assert lines[0].endswith("2 problem(s) found:")
    assert lines[1].startswith("cards.toml: card 'Glide': top.flatt: is not a known field")
    assert lines[2].startswith("venues/testhausen.toml: segment 'loop': segments.loop.coach[1].space:")


def test_syntax_error_exits_2_without_traceback(minidir):
    (minidir / "game.toml").write_text("[rules\npulse_limit = 10\n")
    r = run("validate", str(minidir))
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert "game.toml: line 1: is not valid TOML" in r.stderr


def test_missing_directory_exits_2(tmp_path):
    r = run("validate", str(tmp_path / "nope"))
    assert r.returncode == 2 and "must be a data directory" in r.stderr


def test_help_has_examples():
    r = run("validate", "--help")
    assert r.returncode == 0 and "examples:" in r.stdout


def test_bench_reports_races_per_second():
    r = run("bench", "--trails", "Kurz", "--racers", "2,3", "--races", "20")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("compile or cache load:")
    assert lines[1].split() == ["trail", "racers", "races", "seconds", "races_per_s", "mean_rounds",
                                "stalled_share"]
    assert [line.split()[:3] for line in lines[2:]] == [["Kurz", "2", "20"], ["Kurz", "3", "20"]]


def test_bench_rejects_bad_arguments():
    r = run("bench", "--trails", "Nowhere", "--races", "5")
    assert r.returncode == 2 and "Traceback" not in r.stderr and "no trail named 'Nowhere'" in r.stderr


def test_run_writes_a_table_and_resumes(tmp_path):
    out = tmp_path / "kurz"
    args = ("run", "--trail", "Kurz", "--racers", "3", "--races", "60", "--chunk", "25", "--out", str(out), "--quiet")
    r = run(*args)
    assert r.returncode == 0, r.stderr
    # balanced line-ups come in blocks of 8 biathletes x 6 colours: 60 races become 96, said so
    assert r.stdout.startswith("note: 60 races rounded up to 96, a whole number of balanced blocks of 48")
    assert "96 races played" in r.stdout
    assert "win rate per biathlete (96 races, 3 racers, Kurz)" in r.stdout
    assert len(list((out / "results").glob("part-*.parquet"))) == 4 and (out / "manifest.json").exists()
    again = run(*args)
    assert again.returncode == 0 and "every chunk was already played" in again.stdout


def test_run_rejects_bad_designs():
    r = run("run", "--trail", "Kurz", "--racers", "9", "--races", "5", "--quiet")
    assert r.returncode == 2 and "Traceback" not in r.stderr and "racers must lie in 2..6" in r.stderr


def test_replay_of_a_race_in_a_run_is_the_race_of_the_table(tmp_path):
    from sim.run import read_results

    out = tmp_path / "lang"
    r = run("run", "--trail", "Lang", "--racers", "4", "--races", "40", "--chunk", "15", "--seed", "8",
            "--out", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    table = read_results(out)
    race = table[table.race == 27].sort_values("place")
    log = run("replay", "--run", str(out), "--race", "27")
    assert log.returncode == 0, log.stderr
    ranking = [line for line in log.stdout.splitlines() if line.startswith("  1. ")]
    assert ranking and ranking[0].startswith(f"  1. {race.biathlete_name.iloc[0]} ")
    assert "seed 8, race 27, 4 racers" in log.stdout
    assert run("replay", "--run", str(out), "--race", "48").returncode == 2    # 40 races: one block of 48


def test_validate_warns_on_legal_but_degenerate_data(minidir):
    M.edit(minidir / "game.toml", "round_cap = 40", "round_cap = 2")
    r = run("validate", str(minidir))
    assert r.returncode == 0, r.stderr
    assert "warning: venues/testhausen.toml: trail 'Loop': route: a race needs at least 3 rounds" in r.stdout


def test_game_option_validates_other_games():
    r = run("--game", "mania", "validate")
    assert r.returncode == 0, r.stderr
    assert "OK: the data is valid." in r.stdout and "red" in r.stdout
    bad = run("--game", "nope", "validate")
    assert bad.returncode == 2 and "invalid choice: 'nope'" in bad.stderr


def test_mania_run_from_the_command_line(tmp_path):
    r = run("--game", "mania", "run", "--track", "yellow", "--format", "relay", "--racers", "3", "--races", "400",
            "--out", str(tmp_path / "r"), "--quiet")
    assert r.returncode == 0, r.stderr
    assert "win rate per colour" in r.stdout and "(400 races, 3 teams of 4, yellow)" in r.stdout
    assert "0.3333" in r.stdout                    # a team's fair share: 1/teams
    rp = run("replay", "--run", str(tmp_path / "r"), "--race", "7")
    assert rp.returncode == 0, rp.stderr
    assert rp.stdout.strip()


def test_mania_exact_command(tmp_path):
    import pandas as pd

    r = run("--game", "mania", "exact", "--format", "sprint", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    pens = pd.read_csv(tmp_path / "penalties.csv")
    ind = pens[pens.die == "individual"].set_index("penalties").probability
    assert abs(ind[0] - (7 / 9) ** 5) < 1e-12            # a miss has probability 2/9 per shot
    assert abs(ind.sum() - 1) < 1e-12
    turns = pd.read_csv(tmp_path / "turns.csv")
    for (track, fmt), g in turns.groupby(["track", "format"]):
        assert fmt == "sprint" and abs(g.probability.sum() - 1) < 1e-9
    assert run("exact").returncode == 2                   # Blast: not this command's game


def test_compile_command_names_every_game():
    r = run("compile")
    assert r.returncode == 0, r.stderr
    for title in ("Biathlon Blast", "Biathlon Mania"):
        assert f"{title}: race kernel:" in r.stdout
    assert "look-ahead and reference players' race kernel (search)" in r.stdout


def test_compile_without_lookahead_leaves_the_search_kernel_for_its_first_use():
    """make's install step: the search players' kernel (minutes to compile) is not built there,
    so `make report`, which plays no search player, does not wait for it."""
    r = run("compile", "--no-lookahead")
    assert r.returncode == 0, r.stderr
    assert "Biathlon Blast: race kernel:" in r.stdout
    assert "reference" not in r.stdout and "look-ahead" not in r.stdout


def test_a_fixed_line_up_along_any_seat_axis():
    """`--AXISs` fixes the line-up along each of the game's seat axes (sim.games: GameInfo.axes),
    whatever the axis is called: Ski Tour's nations, in seat order, and one line for an unknown one."""
    r = run("--game", "skitour", "replay", "--course", "Starter", "--nations", "Norway,France", "--race", "3")
    assert r.returncode == 0, r.stderr
    assert "2 nations" in r.stdout and "seat 1: Norway," in r.stdout and "seat 2: France," in r.stdout
    r = run("--game", "skitour", "replay", "--course", "Starter", "--nations", "Norway,Atlantis")
    assert r.returncode == 2 and r.stderr.strip() == (
        "biathlon-sim replay: no nation named 'Atlantis'; known: Austria, Finland, France, Germany, Italy, "
        "Norway, Russia, Sweden, United Kingdom, USA")


def test_a_fixed_line_up_names_seats_where_there_are_teams():
    """With teams (Mania's relay), --colours names every seat and --racers still counts the teams."""
    r = run("--game", "mania", "replay", "--track", "red", "--format", "relay", "--racers", "2", "--legs", "2",
            "--colours", "red,red,blue,blue", "--race", "1")
    assert r.returncode == 0, r.stderr
    assert "2 teams of 2 legs" in r.stdout and "seat 4: the blue figure (team 2, leg 2)" in r.stdout
