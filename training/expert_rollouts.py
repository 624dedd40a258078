"""Search's rollouts played by a network instead of the greedy policy (``expert_iteration.rollout_policy:
network``): every player of every row takes the network's best legal action, one forward pass per
rollout step for all the rows still in their deal.

The rows are search's sampled worlds (:meth:`commerce_env.vector.BatchEngine.sample_rows`), which
carry no seat memories (R11: gifts, discards, known cards): the network reads observations with
those empty.  That is the price of sampling worlds without a readable game each.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.batched_search import MAX_ACTIONS, BatchedRollouts
from commerce_env.vector import BatchEngine


class NetworkRollouts(BatchedRollouts):
    """:class:`agents.batched_search.BatchedRollouts` whose players are ``agent``'s network
    (a :class:`agents.learned.LearnedAgent`, played deterministically)."""

    def __init__(self, agent: Any):
        super().__init__()
        from agents.batched import BatchedPolicy

        self.policy = BatchedPolicy(agent)

    def play_rows(self, engine: BatchEngine, firsts: np.ndarray, thresholds: np.ndarray, barters: np.ndarray,
                  rows: np.ndarray) -> int:
        from commerce_env.vector import access

        masks = engine.action_mask
        done = engine.over[rows] | engine.awaiting_pack[rows]
        legal = (firsts >= 0) & (firsts < masks.shape[1])
        legal[legal] = masks[rows[legal], firsts[legal]] == 1
        bad = np.flatnonzero(done | ~legal)
        if bad.size:
            return int(bad[0])
        actions = np.zeros(engine.num_games, dtype=np.int64)
        where = np.zeros(engine.num_games, dtype=bool)
        actions[rows], where[rows] = firsts, True
        engine.step(actions, where=where)
        for _ in range(MAX_ACTIONS):
            live = rows[~(engine.over[rows] | engine.awaiting_pack[rows] | (engine.phase[rows] == access.HORSE))]
            if not live.size:
                break
            where[:] = False
            where[live] = True
            actions[live] = self.policy.act_batch(engine, live, engine.current_player[live])
            engine.step(actions, where=where)
        return -1
