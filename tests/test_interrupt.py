"""Ctrl-C during a long run keeps every finished chunk; the same command resumes to the same table."""
import signal
import subprocess
import sys
import time

import pandas as pd

from sim.blast import load_bundle
from sim.blast.design import Design
from sim.run import read_results, run_races


def test_ctrl_c_keeps_finished_chunks_and_the_same_command_resumes(tmp_path):
    out = tmp_path / "run"
    args = [sys.executable, "-m", "sim.cli", "run", "--trail", "Kurz", "--racers", "4", "--races", "9600",
            "--chunk", "160", "--seed", "21", "--out", str(out), "--quiet"]
    # SIGINT back to its default in the child: a CI job started in the background may run with
    # SIGINT ignored, which Python would inherit (and then never raise KeyboardInterrupt)
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while len(list((out / "results").glob("part-*.parquet"))) < 3:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no chunk written in time"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "keeps its finished chunks" in err and "Traceback" not in err
    kept = sorted((out / "results").glob("part-*.parquet"))
    assert 3 <= len(kept) < 60                        # interrupted part-way
    assert not list((out / "results").glob("*.tmp"))  # no half-written chunk left behind
    again = subprocess.run(args, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert f"{len(kept)} finished chunk(s) of an earlier run reused" in again.stdout
    whole, _ = run_races(load_bundle(), Design("Kurz", 4), 9600, 21, chunk_size=2400, progress=False)
    pd.testing.assert_frame_equal(read_results(out), whole)


def test_a_part_is_written_with_ctrl_c_held_back(tmp_path, monkeypatch):
    """pyarrow's writer closes in a __del__, which swallows a KeyboardInterrupt: a Ctrl-C landing
    there let the run play on to its end. The part is written with SIGINT blocked, which is
    delivered, as KeyboardInterrupt, once the write is over."""
    import pyarrow.parquet as pq

    from sim import store

    seen = []
    real = pq.write_table

    def spy(table, path, **kw):
        seen.append(signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, set()))
        real(table, path, **kw)
        signal.raise_signal(signal.SIGINT)          # a Ctrl-C during the write: held back

    monkeypatch.setattr(pq, "write_table", spy)
    before = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    # Python's own Ctrl-C handler (a CI job in the background may start with SIGINT ignored)
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        store._write_parquet(pd.DataFrame({"a": [1, 2]}), tmp_path / "p.parquet", {"k": 1})
    except KeyboardInterrupt:
        raised = True
    else:
        raised = False
    finally:
        signal.signal(signal.SIGINT, handler)
    assert seen == [True] and raised                 # blocked during the write, delivered after it
    assert signal.pthread_sigmask(signal.SIG_BLOCK, set()) == before
    assert pd.read_parquet(tmp_path / "p.parquet").a.tolist() == [1, 2]
