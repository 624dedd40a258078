"""How a deal ends in a row (the batched twin of engine/settling.py): the hands shown, the variant's
settlement, players going out (R4.6), and the variant's end of the deal.

The payments and ends a variant's own settlement calls are in :mod:`.settlement`; here the
showdown calls the variant's hooks (:mod:`.variants`) in ``Game._showdown``'s order.
"""

from __future__ import annotations

from . import variants
from .base import order
from .hands import hand_value
from .knowledge import place_for_all
from .row import (
    G_DEALS_PLAYED,
    G_M,
    G_NEWLY_OUT,
    G_OVER,
    G_TO_ACT,
    P_HANDS_AT,
    P_HAS_LIVES,
    P_NUM_PLAYERS,
    P_REWARD,
    S_COUNTERS,
    S_NEWLY_OUT,
    S_OUT,
    S_VALUE,
    inlined,
    kernel,
    seat_field,
)
from .settlement import OUTCOME, best_hands, pay_rewards


@inlined
def show_hands(st, g, p, keys):
    """R11: every hand of the deal is shown; each seat's value (-1 without a hand) for R3.3."""
    hands = p[P_HANDS_AT]
    for i in range(st[g, G_M]):
        s = order(st, g, p, i)
        for j in range(3):
            if st[g, hands + 3 * s + j] >= 0:
                place_for_all(st, g, p, st[g, hands + 3 * s + j], s)
    for s in range(p[P_NUM_PLAYERS]):
        at = hands + 3 * s
        st[g, seat_field(p, s, S_VALUE)] = -1 if st[g, at] < 0 else hand_value(st, g, at, keys)


@kernel
def finish_deal(st, g, p, keys, counted):
    """``Game._showdown``: the hands shown, the winners (R3.3), the variant's payments, the end of
    the deal (``counted`` toward `deals` unless settled before any decision, R4.5).  Returns
    whether a new deal must be dealt."""
    show_hands(st, g, p, keys)
    best_hands(st, g, p)
    variants.settle(st, g, p)
    return end_deal(st, g, p, counted)


@inlined
def end_deal(st, g, p, counted):
    """``Settling._end_deal``: players out (R4.6), the rewards, then the variant's end of the deal."""
    st[g, G_TO_ACT] = -1
    if counted:
        st[g, G_DEALS_PLAYED] += 1
    newly = 0
    first_out = -1
    for s in range(p[P_NUM_PLAYERS]):
        st[g, seat_field(p, s, S_NEWLY_OUT)] = 0
    if p[P_HAS_LIVES]:
        for i in range(st[g, G_M]):
            s = order(st, g, p, i)
            if st[g, seat_field(p, s, S_COUNTERS)] <= 0 and st[g, seat_field(p, s, S_OUT)] == 0:
                st[g, seat_field(p, s, S_OUT)] = 1
                st[g, seat_field(p, s, S_NEWLY_OUT)] = 1
                if newly == 0:
                    first_out = s
                newly += 1
    st[g, G_NEWLY_OUT] = newly
    pay_rewards(st, g, p)
    return variants.after_deal(st, g, p, newly, first_out)


@kernel
def finished_for(st, g, p, seat):
    """``Game.finished_for``: over, or (counter rewards) ``seat`` out and not offered the horse."""
    if st[g, G_OVER]:
        return True
    return (p[P_HAS_LIVES] != 0 and p[P_REWARD] != OUTCOME and st[g, seat_field(p, seat, S_OUT)] != 0
            and st[g, G_TO_ACT] != seat)
