"""Every transfer reaches the rewards agents see, even when a match is settled
while it is being dealt (dealt flushes in My Ship Sails, R7.3, R4.5)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import make_deck

import commerce_env
from agents.arena import play_game
from agents.base import RandomAgent
from commerce_env.engine import new_game
from commerce_env.rules import make_rules
from commerce_env.single_agent import CommerceEnv

# Two players: seat 1 is dealt a flush in every deal, seat 0 none.  Dealers alternate
# (R3.2), so the flush sits in the eldest's or the dealer's cards by turns.
WINNER_FLUSH = "2H 5H 9H"
LOSER_HAND = "3C 4D 6S"


def flush_decks(count: int, winner=lambda deal: 1) -> list[str]:
    """Packs of ``count`` successive deals: ``winner(deal)`` is dealt a flush in each."""
    decks = []
    for deal in range(count):
        hands = [LOSER_HAND, LOSER_HAND]
        hands[winner(deal)] = WINNER_FLUSH
        decks.append(make_deck(hands, dealer=deal % 2))
    return decks


@pytest.mark.parametrize("reward", ["counters", "outcome"])
def test_aec_env_pays_a_match_settled_during_reset(reward):
    # R7.3: each dealt flush settles its deal at once; R4.5/R7.5 freeze-out: after three
    # deals seat 0 has no lives left, so the whole match is over before any decision.
    env = commerce_env.env(variant="my_ship_sails", num_players=2, reward=reward)
    env.reset(seed=0, options={"decks": flush_decks(3)})
    game = env.unwrapped.game
    assert game.over and game.deals_dealt == 3
    seen = {}
    for agent in env.agent_iter():
        _, last_reward, termination, truncation, _ = env.last()
        assert termination
        seen[agent] = seen.get(agent, 0.0) + last_reward
        env.step(None)
    returns = game.returns()
    assert returns[1] > 0 > returns[0]
    assert [seen["player_0"], seen["player_1"]] == pytest.approx(returns)
    if reward == "counters":
        assert returns == [-3.0, 3.0]


def test_a_deal_settled_at_reset_is_paid_with_the_first_step():
    # R7.3: the first deal is a dealt flush (seat 1 takes the pool of two); the match goes
    # on, and PettingZoo pays nothing at reset, so the first step carries that deal's +1/-1.
    env = commerce_env.env(variant="my_ship_sails", num_players=2)
    env.reset(seed=3, options={"decks": flush_decks(1)})
    game = env.unwrapped.game
    assert not game.over and game.deals_dealt == 2  # the second deal waits for a decision
    assert env.last()[1] == 0.0
    legal = np.flatnonzero(env.last()[0]["action_mask"])
    env.step(int(legal[0]))  # decline (R7.2): nothing is settled by this step itself
    assert env.unwrapped.rewards == {"player_0": -1.0, "player_1": 1.0}


def test_many_dealt_flushes_in_a_row_do_not_recurse():
    # R7.3, R4.5: a dealt flush is not counted and the next deal follows; 400 of them in a
    # row (the winner alternating, so nobody goes out) must not exhaust the stack.
    game = new_game(make_rules("my_ship_sails"), 2, seed=0, decks=flush_decks(400, winner=lambda d: d % 2))
    assert game.deals_dealt == 401 and game.deals_played == 0
    assert game.total_value() == 6  # R4.3: counters conserved through every settled deal


def test_single_agent_env_carries_a_skipped_match_into_the_first_reward():
    # R7.3, R4.5: the first match is over before the learner (seat 1, the winner) decides;
    # the env deals another, and the +3 it won reaches the rewards of the new episode.
    env = CommerceEnv(variant="my_ship_sails", num_players=2, opponents=["random"], seat=1)
    _, info = env.reset(seed=0, options={"decks": flush_decks(3), "dealer": 0})
    assert info["carried"] == pytest.approx(3.0)
    total = 0.0
    terminated = False
    while not terminated:
        legal = np.flatnonzero(env.action_masks())
        _, reward, terminated, _, step_info = env.step(int(legal[0]))
        total += reward
    assert total == pytest.approx(step_info["returns"] + 3.0)


def test_arena_counts_a_match_settled_while_dealt():
    # R7.3, R4.5: play_game on a match that ended while it was dealt returns its transfers.
    game = new_game(make_rules("my_ship_sails"), 2, seed=0, decks=flush_decks(3))
    assert play_game(game, [RandomAgent(0), RandomAgent(1)]) == [-3.0, 3.0]
