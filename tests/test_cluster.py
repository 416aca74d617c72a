"""Every command that plays on a cluster (run, balance, compare, ladder, tune, worldcup, blunders) gives on a
dask.distributed cluster (a local one, on loopback) the tables it gives locally."""
import pandas as pd
import pytest

from sim.blast import load_bundle
from sim.blast.design import Design
from sim.run import run_races

distributed = pytest.importorskip("dask.distributed")


@pytest.fixture(scope="module")
def cluster():
    """One local cluster (two worker processes on loopback) for every test here: starting one and
    loading the kernels in its workers costs more than the races the tests play on it."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as c:
        yield c


def test_a_run_on_a_local_cluster_equals_the_local_run(cluster):
    bundle = load_bundle()
    design = Design("Short", 4, players=("balanced", "sprinter", "random", "conservative"))
    local, _ = run_races(bundle, design, 600, 11, chunk_size=600, progress=False)
    remote, info = run_races(bundle, design, 600, 11, chunk_size=70, progress=False,
                             scheduler=cluster.scheduler_address)
    assert info.chunks_played == 9
    pd.testing.assert_frame_equal(local, remote)
    assert set(remote.player_name) == {"balanced", "sprinter", "random", "conservative"}


def test_a_balance_search_on_a_local_cluster_equals_the_local_search(tmp_path, cluster):
    """biathlon-sim balance --scheduler: the candidates play on the cluster; every evaluation, the
    path and the check are those of the local search."""
    from test_balance import _logged, blast_case

    from sim.balance import Search, load_balance

    bf = load_balance(blast_case(tmp_path))
    local = Search(bf, tmp_path / "local", budget_races=2000, log=lambda s: None)
    lo = local.run()
    remote = Search(bf, tmp_path / "remote", budget_races=2000, log=lambda s: None,
                    scheduler=cluster.scheduler_address)
    ro = remote.run()
    remote_check = ro.check(races=600)
    assert ro.final.pos == lo.final.pos and remote.steps == local.steps
    assert _logged(tmp_path / "remote") == _logged(tmp_path / "local")
    pd.testing.assert_frame_equal(remote_check, lo.check(races=600))


def test_a_comparison_on_a_local_cluster_equals_the_local_comparison(tmp_path, cluster):
    """biathlon-sim compare --scheduler, streamed and kept as runs (--out): the tables of joblib's."""
    from sim import games
    from sim.compare import compare, parse_set

    mod = games.game("mania").load()
    base = mod.load_bundle(None)
    longer = mod.load_bundle(None, [parse_set('tracks/red.toml:penalty.squares="w w w w"')])
    local = compare(base, longer, ["red", "yellow"], races=64, seed=4, game="mania", chunk_size=64)
    streamed = compare(base, longer, ["red", "yellow"], races=64, seed=4, game="mania", chunk_size=24,
                       scheduler=cluster.scheduler_address)
    kept = compare(base, longer, ["red", "yellow"], races=64, seed=4, game="mania", chunk_size=24,
                   scheduler=cluster.scheduler_address, out=tmp_path)
    for remote in (streamed, kept):
        pd.testing.assert_frame_equal(remote.table, local.table)
        pd.testing.assert_frame_equal(remote.measures, local.measures)
        pd.testing.assert_frame_equal(remote.counts, local.counts)
    assert (tmp_path / "runs" / "changed" / "yellow" / "manifest.json").is_file()


def test_a_ladder_on_a_local_cluster_equals_the_local_ladder(tmp_path, cluster):
    """biathlon-sim ladder --scheduler, streamed and kept (--keep): the standings, pairs and rows of joblib's."""
    from sim.ladder import ladder

    bundle = load_bundle()
    players = ["balanced", "random", "sprinter"]
    local = ladder(bundle, players, "Kurz", racers=3, races=144, seed=2)
    for out in (None, tmp_path):
        remote = ladder(bundle, players, "Kurz", racers=3, races=144, seed=2, scheduler=cluster.scheduler_address,
                        out=out)
        pd.testing.assert_frame_equal(remote.rows, local.rows)
        pd.testing.assert_frame_equal(remote.table, local.table)
        pd.testing.assert_frame_equal(remote.pairs, local.pairs)
    assert (tmp_path / "ledger.json").is_file()


def test_a_tuning_on_a_local_cluster_equals_the_local_tuning(tmp_path, cluster):
    """biathlon-sim tune --scheduler --keep: every generation and the check are joblib's."""
    import numpy as np
    from test_tune import TINY

    from sim.tune import tune

    bundle = load_bundle()
    local = tune(bundle, "balanced", seed=5, **TINY)
    remote = tune(bundle, "balanced", seed=5, scheduler=cluster.scheduler_address, keep=tmp_path, **TINY)
    assert remote.tuned.weights == local.tuned.weights
    for a, b in zip(remote.generations, local.generations):
        assert np.array_equal(a.candidates, b.candidates) and np.array_equal(a.win_rates, b.win_rates)
    pd.testing.assert_frame_equal(remote.check.table, local.check.table)
    assert (tmp_path / "generation-002" / "ledger.json").is_file()


def test_world_cups_on_a_local_cluster_equal_the_local_cups(tmp_path, cluster):
    """biathlon-sim worldcup --scheduler, streamed and kept (--out): the cups and races of joblib's."""
    from sim.worldcup import CupRules, play_world_cups

    bundle = load_bundle()
    rules = CupRules(draft="random", redraft=False)
    local = play_world_cups(bundle, rules, 24, seed=5, chunk_size=8, keep_races=True)
    for out in (None, tmp_path):
        remote = play_world_cups(bundle, rules, 24, seed=5, chunk_size=5, keep_races=True,
                                 scheduler=cluster.scheduler_address, out=out)
        pd.testing.assert_frame_equal(remote.cups, local.cups)
        pd.testing.assert_frame_equal(remote.races, local.races)
    assert (tmp_path / "runs" / "cups" / "ledger.json").is_file()


def test_blunders_on_a_local_cluster_count_what_one_process_counts(cluster):
    """biathlon-sim blunders --scheduler: the races split into tasks on the cluster give the counts of
    one process (every class and its decisions)."""
    from sim.blunders import blunder_counts

    local = blunder_counts("blast", ["random"], ["Short"], races=40, seed=3)
    remote = blunder_counts("blast", ["random"], ["Short"], races=40, seed=3, jobs=2,
                            scheduler=cluster.scheduler_address)
    assert remote == local and sum(local[("random", "Short")].values()) > 0
