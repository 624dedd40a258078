"""Trade and barter in a row (docs/rules.md R5; the batched twin of engine/trade_barter.py)."""

from __future__ import annotations

import numpy as np
from numba.extending import register_jitable

from ...engine.actions import CONTINUE, GIVE, KNOCK, OFFER, READY_MONEY, STAND
from ...engine.trade_barter import VARIANT, foster_pays_all, peel_penalised
from ..base import DECIDED, SHOWDOWN, give, next_turn, offer, order
from ..hands import sort_hand
from ..knowledge import forget
from ..row import (
    B_DISCARDED,
    G_DEALER,
    G_DISCARDS,
    G_M,
    G_OFFER_CARD,
    G_OFFER_TRADER,
    G_PHASE,
    G_STOCK,
    G_TO_ACT,
    G_WINNERS,
    MEMORY_SETS,
    P_DEALER_PAYS,
    P_DISCARD,
    P_DISCARDS_AT,
    P_HANDS_AT,
    P_MEMORY_AT,
    P_STAND_AFTER_TRADE,
    P_STOCK_AT,
    REPLY,
    S_VALUE,
    S_WINNER,
    STAND_CHOICE,
    choice,
    inlined,
    kernel,
    seat_field,
)
from ..settlement import pay_pool, transfer, winner
from ..shuffle import draw_stock_top

V_TRADE_BARTER = VARIANT.kernel  # the code the hooks switch on (variants/__init__.py)
BOTTOM = choice("discard", "bottom")
FOSTER, PEEL_EACH, PEEL_BETTER = (choice("dealer_pays", mode) for mode in ("foster", "peel_each", "peel_better"))
# R5.8 as engine/trade_barter.py states it, compiled where the dealer's payments call it.
register_jitable(foster_pays_all)
register_jitable(peel_penalised)


@inlined
def legal(st, g, p, masks):
    """``TradeBarter._legal`` into row ``g`` of ``masks``."""
    phase = st[g, G_PHASE]
    if phase == STAND_CHOICE:  # R5.6
        masks[g, STAND] = 1
        masks[g, CONTINUE] = 1
        return
    masks[g, KNOCK] = 1
    if phase == REPLY:  # R5.4: give a card, chosen blind, or knock
        for i in range(3):
            masks[g, GIVE + i] = 1
        return
    stock = st[g, G_STOCK] > 0  # R5.3: no ready money from an empty stock
    for i in range(3):
        masks[g, OFFER + i] = 1
        if stock:
            masks[g, READY_MONEY + i] = 1


@inlined
def step(st, g, p, seat, action):
    """``TradeBarter._step``; answers what the shared machine does next (``base.DECIDED`` ...)."""
    if action == KNOCK:  # R5.5 (also the neighbour's answer to a barter, R5.4)
        st[g, G_OFFER_TRADER] = -1
        st[g, G_OFFER_CARD] = -1
        return SHOWDOWN
    if action == STAND:  # R5.6: a knock after his own trade
        return SHOWDOWN
    if action == CONTINUE:  # R5.6: play passes left
        return next_turn(st, g, p, seat)
    if action < OFFER:  # R5.3 ready money
        _ready_money(st, g, p, seat, action - READY_MONEY)
        return _after_trade(st, g, p, seat)
    if action < GIVE:  # R5.4 barter: offer face down to the left
        offer(st, g, p, seat, action - OFFER)
        return DECIDED
    return _after_trade(st, g, p, give(st, g, p, seat, action - GIVE))  # the neighbour gives, blind


@kernel
def _ready_money(st, g, p, seat, slot):
    """R5.3: the card discarded face down (to the table, or under the stock), the stock's top drawn,
    one counter to the dealer."""
    at = p[P_HANDS_AT] + 3 * seat + slot
    card = st[g, at]
    st[g, p[P_MEMORY_AT] + len(MEMORY_SETS) * seat + B_DISCARDED] |= np.int64(1) << card
    forget(st, g, p, seat, seat)
    count = st[g, G_STOCK]
    stock = p[P_STOCK_AT]
    if p[P_DISCARD] == BOTTOM:  # under the stock
        for i in range(count, 0, -1):
            st[g, stock + i] = st[g, stock + i - 1]
        st[g, stock] = card
        count += 1
    else:
        st[g, p[P_DISCARDS_AT] + st[g, G_DISCARDS]] = card
        st[g, G_DISCARDS] += 1
    st[g, G_STOCK] = count
    st[g, at] = draw_stock_top(st, g, p)
    sort_hand(st, g, p[P_HANDS_AT] + 3 * seat)
    if seat != st[g, G_DEALER]:
        transfer(st, g, p, seat, st[g, G_DEALER])


@kernel
def _after_trade(st, g, p, trader):
    if p[P_STAND_AFTER_TRADE]:  # R5.6
        st[g, G_PHASE] = STAND_CHOICE
        st[g, G_TO_ACT] = trader
        return DECIDED
    return next_turn(st, g, p, trader)


@inlined
def settle(st, g, p):
    """``TradeBarter._settle``: the pool to the best (R5.7), then the dealer's payments (R5.8)."""
    pay_pool(st, g, p)
    _dealer_pays(st, g, p)


@kernel
def _dealer_pays(st, g, p):
    """R5.8 (and R10.2): the dealer's payments after the showdown."""
    mode = p[P_DEALER_PAYS]
    dealer = st[g, G_DEALER]
    m = st[g, G_M]
    value = st[g, seat_field(p, dealer, S_VALUE)]
    if mode == FOSTER:
        if st[g, seat_field(p, dealer, S_WINNER)]:
            return
        if foster_pays_all(value, st[g, seat_field(p, winner(st, g, p, 0), S_VALUE)]):
            for i in range(m):
                s = order(st, g, p, i)
                if s != dealer:
                    transfer(st, g, p, dealer, s)
        else:
            for k in range(st[g, G_WINNERS]):
                transfer(st, g, p, dealer, winner(st, g, p, k))
    elif mode == PEEL_EACH or mode == PEEL_BETTER:
        if not peel_penalised(value):
            return
        better = 0
        for i in range(m):
            s = order(st, g, p, i)
            if s != dealer and st[g, seat_field(p, s, S_VALUE)] > value:
                better += 1
        if better == 0:
            return
        for i in range(m):
            s = order(st, g, p, i)
            if s != dealer and (mode == PEEL_EACH or st[g, seat_field(p, s, S_VALUE)] > value):
                transfer(st, g, p, dealer, s)
