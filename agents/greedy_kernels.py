"""The greedy policy compiled (numba): the twin of :func:`agents.heuristics.greedy_choice`.

It reads one seat's hand, the face-up table, the phase and the legal actions of
a game of a :class:`commerce_env.vector.BatchEngine` (as :mod:`commerce_env.vector.access` gives
them), and picks the action
``greedy_choice`` picks on the same state (tests/vector/test_vector_env.py compares
them).  The batched greedy opponents (:mod:`agents.batched`) and the search's
batched rollouts (:mod:`agents.batched_search`) both play it; it imports no
agent, so neither depends on the other.  Needs the ``vector`` extra (numba).
"""

from __future__ import annotations

import numpy as np

from commerce_env.cards import RANK_PIPS
from commerce_env.engine.actions import (
    BUY_HORSE,
    CONTINUE,
    DECLINE,
    EXCHANGE,
    GIVE,
    KEEP_HAND,
    KNOCK,
    NUM_ACTIONS,
    OFFER,
    PASS,
    READY_MONEY,
    STAND,
    TAKE_WIDOW,
)
from commerce_env.hands import table_index  # compiled as it is (commerce_env.vector registers it)
from commerce_env.vector import access
from commerce_env.vector.access import HORSE, LAST_EXCHANGE, REPLY, STAND_CHOICE, WIDOW_CHOICE
from commerce_env.vector.compiled import inlined, kernel

PIPS = np.asarray(RANK_PIPS, dtype=np.int64)  # the pips of each rank, for keep_score


def flush_ends_deal(engine) -> bool:
    """The variant's R7.4 values and offers (``Game.flush_ends_deal``) for a batched engine, for the kernels."""
    from commerce_env.engine import ENGINES

    return ENGINES[engine.rules.variant].flush_ends_deal


@kernel
def keep_score(a, b, ship, pips):
    """``agents.heuristics.keep_score``: how promising two kept cards are."""
    pa, pb = pips[a >> 2], pips[b >> 2]
    if not ship and a >> 2 == b >> 2:
        return 60 + (a >> 2)
    if (a & 3) == (b & 3):
        near = not ship and abs((a >> 2) - (b >> 2)) <= 2
        return 30 + pa + pb + (4 if near else 0)
    return max(pa, pb)


@kernel
def worst_slot(a, b, c, ship, pips):
    """The slot of the card whose loss leaves the most promising two cards (first of equals)."""
    s0, s1, s2 = keep_score(b, c, ship, pips), keep_score(a, c, ship, pips), keep_score(a, b, ship, pips)
    if s0 >= s1 and s0 >= s2:
        return 0
    return 1 if s1 >= s2 else 2


@kernel
def greedy_choice(a, b, c, t0, t1, t2, phase, masks, r, keys, pips, threshold, ship, barter):
    """``agents.heuristics.greedy_choice`` for one hand ``a b c``, table ``t0 t1 t2`` and mask row ``r``;
    ``ship``: the variant's ``flush_ends_deal`` (R7.4's values)."""
    if phase == WIDOW_CHOICE:  # R6.2: judge the face-up widow
        return TAKE_WIDOW if keys[table_index(t0, t1, t2)] >= threshold else KEEP_HAND
    if phase == HORSE:
        return BUY_HORSE
    value = keys[table_index(a, b, c)]
    strong = value >= threshold
    if phase == STAND_CHOICE:
        return STAND if strong else CONTINUE
    if phase == REPLY:
        if masks[r, KNOCK] and strong:
            return KNOCK
        return GIVE + worst_slot(a, b, c, ship, pips)
    if masks[r, DECLINE]:  # R7.2
        return DECLINE if strong else OFFER + worst_slot(a, b, c, True, pips)
    if masks[r, OFFER]:  # R5.3-R5.4
        if strong:
            return KNOCK
        slot = worst_slot(a, b, c, False, pips)
        return READY_MONEY + slot if masks[r, READY_MONEY] and not barter else OFFER + slot
    # exchanges with a face-up table (R6.3, R8.2, R8.3)
    stop = KNOCK if masks[r, KNOCK] else STAND
    if strong and phase != LAST_EXCHANGE:
        return stop
    best, best_value = -1, -1
    for action in range(EXCHANGE, NUM_ACTIONS):
        if not masks[r, action]:
            continue
        own, slot = (action - EXCHANGE) // 3, (action - EXCHANGE) % 3
        t = t0 if slot == 0 else (t1 if slot == 1 else t2)
        x = t if own == 0 else a
        y = t if own == 1 else b
        z = t if own == 2 else c
        v = keys[table_index(x, y, z)]
        if v > best_value:
            best, best_value = action, v
    if best_value > value:
        return best
    if masks[r, PASS] and (phase == LAST_EXCHANGE or masks[r, KNOCK]):  # R6.3's pass lets a turn go
        return PASS
    return stop


@inlined
def greedy_move(rows, g, params, keys, masks, pips, seat, threshold, ship, barter):
    """:func:`greedy_choice` for ``seat`` to act in game ``g`` of a batched engine's kernel state
    (:mod:`commerce_env.vector.access`): the move of the compiled loops that play it.  Inlined,
    as those loops' other steps: a call counts a reference on each array it is given."""
    c0, c1, c2 = access.hand(rows, g, params, seat)
    t0, t1, t2 = access.table(rows, g, params)
    return greedy_choice(c0, c1, c2, t0, t1, t2, access.phase(rows, g), masks, g, keys, pips, threshold, ship, barter)


@kernel
def greedy_actions(hands, tables, phases, masks, keys, pips, threshold, ship, barter):
    """:func:`greedy_choice` for each row of ``hands``, ``tables``, ``phases`` and ``masks``."""
    out = np.empty(len(phases), np.int64)
    for r in range(len(phases)):
        out[r] = greedy_choice(hands[r, 0], hands[r, 1], hands[r, 2], tables[r, 0], tables[r, 1], tables[r, 2],
                               phases[r], masks, r, keys, pips, threshold, ship, barter)
    return out
