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
