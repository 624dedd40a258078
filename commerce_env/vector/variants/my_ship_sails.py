"""My Ship Sails in a row (docs/rules.md R7; the batched twin of engine/my_ship_sails.py).

Hands are valued by R7.4's table (``engine.value_table``), which the batched engine loads as the
variant's key table: the shared showdown needs no branch of its own.
"""

from __future__ import annotations

from ...engine.actions import DECLINE, GIVE, OFFER
from ...engine.my_ship_sails import VARIANT
from ..base import DECIDED, SHOWDOWN, give, next_turn, offer, order
from ..hands import is_ship
from ..row import ACT, G_M, G_PHASE, P_HANDS_AT, inlined
from ..settlement import pay_pool

V_SHIP = VARIANT.kernel  # the code the hooks switch on (variants/__init__.py)


@inlined
def begin_deal(st, g, p):
    """R7.3: a dealt flush settles the deal before any decision (R4.5).  Returns whether it does."""
    hands = p[P_HANDS_AT]
    for i in range(st[g, G_M]):
        if is_ship(st, g, hands + 3 * order(st, g, p, i)):
            return True
    return False


@inlined
def legal(st, g, p, masks):
    """``MyShipSails._legal`` into row ``g`` of ``masks``."""
    if st[g, G_PHASE] == ACT:  # R7.2: offer a card to the left neighbour, or decline
        masks[g, DECLINE] = 1
        for i in range(3):
            masks[g, OFFER + i] = 1
    else:  # the neighbour must give one, chosen before seeing the offer
        for i in range(3):
            masks[g, GIVE + i] = 1


@inlined
def step(st, g, p, seat, action):
    """``MyShipSails._step``; answers what the shared machine does next (``base.DECIDED`` ...)."""
    if action == DECLINE:
        return next_turn(st, g, p, seat)
    if action < GIVE:  # R7.2
        offer(st, g, p, seat, action - OFFER)
        return DECIDED
    trader = give(st, g, p, seat, action - GIVE)
    hands = p[P_HANDS_AT]
    if is_ship(st, g, hands + 3 * trader) or is_ship(st, g, hands + 3 * seat):  # R7.3: declared at once
        return SHOWDOWN
    return next_turn(st, g, p, trader)


@inlined
def settle(st, g, p):
    """R7.4: the pool to the best hand."""
    pay_pool(st, g, p)
