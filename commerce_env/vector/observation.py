"""What a seat observes, written from a row (the batched twin of commerce_env/observation.py, R11).

The vector is :func:`commerce_env.observation.encode`'s, element for element: the same sections at
the places :func:`commerce_env.observation.layout` gives them, the same per-player fields
(``PLAYER_FIELDS``), tested step by step against it (tests/vector/test_vector_engine.py).
"""

from __future__ import annotations

from ..engine.actions import KINDS
from ..observation import CARD_FEATURES, PLAYER_FEATURES, PLAYER_FIELDS, SCALE, layout
from . import variants
from .row import (
    B_DISCARDED,
    B_GAVE_LEFT,
    B_GAVE_RIGHT,
    G_DEALER,
    G_PHASE,
    G_POOL,
    G_ROUNDS,
    G_STOCK,
    G_TO_ACT,
    HORSE,
    MEMORY_SETS,
    P_HANDS_AT,
    P_HAS_TABLE,
    P_KNOWN_AT,
    P_MAX_ROUNDS,
    P_MEMORY_AT,
    P_NUM_PLAYERS,
    P_TABLE_AT,
    REPLY,
    S_COUNTERS,
    S_LAST_KIND,
    S_MONEY,
    S_OUT,
    S_PASSED,
    S_STOOD,
    kernel,
    seat_field,
)

_AT = {name: start for name, start, _ in layout(2)}  # only `players`' length depends on the players
O_HAND = _AT["hand"]
O_HAND_SLOTS = _AT["hand_slots"]
O_TABLE_SLOTS = _AT["table_slots"]
O_GAVE_LEFT = _AT["gave_left"]
O_GAVE_RIGHT = _AT["gave_right"]
O_DISCARDED = _AT["discarded"]
O_PHASE = _AT["phase"]
O_FLAGS = _AT["flags"]
O_PLAYERS = _AT["players"]
_FIELD = {name: i for i, name in enumerate(PLAYER_FIELDS)}  # a player's block, from the observer's left
F_COUNTERS, F_MONEY, F_OUT = _FIELD["counters"], _FIELD["money"], _FIELD["out"]
F_DEALER, F_TO_ACT, F_STOOD, F_PASSED = _FIELD["dealer"], _FIELD["to_act"], _FIELD["stood"], _FIELD["passed"]
F_LAST_KIND, F_LAST_NONE = _FIELD[f"last_{KINDS[0]}"], _FIELD["last_none"]
_SETS = len(MEMORY_SETS)


@kernel
def encode(st, g, p, seat, out, k):
    """``commerce_env.observation.encode`` of game ``g`` for ``seat`` into row ``k`` of ``out``."""
    n = p[P_NUM_PLAYERS]
    for i in range(out.shape[1]):
        out[k, i] = 0.0
    phase = st[g, G_PHASE]
    out[k, O_PHASE + phase] = 1.0
    hand = p[P_HANDS_AT] + 3 * seat
    if st[g, hand] >= 0 and variants.sees_own_hand(st, g, p, seat):
        for i in range(3):
            c = st[g, hand + i]
            out[k, O_HAND + c] = 1.0
            out[k, O_HAND_SLOTS + i * CARD_FEATURES + (c >> 2)] = 1.0
            out[k, O_HAND_SLOTS + i * CARD_FEATURES + 13 + (c & 3)] = 1.0
        out[k, O_FLAGS] = 1.0  # he sees his hand
    if p[P_HAS_TABLE]:
        for i in range(3):
            c = st[g, p[P_TABLE_AT] + i]
            out[k, O_TABLE_SLOTS + i * CARD_FEATURES + (c >> 2)] = 1.0
            out[k, O_TABLE_SLOTS + i * CARD_FEATURES + 13 + (c & 3)] = 1.0
    memory = p[P_MEMORY_AT] + _SETS * seat  # R11: the cards that passed through his hands
    left, right = st[g, memory + B_GAVE_LEFT], st[g, memory + B_GAVE_RIGHT]
    discarded = st[g, memory + B_DISCARDED]
    if left | right | discarded:
        for c in range(52):
            if (left >> c) & 1:
                out[k, O_GAVE_LEFT + c] = 1.0
            if (right >> c) & 1:
                out[k, O_GAVE_RIGHT + c] = 1.0
            if (discarded >> c) & 1:
                out[k, O_DISCARDED + c] = 1.0
    to_act = st[g, G_TO_ACT]
    if to_act == seat and phase == REPLY:
        out[k, O_FLAGS + 1] = 1.0  # an offer awaits his answer
    if phase == HORSE:
        out[k, O_FLAGS + 5] = 1.0
    out[k, O_FLAGS + 2] = st[g, G_STOCK] / 52.0
    out[k, O_FLAGS + 3] = st[g, G_POOL] * SCALE
    out[k, O_FLAGS + 4] = st[g, G_ROUNDS] / p[P_MAX_ROUNDS]
    dealer = st[g, G_DEALER]
    for j in range(n):
        other = (seat + j) % n
        block = O_PLAYERS + j * PLAYER_FEATURES
        out[k, block + F_COUNTERS] = st[g, seat_field(p, other, S_COUNTERS)] * SCALE
        out[k, block + F_MONEY] = st[g, seat_field(p, other, S_MONEY)] * SCALE
        if st[g, seat_field(p, other, S_OUT)]:
            out[k, block + F_OUT] = 1.0
        if other == dealer:
            out[k, block + F_DEALER] = 1.0
        if other == to_act:
            out[k, block + F_TO_ACT] = 1.0
        if st[g, seat_field(p, other, S_STOOD)]:
            out[k, block + F_STOOD] = 1.0
        if st[g, seat_field(p, other, S_PASSED)]:
            out[k, block + F_PASSED] = 1.0
        kind = st[g, seat_field(p, other, S_LAST_KIND)]
        out[k, block + (F_LAST_KIND + kind if kind >= 0 else F_LAST_NONE)] = 1.0  # nothing done yet: `last_none`


@kernel
def known_cards(st, g, p, seat, out, k):
    """Row ``k`` of ``out``: the cards ``seat`` knows to be in each other hand of game ``g``, 52 per
    player from his left (``view.public_hands``, :class:`commerce_env.features.KnownHands`)."""
    n = p[P_NUM_PLAYERS]
    for i in range(out.shape[1]):
        out[k, i] = 0.0
    row = p[P_KNOWN_AT] + seat * n
    for j in range(1, n):
        bits = st[g, row + (seat + j) % n]
        if bits:
            for c in range(52):
                if (bits >> c) & 1:
                    out[k, (j - 1) * 52 + c] = 1.0
