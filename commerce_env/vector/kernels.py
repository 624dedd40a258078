"""The batched engine's compiled entry points: loops over games (numba).

Each loops over arrays of games, one row of ``st`` per game (:mod:`.row` declares the row and the
parameter vector ``p``), and calls one game's functions: :mod:`.game` (start a match, the legal
mask, apply an action), :mod:`.observation`, :mod:`.settling`.  :class:`.engine.BatchEngine` calls
them; compiled code outside this package reads a game through :mod:`.access` instead.

The logic is a transcription of the readable engine (``commerce_env/engine``), module for module
(docs/architecture.md), which stays the reference: the lockstep tests (tests/vector/test_vector_engine.py)
play both side by side.  Why numba and one row per game: docs/performance.md, "Batched engine".
"""

from __future__ import annotations

import numpy as np

from .game import apply_action, start_match, supply_pack
from .observation import O_PHASE, encode, known_cards
from .row import G_AWAITING, G_OVER, OVER, P_DECK_SIZE, P_NUM_PLAYERS, P_REWARDS_AT, kernel
from .settlement import take_rewards
from .settling import finished_for
from .shuffle import random_legal_action

__all__ = ["O_PHASE", "OVER", "finished_games", "known_games", "observe_games", "random_play", "reset_games",
           "step_games", "supply_packs"]  # O_PHASE + OVER: where an observation says the match is over


@kernel
def reset_games(st, p, keys, games, dealers, masks, rewards):
    """A new match in each of ``games``; its mask and what the reset paid."""
    pack = np.empty(52, np.int64)
    for k in range(len(games)):
        g = games[k]
        start_match(st, g, p, keys, masks, dealers[k], pack)
        take_rewards(st, g, p, rewards)


@kernel
def step_games(st, p, keys, actions, active, masks, rewards):
    """One action in each active, running game (legality checked by the caller)."""
    pack = np.empty(52, np.int64)
    for g in range(len(actions)):
        if active[g] and st[g, G_OVER] == 0 and st[g, G_AWAITING] == 0:
            apply_action(st, g, p, keys, masks, pack, actions[g])
        take_rewards(st, g, p, rewards)


@kernel
def supply_packs(st, p, keys, games, packs, masks, rewards):
    """Deal each waiting game of ``games`` its next deal from its row of ``packs`` (top first);
    a deal settled at once (R7.3) asks for the next pack again.  Its mask and what it paid."""
    pack = np.empty(52, np.int64)
    for k in range(len(games)):
        g = games[k]
        for i in range(p[P_DECK_SIZE]):
            pack[i] = packs[k, i]
        supply_pack(st, g, p, keys, masks, pack)
        take_rewards(st, g, p, rewards)


@kernel
def random_play(st, p, keys, steps, masks, totals):
    """``steps`` rounds of one uniform random legal action per game, a finished match
    restarted at once (the benchmark's workload; each game's own generator picks).
    Returns the number of decisions; ``totals`` sums the rewards."""
    pack = np.empty(52, np.int64)
    at = p[P_REWARDS_AT]
    n = p[P_NUM_PLAYERS]
    decisions = 0
    for _ in range(steps):
        for g in range(st.shape[0]):
            if st[g, G_OVER]:
                start_match(st, g, p, keys, masks, 0, pack)
            action = random_legal_action(st, g, masks)
            if action >= 0:
                apply_action(st, g, p, keys, masks, pack, action)
            decisions += 1
            for s in range(n):
                totals[g, s] += st[g, at + s]
                st[g, at + s] = 0
    return decisions


@kernel
def observe_games(st, p, games, seats, out):
    """Row ``k`` of ``out``: the observation of game ``games[k]`` for ``seats[k]``."""
    for k in range(len(games)):
        encode(st, games[k], p, seats[k], out, k)


@kernel
def finished_games(st, p, seats, out):
    """``out[g]``: ``Game.finished_for`` of each game's seat in ``seats``."""
    for g in range(len(seats)):
        out[g] = finished_for(st, g, p, seats[g])


@kernel
def known_games(st, p, games, seats, out):
    """Row ``k``: the cards ``seats[k]`` knows to be in each other hand of game ``games[k]``."""
    for k in range(len(games)):
        known_cards(st, games[k], p, seats[k], out, k)
