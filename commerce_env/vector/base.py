"""Seating, dealing, turns and trades in a row (the batched twin of engine/base.py).

What every variant shares and calls, with no variant's hook in it: the order of play (R3.1),
the start of a match and the dealing of a deal (R1.5, R4.2), passing play left with the round
cap (R4.4), and the face-down offer and its answer (R5.4, R7.2).  The parts of
``Game._start_match``, ``_start_deal`` and ``apply`` that call the variant's hooks are in
:mod:`.game`; the variants' own branches in :mod:`.variants`.

A variant's step answers what the shared machine does next (:mod:`.game` does it), because the
showdown and the next deal call the variants' hooks in turn:
:data:`DECIDED` (a player is to act, or the match is over), :data:`SHOWDOWN`, :data:`NEXT_DEAL`.
"""

from __future__ import annotations

import numpy as np

from ..engine.phases import STARTING_LIVES
from .hands import sort_hand
from .knowledge import forget_all, forget_both, place
from .row import (
    ACT,
    B_GAVE_LEFT,
    B_GAVE_RIGHT,
    G_AWAITING,
    G_DEALER,
    G_DEALS_DEALT,
    G_DEALS_PLAYED,
    G_DISCARDS,
    G_HAS_LOSERS,
    G_HORSE_OFFERED,
    G_LT_HEAD,
    G_LT_LEN,
    G_M,
    G_NUM_DECKS,
    G_OFFER_CARD,
    G_OFFER_TRADER,
    G_OVER,
    G_PHASE,
    G_POOL,
    G_ROUNDS,
    G_STOCK,
    G_STOOD,
    G_TO_ACT,
    G_UNSHUFFLED,
    MEMORY_SETS,
    P_ANTES,
    P_DECK_SIZE,
    P_DECKS_AT,
    P_HANDS_AT,
    P_HAS_LIVES,
    P_HAS_TABLE,
    P_MAX_ROUNDS,
    P_MEMORY_AT,
    P_NUM_PLAYERS,
    P_PASS_ENDS_TURNS,
    P_PLAYS_FOR_MONEY,
    P_REWARDS_AT,
    P_STOCK_AT,
    P_TABLE_AT,
    P_WAIT_FOR_PACKS,
    REPLY,
    S_COUNTERS,
    S_LAST_KIND,
    S_LOSER,
    S_MONEY,
    S_ORDER,
    S_OUT,
    S_PAID,
    S_PASSED,
    S_POS,
    S_STOOD,
    inlined,
    kernel,
    seat_field,
)
from .shuffle import shuffled_pack

DECIDED, SHOWDOWN, NEXT_DEAL = 0, 1, 2  # what the shared machine does after a variant's step
_SETS = len(MEMORY_SETS)


# ------------------------------------------------------------------ seats
@inlined
def order(st, g, p, i):
    """The seat at place ``i`` of the deal's order of play, eldest first (R3.1)."""
    return st[g, seat_field(p, i, S_ORDER)]


@inlined
def left_of(st, g, p, seat):
    """The next player in the deal to the left (R3.1)."""
    return order(st, g, p, (st[g, seat_field(p, seat, S_POS)] + 1) % st[g, G_M])


@inlined
def can_act(st, g, p, seat):
    """Whether ``seat`` still takes turns in this deal: not where a stand or a pass ends them (R8.2)."""
    if p[P_PASS_ENDS_TURNS]:
        return st[g, seat_field(p, seat, S_STOOD)] == 0 and st[g, seat_field(p, seat, S_PASSED)] == 0
    return True


@kernel
def balance(st, g, p, seat):
    """What rewards count: counters, or money in pool commerce (R4.1)."""
    return st[g, seat_field(p, seat, S_MONEY if p[P_PLAYS_FOR_MONEY] else S_COUNTERS)]


# ------------------------------------------------------------------ match
@kernel
def start_match(st, g, p, dealer):
    """``Game._start_match`` up to the variant's hook: lives, an empty pool, ``dealer`` deals."""
    n = p[P_NUM_PLAYERS]
    lives = STARTING_LIVES if p[P_HAS_LIVES] else 0
    for s in range(n):
        st[g, seat_field(p, s, S_COUNTERS)] = lives
        st[g, seat_field(p, s, S_MONEY)] = 0
        st[g, seat_field(p, s, S_OUT)] = 0
        st[g, seat_field(p, s, S_LOSER)] = 0
        st[g, p[P_REWARDS_AT] + s] = 0
        st[g, p[P_REWARDS_AT] + n + s] = 0
    st[g, G_POOL] = 0
    st[g, G_DEALS_PLAYED] = 0
    st[g, G_DEALS_DEALT] = 0
    st[g, G_DEALER] = dealer
    st[g, G_OVER] = 0
    st[g, G_AWAITING] = 0
    st[g, G_HAS_LOSERS] = 0
    st[g, G_HORSE_OFFERED] = 0
    for s in range(n):
        st[g, seat_field(p, s, S_PAID)] = balance(st, g, p, s)  # pool: before the entry (R9.5)


# ------------------------------------------------------------------- deal
@inlined
def seat_order(st, g, p):
    """R3.1: the order of play from the eldest (the dealer's left) to the dealer, players out left out."""
    n = p[P_NUM_PLAYERS]
    dealer = st[g, G_DEALER]
    m = 0
    for k in range(1, n + 1):
        s = (dealer + k) % n
        st[g, seat_field(p, s, S_POS)] = -1
        if st[g, seat_field(p, s, S_OUT)] == 0:
            st[g, seat_field(p, m, S_ORDER)] = s
            m += 1
    st[g, G_M] = m
    for i in range(m):
        st[g, seat_field(p, order(st, g, p, i), S_POS)] = i


@inlined
def next_pack(st, g, p, pack):
    """``Game._next_pack`` into ``pack``: the next given pack, or a shuffle; with
    ``wait_for_packs`` past the given packs, False: the game waits (``G_AWAITING``)."""
    size = p[P_DECK_SIZE]
    index = st[g, G_DEALS_DEALT]
    if index < st[g, G_NUM_DECKS]:
        at = p[P_DECKS_AT] + 52 * index
        for i in range(size):
            pack[i] = st[g, at + i]
        st[g, G_UNSHUFFLED] = 0
        return True
    if p[P_WAIT_FOR_PACKS]:
        st[g, G_AWAITING] = 1
        st[g, G_TO_ACT] = -1
        return False
    dealt = 3 * st[g, G_M] + (3 if p[P_HAS_TABLE] else 0)
    shuffled_pack(st, g, p, pack, dealt)
    st[g, G_UNSHUFFLED] = size - dealt
    return True


@kernel
def deal_pack(st, g, p, pack):
    """R1.5, R4.2: ``pack`` dealt one card at a time from the eldest, the table, the stock; the
    antes; a fresh deal's fields, the eldest to act (``Game._start_deal`` before its hook)."""
    n = p[P_NUM_PLAYERS]
    m = st[g, G_M]
    size = p[P_DECK_SIZE]
    st[g, G_DEALS_DEALT] += 1
    hands = p[P_HANDS_AT]
    for i in range(3 * n):
        st[g, hands + i] = -1
    for i in range(m):
        at = hands + 3 * order(st, g, p, i)
        st[g, at] = pack[i]
        st[g, at + 1] = pack[i + m]
        st[g, at + 2] = pack[i + 2 * m]
        sort_hand(st, g, at)
    top = 3 * m
    table = p[P_TABLE_AT]
    if p[P_HAS_TABLE]:
        for i in range(3):
            st[g, table + i] = pack[top + i]
        top += 3
    else:
        for i in range(3):
            st[g, table + i] = -1
    count = size - top
    stock = p[P_STOCK_AT]
    for i in range(count):  # stock[count - 1] is the top card
        st[g, stock + i] = pack[size - 1 - i]
    st[g, G_STOCK] = count
    st[g, G_DISCARDS] = 0
    if p[P_ANTES]:
        for i in range(m):
            st[g, seat_field(p, order(st, g, p, i), S_COUNTERS)] -= 1
            st[g, G_POOL] += 1
    st[g, G_ROUNDS] = 0
    memory = p[P_MEMORY_AT]
    for s in range(n):
        st[g, seat_field(p, s, S_LAST_KIND)] = -1
        st[g, seat_field(p, s, S_STOOD)] = 0
        st[g, seat_field(p, s, S_PASSED)] = 0
        for k in range(_SETS):
            st[g, memory + _SETS * s + k] = 0
    forget_all(st, g, p)
    st[g, G_STOOD] = 0
    st[g, G_LT_HEAD] = 0
    st[g, G_LT_LEN] = 0
    st[g, G_PHASE] = ACT
    st[g, G_TO_ACT] = order(st, g, p, 0)
    st[g, G_OFFER_TRADER] = -1
    st[g, G_OFFER_CARD] = -1


# ------------------------------------------------------------------ turns
@inlined
def next_turn(st, g, p, seat):
    """Pass play left from ``seat``; after ``max_rounds`` rounds, or with nobody left to act,
    :data:`SHOWDOWN` (R4.4), else :data:`DECIDED`."""
    m = st[g, G_M]
    pos = st[g, seat_field(p, seat, S_POS)]
    q = -1
    for step in range(1, m + 1):
        candidate = (pos + step) % m
        if can_act(st, g, p, order(st, g, p, candidate)):
            q = candidate
            break
    if q < 0:
        return SHOWDOWN
    if q <= pos:  # play went round past the dealer: a round is complete
        st[g, G_ROUNDS] += 1
        if st[g, G_ROUNDS] >= p[P_MAX_ROUNDS]:
            return SHOWDOWN
    st[g, G_PHASE] = ACT
    st[g, G_TO_ACT] = order(st, g, p, q)
    return DECIDED


# ----------------------------------------------------------------- trades
@kernel
def offer(st, g, p, seat, slot):
    """R5.4, R7.2: ``seat`` offers a card face down; his left neighbour answers."""
    st[g, G_OFFER_TRADER] = seat
    st[g, G_OFFER_CARD] = st[g, p[P_HANDS_AT] + 3 * seat + slot]
    st[g, G_PHASE] = REPLY
    st[g, G_TO_ACT] = left_of(st, g, p, seat)


@kernel
def _replace_card(st, g, at, card, new):
    for i in range(3):
        if st[g, at + i] == card:
            st[g, at + i] = new
            break
    sort_hand(st, g, at)


@kernel
def give(st, g, p, neighbour, slot):
    """The neighbour's card, chosen blind: the two cards change hands; each player
    remembers which card he gave to whom (R11).  Returns the trader."""
    trader, offered = st[g, G_OFFER_TRADER], st[g, G_OFFER_CARD]
    st[g, G_OFFER_TRADER] = -1
    st[g, G_OFFER_CARD] = -1
    hands = p[P_HANDS_AT]
    given = st[g, hands + 3 * neighbour + slot]
    _replace_card(st, g, hands + 3 * trader, offered, given)
    _replace_card(st, g, hands + 3 * neighbour, given, offered)
    memory = p[P_MEMORY_AT]
    one = np.int64(1)
    side = B_GAVE_LEFT if left_of(st, g, p, trader) == neighbour else B_GAVE_RIGHT
    st[g, memory + _SETS * trader + side] |= one << offered
    side = B_GAVE_LEFT if left_of(st, g, p, neighbour) == trader else B_GAVE_RIGHT
    st[g, memory + _SETS * neighbour + side] |= one << given
    forget_both(st, g, p, trader, neighbour)  # the two know where both cards went
    place(st, g, p, trader, offered, neighbour)
    place(st, g, p, trader, given, -1)
    place(st, g, p, neighbour, given, trader)
    place(st, g, p, neighbour, offered, -1)
    return trader

