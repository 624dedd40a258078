"""Search's sampled worlds as rows of the batched engine, without a readable game per world.

``sampled_rows(view, rng, count, params)`` gives the rows that
``[game_row(w, params, knowledge=False) for w in view.sample_worlds(rng, count)]``
gives, drawing the same numbers from ``rng``.  The first world is a readable game
written by ``game_row``; the others differ from it only in where the cards are, so each
is that row with its cards put in place, no game made.  Where the deal's hidden choices
are all forced (``DealSampler.shuffle_plan``: the variants with a face-up table) a world
is only a shuffle of the unseen cards, drawn compiled (:mod:`.python_random`, the very
numbers Python's generator would draw); with blind trades the hidden moves are replayed
and drawn compiled too (:mod:`.determinize`), or by ``DealSampler.sample_places`` where
that does not serve; the cards are put in place by array writes for all worlds at once.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from ..engine.determinize import TIME_LIMIT, DealSampler, Places, ShufflePlan, check_time_limit
from ..view import SeatView, check_sampling
from . import row as K  # noqa: N812 - the row's names read as K.G_PHASE
from .determinize import PlacedWorlds, compiles, sample_places
from .load import game_row
from .python_random import shuffled_copies


def sampled_rows(view: SeatView, rng: random.Random, count: int, params: Sequence[int],
                 time_limit: float | None = TIME_LIMIT) -> np.ndarray:
    """``(count, width)`` int64: the rows of ``view.sample_worlds(rng, count)`` in the layout
    ``params``, without what the seats remember (``knowledge=False``); see the module docstring.
    A world not found within ``time_limit`` seconds raises
    :class:`~commerce_env.engine.determinize.NoConsistentDealError` (``DealSampler.sample``)."""
    check_sampling(rng, count)
    check_time_limit(time_limit)
    if view.deals_own_worlds():
        raise ValueError(f"{type(view).__name__} deals its own worlds (it overrides sample_world): "
                         f"load them with BatchEngine.load_games")
    sampler = view.deal_sampler()
    offsets = [int(x) for x in params]
    rows = np.empty((count, offsets[K.P_WIDTH]), dtype=np.int64)
    if count == 0:
        return rows
    world_rng = random.Random(rng.getrandbits(64))  # as sample_worlds draws it
    rows[0] = game_row(view.world_of(sampler.sample(rng, time_limit), world_rng), offsets, knowledge=False)
    if count > 1:
        rows[1:] = rows[0]
        _write_cards(rows[1:], _placed_worlds(sampler, rng, count - 1, view.num_players, time_limit), offsets,
                     view.offer_from is not None)
    return rows


def _placed_worlds(sampler: DealSampler, rng: random.Random, count: int, num_players: int,
                   time_limit: float | None) -> PlacedWorlds:
    """Where ``count`` more worlds put their cards, each drawn after the 64 bits of its generator for
    later deals (dropped: a row keeps the engine's own, G_RNG), as ``view.sample_worlds`` draws them."""
    plan = sampler.shuffle_plan()
    if plan is not None:
        return _shuffled(plan, rng, count, num_players)
    if compiles(sampler, rng, num_players):
        return sample_places(sampler, rng, count, num_players, time_limit)
    placed = []
    for _ in range(count):
        rng.getrandbits(64)
        placed.append(sampler.sample_places(rng, time_limit))
    cards = np.array([[places.cards[i] for i in range(len(places.cards))] for places in placed], dtype=np.int64)
    return _as_arrays(placed, cards, num_players)


def _shuffled(plan: ShufflePlan, rng: random.Random, count: int, num_players: int) -> PlacedWorlds:
    """``count`` worlds of ``plan``: the cards of one shuffle of ``plan.free`` over ``plan.unwritten``
    each, drawn as ``DealSampler.sample`` draws them (compiled: the same numbers as in Python)."""
    shuffles = shuffled_copies(rng, plan.free, count, skip_bits=64)
    cards = np.empty((count, len(plan.places.cards) + len(plan.unwritten)), dtype=np.int64)
    for item, card in plan.places.cards.items():
        cards[:, item] = card
    cards[:, plan.unwritten] = shuffles
    return _as_arrays([plan.places], cards, num_players)  # the same positions in every world


def _as_arrays(placed: list[Places], cards: np.ndarray, num_players: int) -> PlacedWorlds:
    """Each world's positions of ``placed`` (one per world, or one for all) and ``cards``, as
    :class:`PlacedWorlds` (positions of one for all broadcast over the worlds)."""
    hands = np.full((len(placed), num_players, 3), -1, dtype=np.int64)
    sizes = np.zeros(num_players, dtype=np.int64)
    for seat, items in placed[0].hands.items():
        sizes[seat] = len(items)
        hands[:, seat, :len(items)] = [places.hands[seat] for places in placed]

    def positions(name: str) -> np.ndarray:
        return np.array([getattr(places, name) for places in placed], dtype=np.int64).reshape(len(placed), -1)

    offer = np.array([-1 if places.offer is None else places.offer for places in placed], dtype=np.int64)
    return PlacedWorlds(cards, hands, sizes, positions("table"), positions("stock"), positions("discards"), offer)


def _write_cards(out: np.ndarray, placed: PlacedWorlds, p: list[int], offer: bool) -> None:
    """Write into the rows ``out`` the cards of their worlds (``placed``, one per row) where
    ``game_row`` writes them."""
    rows = np.arange(len(out))[:, None]
    cards = placed.cards
    seats = [seat for seat in range(len(placed.hand_sizes)) if placed.hand_sizes[seat]]
    if seats:  # a hand is kept sorted (R2), as game_row writes it
        held = np.sort(cards[rows[:, :, None], placed.hands[:, seats]], axis=2)
        columns = [p[K.P_HANDS_AT] + 3 * seat + j for seat in seats for j in range(3)]
        out[:, columns] = held.reshape(len(out), -1)
    for at, positions in ((K.P_TABLE_AT, placed.table), (K.P_STOCK_AT, placed.stock),
                          (K.P_DISCARDS_AT, placed.discards)):
        size = positions.shape[1]
        if size:
            out[:, p[at]:p[at] + size] = cards[rows, positions]
    if offer and placed.offer[0] >= 0:
        out[:, K.G_OFFER_CARD] = cards[rows[:, 0], placed.offer]
