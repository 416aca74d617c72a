"""bench --scaling times every kind of long command: a run, a study, a tune generation and a balance
round (tiny counts, one worker: what is timed is checked, never the speed)."""
from test_balance import blast_case

from sim.bench import KINDS, scaling
from sim.blast import load_bundle


def test_scaling_times_a_run_a_study_a_tune_generation_and_a_balance_round(tmp_path):
    table = scaling(load_bundle(), "Kurz", 4, 96, [1], 48, kinds=KINDS, balance_file=blast_case(tmp_path))
    assert list(table.kind) == list(KINDS) and (table.workers == 1).all() and (table.speed_up == 1).all()
    races = dict(zip(table.kind, table.races))
    assert races["run"] == 96
    assert races["study"] == 2 * 48                     # two cells (Kurz and the next trail), a block of 48 each
    assert races["tune"] == 16 * 4 * 2                  # 16 candidates in 4 seats, 2 races each
    assert races["balance"] > 0 and (table.races_per_s > 0).all()
