"""The learner's opponents while training: a pool drawn per episode, plus self-play snapshots.

An :class:`OpponentPool` holds the pool's entries (specs or policies, as the
env was given them), their weights, and the latest snapshots of the learner
(already loaded policies).  It only chooses: the env that owns it asks it at
reset which entry plays each opponent seat (``draw`` for one seat from a
:class:`random.Random`, ``draw_many`` for many from a numpy generator), and
turns the index it gets into a policy.  Indices below ``len(pool.entries)``
are pool entries; the others are snapshots, oldest first.

A seat is a snapshot with probability ``snapshot_share`` once there is one,
else a pool entry, uniformly or by ``weights``.  ``add_snapshot`` keeps the
``max_snapshots`` latest.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from numbers import Number, Real
from typing import Any

import numpy as np

from .checks import bounded_number, whole_number

__all__ = ["OpponentPool"]


def _checked_weights(weights: Any, count: int) -> list[float]:
    """``opponent_weights`` as floats: one finite, non-negative number per opponent, not all zero."""
    if isinstance(weights, (str, bytes, Mapping)) or not isinstance(weights, (Sequence, np.ndarray)):
        raise TypeError(f"opponent_weights must be a list of numbers, one per opponent, got {weights!r}")
    for weight in weights:
        if isinstance(weight, (bool, np.bool_)) or not isinstance(weight, Real) or not math.isfinite(weight) \
                or weight < 0:
            raise ValueError(f"opponent_weights {list(weights)!r}: {weight!r} is not a finite number >= 0")
    checked = [float(w) for w in weights]
    if len(checked) != count or sum(checked) <= 0:
        raise ValueError(f"opponent_weights {list(weights)!r} must be one non-negative "
                         f"weight per opponent ({count}), not all zero")
    return checked


class OpponentPool:
    """Opponents drawn per episode: pool entries by weight, or a snapshot with ``snapshot_share``."""

    def __init__(self, entries: Sequence[Any], weights: Sequence[float] | None = None,
                 snapshot_share: float = 0.5, max_snapshots: int = 5):
        if isinstance(entries, (str, bytes)) or not isinstance(entries, Sequence) or not entries:
            raise ValueError(f"opponents must be a non-empty list of agent specs, got {entries!r}")
        for index, entry in enumerate(entries):
            if entry is None or isinstance(entry, (Number, bytes, list, tuple, set, np.ndarray)):
                raise TypeError(f"opponents[{index}] = {entry!r} is not an agent spec: give a name such as "
                                f"'greedy', a mapping {{'agent': name, ...}} or a policy object")
        if weights is not None:
            weights = _checked_weights(weights, len(entries))
        bounded_number("snapshot_share", snapshot_share, 0.0, 1.0)
        whole_number("max_snapshots", max_snapshots, 1)
        self.entries = list(entries)
        self.weights = weights
        self.snapshot_share = float(snapshot_share)
        self.max_snapshots = max_snapshots
        self.snapshots: list[Any] = []
        self.snapshot_paths: list[str] = []
        self._indices = range(len(self.entries))
        self._probabilities = None if weights is None else np.asarray(weights) / sum(weights)

    def add_snapshot(self, policy: Any, path: str = "") -> int:
        """A loaded snapshot of the learner joins (self-play); the oldest beyond
        ``max_snapshots`` leaves.  Returns the number of snapshots."""
        self.snapshots.append(policy)
        self.snapshot_paths.append(str(path))
        if len(self.snapshots) > self.max_snapshots:
            del self.snapshots[0], self.snapshot_paths[0]
        return len(self.snapshots)

    def choices(self) -> list[Any]:
        """What the indices of ``draw`` name: the entries, then the snapshots."""
        return self.entries + self.snapshots

    def draw(self, rng: random.Random) -> int:
        """The index (into :meth:`choices`) of one seat's opponent for an episode."""
        if self.snapshots and rng.random() < self.snapshot_share:
            return len(self.entries) + rng.randrange(len(self.snapshots))
        if self.weights is None:
            return rng.choice(self._indices)
        return rng.choices(self._indices, weights=self.weights)[0]

    def draw_many(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        """:meth:`draw` for an array of seats at once (the batched env's episodes)."""
        count = len(self.entries)
        if self._probabilities is None:
            drawn = rng.integers(0, count, size=shape)
        else:
            drawn = rng.choice(count, size=shape, p=self._probabilities)
        if self.snapshots:
            use = rng.random(shape) < self.snapshot_share
            drawn = np.where(use, count + rng.integers(0, len(self.snapshots), size=shape), drawn)
        return drawn
