"""Numba kernels, one sub-package per game. They know nothing of files, tables or plots.

Importing this package changes nothing in numba. `prepare()` does the two things the kernels want
before their first compile, and every entry point into them (sim's game registry, the tests'
conftest) calls it:

- the disk cache is keyed per game (`kernels.cache`): a change in one game's kernels recompiles
  that game only;
- numba's inliner is patched where it copies spliced IR for nothing, its compiler flags are compared
  without rebuilding them, and helpers are left for the
  entry point to optimise and turn into machine code, once (`kernels.numba_patches`).
"""
from __future__ import annotations

_prepared = False


def prepare() -> None:
    """Key the kernel cache per game and patch numba's inliner; idempotent, cheap after the first
    call. Must run before the first kernel compiles (a compile before it is correct but slower,
    and cached under numba's own keys)."""
    global _prepared
    if _prepared:
        return
    from . import cache, numba_patches

    cache.install()
    numba_patches.apply()
    numba_patches.apply_lazy_helpers()
    numba_patches.apply_flags()
    _prepared = True
