"""benchmarks/skitour_seats.py's `--jobs`: the versus races played in blocks by worker processes
give the one process's result (a race depends only on its index), and a bad count is refused."""
import importlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _seats():
    """The script as a module importable by name (the workers unpickle its block function)."""
    if str(ROOT / "benchmarks") not in sys.path:
        sys.path.insert(0, str(ROOT / "benchmarks"))
    return importlib.import_module("skitour_seats")


def test_versus_in_blocks_is_the_one_process_result():
    from sim.skitour.compile import load_bundle

    seats = _seats()
    b = load_bundle()
    one = seats.versus(b, "Starter", "balanced", "sprinter", 12, 3, start=5)
    blocks = seats.versus(b, "Starter", "balanced", "sprinter", 12, 3, start=5, jobs=2)
    assert one == blocks
    assert abs(one[0] + one[1] - 0.5) < 1e-12       # two seats each: the shares add up to one half


def test_versus_refuses_no_jobs(capsys):
    with pytest.raises(SystemExit) as e:
        _seats().main(["--versus", "balanced,sprinter", "--jobs", "0"])
    assert e.value.code == 2
    assert "--jobs" in capsys.readouterr().err
