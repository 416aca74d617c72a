"""Ladders and head-to-heads: interval statistics, balanced seat arrangements, tables that add up,
and the command line's error paths."""
import subprocess
import sys
from collections import Counter
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from kernels.blast import consts as C
from sim.stats import pairwise, standings
from sim.stats import paired_difference, two_proportion_test, wilson_interval
from sim.blast import load_bundle
from sim.blast.players import resolve
from sim.cli import main
from sim.ladder import head_to_head, head_to_head_arrangements, ladder, seat_arrangements


@pytest.fixture(scope="module")
def bundle():
    return load_bundle()


# --- statistics ---------------------------------------------------------------------------------

def test_wilson_interval_known_values():
    # 0 of 10: the upper end is z^2 / (n + z^2) = 0.2775 at 95%
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.27753), abs=1e-5)
    # 81 of 263 (Wilson 1927 style textbook case): [0.2553, 0.3662]
    assert wilson_interval(81, 263) == pytest.approx((0.25529, 0.36621), abs=1e-5)
    assert wilson_interval(10, 10)[1] == 1.0


def test_wilson_interval_vectorised_against_scipy():
    k = np.array([0, 1, 7, 50, 333, 999, 1000])
    n = np.array([5, 3, 20, 100, 1000, 1000, 1000])
    for confidence in (0.9, 0.95, 0.99):
        low, high = wilson_interval(k, n, confidence)
        assert low.shape == high.shape == k.shape
        for i in range(len(k)):
            ci = stats.binomtest(int(k[i]), int(n[i])).proportion_ci(confidence, method="wilson")
            assert (low[i], high[i]) == pytest.approx((ci.low, ci.high), abs=1e-9)
    low, high = wilson_interval(np.array([0, 3]), np.array([0, 4]))
    assert np.isnan(low[0]) and np.isnan(high[0]) and 0 < low[1] < 0.75 < high[1] < 1
    with pytest.raises(ValueError):
        wilson_interval(5, 4)


def test_two_proportion_test_is_the_chi_square_test():
    diff, z, p = two_proportion_test(130, 400, 100, 400)
    chi2, p_chi, _, _ = stats.chi2_contingency([[130, 270], [100, 300]], correction=False)
    assert diff == pytest.approx(0.075) and z * z == pytest.approx(chi2) and p == pytest.approx(p_chi)


def test_paired_difference_is_a_one_sample_test():
    d = np.random.default_rng(3).normal(0.2, 1.0, 400)
    r = paired_difference(d)
    assert r["mean"] == pytest.approx(d.mean()) and r["units"] == 400
    assert r["z"] == pytest.approx(stats.ttest_1samp(d, 0).statistic)     # the t statistic,
    assert r["p"] == pytest.approx(2 * stats.norm.sf(abs(r["z"])))        # judged by the normal
    assert r["low"] < r["mean"] < r["high"]
    assert paired_difference(np.zeros(10))["p"] == 1.0


# --- seat arrangements --------------------------------------------------------------------------

@pytest.mark.parametrize("m, n", [(2, 2), (3, 4), (4, 4), (5, 4), (6, 3), (3, 6)])
def test_every_player_in_every_seat_equally_often(m, n):
    players = [resolve("balanced").with_weights(f"p{i}", resolve("balanced").weights) for i in range(m)]
    arrs = seat_arrangements(players, n)
    seats = Counter((arr[j].name, j) for arr in arrs for j in range(n))
    assert len(set(seats.values())) == 1 and len(seats) == m * n
    if m > n:                  # every pair of players meets equally often
        pairs = Counter(frozenset(pair) for arr in arrs for pair in combinations({p.name for p in arr}, 2))
        assert len(pairs) == m * (m - 1) // 2 and len(set(pairs.values())) == 1


@pytest.mark.parametrize("n", range(2, 7))
def test_head_to_head_halves_rotate_through_every_seat(n):
    a, b = resolve("balanced"), resolve("sprinter")
    arrs = head_to_head_arrangements(a, b, n)
    for j in range(n):
        assert Counter(arr[j].name for arr in arrs) == {"balanced": len(arrs) // 2, "sprinter": len(arrs) // 2}
    assert all({"balanced", "sprinter"} == {p.name for p in arr} for arr in arrs)


# --- ladders of real races ----------------------------------------------------------------------

def test_ladder_balances_seats_and_colours_and_its_table_adds_up(bundle):
    block = len(bundle.biathlete_names) * C.N_COLOURS
    result = ladder(bundle, ["random", "balanced", "sprinter"], "Kurz", racers=3, races=3 * block, seed=4)
    rows, table = result.rows, result.table
    assert result.races_per_arrangement == block and result.races == 3 * block
    assert len(rows) == 3 * 3 * block
    # every player in every seat and every ski colour equally often, counted from the table
    for key in ("colour_name", "seat", "biathlete_name"):
        counts = rows.groupby(["player_name", key], observed=True).size().unstack()
        assert counts.notna().all().all() and counts.to_numpy().min() == counts.to_numpy().max(), key
    assert rows.groupby(["player_name", "colour_name"], observed=True).size().unstack().shape == (3, C.N_COLOURS)
    # common race indices: every arrangement has the same line-up in each race and seat
    lineups = rows.pivot_table(index=["race", "seat"], columns="arrangement", values="biathlete", aggfunc="first")
    assert (lineups.nunique(axis=1) == 1).all()
    # the table adds up
    assert set(table.index) == {"random", "balanced", "sprinter"}
    assert table.races.sum() == len(rows) and (table.races == 3 * block).all()
    winners = rows.groupby(["arrangement", "race"]).won.sum()
    assert winners.max() <= 1 and table.wins.sum() == winners.sum()
    assert (table.win_rate == table.wins / table.races).all()
    assert ((table.low <= table.win_rate) & (table.win_rate <= table.high)).all()
    assert np.allclose(table.fair_share, 1 / 3) and table.win_rate.is_monotonic_decreasing
    assert (table.races * table.mean_place).sum() == pytest.approx(rows.place.sum())
    # paired gaps: the same races for everyone, so the mean gap is the gap of the win rates
    for _, pair in result.pairs.iterrows():
        assert pair.gap == pytest.approx(table.win_rate[pair.player] - table.win_rate[pair.opponent])
    assert len(result.pairs) == 3 and (result.pairs.units == block).all()


def test_ladder_with_more_players_than_seats_and_any_worker_count(bundle):
    names = ["random", "balanced", "sprinter", "conservative"]
    one = ladder(bundle, names, "Short", racers=2, races=100, seed=2)
    two = ladder(bundle, names, "Short", racers=2, races=100, seed=2, n_jobs=2)
    assert len(one.arrangements) == 6 * 2
    pd.testing.assert_frame_equal(one.rows, two.rows)
    assert (one.table.races == one.table.races.iloc[0]).all()
    together = one.rows.groupby(["arrangement", "race"]).player_name.agg(lambda s: frozenset(s))
    meetings = Counter(together)
    assert len(meetings) == 6 and len(set(meetings.values())) == 1


def test_default_persona_beats_random_head_to_head(bundle):
    result = head_to_head(bundle, "balanced", "random", "Kurz", racers=4, races=200, seed=1)
    t = result.table
    assert t.win_rate["balanced"] > 0.4 > 0.05 > t.win_rate["random"]
    assert "balanced is significantly stronger" in result.verdict("balanced", "random")
    assert result.gap("balanced", "random")["p"] < 1e-6


def test_metric_functions_read_plain_tables():
    rows = pd.DataFrame({"trail": 0, "race": [0, 0, 1, 1, 2, 2], "player_name": ["a", "b"] * 3,
                         "won": [1, 0, 1, 0, 0, 1], "place": [1, 2, 1, 2, 2, 1], "n_racers": 2})
    t = standings(rows)
    assert list(t.index) == ["a", "b"] and t.wins.tolist() == [2, 1] and t.fair_share.tolist() == [0.5, 0.5]
    p = pairwise(rows)
    assert p.loc[0, "gap"] == pytest.approx(1 / 3) and p.loc[0, "units"] == 3


# --- command line -------------------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (["--players", "balanced,nobody"], "no player named 'nobody'"),
    (["--players", "balanced"], "at least 2 players"),
    (["--players", "distilled,default"], "each player may appear once"),
    (["--vs", "balanced"], "--vs takes two players"),
    (["--vs", "balanced,nobody.toml"], "nobody.toml"),
    (["--racers", "9"], "racers must lie in 2..6"),
    (["--races", "0"], "--races must be at least 1"),
])
def test_ladder_rejects_bad_arguments_with_exit_2(capsys, args, message):
    assert main(["ladder", "--trail", "Kurz", "--quiet", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("biathlon-sim ladder: ") and message in err and len(err.splitlines()) == 1


def test_ladder_command_prints_standings_and_a_verdict(tmp_path):
    out = tmp_path / "h2h.csv"
    r = subprocess.run([sys.executable, "-m", "sim.cli", "ladder", "--vs", "balanced,random", "--trail", "Nowhere"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "no trail named 'Nowhere'" in r.stderr
    r = subprocess.run([sys.executable, "-m", "sim.cli", "ladder", "--vs", "balanced,random", "--trail", "Kurz",
                        "--races", "100", "--quiet", "--out", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    note, described = r.stdout.splitlines()[:2]
    assert note.startswith("note: 100 races rounded up to 192")          # the rounding is announced
    assert described.startswith("192 races on Kurz with 4 racers, seed 1: 4 seat arrangements x 48 races")
    assert "balanced is significantly stronger" in r.stdout
    assert pd.read_csv(out, index_col="player").loc["balanced", "races"] == 2 * 192


# --- kept (--keep): resume ----------------------------------------------------------------------

def test_a_kept_ladder_resumes_after_an_interruption_and_refuses_another(bundle, tmp_path, monkeypatch):
    """An interrupted ladder keeps its finished chunks; the same call plays only the rest and gives
    the table of an uninterrupted one; another ladder in the folder is refused in one line."""
    import sim.ladder as L
    from sim.store import ChunkStore, FolderError

    fresh = ladder(bundle, ["balanced", "random"], "Kurz", racers=3, races=192, seed=3)   # 4 tasks of 48
    real, calls = L._play_task, []

    def counted(*args):
        if len(calls) == 2 and not resumed:
            raise KeyboardInterrupt              # the third task: the ladder is interrupted
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(L, "_play_task", counted)
    resumed = False
    with pytest.raises(KeyboardInterrupt):
        ladder(bundle, ["balanced", "random"], "Kurz", racers=3, races=192, seed=3, out=tmp_path)
    assert len(ChunkStore.of_run(tmp_path).finished()) == 2
    resumed, calls[:] = True, []
    kept = ladder(bundle, ["balanced", "random"], "Kurz", racers=3, races=192, seed=3, out=tmp_path)
    assert len(calls) == 2                                 # only the two chunks the interruption left
    pd.testing.assert_frame_equal(kept.rows, fresh.rows)
    pd.testing.assert_frame_equal(kept.table, fresh.table)
    with pytest.raises(FolderError, match="seed differs"):
        ladder(bundle, ["balanced", "random"], "Kurz", racers=3, races=192, seed=4, out=tmp_path)


def test_ladder_command_keeps_resumes_and_refuses_another_ladder_in_one_line(tmp_path, capsys):
    argv = ["ladder", "--vs", "balanced,random", "--trail", "Kurz", "--races", "96", "--racers", "3", "--quiet",
            "--keep", str(tmp_path / "keep")]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert main(argv) == 0                                  # every chunk read back: the same standings
    again = capsys.readouterr().out
    assert again.splitlines()[2:] == first.splitlines()[2:] and "seat arrangements" in again      # all but the time
    assert main([*argv, "--seed", "2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("biathlon-sim ladder: ") and "seed differs" in err and len(err.splitlines()) == 1
