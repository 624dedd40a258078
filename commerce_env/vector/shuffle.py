"""Each game's own random numbers and shuffles (the batched twin of engine/shuffle.py).

A game's generator is splitmix64 on its own column (``G_RNG``), so games never share a stream
and a row copied elsewhere carries its generator along.  The batched engine's shuffles are its
own: given packs agree exactly with the readable engine's, shuffled ones need not.
"""

from __future__ import annotations

import numpy as np

from .row import G_RNG, G_STOCK, G_UNSHUFFLED, P_DECK_SIZE, P_STOCK_AT, inlined, kernel

_GOLDEN = np.int64(0x9E3779B97F4A7C15 - (1 << 64))  # splitmix64's constants as wrapping int64
_MIX1 = np.int64(0xBF58476D1CE4E5B9 - (1 << 64))
_MIX2 = np.int64(0x94D049BB133111EB - (1 << 64))


@kernel
def next_random(st, g):
    """splitmix64 on the game's own state: a 64-bit draw (as int64)."""
    z = st[g, G_RNG] + _GOLDEN
    st[g, G_RNG] = z
    z = (z ^ ((z >> 30) & 0x3FFFFFFFF)) * _MIX1
    z = (z ^ ((z >> 27) & 0x1FFFFFFFFF)) * _MIX2
    return z ^ ((z >> 31) & 0x1FFFFFFFF)


@kernel
def random_below(st, g, bound):
    """A draw from 0 .. bound - 1 (Lemire's multiply-shift on 32 bits; bias below 2**-26)."""
    return (((next_random(st, g) >> 32) & 0xFFFFFFFF) * bound) >> 32


@inlined
def random_legal_action(st, g, masks):
    """The random policy's move in game ``g``: a uniform draw among its legal actions (``masks[g]``)
    from the game's own generator, so a game's play does not depend on the other games; -1 if none.
    Inlined into its callers: as a call, counting a reference on each array it is given, it cost
    the compiled opponent loop some 14%."""
    count = 0
    for a in range(masks.shape[1]):
        count += masks[g, a]
    pick = random_below(st, g, count)
    for a in range(masks.shape[1]):
        if masks[g, a]:
            if pick == 0:
                return a
            pick -= 1
    return -1


@kernel
def shuffled_pack(st, g, p, pack, dealt):
    """The variant's pack (52, or 7 to ace for 32) into ``pack``, its first ``dealt`` cards drawn at
    random (Fisher-Yates, front to back); the rest, the stock, is a random set in no random order yet:
    :func:`draw_stock_top` draws each stock card at random when it is taken (the same law as a
    full shuffle, and most stock cards are never taken)."""
    size = p[P_DECK_SIZE]
    low = 0 if size == 52 else 20  # the 32-card pack: ranks 7..A are cards 20..51 (R1.1)
    for i in range(size):
        pack[i] = low + i
    for i in range(dealt):
        j = i + random_below(st, g, size - i)
        pack[i], pack[j] = pack[j], pack[i]


@kernel
def draw_stock_top(st, g, p):
    """Take the stock's top card; if the top cards are not in random order yet, draw one of them."""
    stock, count = p[P_STOCK_AT], st[g, G_STOCK]
    unshuffled = st[g, G_UNSHUFFLED]
    if unshuffled > 0:  # the top ``unshuffled`` cards are a random set: pick the top among them
        j = count - unshuffled + random_below(st, g, unshuffled)
        top = stock + count - 1
        st[g, top], st[g, stock + j] = st[g, stock + j], st[g, top]
        st[g, G_UNSHUFFLED] = unshuffled - 1
    card = st[g, stock + count - 1]
    st[g, stock + count - 1] = -1
    st[g, G_STOCK] = count - 1
    return card
