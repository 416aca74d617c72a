"""What-if comparisons: paired on common random numbers, corrected for many rows, errors as lines."""
import numpy as np
import pandas as pd
import pytest

from sim.stats import paired_difference
from sim.blast import load_bundle
from sim.cli import main
from sim.compare import compare, comparison_table, parse_set
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
    assert c.races == 96 and set(t.scope) == {"biathlete", "biathlete on trail", "ski colour"}
    assert len(t) == 8 + 8 * 2 + 6
    assert (t["diff"] == 0).all() and (t.low == 0).all() and (t.high == 0).all()
    assert (t.base_win == t.changed_win).all() and (t.p == 1).all() and not t.significant.any()
    assert (c.counts.discordant == 0).all()


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
    counts = pd.DataFrame({"trail": 0, "biathlete": 0, "colour": [0, 0, 1, 1, 2, 2], "races": 1,
                           "wins_base": wb, "wins_changed": wc, "discordant": np.abs(wc - wb),
                           "place_base": 2, "place_changed": 2}).groupby(["trail", "biathlete", "colour"]).sum()
    t = comparison_table(counts, ["Owens"], ["Kurz"], per_trail=False).set_index("label")
    direct = paired_difference(wc - wb)
    row = t.loc["Owens"]
    assert row["diff"] == pytest.approx(direct["mean"])
    assert (row.low, row.high, row.p) == pytest.approx((direct["low"], direct["high"], direct["p"]))


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
    (["--set", "game.toml:gear.red.bullets=5", "--racers", "9"], "racers must lie in 2..6"),
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
    assert len(table) == 14 and table["diff"].abs().is_monotonic_decreasing
    assert pd.read_csv(out / "counts.csv").races.sum() == 96 * 4
