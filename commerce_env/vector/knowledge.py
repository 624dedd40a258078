"""What each seat knows of the cards, kept as the cards move (the twin of commerce_env/knowledge.py, R11).

The readable engine derives knowledge from its record of every card movement; the batched engine
keeps no record, so every move that changes what a seat knows updates the ``known`` section at
once: for each observer, the cards it knows to be in each holder's hand now, as
:func:`commerce_env.knowledge.public_places` reads them from the record.
"""

from __future__ import annotations

import numpy as np

from .row import P_KNOWN_AT, P_NUM_PLAYERS, inlined


@inlined
def place(st, g, p, observer, card, holder):
    """``places[card] = holder`` in ``observer``'s knowledge (``holder`` -1: ``places.pop(card)``)."""
    n = p[P_NUM_PLAYERS]
    row = p[P_KNOWN_AT] + observer * n
    bit = np.int64(1) << card
    for h in range(n):
        st[g, row + h] &= ~bit
    if holder >= 0:
        st[g, row + holder] |= bit


@inlined
def place_for_all(st, g, p, card, holder):
    """A face-up move (R6.2, R6.3, R8.2, the showdown): every seat knows it."""
    for o in range(p[P_NUM_PLAYERS]):
        place(st, g, p, o, card, holder)


@inlined
def forget(st, g, p, holder, keeper):
    """Every seat but ``keeper`` forgets what it knew of ``holder``'s hand (a face-down move)."""
    n = p[P_NUM_PLAYERS]
    for o in range(n):
        if o != keeper:
            st[g, p[P_KNOWN_AT] + o * n + holder] = 0


@inlined
def forget_both(st, g, p, a, b):
    """A blind trade between ``a`` and ``b``: every other seat forgets what it knew of both hands."""
    n = p[P_NUM_PLAYERS]
    for o in range(n):
        if o != a and o != b:
            st[g, p[P_KNOWN_AT] + o * n + a] = 0
            st[g, p[P_KNOWN_AT] + o * n + b] = 0


@inlined
def forget_all(st, g, p):
    """A new deal: nobody knows where any card is yet."""
    n = p[P_NUM_PLAYERS]
    known = p[P_KNOWN_AT]
    for i in range(n * n):
        st[g, known + i] = 0
