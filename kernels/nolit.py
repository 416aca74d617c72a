"""One compiled version of each kernel helper, not one per constant its callers pass.

Used by every game (each kernel module ends with `unliteral_calls(globals())`); the figures
below are Ski Tour's, then Blast's.

Numba types a constant argument (`EV_STEP`, `MOMENT_A`, a literal `0`) as a literal type
(`Literal[int](17)`), and a call from kernel code compiles the callee for exactly the argument
types it sees. So a helper called with different constants is compiled once per combination:
before this module, the race kernel compiled `ev_nb` (the event-log writer, 13 integer
arguments) 46 times, `ev4_nb` 27 times, `token_options_nb` 9 times, `wax_moment_nb` (the moment
A, B, C) 3 times with everything it calls, and so on, 268 compilations in all, each optimised by
LLVM on its own and again inside every caller that links it. That took most of the first compile.

With the calls unliteral, the kernel compiles 113 functions instead of 268; together with
splicing the single-caller parts of a turn into the entry point (engine.py) the first compile
went from 223 s to 59 s; splicing alone gives 88 s (same machine, back to back).

`unliteral_calls` makes kernel code call a helper with the plain types of its arguments
(`types.unliteral`: a literal int is an int64, a literal bool a boolean); the caller casts the
constant to that type, as for any call. Nothing is lost at run time: every helper is inlined by
LLVM into its callers (`kernels.jit.inline`), where the constants are propagated again. Results
are bit-identical (the golden event logs and the determinism tests check it).

A signed integer narrower than int64 is widened to int64 the same way (2026-11-28): callers pass
a helper int32 (the state table), int16 (the course) or int8 values as often as int64 ones, and
that compiled `ev_nb` 15 times, `ev4_nb` 8, `space_nb` 8, `step_nb` 6 and so on, 181 compilations
in all; widened, 126, and the first compile took 42.5 against 51.3 CPU s side by side
(benchmarks/compile_time.py skitour --races=4000, empty caches), the tables identical. The value
is the same, and so is the arithmetic: numba computes with int64 for any narrower signed integer.

Blast's kernels followed (2026-11-28): `eliminate_nb`, `ev_dice_nb`, `scripted_action_nb`,
`greedy_wax_nb`, `adjust_arrays_nb` and `pulse_adjust_nb` had been compiled 2 or 3 times each.
Checked (NUMBA_BOUNDSCHECK=1 NUMBA_OPT=1), empty caches, side by side with the commit before
(0784b0b): the search kernel 29.6 against 31.6 CPU s (92 compilations against 100;
`benchmarks/compile_time.py blast search --races=200`, tables d563c4345ece9288 in both), the race
kernel 21.7 against 23.9 (83 against 91; `... blast race --races=20000`, a55455b9ffb01b87); the
races as fast (ab.py 0784b0b --cpu --game blast --scenario Kurz: --racers 4 --races 20000, median
ratio 1.009; --racers 2 --players lookahead --races 400, 1.010; 5 rounds, tables identical).

Only the dispatchers of the calling module's own game are changed (its package: `kernels.skitour`,
`kernels.mania`, `kernels.blast`); shared helpers such as `kernels.rng` are left as they are.
"""
from __future__ import annotations

from numba.core import types
from numba.core.registry import CPUDispatcher


def unliteral_calls(namespace: dict) -> None:
    """Every kernel function of the game whose module `namespace` is resolves calls from kernel
    code on the plain types of the arguments."""
    package = namespace["__name__"].rpartition(".")[0] + "."
    for obj in list(namespace.values()):
        if (isinstance(obj, CPUDispatcher) and obj.py_func.__module__.startswith(package)
                and not getattr(obj, "_unliteral_calls", False)):
            obj.get_call_template = _unliteral(obj.get_call_template)
            obj._unliteral_calls = True


def plain(t):
    """The type a helper is compiled for when a caller passes `t`: unliteral, and a signed
    integer narrower than 64 bits widened to int64 (the same value; numba's integer arithmetic
    is int64 for them anyway)."""
    t = types.unliteral(t)
    if isinstance(t, types.Integer) and t.signed and t.bitwidth < 64:
        return types.int64
    return t


def _unliteral(get_call_template):
    def call_template(args, kws):
        return get_call_template(tuple(plain(a) for a in args),
                                 {k: plain(v) for k, v in kws.items()})
    return call_template


__all__ = ["unliteral_calls"]
