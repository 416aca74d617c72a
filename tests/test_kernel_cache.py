"""The kernels' disk cache (kernels/cache.py): its folders are keyed by the kernel sources and by the
boundscheck flag, which numba's own key leaves out."""
import os
import subprocess
import sys

FINGERPRINT = "from kernels.cache import fingerprint; print(fingerprint('mania'), fingerprint('blast'))"


def fingerprints(boundscheck: str) -> list[str]:
    env = dict(os.environ, NUMBA_BOUNDSCHECK=boundscheck)
    out = subprocess.run([sys.executable, "-c", FINGERPRINT], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_checked_and_unchecked_kernels_are_cached_apart():
    """A kernel compiled with NUMBA_BOUNDSCHECK=1 is never handed to a process without it, nor the
    other way round (make test compiles the checked ones, make report the unchecked)."""
    checked, unchecked = fingerprints("1"), fingerprints("0")
    assert len(checked) == 2 and len(set(checked)) == 2          # per game
    assert not set(checked) & set(unchecked)
