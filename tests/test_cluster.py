"""The same run on a dask.distributed cluster (a local one, on loopback) gives the same table."""
import pandas as pd
import pytest

from sim.blast import load_bundle
from sim.blast.design import Design
from sim.run import run_races

distributed = pytest.importorskip("dask.distributed")


def test_a_run_on_a_local_cluster_equals_the_local_run():
    bundle = load_bundle()
    design = Design("Short", 4, players=("balanced", "sprinter", "random", "conservative"))
    local, _ = run_races(bundle, design, 600, 11, chunk_size=600, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        remote, info = run_races(bundle, design, 600, 11, chunk_size=70, progress=False,
                                 scheduler=cluster.scheduler_address)
    assert info.chunks_played == 9
    pd.testing.assert_frame_equal(local, remote)
    assert set(remote.player_name) == {"balanced", "sprinter", "random", "conservative"}
