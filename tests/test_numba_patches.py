"""The compile-time patch of numba's inliner (kernels.numba_patches) changes nothing but speed.

The kernels are compiled once more in a separate process with the patch off (and a cache of its
own), and its races must equal this process's to the bit.
"""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from kernels import numba_patches
from sim.blast.bench import rotating_setups
from sim.blast import load_bundle
from sim.blast.play import play_block
from sim.blast.players import resolve

RACES = 400

PLAY = textwrap.dedent(f"""
    import json, sys
    import numpy as np
    from kernels import numba_patches
    from sim.blast.bench import rotating_setups
    from sim.blast import load_bundle
    from sim.blast.play import play_block
    from sim.blast.players import resolve
    b = load_bundle()
    rows = []
    for trail in range(len(b.trail_names)):
        rows.append(play_block(b, rotating_setups(b, trail, 4, {RACES}, resolve("balanced")), 7,
                               np.arange({RACES})).tolist())
    json.dump({{"patched": numba_patches.applied(), "rows": rows}}, sys.stdout)
""")


def test_patch_applies_to_this_numba():
    if os.environ.get("BIATHLON_NUMBA_PATCH") == "0":
        pytest.skip("BIATHLON_NUMBA_PATCH=0 leaves numba alone")
    if not numba_patches.applicable():
        pytest.skip("numba's inliner is not the one kernels/numba_patches.py was written for: "
                    "compiles are slower, nothing else changes")
    assert numba_patches.applied()


def test_races_equal_with_and_without_the_patch(tmp_path):
    env = dict(os.environ, BIATHLON_NUMBA_PATCH="0", NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    proc = subprocess.run([sys.executable, "-c", PLAY], env=env, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    other = json.loads(proc.stdout)
    assert other["patched"] is False
    b = load_bundle()
    for trail in range(len(b.trail_names)):
        mine = play_block(b, rotating_setups(b, trail, 4, RACES, resolve("balanced")), 7, np.arange(RACES))
        assert np.array_equal(mine, np.array(other["rows"][trail], np.int32)), b.trail_names[trail]
