"""Payments and the ends of deals and matches in a row (the batched twin of engine/settlement.py).

Ties and the worst hand (R3.3-R3.4), dividing a pool (R3.5), transfers and rewards, going on to
the next deal or ending the match (R3.2, R4.5), and the default end of a deal (R6.5, R7.5).
None of it calls a variant's hook: the variants' settlements (:mod:`.variants`) build on it,
and :mod:`.settling` calls them.
"""

from __future__ import annotations

from .base import balance, order
from .row import (
    DEALS_UNTIL_OUT,
    G_DEALER,
    G_DEALS_PLAYED,
    G_HAS_LOSERS,
    G_M,
    G_OVER,
    G_PHASE,
    G_POOL,
    G_TO_ACT,
    G_WINNERS,
    OVER,
    P_DEALS,
    P_HAS_LIVES,
    P_MATCH_END,
    P_NUM_PLAYERS,
    P_REWARD,
    P_REWARDS_AT,
    P_TIE_BREAK,
    REWARD_UNIT,
    S_COUNTERS,
    S_LOSER,
    S_NEWLY_OUT,
    S_OUT,
    S_PAID,
    S_VALUE,
    S_WINNER,
    S_WINNERS,
    choice,
    inlined,
    kernel,
    seat_field,
)

TIE_DEALER, TIE_SPLIT = choice("tie_break", "dealer"), choice("tie_break", "split")
WHISKEY = choice("match_end", "whiskey")
OUTCOME = choice("reward", "outcome")


# ------------------------------------------------------------- ties (R3.3)
@inlined
def preference(st, g, p, i):
    """The seat at place ``i`` of R3.3's order of preference (``settlement.preference_order``)."""
    m = st[g, G_M]
    if p[P_TIE_BREAK] == TIE_DEALER:
        return order(st, g, p, (i + m - 1) % m)  # the dealer, then the eldest and on
    return order(st, g, p, i)


@inlined
def winner(st, g, p, k):
    """The ``k``-th winner of the last showdown, in preference order."""
    return st[g, seat_field(p, k, S_WINNERS)]


@kernel
def best_hands(st, g, p):
    """R3.3: the winners (in preference order) into the WINNERS list and flags; their number."""
    m = st[g, G_M]
    best = -(1 << 40)
    for i in range(m):
        best = max(best, st[g, seat_field(p, order(st, g, p, i), S_VALUE)])
    for s in range(p[P_NUM_PLAYERS]):
        st[g, seat_field(p, s, S_WINNER)] = 0
    count = 0
    for i in range(m):
        s = preference(st, g, p, i)
        if st[g, seat_field(p, s, S_VALUE)] == best:
            st[g, seat_field(p, count, S_WINNERS)] = s
            st[g, seat_field(p, s, S_WINNER)] = 1
            count += 1
            if p[P_TIE_BREAK] != TIE_SPLIT:
                break
    st[g, G_WINNERS] = count
    return count


@kernel
def worst_hand(st, g, p, among_newly_out):
    """R3.4: the lowest hand (among the newly out if asked), the last in preference among equals."""
    m = st[g, G_M]
    lowest = 1 << 40
    for i in range(m):
        s = order(st, g, p, i)
        if among_newly_out and st[g, seat_field(p, s, S_NEWLY_OUT)] == 0:
            continue
        lowest = min(lowest, st[g, seat_field(p, s, S_VALUE)])
    worst = -1
    for i in range(m):
        s = preference(st, g, p, i)
        if among_newly_out and st[g, seat_field(p, s, S_NEWLY_OUT)] == 0:
            continue
        if st[g, seat_field(p, s, S_VALUE)] == lowest:
            worst = s
    return worst


# ---------------------------------------------------------------- payments
@inlined
def transfer(st, g, p, payer, payee):
    """One counter from ``payer`` to ``payee``."""
    st[g, seat_field(p, payer, S_COUNTERS)] -= 1
    st[g, seat_field(p, payee, S_COUNTERS)] += 1


@kernel
def pay_pool(st, g, p):
    """R3.5: the pool to the winners, equal shares, the remainder one each from the dealer's left."""
    m = st[g, G_M]
    amount, count = st[g, G_POOL], st[g, G_WINNERS]
    share, remainder = amount // count, amount % count
    k = 0
    for i in range(m):
        s = order(st, g, p, i)
        if st[g, seat_field(p, s, S_WINNER)]:
            st[g, seat_field(p, s, S_COUNTERS)] += share + (1 if k < remainder else 0)
            k += 1
    st[g, G_POOL] = 0


# ----------------------------------------------------------------- rewards
@inlined
def add_reward(st, g, p, seat, units):
    at = p[P_REWARDS_AT]
    st[g, at + seat] += units
    st[g, at + p[P_NUM_PLAYERS] + seat] += units


@kernel
def pay_rewards(st, g, p):
    """Counter rewards: each player's net change since the last payment."""
    if p[P_REWARD] == OUTCOME:
        return
    for s in range(p[P_NUM_PLAYERS]):
        now = balance(st, g, p, s)
        paid = st[g, seat_field(p, s, S_PAID)]
        if now != paid:
            add_reward(st, g, p, s, (now - paid) * REWARD_UNIT)
            st[g, seat_field(p, s, S_PAID)] = now


@kernel
def take_rewards(st, g, p, rewards):
    """Row ``g`` of ``rewards``: what game ``g`` paid since the last take, by seat; then nothing is owed."""
    at = p[P_REWARDS_AT]
    for s in range(p[P_NUM_PLAYERS]):
        rewards[g, s] = st[g, at + s] / REWARD_UNIT
        st[g, at + s] = 0


# ------------------------------------------------------- the match goes on
@kernel
def deals_reached(st, g, p):
    """Whether the match has played its `deals` (R4.5)."""
    return p[P_DEALS] != DEALS_UNTIL_OUT and st[g, G_DEALS_PLAYED] >= p[P_DEALS]


@kernel
def deal_next(st, g, p):
    """R3.2 / R4.5: the deal passes left to the next player still in the game."""
    n = p[P_NUM_PLAYERS]
    seat = st[g, G_DEALER]
    for _ in range(n):
        seat = (seat + 1) % n
        if st[g, seat_field(p, seat, S_OUT)] == 0:
            break
    st[g, G_DEALER] = seat


@kernel
def mark_out_losers(st, g, p):
    """Every player out of the match is one of its losers."""
    for s in range(p[P_NUM_PLAYERS]):
        if st[g, seat_field(p, s, S_OUT)] != 0:
            st[g, seat_field(p, s, S_LOSER)] = 1
            st[g, G_HAS_LOSERS] = 1


@kernel
def end_match(st, g, p):
    """``Game._end_match``: over; the losers, if not set, are the lowest balances; the outcome rewards."""
    n = p[P_NUM_PLAYERS]
    st[g, G_OVER] = 1
    st[g, G_PHASE] = OVER
    st[g, G_TO_ACT] = -1
    if st[g, G_HAS_LOSERS] == 0:
        lowest = balance(st, g, p, 0)
        highest = lowest
        for s in range(n):
            lowest = min(lowest, balance(st, g, p, s))
            highest = max(highest, balance(st, g, p, s))
        if lowest != highest:
            for s in range(n):
                if balance(st, g, p, s) == lowest:
                    st[g, seat_field(p, s, S_LOSER)] = 1
            st[g, G_HAS_LOSERS] = 1
    pay_rewards(st, g, p)
    if p[P_REWARD] == OUTCOME and st[g, G_HAS_LOSERS]:
        losers = 0
        for s in range(n):
            losers += st[g, seat_field(p, s, S_LOSER)]
        for s in range(n):
            if st[g, seat_field(p, s, S_LOSER)]:
                add_reward(st, g, p, s, -(REWARD_UNIT // losers))
            else:
                add_reward(st, g, p, s, REWARD_UNIT // (n - losers))


@kernel
def own_end(st, g, p, newly):
    """R6.5 / R7.5 `match_end` (``Settling._own_end``); sets the losers of the outcome reward."""
    if not p[P_HAS_LIVES]:
        return False
    if p[P_MATCH_END] == WHISKEY:
        if newly > 0:
            st[g, seat_field(p, worst_hand(st, g, p, True), S_LOSER)] = 1
            st[g, G_HAS_LOSERS] = 1
            return True
        return False
    in_game = 0
    for s in range(p[P_NUM_PLAYERS]):
        if st[g, seat_field(p, s, S_OUT)] == 0:
            in_game += 1
    if in_game <= 1:
        mark_out_losers(st, g, p)
        return True
    return False


@kernel
def end_or_deal_next(st, g, p, newly):
    """``Settling._after_deal``, the default: the match's end (R6.5, R7.5, R4.5), or the next dealer.
    Returns whether a new deal must be dealt."""
    if own_end(st, g, p, newly) or deals_reached(st, g, p):
        end_match(st, g, p)
        return False
    deal_next(st, g, p)
    return True
