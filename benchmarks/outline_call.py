"""What one call of an outlined kernel helper costs, against the same helper inlined.

    python benchmarks/outline_call.py [--arrays 41] [--calls 1000000]

A helper that takes a NamedTuple of ARRAYS small arrays (the race kernels pass their tables and
state as two: Ski Tour's 19 + 22 = 41 arrays) and touches every one of them is called CALLS times
from a loop, compiled three ways, each with the arrays owned and with them borrowed
(`kernels.borrow.borrow_nb`: no memory-info block, as the race kernels pass them):

- `inline`: `kernels.jit.inline` (LLVM copies the body into the loop);
- `outline`: `kernels.jit.outline` (one body, called);
- `outline, nrt off`: the same with numba's `_nrt=False` (no reference counting in that function).

It prints nanoseconds per call (best of three), and for each outlined build how many
reference-count calls (`NRT_incref`/`NRT_decref`) its body makes and how many words the caller
stores on the stack for the call. Results differ per machine; the ratios are what matter.

Findings (2026-11-28, numba 0.68.1, the shared 2-core machine at load 2 to 4; best of three, two
runs; `--arrays 41 --calls 1000000`), ns per call:

| build | arrays owned | arrays borrowed |
|---|---|---|
| inline | 173-193 (each read of an owned array counts a reference) | 36 |
| outline | 158-175 | 146-217 |
| outline, `_nrt=False` | 122-192 | 75-78 |

- What `_nrt=False` removes: the reference counts in the outlined body (numba's pruning leaves 14
  NRT_incref/NRT_decref calls of 82 possible here; for a borrowed array each is a call that finds
  a null pointer). The caller emits none around the call either way: it holds its own references
  for as long as the loop runs. Note that numba hands the flag down (numba/core/cpu.py,
  `inherit_if_not_set("nrt")`) to any callee without one that is first compiled from there.
- What it cannot remove: the arguments. Numba's calling convention passes every array of a
  NamedTuple as its separate fields (meminfo, parent, size, itemsize, data, then shape and strides
  per dimension: 7 words for a 1-d array), all but the first few on the stack: the loop pushes 284
  words (2,272 bytes) per call here, one `pushq` each. With borrowed arrays and
  `_nrt=False` a call still costs twice the inlined helper (75 against 36 ns).
- The race kernels' arrays are borrowed already (kernels/borrow.py). In Ski Tour's race kernel a
  call of a helper taking the tables and the state (19 + 22 arrays) copies ~420 words. Measured
  on the kernel, same tables every time: `step_nb`, `roll_place_nb` and `bonus_nb` outlined with
  `_nrt=False` played 690 races a second against 13,388 (`compile_time.py skitour --races=4000`, one run each;
  `step_nb` runs thousands of times a race in the move searches), their first compile 144.1
  against 179.1 CPU s side by side (LLVM 69 against 103 s; numba's own work unchanged, ~76 s);
  `roll_place_nb` and `bonus_nb` alone ran 0.86 and 0.89 times as fast (`ab.py HEAD --game skitour
  --scenario Starter`, median of 3 and of 6 rounds), `perf` finding the extra time in the caller
  (the race kernel's own samples up by as much as the two outlined bodies took).
- So outlining pays off only for what runs rarely (`kernels.jit.outline`); see kernels/jit.py.
"""
from __future__ import annotations

import argparse
import collections
import re
import time

import numpy as np
from numba import njit

import kernels

kernels.prepare()
from kernels.borrow import borrow_nb  # noqa: E402

HELPER = dict(no_cpython_wrapper=True, no_cfunc_wrapper=True)


def body_source(n: int) -> str:
    """A helper touching every array of `s`, with a branch per array so that LLVM keeps it out of
    line when it is not forced in."""
    src = ["def body(s, i):", "    k = i & 63", "    t = 0"]
    for j in range(n):
        src.append(f"    if s.a{j}[k] > {j * 31 % 997}:\n        t += s.a{(j * 7) % n}[k] ^ {j}\n"
                   f"    else:\n        s.a{j}[k] = (s.a{j}[k] * 5 + t) & 1023")
    src.append("    return t")
    return "\n".join(src)


def borrow_source(n: int) -> str:
    fields = ", ".join(f"borrow_nb(s.a{j})" for j in range(n))
    return f"def borrowed(s):\n    return S({fields})"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--arrays", type=int, default=41)
    p.add_argument("--calls", type=int, default=1_000_000)
    args = p.parse_args()
    n = args.arrays
    S = collections.namedtuple("S", [f"a{j}" for j in range(n)])
    ns = {"S": S, "borrow_nb": borrow_nb}
    exec(body_source(n), ns)
    exec(borrow_source(n), ns)
    body, borrowed = ns["body"], njit(forceinline=True, **HELPER)(ns["borrowed"])

    def fresh():
        return S(*[np.arange(64, dtype=np.int64) * (j + 1) for j in range(n)])

    builds = {"inline": dict(forceinline=True, **HELPER),
              "outline": dict(forceinline=False, **HELPER),
              "outline, nrt off": dict(forceinline=False, _nrt=False, **HELPER)}
    results = {}
    for name, opts in builds.items():
        for borrow in (False, True):
            h = njit(**opts)(body)

            if borrow:
                @njit
                def loop(s0, calls):
                    s = borrowed(s0)
                    t = 0
                    for i in range(calls):
                        t += h(s, i)
                        t += h(s, i + 7)
                    return t
            else:
                @njit
                def loop(s, calls):
                    t = 0
                    for i in range(calls):
                        t += h(s, i)
                        t += h(s, i + 7)
                    return t
            loop(fresh(), 10)
            best = float("inf")
            for _ in range(3):
                s = fresh()
                t0 = time.perf_counter()
                total = loop(s, args.calls)
                best = min(best, time.perf_counter() - t0)
            results.setdefault("total", set()).add(total)
            asm = loop.inspect_asm(loop.signatures[0])
            label = name + (", borrowed" if borrow else "")
            print(f"{label:28s} {best / (2 * args.calls) * 1e9:7.1f} ns per call" + ("" if name == "inline" else describe(asm)))
    if len(results["total"]) != 1:
        raise SystemExit(f"the builds disagree: {results['total']}")


def describe(asm: str) -> str:
    """For an outlined build: the calls its body makes (its only calls are to NRT_incref and
    NRT_decref), and the stores to the stack in the calling loop's function (the arguments)."""
    funcs, cur = {}, None
    for line in asm.splitlines():
        m = re.match(r"^([_A-Za-z][\w.$]*):$", line)
        if m:
            cur = m.group(1)
            funcs[cur] = []
        elif cur:
            funcs[cur].append(line)
    body = [lines for name, lines in funcs.items() if "4body" in name]
    if not body:
        return "; LLVM inlined the body after all (too small to keep out of line)"
    refcalls = sum(1 for line in body[0] if re.search(r"\bcall", line))
    loop = next(lines for name, lines in funcs.items() if "4loop" in name and not name.startswith(("cfunc", "_ZN7cpython")))
    stores = sum(1 for line in loop if re.search(r"\bpush|mov\w*\s+%\w+, *-?\w*\(%rsp\)", line))
    return f"; refcount calls in the body: {refcalls}; words pushed or stored on the stack in the caller: {stores}"


if __name__ == "__main__":
    main()
