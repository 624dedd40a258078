"""``random.Random``'s shuffles, compiled: the same permutations and the same state after.

Search samples its worlds with a Python ``random.Random`` (``view.sample_worlds``), and
where only a shuffle of the unseen cards is left to chance (:mod:`.sampled`) that shuffle
is most of a world's cost.  Python's generator is MT19937 and its ``shuffle`` a
Fisher-Yates over ``getrandbits`` (CPython's ``_randommodule.c`` and ``random.py``); this
module runs the same steps on the generator's state (``getstate`` / ``setstate``), so a
search that shuffles here draws exactly what it would have drawn in Python.
"""

from __future__ import annotations

import random

import numpy as np

from ..checks import whole_number
from .row import kernel

_N, _M = 624, 397
_MATRIX_A, _UPPER, _LOWER, _WORD = 0x9908B0DF, 0x80000000, 0x7FFFFFFF, 0xFFFFFFFF


@kernel
def _next_word(mt, at):
    """CPython's ``genrand_uint32``: the next 32-bit word of the state ``mt`` (``at[0]``: its index)."""
    if at[0] >= _N:  # the twist, in CPython's three loops (no index wraps inside one)
        for k in range(_N - _M):
            y = (mt[k] & _UPPER) | (mt[k + 1] & _LOWER)
            mt[k] = mt[k + _M] ^ (y >> 1) ^ (_MATRIX_A if y & 1 else 0)
        for k in range(_N - _M, _N - 1):
            y = (mt[k] & _UPPER) | (mt[k + 1] & _LOWER)
            mt[k] = mt[k + _M - _N] ^ (y >> 1) ^ (_MATRIX_A if y & 1 else 0)
        y = (mt[_N - 1] & _UPPER) | (mt[0] & _LOWER)
        mt[_N - 1] = mt[_M - 1] ^ (y >> 1) ^ (_MATRIX_A if y & 1 else 0)
        at[0] = 0
    y = mt[at[0]]
    at[0] += 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y & _WORD


@kernel
def _below(mt, at, n):
    """``random.Random._randbelow_with_getrandbits(n)`` for ``2 <= n < 2**32``."""
    k = 0
    while (n >> k) > 0:  # n.bit_length()
        k += 1
    r = _next_word(mt, at) >> (32 - k)
    while r >= n:
        r = _next_word(mt, at) >> (32 - k)
    return r


@kernel
def shuffle(values, count, mt, at):
    """``random.shuffle`` of ``values[:count]`` on the generator state ``mt``, ``at``."""
    for i in range(count - 1, 0, -1):
        j = _below(mt, at, i + 1)
        values[i], values[j] = values[j], values[i]


@kernel
def _shuffles(mt, at, items, count, skip_words, out):
    """``count`` times: ``skip_words`` words drawn and dropped, then ``items`` copied and shuffled."""
    for c in range(count):
        for _ in range(skip_words):
            _next_word(mt, at)
        out[c] = items
        shuffle(out[c], len(items), mt, at)


def shuffled_copies(rng: random.Random, items: list[int], count: int, skip_bits: int = 0) -> np.ndarray:
    """``(count, len(items))`` int64: ``count`` times ``rng.getrandbits(skip_bits)`` (a multiple
    of 32, its value dropped), then ``cards = list(items); rng.shuffle(cards)``, as Python would
    draw them, ``rng`` left in the state Python would leave it in.  A subclass of ``random.Random``
    (which may draw otherwise) is served by Python itself."""
    whole_number("count", count, 0)
    whole_number("skip_bits", skip_bits, 0)
    out = np.empty((count, len(items)), dtype=np.int64)
    if type(rng) is not random.Random or skip_bits % 32 or len(items) >= 2**31:
        for c in range(count):
            if skip_bits:
                rng.getrandbits(skip_bits)
            cards = list(items)
            rng.shuffle(cards)
            out[c] = cards
        return out
    mt, at, rest = random_state(rng)
    _shuffles(mt, at, np.asarray(items, dtype=np.int64), count, skip_bits // 32, out)
    set_random_state(rng, mt, at, rest)
    return out


def random_state(rng: random.Random) -> tuple[np.ndarray, np.ndarray, tuple]:
    """The state of a plain ``random.Random`` for the compiled draws: its 624 words, its index (an
    array of one, moved by each draw), and what else ``getstate`` holds, for :func:`set_random_state`."""
    version, internal, gauss = rng.getstate()
    return np.array(internal[:_N], dtype=np.int64), np.array([internal[_N]], dtype=np.int64), (version, gauss)


def set_random_state(rng: random.Random, mt: np.ndarray, at: np.ndarray, rest: tuple) -> None:
    """Leave ``rng`` where the compiled draws on ``mt``, ``at`` (from :func:`random_state`) left it."""
    version, gauss = rest
    rng.setstate((version, (*mt.tolist(), int(at[0])), gauss))
