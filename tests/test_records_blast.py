"""Blast lost nothing when its results became the shared structured records (sim.blast.game).

tests/fixtures/blast_table_before_records.parquet was the table three runs gave before the change
(positional int32 rows narrowed to int16); the same runs must give the same value in every one of
its columns: in the seat table, or, for the per-visit columns the seat table held until 2026-11-28
(shots_1, hits_1 ...), in the visits table, which holds them alone since. Since the
blunder fixes of the heuristic (2026-11-28: no dominated bullet, blue or white wax or card action)
changed the races in which such a blunder was made (11 of design 1's 240, 53 of design 3's 96, and
design 2's random seat draws from a shifted stream), the fixture holds the same columns from the
same runs of that commit: a golden table of every old column, as the golden logs are of events.
The heuristic's farther end (farther_end_nb, 2026-11-28: no stopping short of a farther space at no
cost) changed one race, design 3's race 58, the only one where that blunder was made.
"""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kernels import records as REC
from sim.blast import load_bundle
from sim.blast.design import Design
from sim.blast.game import SEAT_DTYPE, VISIT_DTYPE
from sim.run import read_results, run_races

FIXTURE = Path(__file__).parent / "fixtures" / "blast_table_before_records.parquet"
# the fixture's players: design 1's seats were the default player then, `balanced`
DESIGNS = {1: (Design("Kurz", 4, players=("balanced",)), 240, 11), 2: (Design("Lang", 3, ("Owens", "Olsson", "Wei"), None,
                                                        ("balanced", "sprinter", "random")), 120, 12),
           3: (Design("Short", 6, None, None, ("sharpshooter",)), 96, 13)}


@pytest.fixture(scope="module")
def bundle():
    # the data the fixture was written with: the illustrative set before the balance search of issue 17
    return load_bundle("blast-unbalanced")


#: the per-visit columns the seat table held until 2026-11-28 (shots_1, shots_2, hits_1 ...): the
#: visits table holds them alone since
PAIRED = ("shots", "hits", "dice_hits", "shot_pulse", "arrive_pulse", "arrive_round", "shot_wind")


def paired_columns(seats: pd.DataFrame, visits: pd.DataFrame) -> dict[str, np.ndarray]:
    """The seat table's old per-visit columns rebuilt from the visits table, in the seat table's
    order: a visit never reached read -1 (shots and shot_wind 0), a visit without a shot hits -1."""
    out = {}
    for k in (1, 2):
        v = visits[visits.visit == k].set_index(["race", "seat"]).reindex(
            pd.MultiIndex.from_arrays([seats.race, seats.seat]))
        reached = v.visit.notna().to_numpy()
        shot = reached & (v.shots.to_numpy() > 0)
        out[f"shots_{k}"] = shot.astype(np.int64)
        out[f"hits_{k}"] = np.where(shot, v.hits, -1)
        for name in ("dice_hits", "shot_pulse", "arrive_pulse", "arrive_round"):
            out[f"{name}_{k}"] = np.where(reached, v[name], -1)
        out[f"shot_wind_{k}"] = np.where(reached, v.shot_wind, 0)
    return out


def test_every_column_of_the_old_table_has_the_same_values(bundle, tmp_path):
    """Every column of the old table: in the seat table, or (the per-visit ones) in the visits table."""
    before = pd.read_parquet(FIXTURE)
    for key, (design, races, seed) in DESIGNS.items():
        old = before[before.design == key].drop(columns="design").reset_index(drop=True)
        new, _ = run_races(bundle, design, races, seed, chunk_size=37, progress=False, out=tmp_path / str(key))
        rebuilt = paired_columns(new, read_results(tmp_path / str(key), table="visits"))
        assert set(rebuilt) == {f"{name}_{k}" for name in PAIRED for k in (1, 2)} <= set(old.columns)
        for col in old.columns:
            assert col not in rebuilt or col not in new.columns, f"{col} is stored twice"
            values = rebuilt[col] if col in rebuilt else new[col].to_numpy(np.int64)
            np.testing.assert_array_equal(np.asarray(values, np.int64), old[col].to_numpy(np.int64), err_msg=col)


def test_core_fields_first_and_named_dtypes():
    assert SEAT_DTYPE.names[:len(REC.SEAT_CORE)] == tuple("trail" if n == "scenario" else n
                                                           for n in REC.SEAT_CORE_NAMES)
    assert VISIT_DTYPE.names[:len(REC.VISIT_CORE)] == REC.VISIT_CORE_NAMES


def test_visits_table_holds_the_shooting_and_the_seat_table_the_core(bundle, tmp_path):
    design, races, seed = DESIGNS[1]
    seats, _ = run_races(bundle, design, races, seed, chunk_size=100, progress=False, out=tmp_path / "r")
    visits = read_results(tmp_path / "r", table="visits")
    assert str(visits.hits.dtype) == "int16" and str(seats.won.dtype) == "int16"      # Parquet kept the dtypes
    assert set(visits.shots) == {0, 5} and (visits.misses == visits.shots - visits.hits).all()
    assert ((visits.dice_hits == -1) == (visits.shots == 0)).all() and (visits.arrive_round >= 0).all()
    assert (visits.penalties == 0).all() and set(visits.visit) == {1, 2}
    by_racer = visits.merge(seats[["race", "seat", "biathlete", "colour"]], on=["race", "seat"], suffixes=("", "_seat"))
    assert len(by_racer) == len(visits) and (by_racer.biathlete == by_racer.biathlete_seat).all()
    assert (by_racer.colour == by_racer.colour_seat).all()
    assert (seats.team == seats.seat).all() and (seats.leg == 0).all()
    assert (seats.finished == seats.won).all()
