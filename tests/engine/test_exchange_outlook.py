"""What ``expected_value`` weighs at the face-up table (R6.3-R6.4, R8.2-R8.3, R9.3): ``exchange_outlook``.

It reads the seat's view alone (R11).  Here: the exchange the agent makes is the one the outlook
scores best, and in pool commerce the score weighs the life the worst hand loses, not only the win.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import views_through_a_game

from agents.heuristics import ExpectedValueAgent
from agents.odds import WinModel, exchange_outlook, finished_seats
from commerce_env.engine.actions import EXCHANGE

TABLE_VARIANTS = ("widow", "old_game", "pool")


@pytest.mark.parametrize("variant", TABLE_VARIANTS)
def test_expected_value_exchanges_for_the_exchange_the_outlook_scores_best(variant):
    # R6.3, R8.2, R9.3: whenever expected_value exchanges, it takes the first of the best-scored exchanges.
    agent, exchanged = ExpectedValueAgent(), 0
    for seed in range(6):
        for view in views_through_a_game(variant, seed, steps=200, tag="odds"):
            action = agent.act(view)
            if action < EXCHANGE:
                continue
            outlook = exchange_outlook(view)
            assert outlook.exchanges == [a for a in view.legal_actions if a >= EXCHANGE]
            assert all(0.0 <= s <= 1.0 for s in outlook.scores) and 0.0 <= outlook.win_now <= 1.0
            assert action == outlook.exchanges[int(np.argmax(outlook.scores))]
            exchanged += 1
    assert exchanged > 20


def test_pool_scores_weigh_the_life_the_worst_hand_loses():
    # R9.3: with lives at stake the score is not the bare chance to win: some pool decision
    # scores an exchange above another whose chance to win is at least as high.
    differs = 0
    for seed in range(4):
        for view in views_through_a_game("pool", seed, steps=200, tag="odds"):
            outlook = exchange_outlook(view)
            if len(outlook.exchanges) < 2:
                continue
            done = finished_seats(view)
            model = WinModel(view, [s for s in view.order if s != view.seat and s not in done])
            value = view.engine.value_function(view.rules.combinations)
            wins = []
            for a in outlook.exchanges:
                own, slot = divmod(a - EXCHANGE, 3)
                cards = list(view.hand)
                cards[own] = view.table[slot]
                wins.append(float(model.win_probability(value(cards))))
            differs += not np.allclose(outlook.scores, wins)
    assert differs > 0
