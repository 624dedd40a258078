"""The vectorised-numpy prototype of the batched engine, kept for the measurement that chose numba.

Foster's trade and barter (R5, R12 defaults: knock, ready money, barter, the
round cap, the dealer's payments; one deal per match), every game of the
batch stepped by whole-array operations, finished matches re-dealt in the
same step.  It is only the benchmark's peer (``benchmarks.vector_speed``):
the shipped engine is :mod:`commerce_env.vector` (numba), which is several
times faster on the same workload; docs/performance.md says why.
"""

from __future__ import annotations

import numpy as np

from commerce_env.hands import key_array
from commerce_env.rules import FOSTER_COMBINATIONS

from .timing import until


class NumpyTradeBarter:
    """``games`` 4-player Foster matches of one deal each, as arrays."""

    def __init__(self, games: int, num_players: int = 4, max_rounds: int = 10, seed: int = 0):
        self.g, self.n, self.max_rounds = games, num_players, max_rounds
        self.keys = key_array(FOSTER_COMBINATIONS)
        self.rng = np.random.default_rng(seed)
        self.all = np.arange(games)
        self.hands = np.zeros((games, num_players, 3), np.int64)
        self.stock = np.zeros((games, 52), np.int64)
        self.stock_len = np.zeros(games, np.int64)
        self.counters = np.zeros((games, num_players), np.int64)
        self.pool = np.zeros(games, np.int64)
        self.dealer = np.zeros(games, np.int64)
        self.current_player = np.zeros(games, np.int64)
        self.phase = np.zeros(games, np.int64)  # 0: act, 1: reply
        self.rounds = np.zeros(games, np.int64)
        self.offer_trader = np.zeros(games, np.int64)
        self.offer_card = np.zeros(games, np.int64)
        self.deal(self.all)

    def deal(self, idx: np.ndarray) -> None:
        """R1.5: shuffled packs (argsort of random keys), three cards each from the eldest, antes."""
        n, k = self.n, len(idx)
        packs = np.argsort(self.rng.random((k, 52)), axis=1)
        self.dealer[idx] = self.rng.integers(0, n, k)
        eldest = (self.dealer[idx] + 1) % n
        order = (eldest[:, None] + np.arange(n)) % n  # seat at position i
        cards = packs[:, :3 * n].reshape(k, 3, n).transpose(0, 2, 1)  # [game, position, round]
        hands = np.empty((k, n, 3), np.int64)
        hands[np.arange(k)[:, None], order] = cards
        self.hands[idx] = np.sort(hands, axis=2)
        self.stock[idx] = packs[:, ::-1]
        self.stock_len[idx] = 52 - 3 * n
        self.counters[idx] = -1  # a fresh match: each antes one (R4.2)
        self.pool[idx] = n
        self.current_player[idx] = eldest
        self.phase[idx] = 0
        self.rounds[idx] = 0

    def masks(self) -> np.ndarray:
        masks = np.zeros((self.g, 27), np.int8)
        act = self.phase == 0
        masks[:, 0] = 1
        masks[act, 12:15] = 1
        masks[act & (self.stock_len > 0), 9:12] = 1
        masks[~act, 15:18] = 1
        return masks

    def _next_turn(self, idx: np.ndarray, trader: np.ndarray) -> np.ndarray:
        """Play passes left from ``trader``; returns the games whose round cap shows the hands (R4.4)."""
        wrapped = trader == self.dealer[idx]
        self.rounds[idx] += wrapped
        self.current_player[idx] = (trader + 1) % self.n
        self.phase[idx] = 0
        return idx[self.rounds[idx] >= self.max_rounds]

    def _showdown(self, idx: np.ndarray) -> None:
        """R5.7, R5.8 (foster): the best hand (the dealer first among equals) takes the pool; the dealer pays."""
        if not len(idx):
            return
        n = self.n
        h = self.hands[idx]
        values = self.keys[h[:, :, 0] * 2704 + h[:, :, 1] * 52 + h[:, :, 2]]
        dealer = self.dealer[idx]
        preference = (np.arange(n)[None, :] - dealer[:, None]) % n  # dealer 0, eldest 1, ...
        winner = np.argmax(values * 16 + (15 - preference), axis=1)
        rows = np.arange(len(idx))
        counters = self.counters[idx]
        counters[rows, winner] += self.pool[idx]
        pays = winner != dealer
        category = values[rows, dealer] // 1000
        same = pays & (category == values[rows, winner] // 1000) & (category != 0)
        one = pays & ~same
        counters[rows[one], winner[one]] += 1
        counters[rows[one], dealer[one]] -= 1
        others = same[:, None] & (np.arange(n)[None, :] != dealer[:, None])
        counters += others
        counters[rows[same], dealer[same]] -= n - 1
        self.counters[idx] = counters
        self.deal(idx)  # deals=1: the match is over; the next one starts at once

    def step(self, actions: np.ndarray) -> None:
        seat = self.current_player
        show = [np.flatnonzero(actions == 0)]
        ready = np.flatnonzero((actions >= 9) & (actions < 12))
        if len(ready):  # R5.3
            s, slot = seat[ready], actions[ready] - 9
            top = self.stock_len[ready] - 1
            self.hands[ready, s, slot] = self.stock[ready, top]
            self.stock_len[ready] = top
            self.hands[ready, s] = np.sort(self.hands[ready, s], axis=1)
            pays = s != self.dealer[ready]
            self.counters[ready[pays], s[pays]] -= 1
            self.counters[ready[pays], self.dealer[ready][pays]] += 1
            show.append(self._next_turn(ready, s))
        offer = np.flatnonzero((actions >= 12) & (actions < 15))
        if len(offer):  # R5.4
            s = seat[offer]
            self.offer_trader[offer] = s
            self.offer_card[offer] = self.hands[offer, s, actions[offer] - 12]
            self.phase[offer] = 1
            self.current_player[offer] = (s + 1) % self.n
        give = np.flatnonzero(actions >= 15)
        if len(give):
            neighbour, trader = seat[give], self.offer_trader[give]
            given = self.hands[give, neighbour, actions[give] - 15]
            mine = self.hands[give, trader]
            mine[mine == self.offer_card[give][:, None]] = given
            self.hands[give, trader] = np.sort(mine, axis=1)
            self.hands[give, neighbour, actions[give] - 15] = self.offer_card[give]
            self.hands[give, neighbour] = np.sort(self.hands[give, neighbour], axis=1)
            show.append(self._next_turn(give, trader))
        self._showdown(np.concatenate(show))


class NumpyTradeBarterRun:
    """Random legal play through :class:`NumpyTradeBarter`: decisions."""

    def __init__(self, games: int):
        self.env = NumpyTradeBarter(games)
        self.rng = np.random.default_rng(1)

    def __call__(self, seconds: float) -> int:
        done, env, decisions = until(seconds), self.env, 0
        while decisions == 0 or not done():
            masks = env.masks()
            env.step((self.rng.random(masks.shape) * masks).argmax(axis=1))
            decisions += env.g
        return decisions
