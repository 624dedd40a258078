"""One game's life in a row: ``Game``'s methods that call the variant's hooks (engine/base.py's
``_start_match``, ``_start_deal``, ``legal_actions`` and ``apply``; engine/settling.py's ``_deal``).

The shared pieces are in :mod:`.base` and :mod:`.settling`, the variants' branches behind the hooks
of :mod:`.variants`; the loops over games that call these are :mod:`.kernels`.
"""

from __future__ import annotations

from ..engine.actions import ACTION_KIND_INDEX, NUM_ACTIONS
from . import base, variants
from .base import NEXT_DEAL, SHOWDOWN
from .row import G_AWAITING, G_OVER, G_TO_ACT, G_UNSHUFFLED, S_LAST_KIND, inlined, kernel, seat_field
from .settling import finish_deal


@kernel
def start_match(st, g, p, keys, masks, dealer, pack):
    """``Game._start_match``: a new match, ``dealer`` to deal, its first deal dealt; the mask row fresh.
    ``pack``: an int64 scratch array of 52."""
    base.start_match(st, g, p, dealer)
    variants.begin_match(st, g, p)
    run_deals(st, g, p, keys, pack)
    legal_mask(st, g, p, masks)


@inlined
def deal(st, g, p, pack):
    """``pack`` dealt, then the variant's first decision.  Returns whether the deal is settled at
    once (a dealt flush, R7.3)."""
    base.deal_pack(st, g, p, pack)
    return variants.begin_deal(st, g, p)


@inlined
def start_deal(st, g, p, pack):
    """``Game._start_deal``: R3.1's order, then the next pack dealt, or (``wait_for_packs``) a wait
    for :func:`supply_pack`.  Returns whether the deal is settled at once (R7.3)."""
    base.seat_order(st, g, p)
    if not base.next_pack(st, g, p, pack):
        return False
    return deal(st, g, p, pack)


@kernel
def run_deals(st, g, p, keys, pack):
    """``Settling._deal``: deal; while a deal is settled at once (R7.3), settle it and deal the next (R4.5)."""
    while start_deal(st, g, p, pack):
        if not finish_deal(st, g, p, keys, False):
            return


@kernel
def showdown(st, g, p, keys, pack):
    """The hands are shown: settle, end the deal, deal the next one if the match goes on."""
    if finish_deal(st, g, p, keys, True):
        run_deals(st, g, p, keys, pack)


@kernel
def supply_pack(st, g, p, keys, masks, pack):
    """``Game.supply_pack``: the awaited deal dealt from ``pack``; a deal settled at once (R7.3)
    asks for the next pack again.  The mask row fresh."""
    st[g, G_AWAITING] = 0
    st[g, G_UNSHUFFLED] = 0
    if deal(st, g, p, pack) and finish_deal(st, g, p, keys, False):
        run_deals(st, g, p, keys, pack)
    legal_mask(st, g, p, masks)


@inlined
def legal_mask(st, g, p, masks):
    """Row ``g`` of ``masks``: the legal actions of the player to act (all zero when over)."""
    for a in range(NUM_ACTIONS):
        masks[g, a] = 0
    if st[g, G_OVER] or st[g, G_AWAITING]:
        return
    variants.legal(st, g, p, masks)


@kernel
def apply_action(st, g, p, keys, masks, pack, action):
    """``Game.apply`` for a legal action (the caller has checked row ``g`` of ``masks``); the mask
    row fresh.  ``pack``: an int64 scratch array of 52 (a new deal may be dealt)."""
    seat = st[g, G_TO_ACT]
    st[g, seat_field(p, seat, S_LAST_KIND)] = ACTION_KIND_INDEX[action]
    then = variants.step(st, g, p, seat, action)
    if then == SHOWDOWN:
        showdown(st, g, p, keys, pack)
    elif then == NEXT_DEAL:
        run_deals(st, g, p, keys, pack)
    legal_mask(st, g, p, masks)
