"""WinModel's opponent values (agents/heuristics.py) against a hand-by-hand recomputation.

The model builds each opponent's possible hands and values with numpy look-ups
(speed); here the same hands are listed with itertools and valued one at a time
with the engine's ``value_of``, an opponent who still draws credited with his
best single exchange with the face-up table (R6.3, R8.2).
"""

from __future__ import annotations

import random
from itertools import combinations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.heuristics import WinModel
from commerce_env.engine import new_game
from commerce_env.rules import VARIANTS, make_rules
from commerce_env.view import seat_view


def _recomputed(view, known, better):
    """Sorted values of every hand an opponent holding ``known`` may have, one at a time."""
    value = view.hand_value
    rest = [c for c in view.unseen if c not in known]
    values = []
    for filler in combinations(rest, 3 - len(known)):
        hand = [*known, *filler]
        best = value(hand)
        if better:
            for slot in range(3):
                for card in view.table:
                    swapped = list(hand)
                    swapped[slot] = card
                    best = max(best, value(swapped))
        values.append(best)
    return sorted(values)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32 - 1), moves=st.integers(0, 14))
def test_opponent_values_match_a_hand_by_hand_count(variant, seed, moves):  # R6.3, R8.2, R11
    game = new_game(make_rules(variant), 4, rng=random.Random(seed))
    rng = random.Random(seed)
    for _ in range(moves):
        if game.over:
            break
        game.apply(rng.choice(game.legal_actions()))
    if game.over:
        return
    view = seat_view(game, game.current_player)
    opponents = [s for s in view.order if s != view.seat]
    model = WinModel(view, improving=opponents)  # everyone still draws: the exchange credit where a table lies
    for seat, keys in zip(opponents, model.opponent_keys, strict=True):
        better = len(view.table) == 3
        assert keys.tolist() == _recomputed(view, view.public_hands[seat], better), (seat, view.public_hands[seat])


def test_a_known_card_is_counted_with_the_table_credit():  # R8.2, R11
    # Old game: the eldest takes a table card face up, so the next player knows one card of his hand.
    game = new_game(make_rules("old_game"), 4, rng=random.Random(4))
    taker = game.current_player
    exchange = next(a for a in game.legal_actions() if game.action_text(a).startswith("exchange"))
    game.apply(exchange)
    view = seat_view(game, game.current_player)
    known = view.public_hands[taker]
    assert len(known) == 1
    opponents = [s for s in view.order if s != view.seat]
    keys = WinModel(view, improving=[taker]).opponent_keys[opponents.index(taker)].tolist()
    assert keys == _recomputed(view, known, True)
    assert keys != _recomputed(view, known, False)  # the credit matters here
