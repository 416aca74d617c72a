"""Numba kernels, one sub-package per game. They know nothing of files, tables or plots.

Compiled kernels are cached on disk. Numba keys each cached function on its own file's timestamp
only, so a change in a helper in another module would leave callers' caches stale. The cache
therefore lives in a folder named after a fingerprint of every kernel source file: any change to
any kernel gives a fresh cache. Set NUMBA_CACHE_DIR to choose the location yourself.
"""
import hashlib
import os
from pathlib import Path


def _fingerprint() -> str:
    h = hashlib.sha256()
    root = Path(__file__).resolve().parent
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


if "NUMBA_CACHE_DIR" not in os.environ:
    import numba

    _base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    numba.config.CACHE_DIR = str(_base / "biathlon-sim" / "numba" / _fingerprint())

# numba's inliner copies spliced IR block by block, at a cost that grows with blocks times
# variables; kernels.numba_patches skips those copies where they protect nothing.
from . import numba_patches as _numba_patches  # noqa: E402

_numba_patches.apply()
