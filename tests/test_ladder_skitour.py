"""Ladders and head-to-heads of Ski Tour players: the shared ladder (sim.ladder) through Ski Tour's
players hook. Every player in every seat and with every nation equally often, the same races for
every arrangement, the same table whatever the workers, a verdict, and the command line."""
import pickle
import subprocess
import sys
from collections import Counter
from itertools import combinations

import numpy as np
import pandas as pd
import pytest

from sim import games
from sim.cli import main
from sim.ladder import head_to_head, ladder, roster
from sim.skitour import game as G
from sim.skitour import load_bundle
from sim.skitour import players as P

SK = dict(game="skitour")


@pytest.fixture(scope="module")
def bundle():
    return load_bundle()


@pytest.fixture(scope="module")
def three(bundle):
    """random, balanced and sprinter in 3-seat races on Starter: 3 arrangements x 40 races."""
    return ladder(bundle, ["random", "balanced", "sprinter"], "Starter", racers=3, races=120, seed=4, **SK)


def test_ladder_ranks_balanced_above_random_significantly(three):
    t = three.table
    assert t.index[-1] == "random"
    assert t.win_rate["balanced"] > 0.3 > 0.05 > t.win_rate["random"]
    gap = three.gap("balanced", "random")
    assert gap["mean"] > 0.3 and gap["p"] < 1e-6
    row = three.pairs.set_index(["player", "opponent"]).loc[("balanced", "random")]
    assert row.gap == pytest.approx(gap["mean"]) and row.p < 1e-6


def test_every_player_in_every_seat_and_with_every_nation_equally_often(bundle, three):
    rows, table = three.rows, three.table
    assert three.races_per_arrangement == 40 and three.races == 120 and len(rows) == 3 * 3 * 40
    assert three.scenario == "course" and three.game == "skitour" and "course_name" in rows
    for key in ("seat", "nation_name"):
        counts = rows.groupby(["player_name", key], observed=True).size().unstack()
        assert counts.notna().all().all() and counts.to_numpy().min() == counts.to_numpy().max(), key
    assert set(rows.nation_name) == {bundle.nation_names[i] for i in G.side_pool(bundle, "basic")}
    # each seat holds the player its arrangement puts there
    arr = np.array(three.arrangements)
    assert (rows.player_name.astype(str).to_numpy() == arr[rows.arrangement, rows.seat]).all()
    # common race indices: every arrangement meets the same nations in each race and seat
    lineups = rows.pivot_table(index=["race", "seat"], columns="arrangement", values="nation", aggfunc="first")
    assert lineups.shape[1] == 3 and (lineups.nunique(axis=1) == 1).all()
    # the table adds up: one winner a race, wins and places counted from the rows
    winners = rows.groupby(["arrangement", "race"]).won.sum()
    assert (winners == 1).all() and table.wins.sum() == len(winners)
    assert (table.races == 120).all() and np.allclose(table.fair_share, 1 / 3)
    assert ((table.low <= table.win_rate) & (table.win_rate <= table.high)).all()
    assert (table.races * table.mean_place).sum() == pytest.approx(rows.place.sum())
    for _, pair in three.pairs.iterrows():
        assert pair.gap == pytest.approx(table.win_rate[pair.player] - table.win_rate[pair.opponent])


def test_more_players_than_seats_meet_equally_often_and_workers_change_nothing(bundle):
    names = ["random", "balanced", "steady", "sprinter"]
    one = ladder(bundle, names, "Long", racers=2, races=120, seed=2, **SK)
    two = ladder(bundle, names, "Long", racers=2, races=120, seed=2, n_jobs=2, **SK)
    assert len(one.arrangements) == 6 * 2 and one.races_per_arrangement == 10
    pd.testing.assert_frame_equal(one.rows, two.rows)
    pd.testing.assert_frame_equal(one.table, two.table)
    together = Counter(one.rows.groupby(["arrangement", "race"]).player_name.agg(frozenset))
    assert len(together) == 6 and len(set(together.values())) == 1
    other = ladder(bundle, names, "Long", racers=2, races=120, seed=3, **SK)
    assert not one.rows.won.equals(other.rows.won)


def test_head_to_head_verdict_and_the_advanced_side(bundle):
    result = head_to_head(bundle, "balanced", "random", "Starter", racers=4, races=40, seed=1,
                          options={"side": "advanced"}, **SK)
    assert result.arrangements == [("balanced", "balanced", "random", "random"),
                                   ("balanced", "random", "random", "balanced"),
                                   ("random", "random", "balanced", "balanced"),
                                   ("random", "balanced", "balanced", "random")]
    assert set(result.rows.nation) == set(G.side_pool(bundle, "advanced"))
    assert "side advanced" in result.describe()
    verdict = result.verdict("balanced", "random")
    assert verdict.startswith("balanced wins ") and "balanced is significantly stronger" in verdict


def test_an_in_memory_player_plays_exactly_like_the_persona_it_copies(bundle):
    sprinter = P.get_player("sprinter")
    copy = P.with_weights(sprinter, "copy", sprinter.weights)
    a = ladder(bundle, ["balanced", "sprinter"], "Starter", racers=2, races=20, seed=9, **SK)
    b = ladder(bundle, ["balanced", copy], "Starter", racers=2, races=20, seed=9, **SK)
    assert set(b.table.index) == {"balanced", "copy"}
    cols = ["race", "seat", "nation", "place", "won", "rounds"]
    pd.testing.assert_frame_equal(a.rows[cols], b.rows[cols])
    # designs holding a PlayerSpec pickle (joblib workers) and record the weights in a manifest
    d = G.make_design("Starter", 2, players=("balanced", copy))
    assert pickle.loads(pickle.dumps(d)) == d and G.design_dict(d)["players"] == ["balanced", "copy"]
    rec = G.player_records(d)
    assert rec["copy"]["weights"] == list(sprinter.weights)[:G.RECORDED_WEIGHTS]   # later weights at default
    assert G.design_from_dict(G.design_dict(d), rec).players[1].weights == tuple(sprinter.weights)
    with pytest.raises(ValueError, match="two different players are named 'balanced'"):
        G.check_design(bundle, G.make_design("Starter", 2, players=(
            "balanced", P.with_weights(sprinter, "balanced", sprinter.weights))))


def test_the_games_with_players_are_those_with_the_hook():
    have = [g for g in games.names() if hasattr(games.game(g).load(), "roster")]
    assert have == [g.name for g in games.with_players()] == ["blast", "skitour"]
    with pytest.raises(ValueError, match="Biathlon Mania has no players"):
        roster("mania")


# --- command line -------------------------------------------------------------------------------

@pytest.mark.parametrize("argv, message", [
    (["--game", "skitour", "ladder", "--course", "Starter", "--players", "balanced,nobody"],
     "no player named 'nobody'"),
    (["--game", "skitour", "ladder", "--course", "Starter", "--vs", "balanced,nobody.toml"],
     "cannot read persona file 'nobody.toml'"),
    (["--game", "skitour", "ladder", "--course", "Nowhere", "--vs", "balanced,random"], "no course named 'Nowhere'"),
    (["--game", "skitour", "ladder", "--course", "Starter", "--racers", "6"], "racers must lie in 2..5"),
    (["--game", "skitour", "ladder", "--course", "Starter", "--side", "middle"], "option side must be one of"),
    (["--game", "skitour", "ladder", "--course", "Starter", "--variant", "two_player"], "standard variant"),
    (["ladder", "--trail", "Kurz", "--side", "basic"], "--side is not an option of Biathlon Blast"),
    (["--game", "mania", "ladder", "--trail", "Oval"], "Biathlon Mania has none"),
    (["--game", "mania", "tune", "--trails", "Oval", "--out", "x.toml"], "Biathlon Mania has none"),
])
def test_ladder_errors_exit_2_with_one_line(capsys, argv, message):
    assert main([*argv, "--quiet"] if "ladder" in argv else argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.splitlines()) == 1 and err.startswith("biathlon-sim ")


def test_ladder_command_on_a_course_prints_standings_and_a_verdict(tmp_path):
    out = tmp_path / "h2h.csv"
    r = subprocess.run([sys.executable, "-m", "sim.cli", "--game", "skitour", "ladder", "--vs", "balanced,random",
                        "--course", "Starter", "--races", "100", "--quiet", "--out", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("100 races on Starter with 4 racers, variant standard, side basic, seed 1: "
                               "4 seat arrangements x 25 races")
    assert "balanced is significantly stronger" in r.stdout
    assert pd.read_csv(out, index_col="player").loc["balanced", "races"] == 2 * 100
    # every command says --course in Ski Tour; Blast's --trail is refused, saying so
    r = subprocess.run([sys.executable, "-m", "sim.cli", "--game", "skitour", "ladder", "--trail", "Long"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "say --course" in r.stderr
    r = subprocess.run([sys.executable, "-m", "sim.cli", "--game", "skitour", "ladder", "--players",
                        "balanced,sprinter,random", "--course", "Long", "--racers", "3", "--races", "30", "--quiet"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "pairwise: win-rate gap on the same races" in r.stdout and "sprinter" in r.stdout
