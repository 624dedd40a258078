"""The variants' hooks: one switch on the variant's kernel code per hook.

Each variant's branches live in its own module here, beside its engine module
(``commerce_env/engine/widow.py`` and ``variants/widow.py``).  The readable engine reaches them
by overriding ``Game``'s methods; compiled code cannot, so each hook below picks the variant's
function by its code (``Variant.kernel``), and the shared machine (:mod:`..game`, :mod:`..settling`,
:mod:`..observation`) calls only these.  A new variant adds its module and its lines here.

The switches and the variants' hook functions are compiled ``inlined`` (:mod:`..row`): a hook
then costs no call, as a branch of the one-file engine cost none.
"""

from __future__ import annotations

from ..row import P_VARIANT, inlined
from ..settlement import end_or_deal_next
from . import my_ship_sails, old_game, pool, trade_barter, widow
from .my_ship_sails import V_SHIP
from .old_game import V_OLD
from .pool import V_POOL
from .trade_barter import V_TRADE_BARTER
from .widow import V_WIDOW


@inlined
def begin_match(st, g, p):
    """``Game._begin_match``: a variant's one-off payments at the start of a match (R9.2)."""
    if p[P_VARIANT] == V_POOL:
        pool.begin_match(st, g, p)


@inlined
def begin_deal(st, g, p):
    """``Game._begin_deal``: the deal's first decision.  Returns whether the deal is settled at once
    (a dealt flush, R7.3)."""
    v = p[P_VARIANT]
    if v == V_WIDOW:
        widow.begin_deal(st, g, p)
    elif v == V_SHIP:
        return my_ship_sails.begin_deal(st, g, p)
    return False


@inlined
def legal(st, g, p, masks):
    """``Game._legal``: the player to act's legal actions into row ``g`` of ``masks`` (cleared)."""
    v = p[P_VARIANT]
    if v == V_TRADE_BARTER:
        trade_barter.legal(st, g, p, masks)
    elif v == V_WIDOW:
        widow.legal(st, g, p, masks)
    elif v == V_SHIP:
        my_ship_sails.legal(st, g, p, masks)
    elif v == V_OLD:
        old_game.legal(st, g, p, masks)
    elif v == V_POOL:
        pool.legal(st, g, p, masks)


@inlined
def step(st, g, p, seat, action):
    """``Game._step`` of a legal action; answers what the shared machine does next (``base.DECIDED``,
    ``base.SHOWDOWN`` or ``base.NEXT_DEAL``)."""
    v = p[P_VARIANT]
    if v == V_TRADE_BARTER:
        return trade_barter.step(st, g, p, seat, action)
    if v == V_WIDOW:
        return widow.step(st, g, p, seat, action)
    if v == V_SHIP:
        return my_ship_sails.step(st, g, p, seat, action)
    if v == V_OLD:
        return old_game.step(st, g, p, seat, action)
    if v == V_POOL:
        return pool.step(st, g, p, seat, action)
    raise ValueError("no step for this kernel code: add the variant's lines to commerce_env/vector/variants")


@inlined
def settle(st, g, p):
    """``Game._settle``: the variant's payments at the showdown (the winners are set)."""
    v = p[P_VARIANT]
    if v == V_TRADE_BARTER:
        trade_barter.settle(st, g, p)
    elif v == V_WIDOW:
        widow.settle(st, g, p)
    elif v == V_SHIP:
        my_ship_sails.settle(st, g, p)
    elif v == V_OLD:
        old_game.settle(st, g, p)
    elif v == V_POOL:
        pool.settle(st, g, p)


@inlined
def after_deal(st, g, p, newly, first_out):
    """``Game._after_deal``: the match's end or the next dealer, after the deal's payments and the
    players out (``newly`` of them, ``first_out`` the first).  Returns whether a new deal must be dealt."""
    if p[P_VARIANT] == V_POOL:
        return pool.after_deal(st, g, p, newly, first_out)
    return end_or_deal_next(st, g, p, newly)


@inlined
def sees_own_hand(st, g, p, seat):
    """``Game.sees_own_hand``: R11, a player sees his own cards (the widow dealer's blind choice aside)."""
    if p[P_VARIANT] == V_WIDOW:
        return widow.sees_own_hand(st, g, seat)
    return True
