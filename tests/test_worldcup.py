"""World Cups: points and standings, colours from the last finish, drafts, reproducible cups."""
import numpy as np
import pandas as pd
import pytest

from sim.blast import load_bundle
from sim.blast.play import RaceSetup, play_one
from sim.blast.players import resolve
from sim.cli import main
from sim.worldcup import CupRules, calibrate, colours_by_finish, draft_rank, play_world_cups, standings


@pytest.fixture(scope="module")
def bundle():
    return load_bundle()


@pytest.fixture(scope="module")
def random_cups(bundle):
    """Drafted once, before race 1 (redraft=False, no longer the default)."""
    return play_world_cups(bundle, CupRules(draft="random", redraft=False), 30, seed=5, chunk_size=30,
                           keep_races=True)


def test_points_and_standings_of_the_books_example():
    # the rulebook's table: Peter, Mary, Kim, Carl on Lang, Kurz, Short, Long
    places = np.array([[1, 3, 2, 4], [2, 1, 3, 4], [4, 3, 2, 1], [4, 1, 3, 2]])
    points, standing = standings(places)
    assert points.tolist() == [11, 8, 10, 11]
    # Mary wins; Carl (2nd in the last race) ranks ahead of Peter (4th) on equal points
    assert standing.tolist() == [4, 1, 2, 3]
    # vectorised over cups
    points2, standing2 = standings(np.stack([places, places[:, ::-1]]))
    assert standing2[1].tolist() == [3, 2, 1, 4]


def test_colours_follow_the_finish_and_the_draft_follows_the_colours(bundle):
    ski_order = np.asarray(bundle.tables.ski_order)
    places = np.array([[3, 1, 4, 2]])
    cols = colours_by_finish(places, ski_order)
    assert cols[0].tolist() == [ski_order[2], ski_order[0], ski_order[3], ski_order[1]]
    assert draft_rank(cols, np.asarray(bundle.tables.ski_rank))[0].tolist() == [2, 0, 3, 1]


def test_cup_rows_follow_the_rules(bundle, random_cups):
    w = random_cups
    races, cups = w.races, w.cups
    ski_order = list(np.asarray(bundle.tables.ski_order))
    assert len(races) == 30 * 4 * 4 and set(races.trail_name) == {"Lang", "Kurz", "Short", "Long"}
    assert (races.race == races.cup * 4 + races.race_no - 1).all()
    assert (races.trail_name == races.race_no.map({1: "Lang", 2: "Kurz", 3: "Short", 4: "Long"})).all()
    by = races.set_index(["cup", "race_no", "seat"]).sort_index()
    for k in (2, 3, 4):
        prev, now = by.xs(k - 1, level="race_no"), by.xs(k, level="race_no")
        # the player who placed i-th in race k-1 skis in the i-th ski colour in race k
        assert (now.colour == [ski_order[p - 1] for p in prev.place]).all()
        assert (now.biathlete == prev.biathlete).all()          # drafted once: kept all cup
    first = by.xs(1, level="race_no")
    assert (first.groupby(level="cup").colour.nunique() == 4).all()
    assert (first.groupby(level="cup").biathlete.nunique() == 4).all()
    # the cups table agrees with the races' rows
    for k in (1, 2, 3, 4):
        assert (cups[f"place_{k}"].to_numpy() == by.xs(k, level="race_no").place.to_numpy()).all()
    places = np.stack([cups[f"place_{k}"].to_numpy().reshape(30, 4) for k in (1, 2, 3, 4)], axis=1)
    points, standing = standings(places)
    assert (cups.points.to_numpy() == points.reshape(-1)).all()
    assert (cups.standing.to_numpy() == standing.reshape(-1)).all()
    assert (cups.groupby("cup").champion.sum() == 1).all()


def test_a_cup_race_replays_alone(bundle, random_cups):
    row = random_cups.cups.iloc[9]
    cup, k = int(row.cup), 3
    line = random_cups.races[(random_cups.races.cup == cup) & (random_cups.races.race_no == k)]
    setup = RaceSetup(bundle.trail_id("Short"), tuple(line.biathlete), tuple(line.colour),
                      (resolve("default"),) * 4)      # the cup's players: the default
    log = play_one(bundle, setup, 5, cup * 4 + k - 1)
    assert log.results["place"].tolist() == line.place.tolist()


def test_title_odds_sum_to_one(random_cups):
    odds = random_cups.title_odds()
    assert odds.title_odds.sum() == pytest.approx(1.0)
    assert odds.titles.sum() == 30 and odds.drafted.sum() == 30 * 4
    assert (odds.low <= odds.title_odds).all() and (odds.title_odds <= odds.high).all()
    picks = random_cups.by_pick()
    assert list(picks.index) == [1, 2, 3, 4] and picks.title_odds.sum() == pytest.approx(1.0)
    assert picks.fair_share.tolist() == [0.25] * 4
    assert random_cups.pick_gap()["units"] == 30


def test_cups_are_the_same_whatever_the_chunks_and_workers(bundle, random_cups):
    other = play_world_cups(bundle, CupRules(draft="random", redraft=False), 30, seed=5, chunk_size=7, n_jobs=2,
                            keep_races=True)
    pd.testing.assert_frame_equal(other.cups, random_cups.cups)
    pd.testing.assert_frame_equal(other.races, random_cups.races)
    head = play_world_cups(bundle, CupRules(draft="random", redraft=False), 12, seed=5, chunk_size=5)
    pd.testing.assert_frame_equal(head.cups, random_cups.cups[random_cups.cups.cup < 12])


def test_preference_draft_again_before_every_race(bundle):
    prefs = ("Wei", "Pinto", "Owens", "Girard", "Olsson")
    w = play_world_cups(bundle, CupRules(trails=("Kurz", "Lang"), racers=3, draft=prefs, redraft=True),
                        20, seed=2, keep_races=True)
    ski_rank = np.asarray(bundle.tables.ski_rank)
    races = w.races.copy()
    races["draft"] = races.colour.map(lambda c: ski_rank[c]).groupby([races.cup, races.race_no]).rank()
    races["draft"] = races.draft.astype(int) - 1              # 0: the earliest ski colour of the race
    # the earliest colour gets the first name of the list, and so on, in every race
    assert (races.biathlete_name.astype(str) == races.draft.map(lambda i: prefs[i])).all()
    assert w.title_odds().loc[list(prefs[:3])].titles.sum() == 20


def test_redrafting_every_race_is_the_default():
    """The book's set-up happens every race, so red skis (the last winner) choose first again."""
    assert CupRules().redraft is True


def test_rated_draft_picks_by_the_calibrated_rating(bundle):
    rules = CupRules(trails=("Kurz", "Short"), racers=2, redraft=False)
    ratings = calibrate(bundle, rules, 96, seed=3)
    assert list(ratings.columns) == ["Kurz", "Short", "cup"] and len(ratings) == len(bundle.biathlete_names)
    assert ratings.cup.to_numpy() == pytest.approx(ratings[["Kurz", "Short"]].mean(axis=1).to_numpy())
    w = play_world_cups(bundle, rules, 10, seed=3, ratings=ratings)
    best = list(ratings.sort_values("cup", ascending=False, kind="stable").index[:2])
    assert w.cups.groupby("pick").biathlete.first().astype(str).tolist() == best
    assert (w.cups.groupby("pick").biathlete.nunique() == 1).all()
    # redrafting (the default): race k's draft follows race k's trail rating, in its ski colour order
    again = play_world_cups(bundle, CupRules(trails=("Kurz", "Short"), racers=2), 10, seed=3, ratings=ratings,
                            keep_races=True)
    for k, trail in ((1, "Kurz"), (2, "Short")):
        best = list(ratings.sort_values(trail, ascending=False, kind="stable").index[:2])
        assert set(again.races[again.races.race_no == k].biathlete_name.astype(str)) == set(best)


@pytest.mark.parametrize("args, message", [
    (["--draft", "best"], "the draft rule is rated, random or a preference list"),
    (["--draft", "Wei,Wei"], "names each biathlete once"),
    (["--trails", "Lang,Nope"], "no trail named 'Nope'"),
    (["--racers", "7"], "racers must lie in 2..6"),
    (["--players", "nobody"], "no player named 'nobody'"),
    (["--cups", "0"], "at least 1"),
])
def test_cli_errors_are_lines_and_status_2(args, message, capsys):
    assert main(["worldcup", "--quiet", "--cups", "2", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_cli_drafts_every_race_unless_told_once(tmp_path, capsys):
    for flag, once in ((), False), (("--no-redraft",), True):
        out = tmp_path / ("once" if once else "every")
        assert main(["worldcup", "--cups", "12", "--draft", "random", "--quiet", "--out", str(out), *flag]) == 0
        cups = pd.read_csv(out / "cups.csv")
        kept = all((cups[f"biathlete_{k}"] == cups.biathlete_1).all() for k in (2, 3, 4))
        assert kept == once
    capsys.readouterr()


def test_cli_plays_and_writes_tables(tmp_path, capsys):
    out = tmp_path / "wc"
    assert main(["worldcup", "--cups", "8", "--draft", "random", "--quiet", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "title odds per biathlete" in text and "first pick minus last pick" in text
    assert len(pd.read_csv(out / "cups.csv")) == 32 and len(pd.read_parquet(out / "races.parquet")) == 128
    assert pd.read_csv(out / "by_pick.csv").titles.sum() == 8


def test_kept_cups_resume_after_an_interruption_and_refuse_other_cups(bundle, random_cups, tmp_path, monkeypatch):
    """worldcup --out keeps every finished chunk of cups (and a rated draft's calibration) in
    out/runs/: an interrupted call resumes with them and ends with the cups of an uninterrupted one;
    other cups in the folder are refused in one line."""
    import sim.worldcup as W
    from sim.store import ChunkStore, FolderError

    rules = CupRules(draft="random", redraft=False)
    real, calls = W._play_cups, []

    def interrupted(*args):
        if len(calls) == 2:
            raise KeyboardInterrupt
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(W, "_play_cups", interrupted)
    with pytest.raises(KeyboardInterrupt):
        play_world_cups(bundle, rules, 30, seed=5, chunk_size=8, keep_races=True, out=tmp_path)
    assert len(ChunkStore.of_run(tmp_path / "runs" / "cups").finished()) == 2
    monkeypatch.setattr(W, "_play_cups", real)
    kept = play_world_cups(bundle, rules, 30, seed=5, chunk_size=10, keep_races=True, out=tmp_path)
    pd.testing.assert_frame_equal(kept.cups, random_cups.cups)
    pd.testing.assert_frame_equal(kept.races, random_cups.races)
    fewer = play_world_cups(bundle, rules, 12, seed=5, keep_races=True, out=tmp_path)     # all read back
    pd.testing.assert_frame_equal(fewer.cups, random_cups.cups[random_cups.cups.cup < 12])
    with pytest.raises(FolderError, match="seed differs"):
        play_world_cups(bundle, rules, 30, seed=6, keep_races=True, out=tmp_path)
    # a rated draft keeps its calibration as runs
    rated = CupRules(trails=("Kurz",), racers=2, redraft=False)
    first = play_world_cups(bundle, rated, 4, seed=3, rating_races=96, out=tmp_path / "rated")
    assert (tmp_path / "rated" / "runs" / "ratings" / "Kurz" / "ledger.json").is_file()
    again = play_world_cups(bundle, rated, 4, seed=3, rating_races=96, out=tmp_path / "rated")
    pd.testing.assert_frame_equal(again.ratings, first.ratings)
    pd.testing.assert_frame_equal(again.cups, first.cups)


def test_worldcup_command_resumes_its_out_folder_and_refuses_other_cups_in_one_line(tmp_path, capsys):
    argv = ["worldcup", "--cups", "8", "--chunk", "4", "--draft", "random", "--trails", "Kurz,Short", "--quiet",
            "--out", str(tmp_path)]
    assert main(argv) == 0
    first = pd.read_csv(tmp_path / "cups.csv")
    assert main(argv) == 0                                   # every chunk read back
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "cups.csv"), first)
    capsys.readouterr()
    assert main([*argv, "--seed", "2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("biathlon-sim worldcup: ") and "seed differs" in err and len(err.splitlines()) == 1


def test_kept_races_read_back_by_name_and_an_older_positional_part_is_refused_in_one_line():
    from sim.store import FolderError
    from sim.worldcup import RACE_DTYPE, _race_records

    kept = np.zeros(3, RACE_DTYPE)
    kept["race"], kept["place"], kept["cup"], kept["race_no"] = [7, 7, 8], [2, 1, 1], [1, 1, 2], [1, 1, 2]
    frame = pd.DataFrame({name: kept[name] for name in reversed(RACE_DTYPE.names)})     # by name, not position
    assert (_race_records(frame, "part") == kept).all()
    old = pd.DataFrame({f"c{i}": np.zeros(3, np.int32) for i in range(54)})          # before the named records
    with pytest.raises(FolderError) as info:
        _race_records(old, "DIR/runs/cups/visits/part-1.parquet")
    message = str(info.value)
    assert "DIR/runs/cups/visits/part-1.parquet" in message and "older" in message and "\n" not in message
