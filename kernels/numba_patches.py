"""A compile-time fix for numba's inliner (numba issue #8989, still open in numba 0.68).

`InlineWorker.inline_ir` deep-copies the callee's IR twice, one block at a time. Each block's copy
takes along a fresh copy of the callee's whole variable scope, so one splice costs blocks times
variables, twice, and nested `inline="always"` functions (`kernels.jit.splice`) pay it again at
every level. `inline_function`, the path `inline="always"` takes, hands `inline_ir` an IR it has
just built for this one call site and then throws the second copy away, so on that path neither
copy protects anything. This patch skips both there; numba-cuda made the same change
(NVIDIA/numba-cuda#689). Every other use of `inline_ir` copies as before.

Measured: the first compile of the race kernel took 39.8 s instead of 47.8 s, with bit-identical
results (tests/test_numba_patches.py compiles and plays races with the patch off to check).

It is applied only where numba's code is the code it was written for (the two places it changes
are checked by their source text); elsewhere numba is left alone and compiles more slowly. Set
BIATHLON_NUMBA_PATCH=0 to leave numba alone everywhere. `kernels.prepare()` applies it when the
first kernel function is defined (not `import kernels`).

When to remove it: once the lowest numba that pyproject.toml allows has the fix for numba#8989
(no block-by-block deep copy of a fresh callee IR in `InlineWorker.inline_ir`); until then it
saves a sixth of Blast's first compile.
"""
from __future__ import annotations

import copy as _copy
import inspect
import os
import re
import threading
from contextlib import contextmanager

from numba.core import inline_closurecall as _icc

_state = threading.local()

# what the patch relies on, as numba 0.59 to 0.68 write it
_INLINE_IR_COPY = "new_block = copy.deepcopy(the_ir.blocks[block_label])"
_INLINE_FUNCTION_BODY = "callee_ir = self.run_untyped_passes(function)"


class _CopyModule:
    """Stands in for the `copy` module inside numba.core.inline_closurecall, whose only use of it
    is the block copy in `inline_ir`: while a fresh callee IR is being spliced, that copy is the
    block itself."""

    @staticmethod
    def deepcopy(x, memo=None):
        if getattr(_state, "fresh", False):
            return x
        return _copy.deepcopy(x, memo)

    def __getattr__(self, name):
        return getattr(_copy, name)


@contextmanager
def _fresh_callee():
    old = getattr(_state, "fresh", False)
    _state.fresh = True
    try:
        yield
    finally:
        _state.fresh = old


def _inline_function(self, caller_ir, block, i, function, arg_typs=None):
    """numba's InlineWorker.inline_function, splicing without the defensive copies."""
    callee_ir = self.run_untyped_passes(function)
    freevars = function.__code__.co_freevars
    with _fresh_callee():
        return self.inline_ir(caller_ir, block, i, callee_ir, freevars, arg_typs=arg_typs)


def applicable() -> bool:
    """True where numba's inliner is the one this patch was written for."""
    try:
        module_src = inspect.getsource(_icc)
        function_src = inspect.getsource(_icc.InlineWorker.inline_function)
    except (OSError, TypeError):
        return False
    # the module's only use of `copy` must be the block copy the patch replaces
    uses = re.findall(r"\bcopy\.\w+", module_src)
    return (uses == ["copy.deepcopy"] and module_src.count(_INLINE_IR_COPY) == 1
            and _INLINE_FUNCTION_BODY in function_src)


def apply() -> bool:
    """Patch numba's inliner (once per process); True if it is patched."""
    if getattr(_icc.InlineWorker, "_biathlon_patched", False):
        return True
    if os.environ.get("BIATHLON_NUMBA_PATCH", "1") == "0" or not applicable():
        return False
    _icc.copy = _CopyModule()
    _icc.InlineWorker.inline_function = _inline_function
    _icc.InlineWorker._biathlon_patched = True
    return True


def applied() -> bool:
    return bool(getattr(_icc.InlineWorker, "_biathlon_patched", False))
