"""The compile-time patch of numba's inliner (kernels.numba_patches) changes nothing but speed.

A small kernel in the race kernels' shape (tests/numba_patch_kernel.py: nested spliced helpers, one
spliced twice into one caller, tuples of arrays, early returns) is compiled once more in a separate
process with the patch off, and its results must equal this process's. The race kernels' golden
logs (tests/golden/) are played with the patch on. (This once compiled the whole Blast kernel a
second time, unpatched: minutes of CI for the same check.)
"""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import kernels
from kernels import numba_patches

PLAY = textwrap.dedent(f"""
    import json, sys
    sys.path.insert(0, {str(Path(__file__).parent)!r})
    import kernels
    kernels.prepare()
    from kernels import numba_patches
    import numba_patch_kernel as K
    json.dump({{"patched": numba_patches.applied() or numba_patches.lazy_helpers_applied(),
               "out": K.play()}}, sys.stdout)
""")


def test_patch_applies_to_this_numba():
    if os.environ.get("BIATHLON_NUMBA_PATCH") == "0":
        pytest.skip("BIATHLON_NUMBA_PATCH=0 leaves numba alone")
    if not numba_patches.applicable():
        pytest.skip("numba's inliner is not the one kernels/numba_patches.py was written for: "
                    "compiles are slower, nothing else changes")
    kernels.prepare()
    assert numba_patches.applied()


def test_lazy_helpers_patch_applies_to_this_numba():
    if os.environ.get("BIATHLON_NUMBA_PATCH") == "0" or os.environ.get("BIATHLON_NUMBA_LAZY") == "0":
        pytest.skip("BIATHLON_NUMBA_PATCH=0 or BIATHLON_NUMBA_LAZY=0 leaves numba's libraries alone")
    if not numba_patches.lazy_helpers_applicable():
        pytest.skip("numba finishes its libraries otherwise than kernels/numba_patches.py (patch 2) "
                    "was written for: compiles are slower, nothing else changes")
    kernels.prepare()
    assert numba_patches.lazy_helpers_applied()


def test_spliced_kernel_equal_with_and_without_the_patch():
    kernels.prepare()
    import numba_patch_kernel as K

    mine = K.play()
    env = dict(os.environ, BIATHLON_NUMBA_PATCH="0")
    proc = subprocess.run([sys.executable, "-c", PLAY], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    other = json.loads(proc.stdout)
    assert other["patched"] is False
    assert other["out"] == [list(x) for x in mine]
    winners = mine[0]
    assert 0 < sum(w >= 0 for w in winners) < len(winners)      # races end, and take several rounds


def test_flags_patch_applies_and_keeps_numbas_equality_and_hash():
    """Patch 3 compares compiler flags as numba does (every option's value, set or default) and
    hashes them as numba does (the sorted option names), only faster."""
    from numba.core.compiler import Flags

    if os.environ.get("BIATHLON_NUMBA_PATCH") == "0":
        pytest.skip("BIATHLON_NUMBA_PATCH=0 leaves numba alone")
    if not numba_patches.flags_applicable():
        pytest.skip("numba's TargetConfig is not the one kernels/numba_patches.py (patch 3) was written for")
    kernels.prepare()
    assert numba_patches.flags_applied()
    plain, on, default_set = Flags(), Flags(), Flags()
    on.nrt = True
    default_set.nrt = False                  # set, to its default: equal to a flags object leaving it unset
    assert plain == default_set and plain != on and hash(plain) == hash(on)
    assert hash(plain) == hash(tuple(sorted(Flags.options)))
    assert list(on.values().items()) == [(k, getattr(on, k)) for k in Flags.options]
