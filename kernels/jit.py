"""How kernel functions are compiled: five kinds, one decorator each.

- `entry`: called from Python (the block entry points). Numba's default: a CPython wrapper, and
  cached on disk. No kernel is one now: every entry point allocates nothing.
- `entry_hot`: an entry point that allocates nothing (every array comes in as an argument and is
  borrowed, kernels/borrow.py), compiled without reference counting (`_nrt=False`), and so is
  every helper first compiled from it (see `outline_hot`). All three race kernels and Blast's
  search kernel. Blast's race kernel became one once its three allocations went (`rank_nb`'s
  sort keys and `np.argsort`, now a selection over the seats; two array-to-array slice copies, now
  element loops): its first compile, checked (NUMBA_BOUNDSCHECK=1 NUMBA_OPT=1), empty caches,
  side by side, took 21.0 against 36.8 CPU s (LLVM module passes 2.2 against 12.0 s; `benchmarks/compile_time.py blast
  race --races=20000`, tables a55455b9ffb01b87 in both), and its races ran 1.17 times as fast
  (ab.py HEAD --game blast --scenario Kurz --racers 4 --races 40000 --rounds 5, tables identical).
  Its search kernel (the look-ahead's and the reference's) became one once its four work arrays
  (the candidates, their mean scores, and the cards `determinize_nb` deals again and where) came
  in as an argument (`SearchWork`, kernels/blast_reference/search.py): checked, empty caches, side
  by side, 28.4 against 43.7 CPU s (LLVM module passes 4.7 against 17.2 s; `compile_time.py blast
  search --races=200`, tables d563c4345ece9288 in both), and its races 1.18 (look-ahead) and 1.17
  (reference) times as fast per CPU second (ab.py b728f44 --cpu --game blast --scenario Kurz, --racers
  2 --players lookahead --races 600, and --racers 4 --players reference,balanced,balanced,balanced
  --races 150, 5 rounds each; tables identical; benchmarks/blast_search_same.py 24aac87889bae418).
  Both kernels now compile the helpers they share without reference counting, whichever comes
  first. That matters for speed, not for correctness: a helper compiled first for an `entry` (with
  reference counting), then cached and inlined into an `entry_hot`, keeps its reference-count calls
  there: the search kernel played 50 look-ahead races a CPU second on the helpers its base (b728f44)
  had cached, 63 on its own (benchmarks/ab.py gives each tree a cache of its own since). The same
  held for b728f44's race kernel compiled after its search kernel in one cache: 12,669 Kurz races
  (4 racers) a CPU second, against 14,045 for this tree's (ab.py b728f44 --cpu, 30000 races, 5
  rounds, after a look-ahead run in the same cache; about 15,000 in a cache of its own).
- `inline`: every helper. It is compiled only for kernel callers (no CPython or C wrapper is
  built) and LLVM inlines it into each caller (`forceinline`), so a block entry point is one
  function with no calls inside it.
- `splice`: a helper whose numba IR is spliced into its callers before typing (`inline="always"`).
  Used for small helpers and for the loops with one caller (Blast's race loop `finish_race_nb` and
  search loop); no longer for a turn or a round, which both games now compile as `inline`
  functions (below: LLVM's function passes cost more than a function's size).
- `outline`: a helper that runs rarely (the event-log writer: only where a race is logged, its
  call behind the log's on/off flag): one compiled body that its callers call, never copied into
  them.
- `outline_hot`: a helper that runs often but is worth one body instead of many copies, called
  with only the few arrays it reads (not the tables and the state: see below), and compiled
  without reference counting (numba's `_nrt=False`): it may allocate nothing and return no array.
  Numba hands that flag to a callee without one that is first compiled from there; the helpers it
  calls allocate nothing either (an allocating one would fail to compile there, not misbehave).

Why (measured on the 2-core machine, each pair in one session: the first compile is one block
call on an empty cache, speed is 40,000 Kurz races of four `balanced` players on one core; the
`bench` figures of the result are in docs/studies.md):

- Calls. The kernels pass the tables and the race state as NamedTuples of 31 and 17 arrays, and
  numba passes each array as 7 separate values, so one call moves ~350 arguments. With LLVM
  inlining, those calls and the reference counts of the arrays they carry disappear: a race of the
  heuristic players ran 2.8 times as fast (6,200 to 18,000 races a second on one core).
- Wrappers. Numba builds a CPython wrapper (and a C wrapper) for every function it compiles, even
  one only kernels call; for a function taking the tables and the state, that wrapper unboxes 48
  arrays. Not building them cut the first compile from 40 s to 31 s.
- Levels. Every compiled function's LLVM module links its callees' modules and optimises all of
  them again, so a chain of separately compiled functions is optimised once per level. Splicing
  the round loop's chain at the numba IR level instead gives one level: the first compile takes
  36 s; with those parts as `inline` functions, 54 s. (Since kernels/numba_patches.py's patch 2,
  a wrapperless helper's module is no longer optimised or turned into machine code at its own
  level, only at the entry point's, which took most of this cost away: Ski Tour's first compile
  went from 238 to 149 CPU s. Splicing still saves numba's own per-function work. But not
  LLVM's: a spliced entry point is one function, and LLVM's function passes cost more than its
  size: Ski Tour's, with its turn's eight parts spliced, took 12.9 CPU s; with them `inline`, 4.6
  s for every function together; with its move search and some rare paths outlined as well, the
  race kernel took 43.6 against 79.5 CPU s (docs/studies.md, "Ski Tour's race kernel in parts
  LLVM can digest"). Blast followed (2026-11-29): its turn, turns, round start and Motivation
  pick `inline`, compiled once for both kernels; checked, empty caches, side by side with
  ca56434 (`benchmarks/compile_time.py blast --races=200`, the race kernel then the search kernel
  in one process, as CI's Blast lane): 29.1 against 36.3 CPU s and 18.4 against 26.8, the search
  kernel alone 35.7 against 41.7 (`... blast search`), with numba patch 3; the busy machine,
  load 5. Splicing 25 small helpers that take the tables or the state instead (fewer calls
  that pass their ~330 fields, 23 fewer compilations) cost more typing than it saved: 29.2
  against 26.9 s.)
- Copies. A forced-inline helper is copied into every place that calls it, and so are its own
  helpers: the event-log writer was copied 123 times into Ski Tour's race kernel and 133 times
  into Mania's. It is an `outline` function there now, called only where a race is logged, and
  in Blast an `outline_hot` one (int64 arguments, the log and `g`: one signature, a short call)
  behind a spliced test of the capacity: Blast's race kernel, checked as CI compiles it, took 38.7
  against 44.7 CPU s side by side (with choose_destination_nb's one move context; races as fast,
  ab.py median ratio 1.005, tables and event logs the same); and Mania's
  move, called from three branches of the turn, has one call site (that alone took Mania's first
  compile from 52.5 to 29.6 CPU seconds, empty cache, the machine busy, one session).
- But not a hot helper that takes the tables and the state: a call passes every array of those
  tuples and numba counts a reference up and down for each (atomic operations), so outlining Ski
  Tour's wax moment, bonus and roll-and-place (three fifths of its kernel's code) made its races
  five times slower (619 against 3,382 races a second, benchmarks/ab.py, same tables).
- Nor with numba's reference counting turned off in it (`njit(_nrt=False)`, tried 2026-11-28 on
  Ski Tour; benchmarks/outline_call.py has the figures). The kernels' arrays are borrowed
  (kernels/borrow.py), so what `_nrt=False` removes from an outlined body is reference-count calls
  that find a null pointer, and the caller emits none around the call anyway; in the
  micro-benchmark that halves a call (75 against 146 ns or more). What stays is the arguments:
  numba passes every array of the two NamedTuples as its separate fields (5 words, then shape and
  strides per dimension), so a call of a helper taking the tables and the state copies ~420 words
  onto the stack (counted in the disassembled race kernel). Outlining `step_nb`, `roll_place_nb`
  and `bonus_nb` that way cut the first compile by a fifth (144 against 179 CPU s side by side,
  all of it LLVM's share) and made the races 19 times slower (690 against 13,388 a second:
  `step_nb` runs thousands of times a race in the move searches); `roll_place_nb` and `bonus_nb`
  alone ran 0.86 and 0.89 times as fast (ab.py medians), `perf` finding the time in the caller.
  Outlining only the earned part of the bonus (called rarely) saved nothing measurable: 157
  against 152 CPU s side by side, and 184.5 against 183.7 compiled as CI does
  (NUMBA_BOUNDSCHECK=1 NUMBA_OPT=1). So `outline` stays for what runs rarely, and a hot helper
  stays `inline` unless it can take a few arrays instead of the two tuples.
- Which Ski Tour's feasibility search (`feasible_dfs_nb`, copied 8 times before) can: called as an
  `outline_hot` function with the six arrays it reads (two small NamedTuples with the fields it
  uses, so its body and its helpers read as before), the first compile took 149.9 against 163.7
  CPU s side by side (LLVM's machine code 18.6 against 28.2 s), the races as fast (ab.py median
  ratios 1.02 and 1.13 over 5 and 6 rounds on the busy machine) and the tables identical.
- And numba's own work. Compiled as CI does (NUMBA_BOUNDSCHECK=1 NUMBA_OPT=1), LLVM took only about
  20 of Ski Tour's 49 CPU s (2026-11-28, the shared 2-core machine); the rest is numba typing and
  lowering the race kernel (cProfile: type inference and lowering, each ~half). Three changes cut
  it, each measured side by side against the commit before it (compile_time.py skitour, empty
  caches; tables identical each time): every helper compiled for int64 where callers pass narrower
  integers (kernels/nolit.py; 181 to 126 compilations, 51.3 to 42.5 s unchecked); the move, the
  bonus and the look-ahead search stepping through one outlined `step_out_nb` (its inlined copies 9
  to 3; 47.2 to 42.8 s unchecked, LLVM 25.4 to 20.3; since 2026-11-28 `steps_out_nb`, every
  option of a step in one call: races 1.06 times as fast); and the race kernel as `entry_hot` (36.3
  against 43.7 s checked, 129 to 91 compilations: with reference counting off, lowering emits no
  increments and decrements of the 41 arrays of the tables and the state, and numba compiles no NRT
  helpers). From 49.1 to 41.7 s checked for the first two together, side by side; all three (and
  Mania's kernel as `entry_hot`, its helpers through kernels/nolit.py), against the commit before
  them (71c1c83), side by side, checked: Ski Tour 36.1 against 48.9 CPU s (the process; 91
  compilations against 181), Mania 5.5 against 6.8, same tables, the races as fast (ab.py 71c1c83:
  median ratios 1.19 Ski Tour Starter, 1.02 Mania red).
  A shared helper (kernels.rng, kernels.arrays) first compiled from such an entry point has no
  reference counting either, and another game in the same process gets that version: harmless, as
  they allocate nothing and keep no array (Blast's and Mania's tables after Ski Tour's kernel in
  one process are the same as alone).
- What did not pay: outlining the decision (`pick_nb`, 20 copies, six arrays: 42.1 against 41.7 s
  checked) or the stamina payment (`pay_nb`, 6 copies, 18 arrays: 43.4 against 43.3 s). Small
  helpers copied many times cost LLVM little; a copy of a large one (the step) does.
- Blast, 2026-11-28 (checked compiles, side by side, empty caches; the busy 2-core machine): its
  rollouts' state copy (`copy_state_nb`, 13 loops, spliced 3 times into the search kernel) is an
  `outline_hot` function passed the two whole states, since it runs once per rollout: the search
  kernel took 48.3 against 52.7 CPU s, its races as fast. But outlining the Shoot's wax choice
  (`choose_shoot_wax_nb`, passed the tables and the state, copied into the turn and into
  `keep_bullets_nb`), although it runs only on a Shoot (5.9 of a race's 51 turns: about 12 calls a
  race), cut the race kernel's compile from 38.3 to 33.0 CPU s and made its races 0.926 times as
  fast (ab.py median of 5 rounds; with `choose_destination_nb` outlined too, 0.927): ~0.6 us a
  call, far more than passing the arguments costs in benchmarks/outline_call.py. Not kept then;
  kept once both kernels were `entry_hot` (no reference counting in the caller or the callee):
  against the commit before (1439cdb), checked, side by side, the search kernel took 26.6 against
  28.1 CPU s and the race kernel 19.9 against 20.5 (compile_time.py blast search --races=200 and
  race --races=20000, the same tables), and the races ran 1.004 (Kurz, 4 racers, --races 30000,
  7 rounds) and the look-ahead's 1.047 (--racers 2 --players lookahead --races 400, 5 rounds)
  times as fast (ab.py 1439cdb --cpu medians, tables identical). Outlining `choose_destination_nb`
  as well (the turn's copy and `keep_bullets_nb`'s) saved nothing: 23.1 against 23.1 CPU s side by
  side with 3fd421e (its races 1.024 times as fast, Kurz, ab.py --cpu); not kept. Nor, at first, a hand-written insertion sort for `rank_nb` instead of `np.argsort` (no sort routine to
  compile): 36.8 against 38.2 CPU s, under the 5% worth a change on its own; `rank_nb` lost its
  sort later for another reason, to make the race kernel an `entry_hot` (above).
- Blast's five outlined player helpers are `outline_hot`, not `outline`: an outlined helper is
  cached as first compiled, and the turn's Python twin (a reference-counted entry the rulebook
  tests compile) compiled them with reference counts that the race kernel, compiled later in the
  same cache, then linked. The twin first, then `bench --trail Kurz --racers 4 --races 60000`:
  12,350 and 12,567 races/s as `outline`, 13,358 and 14,175 as `outline_hot`; 15,155 to 15,727
  with the race kernel compiled first. Most of the rest went when the twins themselves were
  compiled without reference counting (`python_callable`, 2026-11-28; they allocate nothing, as
  the kernels' helpers do not): every inline helper the twin compiles first is then cached as the
  race kernel would compile it. Distilled players, Kurz, 4 racers, 40,000 races, races per CPU
  second, three rounds alternating (the ab.py play loop; each cache filled first by
  tests/test_rulebook_examples.py, or by the race kernel): 11,349-11,895 with the twins counting
  references, 12,048-12,676 without, 12,271-12,893 with the race kernel first (tables the same).

Every function sets `forceinline` explicitly, even where it is False: numba lets a callee whose
flag is unset inherit it from whichever caller happens to compile it first.

Tests call a few helpers from Python: `python_callable` gives a separately compiled, uncached
version of one with a CPython wrapper.
"""
from __future__ import annotations

import functools
import types

from numba import njit

_HELPER = dict(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)


def _decorator(**options):
    """njit(**options), after `kernels.prepare()`: numba picks a function's cache folder when the
    function is decorated, so the per-game cache and the inliner patch are put in place by the
    first kernel module that is imported, not by `import kernels`."""
    def decorate(func):
        from . import prepare

        prepare()
        return njit(**options)(func)
    return decorate


entry = _decorator(cache=True, forceinline=False)
entry_hot = _decorator(cache=True, forceinline=False, _nrt=False)
inline = _decorator(**_HELPER, forceinline=True)
splice = _decorator(**_HELPER, forceinline=False, inline="always")
outline = _decorator(**_HELPER, forceinline=False)
outline_hot = _decorator(**_HELPER, forceinline=False, _nrt=False)


@functools.cache
def python_callable(kernel):
    """`kernel` (an `inline` or `splice` helper) compiled with a CPython wrapper, for calling from
    Python (tests). Cached on disk under a name of its own (`<name>__from_python`): under the
    helper's own name the cache would hand back the wrapperless version, which shares its name and
    signature. (Uncached, the Blast rulebook tests compiled the whole turn again on every run.)
    Compiled without reference counting, as `entry_hot` is: a helper it compiles first is cached
    and later linked into the race kernels as compiled here (see the note on `outline_hot`)."""
    opts = {k: v for k, v in kernel.targetoptions.items()
            if k not in ("no_cpython_wrapper", "no_cfunc_wrapper", "inline", "nopython", "cache")}
    f = kernel.py_func
    twin = types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__)
    twin.__qualname__ = f"{f.__qualname__}__from_python"
    twin.__module__ = f.__module__
    twin.__doc__ = f.__doc__
    return njit(cache=True, **{**opts, "_nrt": False})(twin)


__all__ = ["entry", "entry_hot", "inline", "splice", "outline", "outline_hot", "python_callable"]
