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
from ..view import SeatView, check_sampling
from . import row as K  # noqa: N812 - the row's names read as K.G_PHASE
from .load import game_row
from .python_random import shuffled_copies


def sampled_rows(view: SeatView, rng: random.Random, count: int, params: Sequence[int]) -> np.ndarray:
    """``(count, width)`` int64: the rows of ``view.sample_worlds(rng, count)`` in the layout
    ``params``, without what the seats remember (``knowledge=False``); see the module docstring."""
    check_sampling(rng, count)
    if view.deals_own_worlds():
        raise ValueError(f"{type(view).__name__} deals its own worlds (it overrides sample_world): "
                         f"load them with BatchEngine.load_games")
    sampler = view.deal_sampler()
    offsets = [int(x) for x in params]
    rows = np.empty((count, offsets[K.P_WIDTH]), dtype=np.int64)
    if count == 0:
        return rows
    world_rng = random.Random(rng.getrandbits(64))  # as sample_worlds draws it
    rows[0] = game_row(view.world_of(sampler.sample(rng), world_rng), offsets, knowledge=False)
    offer = view.offer_from is not None
    plan = sampler.shuffle_plan()
    if plan is not None:
        _shuffled_rows(plan, rows[1:], rows[0], rng, offsets, offer)
        return rows
    placed = []
    for _ in range(1, count):
        rng.getrandbits(64)  # the world's generator for later deals: a row keeps the engine's own (G_RNG)
        placed.append(sampler.sample_places(rng))
    if placed:
        positions = range(len(placed[0].cards))
        cards = np.array([[places.cards[i] for i in positions] for places in placed], dtype=np.int64)
        rows[1:] = rows[0]
        _write_cards(rows[1:], placed, cards, offsets, offer)
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
    _write_cards(out, [plan.places], cards, p, offer)


def _write_cards(out: np.ndarray, placed: list[Places], cards: np.ndarray, p: list[int], offer: bool) -> None:
    """Write into the rows ``out`` the cards of their worlds' positions where ``game_row`` writes
    them: ``placed`` holds each row's positions (or one entry for all rows), ``cards[r, position]``
    the card on a position in row ``r``'s world."""
    if not len(out):
        return
    rows = np.arange(len(out))[:, None]

    def cards_at(name: str) -> np.ndarray:  # each row's cards on the positions ``places.<name>``
        positions = np.array([getattr(places, name) for places in placed], dtype=np.int64)
        return cards[rows, positions.reshape(len(placed), -1)]

    seats = [seat for seat, items in placed[0].hands.items() if items]
    if seats:  # a hand is kept sorted (R2), as game_row writes it
        hands = np.array([[places.hands[s] for s in seats] for places in placed], dtype=np.int64)
        held = np.sort(cards[rows[:, :, None], hands], axis=2)
        columns = [p[K.P_HANDS_AT] + 3 * seat + j for seat in seats for j in range(3)]
        out[:, columns] = held.reshape(len(out), -1)
    for at, name in ((K.P_TABLE_AT, "table"), (K.P_STOCK_AT, "stock"), (K.P_DISCARDS_AT, "discards")):
        size = len(getattr(placed[0], name))
        if size:
            out[:, p[at]:p[at] + size] = cards_at(name)
    if offer and placed[0].offer is not None:
        out[:, K.G_OFFER_CARD] = cards_at("offer")[:, 0]
