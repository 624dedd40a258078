"""Shuffling a pack exactly as ``random.Random.shuffle`` does, faster.

Speed (docs/performance.md): shuffling the pack was a quarter of the engine's
time in short deals, because ``Random.shuffle`` calls ``Random._randbelow``
(a Python method) once per card.  :func:`shuffled` runs the same algorithm,
Fisher-Yates drawing each index by rejection from ``getrandbits``, with the
bit lengths precomputed, so a seed gives the very same pack (and leaves the
generator in the same state) as ``rng.shuffle`` would.  That is checked once
at import; if a Python release ever shuffles differently, or ``rng`` is not a
plain ``random.Random``, ``rng.shuffle`` itself is used.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

# size -> (i, i + 1, bit length of i + 1) for i from size - 1 down to 1: the draws of a shuffle.
_DRAWS: dict[int, tuple[tuple[int, int, int], ...]] = {}


def _draws(size: int) -> tuple[tuple[int, int, int], ...]:
    draws = _DRAWS.get(size)
    if draws is None:
        draws = _DRAWS[size] = tuple((i, i + 1, (i + 1).bit_length()) for i in range(size - 1, 0, -1))
    return draws


def _fast_shuffle(cards: list, rng: random.Random) -> None:
    getrandbits = rng.getrandbits
    for i, n, k in _draws(len(cards)):
        j = getrandbits(k)
        while j >= n:  # rejection, as Random._randbelow_with_getrandbits
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


def _agrees_with_random() -> bool:
    """Whether :func:`_fast_shuffle` gives what this Python's ``Random.shuffle`` gives."""
    for seed in range(5):
        for size in (52, 32, 7):
            mine, theirs = random.Random(seed), random.Random(seed)
            a, b = list(range(size)), list(range(size))
            _fast_shuffle(a, mine)
            theirs.shuffle(b)
            if a != b or mine.getstate() != theirs.getstate():
                return False
    return True


FAST = _agrees_with_random()


def shuffled(pack: Sequence[int], rng: random.Random) -> list[int]:
    """A shuffled copy of ``pack``: the same list, and the same ``rng`` state after,
    as ``cards = list(pack); rng.shuffle(cards)``."""
    cards = list(pack)
    if FAST and type(rng) is random.Random:
        _fast_shuffle(cards, rng)
    else:
        rng.shuffle(cards)
    return cards
