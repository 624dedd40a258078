"""Three-card hands in a row (the batched twin of commerce_env/hands.py, R2).

Hands are valued by the variant's key table (``keys``: ``engine.value_table``, R2 or R7.4's
values) at :func:`commerce_env.hands.table_index`; that function and
:func:`commerce_env.hands.category_index` are compiled as they are written there, so both engines
ask the same functions.  A hand in a row is kept sorted, as the readable engine keeps it.
"""

from __future__ import annotations

from numba.extending import register_jitable

from ..hands import category_index, table_index
from .row import kernel

# Callable from compiled code as commerce_env.hands defines them (one definition for both engines).
register_jitable(inline="always")(table_index)
register_jitable(inline="always")(category_index)


@kernel
def sort_hand(st, g, at):
    """Sort the three cards at columns ``at`` .. ``at + 2``."""
    a, b, c = st[g, at], st[g, at + 1], st[g, at + 2]
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
    if a > b:
        a, b = b, a
    st[g, at], st[g, at + 1], st[g, at + 2] = a, b, c


@kernel
def is_ship(st, g, at):
    """``commerce_env.hands.is_ship`` of the hand at ``at``: a three-card flush (R7.3)."""
    suit = st[g, at] & 3
    return (st[g, at + 1] & 3) == suit and (st[g, at + 2] & 3) == suit


@kernel
def hand_value(st, g, at, keys):
    """The value of the hand at ``at`` in the variant's key table."""
    return keys[table_index(st[g, at], st[g, at + 1], st[g, at + 2])]
