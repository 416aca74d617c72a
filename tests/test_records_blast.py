"""Blast lost nothing when its results became the shared structured records (sim.blast.game).

tests/fixtures/blast_table_before_records.parquet was the table three runs gave before the change
(positional int32 rows narrowed to int16); the same runs must give the same value in every one of
its columns, and the visits table must hold the same shooting numbers in long form. Since the
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


def test_every_column_of_the_old_table_has_the_same_values(bundle):
    before = pd.read_parquet(FIXTURE)
    for key, (design, races, seed) in DESIGNS.items():
        old = before[before.design == key].drop(columns="design").reset_index(drop=True)
        new, _ = run_races(bundle, design, races, seed, chunk_size=37, progress=False)
        for col in old.columns:
            assert col in new.columns, col
            np.testing.assert_array_equal(new[col].to_numpy(np.int64), old[col].to_numpy(np.int64), err_msg=col)


def test_core_fields_first_and_named_dtypes():
    assert SEAT_DTYPE.names[:len(REC.SEAT_CORE)] == tuple("trail" if n == "scenario" else n
                                                           for n in REC.SEAT_CORE_NAMES)
    assert VISIT_DTYPE.names[:len(REC.VISIT_CORE)] == REC.VISIT_CORE_NAMES


def test_visits_table_matches_the_per_visit_columns(bundle, tmp_path):
    design, races, seed = DESIGNS[1]
    seats, _ = run_races(bundle, design, races, seed, chunk_size=100, progress=False, out=tmp_path / "r")
    visits = read_results(tmp_path / "r", table="visits")
    assert str(visits.hits.dtype) == "int16" and str(seats.won.dtype) == "int16"      # Parquet kept the dtypes
    for k in (1, 2):
        v = visits[visits.visit == k].set_index(["race", "seat"])
        s = seats.set_index(["race", "seat"])
        reached = s[s[f"arrive_round_{k}"] >= 0]
        assert len(v) == len(reached)
        v = v.loc[reached.index]
        shot = reached[f"shots_{k}"] == 1
        assert (v.shots[shot] == 5).all() and (v.shots[~shot] == 0).all()
        np.testing.assert_array_equal(v.hits[shot], reached[f"hits_{k}"][shot])
        np.testing.assert_array_equal(v.misses, v.shots - v.hits)
        np.testing.assert_array_equal(v.shot_pulse, reached[f"shot_pulse_{k}"])
    assert (visits.penalties == 0).all()
    assert (seats.team == seats.seat).all() and (seats.leg == 0).all()
    assert (seats.finished == seats.won).all()
