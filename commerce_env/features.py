"""Extra observation features, computed from a seat's observation vector alone (R11-safe).

They sit beside :mod:`commerce_env.observation`: the single-agent env and the
batched VecEnv append them to the observation, and a learned model rebuilds
them at play time from the same vector (:class:`agents.learned.LearnedAgent`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from . import observation as obs
from .hands import category_index
from .rules import Rules


class HandStrength:
    """Extra observation features computed from the observation vector alone (R11-safe).

    ``hand_strength`` appends 20 numbers to the AEC observation: the hand's
    percentile among all 22,100 hands (``q``) and ``q ** (players - 1)``, its
    R2 category (one-hot of 6), the mean percentile after replacing each of
    its three cards by an unseen card (3), and the percentile after each of
    the nine exchanges with the face-up table (9, zero without a table).  It
    reads only the observer's hand, the face-up table and its own discards
    from the vector, so a model can rebuild it at play time
    (:class:`agents.learned.LearnedAgent`).  The key tables are the engine's.
    """

    name = "hand_strength"
    size = 20

    def __init__(self, rules: Rules, num_players: int):
        from itertools import combinations

        from .engine import ENGINES
        engine = ENGINES[rules.variant]  # the variant's hand values (R2, or R7.4 in My Ship Sails)
        self.ship = engine.flush_ends_deal  # R7.4's categories: none, a two-card group, a ship
        self._values_of, self._combinations = engine.values_of, rules.combinations
        triples = np.array(list(combinations(range(52), 3)), dtype=np.intp)
        sorted_keys = np.sort(self.keys(triples[:, 0], triples[:, 1], triples[:, 2]))
        # percentile of every possible key among all hands (ties count half): one lookup per hand
        values = np.arange(int(sorted_keys[-1]) + 1)
        below = np.searchsorted(sorted_keys, values, side="left")
        above = np.searchsorted(sorted_keys, values, side="right")
        self.percentile = ((below + above) / (2.0 * len(sorted_keys))).astype(np.float32)
        self.opponents = num_players - 1
        sections = {name: start for name, start, _ in obs.layout(num_players)}
        self.hand_at, self.table_at = sections["hand"], sections["table_slots"]
        self.discarded_at = sections["discarded"]

    def keys(self, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
        """The hand values of ``(a[i], b[i], c[i])``, from the variant's engine."""
        return self._values_of(a, b, c, self._combinations)

    def __call__(self, vector: np.ndarray) -> np.ndarray:
        out = np.zeros(self.size, dtype=np.float32)
        hand = np.flatnonzero(vector[self.hand_at:self.hand_at + 52])
        if len(hand) != 3:
            return out
        key = int(self.keys(hand[0:1], hand[1:2], hand[2:3])[0])
        q = float(self.percentile[key])
        out[0], out[1] = q, q ** self.opponents
        category = (5 if key >= 100 else int(key > 0)) if self.ship else category_index(key)
        out[2 + category] = 1.0
        slots = vector[self.table_at:self.table_at + 51].reshape(3, 17)
        table = [int(np.argmax(s[:13])) * 4 + int(np.argmax(s[13:])) for s in slots if s.any()]
        seen = vector[self.discarded_at:self.discarded_at + 52] > 0
        seen[hand] = True
        seen[table] = True
        unseen = np.flatnonzero(~seen)
        kept_a, kept_b = hand[[1, 0, 0]], hand[[2, 2, 1]]  # the two cards kept when slot 0, 1, 2 goes
        n = len(unseen)
        if n:
            keys = self.keys(np.repeat(kept_a, n), np.repeat(kept_b, n), np.tile(unseen, 3))
            out[8:11] = self.percentile[keys].reshape(3, n).mean(axis=1)
        if len(table) == 3:  # own slot i for table slot j at 11 + 3i + j
            keys = self.keys(np.repeat(kept_a, 3), np.repeat(kept_b, 3), np.tile(np.asarray(table), 3))
            out[11:20] = self.percentile[keys]
        return out


FEATURES = {HandStrength.name: HandStrength}


def append_features(vector: np.ndarray, builders: Sequence) -> np.ndarray:
    """``vector`` with every feature's columns appended."""
    if not builders:
        return vector
    return np.concatenate([vector, *(f(vector) for f in builders)])


def feature_names(features: str | Sequence[str]) -> list[str]:
    """The feature names of an env's ``features`` argument: a list of names, or one name as
    text (``features="hand_strength"``); anything else is a ``TypeError`` naming it."""
    if isinstance(features, str):
        return [features]
    if isinstance(features, (Mapping, bytes)) or not isinstance(features, Iterable):
        raise TypeError(f"features must be a list of feature names, got {features!r}")
    names = list(features)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"a feature name is text, got {name!r} in features {names!r}")
    return names


def feature_builders(names: str | Sequence[str], rules: Rules, num_players: int) -> list:
    """The extra-feature functions named by ``names`` (see :data:`FEATURES`)."""
    names = feature_names(names)
    unknown = [n for n in names if n not in FEATURES]
    if unknown:
        raise ValueError(f"unknown observation features {unknown!r}; choose from {', '.join(FEATURES)}")
    return [FEATURES[n](rules, num_players) for n in names]
