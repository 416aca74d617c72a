"""What-if comparisons in every game: paired on common random numbers, corrected for many rows,
race length and component use paired too, errors as lines."""
import numpy as np
import pandas as pd
import pytest

from sim.stats import paired_difference
from sim import games
from sim.blast import load_bundle
from sim.cli import main
from sim.compare import compare, comparison_table, paired_from_sums, parse_set
from sim.validation import Patch


@pytest.fixture(scope="module")
def base():
    return load_bundle()


def olsson(accuracy):
    return load_bundle(None, [parse_set(f"biathletes/olsson.toml:accuracy={accuracy}")])


def test_parse_set_reads_toml_values_and_bare_words():
    assert parse_set("biathletes/olsson.toml:accuracy=[2, 4,5]") == Patch(
        "biathletes/olsson.toml", "accuracy", [2, 4, 5], "--set biathletes/olsson.toml:accuracy=[2, 4,5]")
    p = parse_set("biathletes/olsson.toml:card[Long Glide].top.flat=7")
    assert (p.file, p.path, p.value) == ("biathletes/olsson.toml", "card[Long Glide].top.flat", 7)
    assert parse_set("game.toml:gear.red.wax={ black = 1 }").value == {"black": 1}
    assert parse_set("game.toml:switches.coach_boost=until_usable").value == "until_usable"
    assert parse_set('game.toml:switches.coach_boost="until_usable"').value == "until_usable"
    for bad in ("game.toml", "game.toml:gear.red.bullets", "game.toml:gear.red.bullets=", "x=1",
                "game.toml:gear.red.bullets=[1,2", "game.toml:a=1 2"):
        with pytest.raises(ValueError, match="--set"):
            parse_set(bad)


def test_a_change_that_changes_nothing_moves_nothing(base):
    tile = next(b.accuracy for b in base.data.biathletes if b.name == "Olsson")
    same = olsson(str(list(tile)))             # Olsson's tile as shipped, set again
    assert same.data_hash == base.data_hash
    c = compare(base, same, ["Kurz", "Lang"], races=96, seed=4)
    t = c.table
    assert c.races == 96 and set(t.scope) == {"biathlete", "biathlete on trail", "ski colour", "seat"}
    assert len(t) == 8 + 8 * 2 + 6 + 4                       # biathletes, on each trail, ski colours, seats
    assert (t["diff"] == 0).all() and (t.low == 0).all() and (t.high == 0).all()
    assert (t.base_win == t.changed_win).all() and (t.p == 1).all() and not t.significant.any()
    assert (c.counts.discordant == 0).all()
    m = c.measures
    assert {"rounds per race", "bullets left per racer", "black wax used per racer"} <= set(m.measure)
    assert (m["diff"] == 0).all() and (m.base == m.changed).all() and not m.significant.any()


def test_perfect_accuracy_lifts_olsson_significantly(base):
    c = compare(base, olsson("[0, 0, 0]"), ["Kurz"], races=960, seed=4)
    t = c.table.set_index("label")
    assert "Olsson @ Kurz" not in t.index                    # one trail: no per-trail rows
    row = t.loc["Olsson"]
    assert row.races == 480 and row["diff"] > 0.05 and row.low > 0 and row.significant
    assert c.table.label.iloc[0] == "Olsson"                 # the largest change comes first
    others = t[(t.scope == "biathlete") & (t.index != "Olsson")]
    assert (others["diff"] <= 0).all()                       # her wins come from the others
    # within a race the changes balance: every extra Olsson win is someone else's loss (no stalls)
    assert (c.no_winner.base == 0).all() and (c.no_winner.changed == 0).all()
    bi = t[t.scope == "biathlete"]
    assert (bi.changed_win * bi.races).sum() == pytest.approx((bi.base_win * bi.races).sum())


def test_the_table_is_the_same_whatever_the_chunks_and_workers(base):
    changed = olsson("[2, 4, 5]")
    a = compare(base, changed, ["Short"], races=240, seed=9, chunk_size=240)
    b = compare(base, changed, ["Short"], races=240, seed=9, chunk_size=37, n_jobs=2)
    pd.testing.assert_frame_equal(a.table, b.table)


def test_paired_interval_from_counts_equals_the_per_race_differences():
    # one biathlete, 6 races: won on base / changed
    wb = np.array([1, 0, 0, 1, 0, 0])
    wc = np.array([1, 1, 0, 0, 1, 0])
    counts = pd.DataFrame({"trail": 0, "biathlete": 0, "colour": [0, 0, 1, 1, 2, 2], "seat": 0, "races": 1,
                           "wins_base": wb, "wins_changed": wc, "discordant": np.abs(wc - wb),
                           "place_base": 2, "place_changed": 2}).groupby(["trail", "biathlete", "colour", "seat"]).sum()
    names = {"trail": ["Kurz"], "biathlete": ["Owens"], "colour": ["red", "black", "yellow"]}
    t = comparison_table(counts, names, per_trail=False).set_index("label")
    direct = paired_difference(wc - wb)
    for label in ("Owens", "seat 1"):
        row = t.loc[label]
        assert row["diff"] == pytest.approx(direct["mean"])
        assert (row.low, row.high, row.p) == pytest.approx((direct["low"], direct["high"], direct["p"]))
    # race length and component use: the same arithmetic from sums of any per-race differences
    d = np.array([0.5, -1.25, 2.0, 0.0, 0.75, 3.5])
    mean, low, high, p = paired_from_sums(len(d), d.sum(), (d ** 2).sum())
    direct = paired_difference(d)
    assert (mean, low, high, p) == pytest.approx((direct["mean"], direct["low"], direct["high"], direct["p"]))


@pytest.mark.parametrize("args, message", [
    (["--set", "olsson.toml"], "expected FILE:PATH=VALUE"),
    (["--set", "biathletes/olsson.toml:accuracy=[2,4"], "is not TOML"),
    (["--set", "biathletes/olsson.toml:card[Long Glid].top.flat=7"], "no card named 'Long Glid'"),
    (["--set", "biathletes/olson.toml:accuracy=[2,4,5]"], "is not a file of the data set"),
    (["--set", "biathletes/olsson.toml:accuracy=[9,4,5]"], "accuracy: must be three hit thresholds"),
    (["--set", "biathletes/olsson.toml:accuracyy=[2,4,5]"], "did you mean 'accuracy'"),
    ([], "give the changed data"),
    (["--set", "game.toml:gear.red.bullets=5", "--trails", "Kurz,Nope"], "no trail 'Nope'"),
    (["--set", "game.toml:gear.red.bullets=5", "--players", "nobody"], "no player named 'nobody'"),
    (["--set", "game.toml:gear.red.bullets=5", "--racers", "9"], "Biathlon Blast races have 2 to 6 racers, got 9"),
])
def test_cli_errors_are_lines_and_status_2(args, message, capsys):
    assert main(["compare", "--quiet", "--races", "48", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_cli_one_line_per_bad_patch(capsys):
    assert main(["compare", "--set", "x", "--set", "game.toml", "--quiet"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith("biathlon-sim compare: --set") for line in lines)


def test_cli_compares_and_writes_the_table(tmp_path, capsys):
    out = tmp_path / "cmp"
    assert main(["compare", "--set", "biathletes/olsson.toml:accuracy=[0,0,0]", "--trails", "Kurz",
                 "--races", "96", "--quiet", "--out", str(out)]) == 0
    assert "Olsson" in capsys.readouterr().out
    table = pd.read_csv(out / "comparison.csv")
    assert len(table) == 8 + 6 + 4 and table["diff"].abs().is_monotonic_decreasing
    assert pd.read_csv(out / "counts.csv").races.sum() == 96 * 4
    assert (out / "page.html").exists() and len(pd.read_csv(out / "measures.csv"))


# --- Mania and Ski Tour ------------------------------------------------------------------------------

def bundles(game, patch):
    mod = games.game(game).load()
    return mod.load_bundle(None), mod.load_bundle(None, [parse_set(patch)])


@pytest.mark.parametrize("game, patch, scenarios, entrants, seats", [
    ("mania", 'tracks/red.toml:penalty.squares="w w w"', ["red", "yellow"], 8, 4),
    ("skitour", 'nations/norway.toml:columns.sprint=4', ["Starter"], 5, 4),
])
def test_a_no_op_change_moves_nothing_in_every_game(game, patch, scenarios, entrants, seats):
    base, same = bundles(game, patch)                       # each value set to what it is already
    assert same.data_hash == base.data_hash
    c = compare(base, same, scenarios, races=40, seed=2, game=game)
    t, m = c.table, c.measures
    per_scenario = entrants * len(scenarios) if len(scenarios) > 1 else 0
    assert len(t) == entrants + per_scenario + seats
    assert (t["diff"] == 0).all() and (t.low == 0).all() and (t.high == 0).all() and (t.p == 1).all()
    assert (m["diff"] == 0).all() and (m.low == 0).all() and (m.high == 0).all() and (m.base == m.changed).all()
    assert set(games.game(game).load().COMPONENTS.values()) < set(m.measure) and "rounds per race" in set(m.measure)
    assert (c.counts.discordant == 0).all() and c.counts.races.sum() == c.races * len(scenarios) * seats


def test_a_longer_penalty_loop_lengthens_mania_races():
    base, longer = bundles("mania", 'tracks/red.toml:penalty.squares="w w w w w w w w w"')
    c = compare(base, longer, ["red"], races=64, seed=5, game="mania")
    m = c.measures.set_index("measure")
    for what in ("rounds per race", "turns per racer"):
        assert m.loc[what, "diff"] > 0 and m.loc[what, "low"] > 0 and m.loc[what, "significant"]
    assert set(c.table.scope) == {"figure colour", "seat"} and c.table.label.str.endswith(" figure").sum() == 8


def test_a_worse_stamina_track_lowers_that_nations_win_rate():
    slots = '[".  .  .  .  .", ".  .  .  .  .", ".  .  .  .  .", ".  .  .  .  .", "2R 2R 2R 2R 2R", "1B 1B 1B 1B 1B"]'
    base, worse = bundles("skitour", f"nations/norway.toml:stamina.slots={slots}")
    c = compare(base, worse, ["Starter"], races=50, seed=3, game="skitour")
    t = c.table.set_index("label")
    assert t.loc["Norway", "diff"] < 0 and t.loc["Norway", "high"] < 0
    assert c.table.label.iloc[0] == "Norway"                 # the largest change comes first
    others = t[(t.scope == "nation") & (t.index != "Norway")]
    assert (c.no_winner.base == 0).all() and (c.no_winner.changed == 0).all()
    # one winner a race on both: Norway's lost wins are the other nations' gains
    assert (others["diff"] * others.races).sum() == pytest.approx(-t.loc["Norway", "diff"] * t.loc["Norway", "races"])
    m = c.measures.set_index("measure")
    assert m.loc["stamina left per racer", "diff"] < 0 and m.loc["stamina left per racer", "high"] < 0


@pytest.mark.parametrize("argv, words", [
    (["--game", "mania", "compare", "--set", 'tracks/red.toml:penalty.squares="w w w w"', "--track", "red",
      "--races", "16"], ["figure colour", "per track", "penalty loops per racer", "seat 1"]),
    (["--game", "mania", "compare", "--set", "game.toml:switches.penalty_gate=one", "--format", "relay",
      "--racers", "2", "--legs", "2", "--track", "yellow", "--races", "8"], ["per team", "team 1"]),
    (["--game", "skitour", "compare", "--set", "nations/norway.toml:columns.sprint=2", "--course", "Starter",
      "--races", "10", "--racers", "3"], ["Norway", "per course", "wax tokens used per racer", "seat 3"]),
])
def test_cli_compares_mania_and_skitour_in_their_words(argv, words, capsys):
    assert main([*argv, "--quiet"]) == 0
    text = capsys.readouterr().out
    assert all(w in text for w in words), text


@pytest.mark.parametrize("argv, message", [
    (["--game", "mania", "compare", "--set", "tracks/red.toml:penalty.squares=7", "--races", "8"], "penalty"),
    (["--game", "mania", "compare", "--set", "game.toml:switches.penalty_gate=one", "--track", "blue"],
     "no track 'blue'"),
    (["--game", "mania", "compare", "--set", "game.toml:switches.penalty_gate=one", "--trail", "red"], "--track"),
    (["--game", "skitour", "compare", "--set", "nations/norway.toml:columns.sprint=2", "--racers", "7"],
     "2 to 5 racers"),
    (["--game", "skitour", "compare", "--set", "nations/norway.toml:columns.sprint=2", "--players", "nobody"],
     "nobody"),
])
def test_cli_errors_in_other_games_are_lines(argv, message, capsys):
    assert main([*argv, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


# --- kept as runs: resume ----------------------------------------------------------------------------

def test_a_comparison_with_out_resumes_an_interrupted_run_and_gives_the_same_tables(tmp_path):
    from sim.run import run_races
    from sim.study import cell_seed

    base, longer = bundles("mania", 'tracks/red.toml:penalty.squares="w w w w"')
    fresh = compare(base, longer, ["red"], races=48, seed=6, game="mania", chunk_size=48)
    # an interrupted comparison: the base's races on red stopped after one chunk of 16
    mod = games.game("mania").load()
    run_races(base, mod.make_design("red", 4), 48, cell_seed(6, "red"), game="mania", chunk_size=16,
              out=tmp_path / "runs" / "base" / "red", progress=False, collect=False, stop_after=1)
    resumed = compare(base, longer, ["red"], races=48, seed=6, game="mania", chunk_size=16, out=tmp_path)
    assert resumed.chunks_reused == 1
    again = compare(base, longer, ["red"], races=48, seed=6, game="mania", chunk_size=16, out=tmp_path)
    assert again.chunks_reused == 2 * 3                     # every chunk of both data sets
    for c in (resumed, again):
        pd.testing.assert_frame_equal(c.table, fresh.table)
        pd.testing.assert_frame_equal(c.measures, fresh.measures)
        pd.testing.assert_frame_equal(c.counts, fresh.counts)
    # another change in the same folder is refused with one line, not mixed in
    other = games.game("mania").load().load_bundle(None, [parse_set('tracks/red.toml:penalty.squares="w w"')])
    with pytest.raises(ValueError, match="runs/changed/red"):
        compare(base, other, ["red"], races=48, seed=6, game="mania", chunk_size=16, out=tmp_path)


def test_cli_compare_out_writes_the_page_and_resumes(tmp_path, capsys):
    argv = ["--game", "skitour", "compare", "--set", "nations/norway.toml:columns.sprint=2", "--course", "Starter",
            "--races", "10", "--chunk", "5", "--quiet", "--out", str(tmp_path)]
    assert main(argv) == 0
    assert {"comparison.csv", "measures.csv", "counts.csv", "page.html"} <= {p.name for p in tmp_path.iterdir()}
    assert "Race length and component use" in (tmp_path / "page.html").read_text()
    assert list(pd.read_csv(tmp_path / "counts.csv").columns[:4]) == ["course", "course_name", "nation", "nation_name"]
    first = pd.read_csv(tmp_path / "comparison.csv")
    capsys.readouterr()
    assert main(argv) == 0
    assert "4 finished chunk(s) of an earlier run of this comparison" in capsys.readouterr().out
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "comparison.csv"), first)
