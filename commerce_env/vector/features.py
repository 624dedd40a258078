"""Observation features for a batch of observation vectors, in one compiled call.

:class:`BatchHandStrength` computes what :class:`commerce_env.features.HandStrength`
computes for one vector (the same 20 numbers, equal up to float32 rounding
of the means), for every row of an ``(N, obs_size)`` array, from the vector
alone (R11-safe).
"""

from __future__ import annotations

import math

import numpy as np

from ..engine import ENGINES
from ..features import HandStrength
from ..rules import Rules
from .compiled import kernel
from .hands import category_index, table_index  # R2's functions, compiled as they are


@kernel
def _hand_strength(obs, out, keys, percentile, opponents, ship, hand_at, table_at, discarded_at):
    seen = np.zeros(52, np.bool_)
    hand = np.empty(3, np.int64)
    table = np.empty(3, np.int64)
    unseen = np.empty(52, np.int64)
    for r in range(obs.shape[0]):
        for i in range(20):
            out[r, i] = 0.0
        count = 0
        for c in range(52):
            if obs[r, hand_at + c] != 0.0:
                if count < 3:
                    hand[count] = c
                count += 1
        if count != 3:
            continue
        a, b, c = hand[0], hand[1], hand[2]
        key = keys[table_index(a, b, c)]
        q = np.float64(percentile[key])
        out[r, 0] = q
        out[r, 1] = math.pow(q, opponents)
        if ship:
            category = 5 if key >= 100 else (1 if key > 0 else 0)
        else:
            category = category_index(key)
        out[r, 2 + category] = 1.0
        tables = 0
        for s in range(3):
            at = table_at + 17 * s
            rank, suit, any_set = 0, 0, False
            for k in range(13):
                if obs[r, at + k] > obs[r, at + rank]:
                    rank = k
                any_set = any_set or obs[r, at + k] != 0.0
            for k in range(4):
                if obs[r, at + 13 + k] > obs[r, at + 13 + suit]:
                    suit = k
                any_set = any_set or obs[r, at + 13 + k] != 0.0
            if any_set:
                table[tables] = rank * 4 + suit
                tables += 1
        for k in range(52):
            seen[k] = obs[r, discarded_at + k] > 0
        for k in range(3):
            seen[hand[k]] = True
        for k in range(tables):
            seen[table[k]] = True
        n = 0
        for k in range(52):
            if not seen[k]:
                unseen[n] = k
                n += 1
        for i in range(3):  # the two cards kept when slot i goes: (1, 2), (0, 2), (0, 1)
            ka = hand[1] if i == 0 else hand[0]
            kb = hand[1] if i == 2 else hand[2]
            if n:
                total = 0.0
                for k in range(n):
                    total += percentile[keys[table_index(ka, kb, unseen[k])]]
                out[r, 8 + i] = total / n
            if tables == 3:
                for j in range(3):
                    out[r, 11 + 3 * i + j] = percentile[keys[table_index(ka, kb, table[j])]]


class BatchHandStrength:
    """``hand_strength`` (:class:`~commerce_env.features.HandStrength`) for a batch of vectors."""

    name = HandStrength.name
    size = HandStrength.size

    def __init__(self, rules: Rules, num_players: int):
        one = HandStrength(rules, num_players)
        self.percentile = one.percentile
        self.keys = ENGINES[rules.variant].value_table(rules.combinations)  # R2, or R7.4's values
        self.ship = one.ship
        self.opponents = one.opponents
        self.offsets = (one.hand_at, one.table_at, one.discarded_at)

    def __call__(self, vectors: np.ndarray) -> np.ndarray:
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        out = np.empty((len(vectors), self.size), dtype=np.float32)
        _hand_strength(vectors, out, self.keys, self.percentile, self.opponents, self.ship, *self.offsets)
        return out


BATCH_FEATURES = {BatchHandStrength.name: BatchHandStrength}


def batch_feature_builders(names, rules: Rules, num_players: int) -> list:
    """The batched versions of the features named by ``names``."""
    unknown = [n for n in names if n not in BATCH_FEATURES]
    if unknown or isinstance(names, str):
        raise ValueError(f"unknown observation features {unknown or names!r}; choose from {', '.join(BATCH_FEATURES)}")
    return [BATCH_FEATURES[n](rules, num_players) for n in names]


def with_features(vectors: np.ndarray, builders: list) -> np.ndarray:
    """The vectors with every feature's columns appended."""
    if not builders:
        return vectors
    return np.concatenate([vectors, *(f(vectors) for f in builders)], axis=1)
