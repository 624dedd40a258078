"""Commerce with a widow in a row (docs/rules.md R6; the batched twin of engine/widow.py)."""

from __future__ import annotations

from ...engine.actions import EXCHANGE, KEEP_HAND, KNOCK, PASS, TAKE_WIDOW
from ...engine.widow import VARIANT
from ..base import DECIDED, SHOWDOWN, next_turn, order
from ..hands import sort_hand
from ..knowledge import place_for_all
from ..row import ACT, G_DEALER, G_PHASE, G_TO_ACT, P_ALLOW_PASS, P_HANDS_AT, P_TABLE_AT, WIDOW_CHOICE, inlined
from ..settlement import pay_pool

V_WIDOW = VARIANT.kernel  # the code the hooks switch on (variants/__init__.py)


@inlined
def exchange_with_table(st, g, p, seat, action):
    """R6.3 / R8.2: a hand card goes face up in the taken table card's place."""
    own = p[P_HANDS_AT] + 3 * seat + (action - EXCHANGE) // 3
    slot = p[P_TABLE_AT] + (action - EXCHANGE) % 3
    place_for_all(st, g, p, st[g, own], -1)
    place_for_all(st, g, p, st[g, slot], seat)
    st[g, own], st[g, slot] = st[g, slot], st[g, own]
    sort_hand(st, g, p[P_HANDS_AT] + 3 * seat)


@inlined
def begin_deal(st, g, p):
    """R6.2: the dealer's blind choice first (no turn, R4.4)."""
    st[g, G_PHASE] = WIDOW_CHOICE
    st[g, G_TO_ACT] = st[g, G_DEALER]


@inlined
def sees_own_hand(st, g, seat):
    """R11: the widow dealer does not see his hand before his blind choice (R6.2)."""
    return not (st[g, G_PHASE] == WIDOW_CHOICE and seat == st[g, G_DEALER])


@inlined
def legal(st, g, p, masks):
    """``Widow._legal`` into row ``g`` of ``masks``."""
    if st[g, G_PHASE] == WIDOW_CHOICE:
        masks[g, TAKE_WIDOW] = 1
        masks[g, KEEP_HAND] = 1
        return
    masks[g, KNOCK] = 1
    if p[P_ALLOW_PASS]:
        masks[g, PASS] = 1
    for i in range(9):
        masks[g, EXCHANGE + i] = 1


@inlined
def step(st, g, p, seat, action):
    """``Widow._step``; answers what the shared machine does next (``base.DECIDED`` ...)."""
    if action == TAKE_WIDOW or action == KEEP_HAND:  # R6.2
        if action == TAKE_WIDOW:  # his unseen hand becomes the new widow
            hand, table = p[P_HANDS_AT] + 3 * seat, p[P_TABLE_AT]
            for i in range(3):
                st[g, hand + i], st[g, table + i] = st[g, table + i], st[g, hand + i]
                place_for_all(st, g, p, st[g, hand + i], seat)
            sort_hand(st, g, hand)
        st[g, G_PHASE] = ACT
        st[g, G_TO_ACT] = order(st, g, p, 0)  # the eldest's first turn
        return DECIDED
    if action == KNOCK:  # R6.4
        return SHOWDOWN
    if action == PASS:  # R6.3 allow_pass
        return next_turn(st, g, p, seat)
    exchange_with_table(st, g, p, seat, action)
    return next_turn(st, g, p, seat)


@inlined
def settle(st, g, p):
    """R6.4: the pool to the best hand; no dealer payments."""
    pay_pool(st, g, p)
