"""The kernels' disk cache, keyed per game package.

Numba keys a cached function on its own file's content only, so a change in a helper in another
module would leave its callers' cached machine code stale. Every kernel function is therefore cached
in a folder named after a fingerprint of its *game package* (`kernels/<game>/*.py`) and of the shared
kernel files (`kernels/*.py`): a change anywhere in Blast's kernels gives Blast a fresh cache and
leaves Mania's compiled code in place, and a change in a shared file recompiles every game.

Numba's own key leaves out the boundscheck flag (NUMBA_BOUNDSCHECK): a kernel compiled with
checked indices would be handed to a process that wants unchecked ones, and the other way round.
The fingerprint therefore covers the flag too, so both kinds of kernel live side by side; and
whether helpers are left to their callers (`kernels.numba_patches`, patch 2), which caches them in
a form numba alone cannot read; and the optimisation level (NUMBA_OPT), which numba's key leaves
out too: `make test` builds its checked kernels at level 1, which compiles a sixth faster and plays
the same races a little slower.

The cache lives under `$XDG_CACHE_HOME/biathlon-sim/numba/` (default `~/.cache`). Set
NUMBA_CACHE_DIR to put numba's own cache where you like instead: this locator then steps aside.
"""
from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent


#: packages whose kernels compile code of other packages: their fingerprint covers those too (the
#: Blast reference player splices Blast's race loop; Blast's own kernels never import it, so a
#: change in the reference does not recompile them)
DEPENDS = {"blast_reference": ("blast",)}


@functools.cache
def fingerprint(package: str) -> str:
    """16 hex digits over the shared kernel files and those of `package` (a folder of kernels/;
    "" for the shared files alone), of the packages it depends on (DEPENDS), and of the
    boundscheck flag."""
    from numba.core import config

    from . import numba_patches

    h = hashlib.sha256()
    if config.BOUNDSCHECK:
        h.update(b"boundscheck")
    if numba_patches.lazy_helpers_applied():   # helpers cached as bitcode, code built once (the patch's)
        h.update(b"lazy-helpers")
    if int(config.OPT) != 3:                    # NUMBA_OPT: make test's kernels are built at 1
        h.update(f"opt{int(config.OPT)}".encode())
    files = sorted(ROOT.glob("*.py"))
    for pkg in (package, *DEPENDS.get(package, ())) if package else ():
        files += sorted((ROOT / pkg).rglob("*.py"))
    for path in files:
        h.update(str(path.relative_to(ROOT)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def base_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "biathlon-sim" / "numba"


def is_compiled(package: str) -> bool:
    """Whether `package`'s kernels have been compiled into the disk cache on this machine (for
    these sources): a first use of an uncompiled package pays the compile."""
    if "NUMBA_CACHE_DIR" in os.environ:
        return True                       # numba's own cache: we cannot tell, and say nothing
    folder = base_dir() / f"{package}-{fingerprint(package)}"
    return folder.is_dir() and any(folder.rglob("*.nbi"))


def _package_of(py_file: str) -> str | None:
    """The game package ("blast", ...) of a kernel source file, "" for a shared kernel file, None
    for a file outside kernels/."""
    try:
        rel = Path(py_file).resolve().relative_to(ROOT)
    except ValueError:
        return None
    return rel.parts[0] if len(rel.parts) > 1 else ""


def install() -> None:
    """Put the per-game locator first in numba's list (once)."""
    from numba.core import caching

    if "NUMBA_CACHE_DIR" in os.environ:
        return
    # CacheImpl in numba 0.61 and later, _CacheImpl before
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    classes = impl._locator_classes
    if any(getattr(c, "_biathlon", False) for c in classes):
        return

    class GameCacheLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        """Caches kernels/<game>/* under <base>/<game>-<fingerprint>/; the source stamp is the
        fingerprint, so numba's own check agrees with the folder."""
        _biathlon = True

        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            package = _package_of(py_file)
            self._stamp = fingerprint(package)
            folder = f"{package or 'shared'}-{self._stamp}"
            self._cache_path = str(base_dir() / folder / Path(py_file).stem)

        def get_cache_path(self):
            return self._cache_path

        def get_source_stamp(self):
            return self._stamp

        @classmethod
        def from_function(cls, py_func, py_file):
            if _package_of(py_file) is None:
                return None
            return super().from_function(py_func, py_file)

    classes.insert(0, GameCacheLocator)
