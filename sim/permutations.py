"""numpy's `default_rng([seed, block, salt]).permutation(size)` for many blocks at once.

The balanced line-ups (sim.blocks.rotation) draw, per block of races, permutations from a generator
seeded [seed, block, salt]. Made one generator at a time in Python, that cost 1.2 s per 100,000
Mania races (15% of a study's time: 12,500 blocks of 8, each a SeedSequence, a PCG64 and a shuffle).
Here the same three steps run on every block at once as numpy array arithmetic, bit for bit:

* SeedSequence (O'Neill's seed_seq hashing, numpy/random/bit_generator.pyx): the entropy's 32-bit
  words hashed into a pool of four, then `generate_state(4, uint64)`;
* PCG64 (XSL-RR 128/64, numpy/random/src/pcg64): seeded with state and increment from those four
  words, 128-bit arithmetic on 64-bit halves; 32-bit draws use half of a 64-bit draw and keep the
  other half, as numpy does;
* Generator.permutation: a Fisher-Yates shuffle of arange(size) from the top, each index drawn by
  numpy's masked rejection (random_interval).

tests/test_blocks.py checks it against numpy itself for many seeds, blocks, salts and sizes, so a
numpy that drew differently would be noticed (and the line-ups, which studies rely on to replay a
race, would no longer depend on it).
"""
from __future__ import annotations

import numpy as np

M32 = np.uint64(0xFFFFFFFF)
S32 = np.uint64(32)
INIT_A, MULT_A, INIT_B, MULT_B = 0x43b0d7e5, 0x931e8875, 0x8b51f9dd, 0x58f38ded
MIX_L, MIX_R = np.uint32(0xca01f9dd), np.uint32(0x4973f715)
X16 = np.uint32(16)
PCG_MULT = 0x2360ED051FC65DA44385DF649FCCF645
MH, ML = np.uint64(PCG_MULT >> 64), np.uint64(PCG_MULT & 0xFFFFFFFFFFFFFFFF)


def _words(n: int) -> list[int]:
    if n < 0:
        raise ValueError("negative entropy")
    out = [] if n else [0]
    while n:
        out.append(n & 0xFFFFFFFF)
        n >>= 32
    return out


def _seed_pool(entropy: np.ndarray) -> np.ndarray:
    """numpy's SeedSequence(entropy).pool, per row of `entropy` [rows, words] (uint32)."""
    rows, L = entropy.shape
    h = [INIT_A]

    def hashmix(v):
        v = v ^ np.uint32(h[0])
        h[0] = (h[0] * MULT_A) & 0xFFFFFFFF
        v = v * np.uint32(h[0])
        return v ^ (v >> X16)

    def mix(x, y):
        r = MIX_L * x - MIX_R * y
        return r ^ (r >> X16)

    zero = np.zeros(rows, np.uint32)
    mixer = [hashmix(entropy[:, i] if i < L else zero) for i in range(4)]
    for s in range(4):
        for d in range(4):
            if s != d:
                mixer[d] = mix(mixer[d], hashmix(mixer[s]))
    for s in range(4, L):
        for d in range(4):
            mixer[d] = mix(mixer[d], hashmix(entropy[:, s]))
    return mixer


def _state_words(pool) -> list[np.ndarray]:
    """SeedSequence.generate_state(4, uint64) from the pool: four uint64 per row."""
    h = INIT_B
    w32 = []
    for i in range(8):
        v = pool[i % 4] ^ np.uint32(h)
        h = (h * MULT_B) & 0xFFFFFFFF
        v = v * np.uint32(h)
        w32.append(v ^ (v >> X16))
    return [w32[2 * k].astype(np.uint64) | (w32[2 * k + 1].astype(np.uint64) << S32) for k in range(4)]


def _mul_hi(a, b):
    a0, a1, b0, b1 = a & M32, a >> S32, b & M32, b >> S32
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> S32) + (p01 & M32) + (p10 & M32)
    return p11 + (p01 >> S32) + (p10 >> S32) + (mid >> S32)


class _PCG:
    """numpy's PCG64 (XSL-RR 128/64), one stream per row, seeded as numpy seeds it."""

    def __init__(self, words):
        s_hi, s_lo, i_hi, i_lo = words
        self.ih = (i_hi << np.uint64(1)) | (i_lo >> np.uint64(63))
        self.il = (i_lo << np.uint64(1)) | np.uint64(1)
        self.h = np.zeros_like(s_hi)
        self.l = np.zeros_like(s_hi)
        self._step()
        lo = self.l + s_lo
        self.h = self.h + s_hi + (lo < self.l).astype(np.uint64)
        self.l = lo
        self._step()
        self.has32 = np.zeros(len(s_hi), bool)
        self.u32 = np.zeros(len(s_hi), np.uint64)

    def _step(self):
        # state = state * MULT + inc (mod 2^128)
        hi = self.h * ML + self.l * MH + _mul_hi(self.l, ML)
        lo = self.l * ML
        lo2 = lo + self.il
        self.h = hi + self.ih + (lo2 < lo).astype(np.uint64)
        self.l = lo2

    def next64(self, rows):
        """The next 64-bit output of the streams `rows` (a boolean mask)."""
        h, l = self.h[rows], self.l[rows]
        hi = h * ML + l * MH + _mul_hi(l, ML)
        lo = l * ML
        lo2 = lo + self.il[rows]
        h = hi + self.ih[rows] + (lo2 < lo).astype(np.uint64)
        self.h[rows], self.l[rows] = h, lo2
        x = h ^ lo2
        rot = h >> np.uint64(58)
        return (x >> rot) | (x << ((np.uint64(64) - rot) & np.uint64(63)))

    def next32(self, rows):
        out = np.empty(int(rows.sum()), np.uint64)
        buf = self.has32 & rows
        take = buf[rows]
        out[take] = self.u32[buf]
        self.has32[buf] = False
        need = rows & ~buf
        if need.any():
            v = self.next64(need)
            out[~take] = v & M32
            self.u32[need] = v >> S32
            self.has32[need] = True
        return out


def permutations(seed: int, blocks: np.ndarray, salt: int, sizes) -> list[np.ndarray]:
    """[np.random.default_rng([seed, b, salt]).permutation(s) for s in sizes] for every block b, in
    one vectorised pass."""
    blocks = np.asarray(blocks, np.int64)
    out = [np.empty((len(blocks), s), np.int64) for s in sizes]
    widths = np.where(blocks >= 2 ** 32, 2, 1)
    for w in np.unique(widths):
        rows = np.flatnonzero(widths == w)
        b = blocks[rows].astype(np.uint64)
        cols = [np.full(len(rows), x, np.uint32) for x in _words(seed)]
        cols += [(b & M32).astype(np.uint32)] + ([(b >> S32).astype(np.uint32)] if w == 2 else [])
        cols += [np.full(len(rows), x, np.uint32) for x in _words(salt)]
        pcg = _PCG(_state_words(_seed_pool(np.stack(cols, axis=1))))
        everyone = np.ones(len(rows), bool)
        for axis, s in enumerate(sizes):
            arr = np.tile(np.arange(s, dtype=np.int64), (len(rows), 1))
            for i in range(s - 1, 0, -1):
                mask = i
                for k in (1, 2, 4, 8, 16, 32):
                    mask |= mask >> k
                j = np.empty(len(rows), np.uint64)
                todo = everyone.copy()
                while todo.any():
                    v = (pcg.next32(todo) if i <= 0xFFFFFFFF else pcg.next64(todo)) & np.uint64(mask)
                    got = v <= np.uint64(i)
                    idx = np.flatnonzero(todo)
                    j[idx[got]] = v[got]
                    todo[idx[got]] = False
                r = np.arange(len(rows))
                ji = j.astype(np.int64)
                tmp = arr[r, i].copy()
                arr[r, i] = arr[r, ji]
                arr[r, ji] = tmp
            out[axis][rows] = arr
    return out
