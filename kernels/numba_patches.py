"""Three compile-time patches of numba: its inliner's copies, helpers built twice over, and the
compiler flags compared option by option.

**1. The inliner's copies** (numba issue #8989, still open in numba 0.68).

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

**2. Helpers are finished by their callers.** Numba finishes every function it compiles as if
Python were about to call it: the function's LLVM module, its callees' modules linked in, goes
through the full module optimisation, and then through the code generator into machine code. A
kernel helper (`kernels.jit.inline`, `outline`: no CPython or C wrapper) is never called from
Python: its machine code is never run, and its module is linked into its caller's, optimised
again there, and again at every level up to the entry point, whose module holds the only machine
code that runs. On an empty cache, with checked indices, LLVM took 282 of the Blast search
kernel's 321 CPU seconds and 204 of Ski Tour's 258 (benchmarks/device_compile.sh, 2026-11-27).

This patch leaves a wrapperless function's library unoptimised at module level and without
machine code (numba's `finalize` runs as ever; the two steps it calls for those, the module
optimisation and the hand-over to the code generator, do nothing for such a library): its own
function passes run as before, its callees are linked in, and the caller that
links it optimises the whole and generates the code, once, at the entry point. Such a library is
cached as bitcode (numba caches the others as object code) and loaded as it was saved. What the
entry point's optimiser sees differs (callees arrive unoptimised at module level), so its machine
code may differ; the races may not: no fast-math flag is set anywhere, so LLVM may not change a
floating-point result, and tests/test_numba_patches.py plays a kernel both ways.
BIATHLON_NUMBA_LAZY=0 leaves this one out (BIATHLON_NUMBA_PATCH=0 leaves out both).

**3. Compiler flags compared cheaply.** Typing a call looks its overload up in a cache keyed by,
among others, the compiler flags (`_OverloadFunctionTemplate._get_impl`), and numba's
`TargetConfig.__hash__` and `__eq__` rebuild the dict of every option's value (about forty property
calls) for each comparison: a cProfile of Blast's race kernel's first compile (checked, empty cache)
put 9% of it there (80,000 lookups, 284,000 dicts). The patch keeps both meanings and drops the
work: numba's hash is that of `sorted(self.values())`, the sorted option *names* (sorting a dict
sorts its keys), one value per class, now computed once per class; equality is decided by the
options set where both are of one class and set the same, else by every option's value as before;
`values()` builds the same dict without the property calls. Nothing compiled changes.
Checked side by side, empty caches (NUMBA_BOUNDSCHECK=1 NUMBA_OPT=1, benchmarks/compile_time.py
blast --races=200): Blast's race kernel 22.3 against 24.1 CPU s, the search kernel after it 14.2
against 14.3. BIATHLON_NUMBA_PATCH=0 leaves it out with the others.
"""
from __future__ import annotations

import copy as _copy
import inspect
import os
import re
import threading
from contextlib import contextmanager

from numba.core import codegen as _cg
from numba.core import inline_closurecall as _icc
from numba.core import targetconfig as _tc
from numba.core import typed_passes as _tp

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


# --- 2. helpers finished by their callers -------------------------------------------------------
_LAZY_KIND = "biathlon-helper-bitcode"


def _lowering_run_pass(original):
    def run_pass(self, state):
        flags = state.flags
        if flags.no_cpython_wrapper and flags.no_cfunc_wrapper:
            if state.library is None:           # as numba's run_pass makes it, so that it can be marked
                state.library = state.targetctx.codegen().create_library(state.func_id.func_qualname)
                state.library.enable_object_caching()
            state.library._biathlon_helper = True
        return original(self, state)
    return run_pass


def _optimize_final_module(original):
    def optimize(self):
        if not getattr(self, "_biathlon_helper", False):
            return original(self)
        # a helper: its caller's module, where it is linked, is optimised instead
    return optimize


def _finalize_final_module(original):
    def finish(self):
        if not getattr(self, "_biathlon_helper", False):
            return original(self)
        # a helper: no machine code and no place in the execution engine; linked as LLVM IR
        self._finalized = True
    return finish


def _set_env(original):
    def set_env(self, env_name, env):
        # a helper's environment variable lives in no module of the engine (its module is never
        # added): as when its caller is loaded from the cache, the caller's copy stays unset
        if self._engine.get_global_value_address(env_name) == 0:
            return
        return original(self, env_name, env)
    return set_env


def _serialize(original):
    def serialize_using_object_code(self):
        if not getattr(self, "_biathlon_helper", False):
            return original(self)
        self._ensure_finalized()
        return (self.name, _LAZY_KIND, self._final_module.as_bitcode())
    return serialize_using_object_code


def _unserialize(original):
    def unserialize(cls, codegen, state):
        name, kind, data = state
        if kind != _LAZY_KIND:
            return original.__func__(cls, codegen, state)
        self = codegen.create_library(name)
        self._biathlon_helper = True
        self._final_module = _cg.ll.parse_bitcode(data)
        self._finalize_final_module()
        return self
    return classmethod(unserialize)


def lazy_helpers_applicable() -> bool:
    """True where numba finishes a library the way patch 2 was written for."""
    if lazy_helpers_applied():
        return True
    try:
        src = inspect.getsource(_cg.CPUCodeLibrary.finalize)
        lowering = inspect.getsource(_tp.NativeLowering.run_pass)
    except (OSError, TypeError):
        return False
    return ("self._optimize_final_module()" in src and "self._finalize_final_module()" in src
            and "self._finalized = True" in inspect.getsource(_cg.CPUCodeLibrary._finalize_final_module)
            and "targetctx.get_executable(library, fndesc, env)" in lowering
            and "state.library = codegen.create_library(state.func_id.func_qualname)" in lowering
            and hasattr(_cg.CPUCodeLibrary, "serialize_using_object_code")
            and "get_global_value_address(env_name)" in inspect.getsource(_cg.JITCPUCodegen.set_env)
            and hasattr(_cg.JITCodeLibrary, "_unserialize"))


def apply_lazy_helpers() -> bool:
    """Patch 2 (once per process); True if it is in place."""
    if lazy_helpers_applied():
        return True
    if (os.environ.get("BIATHLON_NUMBA_PATCH", "1") == "0" or os.environ.get("BIATHLON_NUMBA_LAZY", "1") == "0"
            or not lazy_helpers_applicable()):
        return False
    _tp.NativeLowering.run_pass = _lowering_run_pass(_tp.NativeLowering.run_pass)
    _cg.CPUCodeLibrary._optimize_final_module = _optimize_final_module(_cg.CPUCodeLibrary._optimize_final_module)
    _cg.CPUCodeLibrary._finalize_final_module = _finalize_final_module(_cg.CPUCodeLibrary._finalize_final_module)
    _cg.JITCPUCodegen.set_env = _set_env(_cg.JITCPUCodegen.set_env)
    _cg.CPUCodeLibrary.serialize_using_object_code = _serialize(_cg.CPUCodeLibrary.serialize_using_object_code)
    _cg.JITCodeLibrary._unserialize = _unserialize(_cg.JITCodeLibrary.__dict__.get(
        "_unserialize", _cg.CPUCodeLibrary.__dict__["_unserialize"]))
    _cg.CPUCodeLibrary._biathlon_patched = True
    return True


def lazy_helpers_applied() -> bool:
    return bool(getattr(_cg.CPUCodeLibrary, "_biathlon_patched", False))


# --- 3. compiler flags compared without rebuilding them -------------------------------------------
# numba's TargetConfig (the class of the compiler flags), as numba 0.59 to 0.68 write it
_FLAGS_HASH = "return hash(tuple(sorted(self.values())))"
_FLAGS_EQ = "return self.values() == other.values()"
_FLAGS_VALUES = "return {k: getattr(self, k) for k in self.options}"
_FLAGS_GETTER = "return self._values.get(name, option.default)"
_flags_hash_of_class: dict = {}


def _flags_values(self):
    """numba's `values()`, the same dict in the same order, without a property call per option."""
    own = self._values
    return {k: own.get(k, option.default) for k, option in self.options.items()}


def _flags_hash(self):
    """numba's hash: that of the sorted keys of `values()` (sorting a dict sorts its keys), which are
    the option names of the class, so one hash per class."""
    cls = type(self)
    h = _flags_hash_of_class.get(cls)
    if h is None:
        h = _flags_hash_of_class[cls] = hash(tuple(sorted(_flags_values(self))))
    return h


def _flags_eq(self, other):
    """numba's equality (every option's value, set or default), first by the values set."""
    if isinstance(other, _tc.TargetConfig):
        if type(self) is type(other) and self._values == other._values:
            return True
        return _flags_values(self) == _flags_values(other)
    return NotImplemented


def flags_applicable() -> bool:
    """True where numba's TargetConfig is the one patch 3 was written for."""
    if flags_applied():
        return True
    try:
        cls = _tc.TargetConfig
        return (_FLAGS_HASH in inspect.getsource(cls.__hash__) and _FLAGS_EQ in inspect.getsource(cls.__eq__)
                and _FLAGS_VALUES in inspect.getsource(cls.values)
                and _FLAGS_GETTER in inspect.getsource(_tc._MetaTargetConfig.__init__))
    except (OSError, TypeError, AttributeError):
        return False


def apply_flags() -> bool:
    """Patch 3 (once per process); True if it is in place."""
    if flags_applied():
        return True
    if os.environ.get("BIATHLON_NUMBA_PATCH", "1") == "0" or not flags_applicable():
        return False
    cls = _tc.TargetConfig
    cls.values = _flags_values
    cls.__hash__ = _flags_hash
    cls.__eq__ = _flags_eq
    cls._biathlon_patched = True
    return True


def flags_applied() -> bool:
    return bool(_tc.TargetConfig.__dict__.get("_biathlon_patched", False))
