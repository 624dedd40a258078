"""Pool commerce in a row (docs/rules.md R9; the batched twin of engine/pool.py): the old game
played for a pool, with lives."""

from __future__ import annotations

from ...engine.actions import BUY_HORSE, NO_HORSE
from ...engine.pool import VARIANT
from ..base import DECIDED, NEXT_DEAL
from ..row import (
    G_DEALER,
    G_HORSE_OFFERED,
    G_PHASE,
    G_POOL,
    G_TO_ACT,
    G_WINNERS,
    HORSE,
    P_ENTRY,
    P_HORSE_PRICE,
    P_NUM_PLAYERS,
    P_PAYOUT,
    S_COUNTERS,
    S_MONEY,
    S_OUT,
    inlined,
    kernel,
    seat_field,
)
from ..settlement import deal_next, deals_reached, end_match, mark_out_losers, winner, worst_hand
from . import old_game

V_POOL = VARIANT.kernel  # the code the hooks switch on (variants/__init__.py)


@inlined
def begin_match(st, g, p):
    """R9.2: the entry, once, at the start of the match."""
    for s in range(p[P_NUM_PLAYERS]):
        st[g, seat_field(p, s, S_MONEY)] -= p[P_ENTRY]
        st[g, G_POOL] += p[P_ENTRY]


@inlined
def legal(st, g, p, masks):
    """``PoolCommerce._legal`` into row ``g`` of ``masks``: the horse (R9.4), else the old game's."""
    if st[g, G_PHASE] == HORSE:
        masks[g, BUY_HORSE] = 1
        masks[g, NO_HORSE] = 1
    else:
        old_game.legal(st, g, p, masks)


@inlined
def step(st, g, p, seat, action):
    """``PoolCommerce._step``; answers what the shared machine does next (``base.DECIDED`` ...)."""
    if st[g, G_PHASE] != HORSE:
        return old_game.step(st, g, p, seat, action)
    if action == BUY_HORSE:  # R9.4: one counter for the horse price
        price = p[P_HORSE_PRICE]
        st[g, seat_field(p, seat, S_MONEY)] -= price
        st[g, G_POOL] += price
        st[g, seat_field(p, seat, S_COUNTERS)] += 1
        st[g, seat_field(p, seat, S_OUT)] = 0
    return NEXT_DEAL if check_end(st, g, p) else DECIDED


@inlined
def settle(st, g, p):
    """R9.3: the winners take the payout while the pool lasts; the worst loses a life."""
    for k in range(st[g, G_WINNERS]):  # in order from the dealer's left
        amount = min(p[P_PAYOUT], st[g, G_POOL])
        st[g, seat_field(p, winner(st, g, p, k), S_MONEY)] += amount
        st[g, G_POOL] -= amount
    st[g, seat_field(p, worst_hand(st, g, p, False), S_COUNTERS)] -= 1


@inlined
def after_deal(st, g, p, newly, first_out):
    """R9.4: the first player out is offered the horse before R9.5 is checked.  Returns whether a
    new deal must be dealt."""
    if newly > 0 and st[g, G_HORSE_OFFERED] == 0:
        st[g, G_HORSE_OFFERED] = 1
        st[g, G_PHASE] = HORSE
        st[g, G_TO_ACT] = first_out
        return False
    return check_end(st, g, p)


@kernel
def check_end(st, g, p):
    """R9.5: the last holder takes the pool, or `deals` divides it; else the next dealer.  Returns
    whether a new deal must be dealt."""
    n = p[P_NUM_PLAYERS]
    holders = 0
    holder = -1
    for s in range(n):
        if st[g, seat_field(p, s, S_OUT)] == 0:
            holders += 1
            holder = s
    if holders <= 1:
        if holders == 1:
            st[g, seat_field(p, holder, S_MONEY)] += st[g, G_POOL]
            st[g, G_POOL] = 0
        mark_out_losers(st, g, p)
        end_match(st, g, p)
        return False
    if deals_reached(st, g, p):
        share, remainder = st[g, G_POOL] // holders, st[g, G_POOL] % holders
        dealer = st[g, G_DEALER]
        k = 0
        for j in range(1, n + 1):  # counted from the left of the last deal's dealer (R3.5)
            s = (dealer + j) % n
            if st[g, seat_field(p, s, S_OUT)] == 0:
                st[g, seat_field(p, s, S_MONEY)] += share + (1 if k < remainder else 0)
                k += 1
        st[g, G_POOL] = 0
        end_match(st, g, p)
        return False
    deal_next(st, g, p)
    return True
