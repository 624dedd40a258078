"""The batched engine from inside compiled code: the public API for numba loops over its games.

A policy that picks actions in a compiled loop (the batched greedy opponents, search's batched
rollouts: :mod:`agents.batched`, :mod:`agents.batched_search`) must not pay a call from Python per
decision, nor know how a game is laid out in its row.  It takes :meth:`BatchEngine.kernel_state`
once, passes the :class:`KernelState` into its own ``@njit`` function, unpacks it there once
(``rows, params, keys, masks = state``: numba counts a reference on every read of an array held in
a tuple, some 25% of such a loop's time), and reads and moves each game with the functions below.
The row's layout may change (:mod:`.row`); these functions and their meaning do not:

* reads: ``is_over(rows, g)``, ``awaits_pack(rows, g)``, ``to_act(rows, g)``, ``phase(rows, g)``
  (``ACT`` ... ``OVER``), ``hand(rows, g, params, seat)``, ``table(rows, g, params)``,
  ``finished_for(rows, g, params, seat)`` (``Game.finished_for``), ``num_players(params)``;
* moves: ``apply_action(rows, g, params, keys, masks, pack, action)`` (``Game.apply`` of a legal
  action, ``masks[g]``), ``start_match(rows, g, params, keys, masks, dealer, pack)`` (a new
  match), ``take_reward(rows, g, params, seat)``, ``drop_rewards(rows, g, params)``,
  ``random_below(rows, g, bound)`` (a draw from the game's own generator), ``random_legal_action(rows,
  g, masks)`` (the random policy's move, from the same generator).  Each move leaves
  ``masks[g]`` fresh; ``pack`` is an int64 scratch array of 52, reused from call to call.

Why accessors and not a compiled "play these policies" entry point here: the policies are agents,
which this package may not import, and numba cannot cache a loop that takes a policy as a function
argument; so the loop stays with the agent, and the engine gives it a stable API.  The moves are
the engine's own functions, not wrappers: a wrapper costs numba a call, or reference counts where
it is inlined, on each decision (some 5-10% of an opponent loop).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .game import apply_action, start_match  # noqa: F401 - part of the API (see the module docstring)
from .row import (  # noqa: F401 - the phases, as the phase column numbers them, are part of the API
    ACT,
    G_AWAITING,
    G_OVER,
    G_PHASE,
    G_TO_ACT,
    HORSE,
    LAST_EXCHANGE,
    OVER,
    P_HANDS_AT,
    P_NUM_PLAYERS,
    P_REWARDS_AT,
    P_TABLE_AT,
    REPLY,
    REWARD_UNIT,
    STAND_CHOICE,
    WIDOW_CHOICE,
    kernel,
)
from .settling import finished_for  # noqa: F401 - part of the API
from .shuffle import random_below, random_legal_action  # noqa: F401 - part of the API


class KernelState(NamedTuple):
    """A :class:`BatchEngine`'s arrays, for compiled code (:meth:`BatchEngine.kernel_state`)."""

    rows: np.ndarray
    """int64, one row per game (its layout is private)."""
    params: np.ndarray
    """int64: the rules and the row's layout, as the engine's kernels read them."""
    keys: np.ndarray
    """The variant's hand values of all ordered triples, at ``commerce_env.hands.table_index``."""
    masks: np.ndarray
    """int8 ``(num_games, 27)``: row ``g`` is game ``g``'s legal actions (kept fresh by every move)."""


@kernel
def num_players(params):
    return params[P_NUM_PLAYERS]


@kernel
def is_over(rows, g):
    """Whether game ``g``'s match is over."""
    return rows[g, G_OVER] != 0


@kernel
def awaits_pack(rows, g):
    """Whether game ``g`` waits for its next pack (``BatchEngine.supply_packs``)."""
    return rows[g, G_AWAITING] != 0


@kernel
def to_act(rows, g):
    """The seat to act in game ``g``, -1 when none."""
    return rows[g, G_TO_ACT]


@kernel
def phase(rows, g):
    """Game ``g``'s phase: its index in engine/phases.py's PHASES (this module's ``ACT`` ... ``OVER``)."""
    return rows[g, G_PHASE]


@kernel
def hand(rows, g, params, seat):
    """``seat``'s three cards in game ``g``, sorted (-1s for a seat dealt nothing)."""
    at = params[P_HANDS_AT] + 3 * seat
    return rows[g, at], rows[g, at + 1], rows[g, at + 2]


@kernel
def table(rows, g, params):
    """Game ``g``'s face-up table or widow, in its slots (-1s in a variant without one)."""
    at = params[P_TABLE_AT]
    return rows[g, at], rows[g, at + 1], rows[g, at + 2]


@kernel
def take_reward(rows, g, params, seat):
    """What game ``g`` owes ``seat`` since the last take (as ``BatchEngine.rewards`` would pay it), now
    taken: nothing is owed to ``seat`` after.  ``seat`` -1: nobody, 0.0."""
    if seat < 0:
        return 0.0
    at = params[P_REWARDS_AT] + seat
    reward = rows[g, at] / REWARD_UNIT
    rows[g, at] = 0
    return reward


@kernel
def drop_rewards(rows, g, params):
    """Forget what game ``g`` owes every seat (a loop that pays its learner alone, at its end)."""
    at = params[P_REWARDS_AT]
    for s in range(params[P_NUM_PLAYERS]):
        rows[g, at + s] = 0
