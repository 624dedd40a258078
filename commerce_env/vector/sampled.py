"""Search's sampled worlds as rows of the batched engine, without a readable game per world.

``sampled_rows(view, rng, count, params)`` gives the rows that
``[game_row(w, params, knowledge=False) for w in view.sample_worlds(rng, count)]``
gives, drawing the same numbers from ``rng``.  Where the deal's hidden choices are all
forced (:meth:`commerce_env.engine.determinize.DealSampler.shuffle_plan`: the variants
with a face-up table), every world after the first differs from it only in the cards
shuffled over the hidden positions; those rows are the first one's with the cards put
in place by array writes, and a world costs its shuffle alone, compiled
(:mod:`.python_random`, the very numbers Python's generator would draw).  Elsewhere each world is
sampled and written as a readable game.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from ..engine.determinize import ShufflePlan
from ..view import SeatView
from . import row as K  # noqa: N812 - the row's names read as K.G_PHASE
from .load import game_row
from .python_random import shuffled_copies


def sampled_rows(view: SeatView, rng: random.Random, count: int, params: Sequence[int]) -> np.ndarray:
    """``(count, width)`` int64: the rows of ``view.sample_worlds(rng, count)`` in the layout
    ``params``, without what the seats remember (``knowledge=False``); see the module docstring."""
    offsets = [int(x) for x in params]
    rows = np.empty((count, offsets[K.P_WIDTH]), dtype=np.int64)
    sampler = view.deal_sampler()
    plan = None
    for k in range(count):
        if plan is not None:
            _shuffled_rows(plan, rows, k, rng, offsets, view.offer_from is not None)
            break
        world_rng = random.Random(rng.getrandbits(64))  # as sample_worlds draws it
        rows[k] = game_row(view.world_of(sampler.sample(rng), world_rng), offsets, knowledge=False)
        plan = sampler.shuffle_plan()
    return rows


def _shuffled_rows(plan: ShufflePlan, rows: np.ndarray, start: int, rng: random.Random, p: list[int],
                   offer: bool) -> None:
    """Rows ``start:`` from row ``start - 1`` (a world of the same plan), each with the cards of
    one shuffle of ``plan.free`` over ``plan.unwritten``, drawn as ``DealSampler.sample`` draws."""
    count = len(rows) - start
    # Each world draws the seed of its generator for later deals (dropped: a row keeps the
    # engine's own, G_RNG), then its shuffle: compiled, the same numbers as in Python.
    shuffles = shuffled_copies(rng, plan.free, count, skip_bits=64)
    positions = len(plan.written) + len(plan.unwritten)
    cards = np.empty((count, positions), dtype=np.int64)
    for item, card in plan.written.items():
        cards[:, item] = card
    cards[:, plan.unwritten] = shuffles
    out = rows[start:]
    out[:] = rows[start - 1]
    for seat, items in plan.hands.items():
        if items:  # a hand is kept sorted (R2), as game_row writes it
            at = p[K.P_HANDS_AT] + 3 * seat
            out[:, at:at + 3] = np.sort(cards[:, items], axis=1)
    for name, items in ((K.P_TABLE_AT, plan.table), (K.P_STOCK_AT, plan.stock), (K.P_DISCARDS_AT, plan.discards)):
        if items:
            out[:, p[name]:p[name] + len(items)] = cards[:, items]
    if offer and plan.offer is not None:
        out[:, K.G_OFFER_CARD] = cards[:, plan.offer]
