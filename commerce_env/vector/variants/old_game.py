"""The old game in a row (docs/rules.md R8; the batched twin of engine/old_game.py)."""

from __future__ import annotations

from ...engine.actions import EXCHANGE, PASS, STAND
from ...engine.old_game import VARIANT
from ..base import DECIDED, SHOWDOWN, can_act, next_turn, order
from ..row import (
    G_LT_HEAD,
    G_LT_LEN,
    G_M,
    G_PHASE,
    G_STOOD,
    G_TO_ACT,
    G_WINNERS,
    LAST_EXCHANGE,
    S_LAST_TURNS,
    S_PASSED,
    S_POS,
    S_STOOD,
    S_WINNER,
    inlined,
    kernel,
    seat_field,
)
from ..settlement import transfer, winner
from .widow import exchange_with_table

V_OLD = VARIANT.kernel  # the code the hooks switch on (variants/__init__.py)


@inlined
def legal(st, g, p, masks):
    """``OldGame._legal`` into row ``g`` of ``masks``: exchange, pass, or stand (not in the last exchanges)."""
    for i in range(9):
        masks[g, EXCHANGE + i] = 1
    masks[g, PASS] = 1
    if st[g, G_PHASE] != LAST_EXCHANGE:
        masks[g, STAND] = 1


@inlined
def step(st, g, p, seat, action):
    """``OldGame._step``; answers what the shared machine does next (``base.DECIDED`` ...)."""
    if action >= EXCHANGE:
        exchange_with_table(st, g, p, seat, action)
    elif action == PASS:
        st[g, seat_field(p, seat, S_PASSED)] = 1  # R8.2: no more exchanges, no more turns
    else:
        st[g, seat_field(p, seat, S_STOOD)] = 1
        st[g, G_STOOD] += 1
    if st[g, G_PHASE] == LAST_EXCHANGE:
        return _next_last_turn(st, g, p)
    if action == STAND and st[g, G_STOOD] == 2:
        # R8.3: from the second stander's left, everyone still in gets one turn.
        m = st[g, G_M]
        start = st[g, seat_field(p, seat, S_POS)]
        count = 0
        for k in range(1, m):
            s = order(st, g, p, (start + k) % m)
            if can_act(st, g, p, s):
                st[g, seat_field(p, count, S_LAST_TURNS)] = s
                count += 1
        st[g, G_LT_HEAD] = 0
        st[g, G_LT_LEN] = count
        st[g, G_PHASE] = LAST_EXCHANGE
        return _next_last_turn(st, g, p)
    return next_turn(st, g, p, seat)


@kernel
def _next_last_turn(st, g, p):
    if st[g, G_LT_HEAD] < st[g, G_LT_LEN]:
        st[g, G_TO_ACT] = st[g, seat_field(p, st[g, G_LT_HEAD], S_LAST_TURNS)]
        st[g, G_LT_HEAD] += 1
        return DECIDED
    return SHOWDOWN


@inlined
def settle(st, g, p):
    """R8.4: each winner receives one stake from every player who is not a winner."""
    for k in range(st[g, G_WINNERS]):
        for i in range(st[g, G_M]):
            s = order(st, g, p, i)
            if st[g, seat_field(p, s, S_WINNER)] == 0:
                transfer(st, g, p, s, winner(st, g, p, k))
