"""Search's sampled worlds as rows of the batched engine, without a readable game per world.

``sampled_rows(view, rng, count, params)`` gives the rows that
``[game_row(w, params, knowledge=False) for w in view.sample_worlds(rng, count)]``
gives, drawing the same numbers from ``rng``.  The first world is a readable game
written by ``game_row``; the others differ from it only in where the cards are, so each
is that row with its cards put in place (``DealSampler.sample_places``), no game made.
Where the deal's hidden choices are all forced (``DealSampler.shuffle_plan``: the
variants with a face-up table) a world is only a shuffle of the unseen cards, drawn
compiled (:mod:`.python_random`, the very numbers Python's generator would draw) and
put in place by array writes for all worlds at once.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from ..engine.determinize import Places, ShufflePlan
from ..view import SeatView
from . import row as K  # noqa: N812 - the row's names read as K.G_PHASE
from .load import game_row
from .python_random import shuffled_copies


def sampled_rows(view: SeatView, rng: random.Random, count: int, params: Sequence[int]) -> np.ndarray:
    """``(count, width)`` int64: the rows of ``view.sample_worlds(rng, count)`` in the layout
    ``params``, without what the seats remember (``knowledge=False``); see the module docstring."""
    offsets = [int(x) for x in params]
    rows = np.empty((count, offsets[K.P_WIDTH]), dtype=np.int64)
    if count == 0:
        return rows
    sampler = view.deal_sampler()
    world_rng = random.Random(rng.getrandbits(64))  # as sample_worlds draws it
    rows[0] = game_row(view.world_of(sampler.sample(rng), world_rng), offsets, knowledge=False)
    offer = view.offer_from is not None
    plan = sampler.shuffle_plan()
    if plan is not None:
        _shuffled_rows(plan, rows[1:], rows[0], rng, offsets, offer)
        return rows
    for k in range(1, count):
        rng.getrandbits(64)  # the world's generator for later deals: a row keeps the engine's own (G_RNG)
        places = sampler.sample_places(rng)
        cards = np.empty((1, len(places.cards)), dtype=np.int64)
        cards[0, list(places.cards)] = list(places.cards.values())
        rows[k] = rows[0]
        _write_cards(rows[k:k + 1], places, cards, offsets, offer)
    return rows


def _shuffled_rows(plan: ShufflePlan, out: np.ndarray, first: np.ndarray, rng: random.Random, p: list[int],
                   offer: bool) -> None:
    """``out``: ``first`` (a world of the same plan) with the cards of one shuffle of ``plan.free``
    over ``plan.unwritten`` each, drawn as ``DealSampler.sample`` draws them."""
    count = len(out)
    # Each world draws the seed of its generator for later deals (dropped: a row keeps the
    # engine's own, G_RNG), then its shuffle: compiled, the same numbers as in Python.
    shuffles = shuffled_copies(rng, plan.free, count, skip_bits=64)
    cards = np.empty((count, len(plan.places.cards) + len(plan.unwritten)), dtype=np.int64)
    for item, card in plan.places.cards.items():
        cards[:, item] = card
    cards[:, plan.unwritten] = shuffles
    out[:] = first
    _write_cards(out, plan.places, cards, p, offer)


def _write_cards(out: np.ndarray, places: Places, cards: np.ndarray, p: list[int], offer: bool) -> None:
    """Write into the rows ``out`` the cards of the positions in ``places`` where ``game_row``
    writes them; ``cards[r, position]`` is the card on a position in row ``r``'s world."""
    for seat, items in places.hands.items():
        if items:  # a hand is kept sorted (R2), as game_row writes it
            at = p[K.P_HANDS_AT] + 3 * seat
            out[:, at:at + 3] = np.sort(cards[:, items], axis=1)
    for name, items in ((K.P_TABLE_AT, places.table), (K.P_STOCK_AT, places.stock),
                        (K.P_DISCARDS_AT, places.discards)):
        if items:
            out[:, p[name]:p[name] + len(items)] = cards[:, items]
    if offer and places.offer is not None:
        out[:, K.G_OFFER_CARD] = cards[:, places.offer]
