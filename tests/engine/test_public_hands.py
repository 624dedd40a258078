"""The cards a seat knows to be in the other hands (R11): ``view.public_hands``, and the batched
engine's record of the same knowledge (``BatchEngine.known_cards``; the two are compared at every
step of random matches in tests/vector/test_vector_engine.py)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from commerce_env.engine import new_game
from commerce_env.engine.actions import EXCHANGE, KEEP_HAND
from commerce_env.rules import VARIANTS, make_rules
from commerce_env.view import seat_view


@settings(max_examples=25, deadline=None)
@given(variant=st.sampled_from(VARIANTS), num_players=st.integers(2, 6), seed=st.integers(0, 2**32 - 1))
def test_every_card_known_is_in_that_hand_and_was_seen_by_the_seat(variant, num_players, seed):
    # R11: a seat knows only cards it has seen (face up, or passed through its own hands),
    # and each is truly in the hand it is known for.
    rules = make_rules(variant)
    rng = random.Random(seed)
    game = new_game(rules, num_players, dealer=rng.randrange(num_players), rng=random.Random(seed))
    for _ in range(120):
        if game.over:
            break
        for seat in range(num_players):
            view = seat_view(game, seat)
            for holder, cards in enumerate(view.public_hands):
                assert set(cards) <= set(game.hands[holder]), (seat, holder, cards, game.hands[holder])
                if holder != seat:
                    assert not set(cards) & set(view.unseen), (seat, holder, cards)
        game.apply(rng.choice(game.legal_actions()))


def test_a_card_taken_from_the_widow_table_is_known_in_the_takers_hand():
    # R6.3: an exchange with the table is face up; every other seat knows the taken card.
    game = new_game(make_rules("widow"), 4, dealer=0, rng=random.Random(5))
    game.apply(KEEP_HAND)  # R6.2: the dealer's blind choice
    taker = game.current_player
    exchange = max(game.legal_actions())
    assert exchange >= EXCHANGE
    taken = game.action_cards(exchange)[1]
    game.apply(exchange)
    for seat in range(4):
        if seat != taker:
            assert taken in seat_view(game, seat).public_hands[taker]


def test_known_cards_names_a_bad_seat_and_gives_one_row_per_game():
    pytest.importorskip("numba")
    from commerce_env.vector import BatchEngine

    engine = BatchEngine("widow", 4, 3, seed=1)
    engine.reset()
    assert engine.known_cards(0).shape == (3, 3 * 52)
    assert engine.known_cards([1, 2], games=np.array([0, 2])).shape == (2, 3 * 52)
    with pytest.raises(ValueError, match="seats must be one seat from 0 to 3.*7"):
        engine.known_cards(7)
