"""Property tests over random variants, option sets, player counts and seeds.

Each property is checked by random legal play through the engine (or the AEC
env) on setups drawn by :mod:`strategies`; the R-sections are those of the
property, which holds for every variant.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import (
    ZERO_SUM_PER_DEAL,
    assert_invariants,
    game_setups,
    play_random,
    setup_game,
    snapshot,
)

import commerce_env
from commerce_env.engine import IllegalActionError, new_game
from commerce_env.engine.actions import NUM_ACTIONS
from commerce_env.observation import encode
from commerce_env.rules import UNTIL_OUT

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(game_setups(), st.integers(0, 2**32 - 1))
def test_random_play_keeps_every_invariant(setup, play_seed):
    # R4.3 counters conserved; R1.5 every card in one place; R4.4 every deal ends;
    # R9.3-R9.4 lives change only by the worst hand and the horse.
    game = setup_game(setup)
    # R6.1, R7.1: three lives each; R9.5: pool rewards are net money, the entry included.
    start = [3 if game.variant in ("widow", "my_ship_sails") else 0] * game.num_players
    decisions, rewards = play_random(game, random.Random(play_seed))
    assert game.over
    returns = game.returns()
    if game.rules.reward == "counters":
        # R4.3: rewards are the net change of counters (money in pool commerce).
        assert returns == [float(game.balance(s) - start[s]) for s in range(game.num_players)]
        assert all(float(r).is_integer() for step in rewards for r in step)
        if game.variant in ZERO_SUM_PER_DEAL:  # every payment is a transfer
            assert all(sum(step) == 0 for step in rewards)
        assert sum(returns) == 0  # R9.5: the pool is emptied at the match's end
    else:  # DESIGN: outcome rewards only at the end, zero-sum
        assert all(not any(step) for step in rewards[:-1])
        assert sum(returns) == pytest.approx(0.0)


@FAST
@given(game_setups(max_rounds=3))
def test_match_length_is_bounded(setup):
    # R4.5: `deals` counts deals with a decision; pool commerce loses a life a deal (R9.3).
    game = setup_game(setup)
    play_random(game, random.Random(1), check=False)
    deals = game.rules.deals
    if deals != UNTIL_OUT:
        assert game.deals_played <= deals
    if game.variant == "pool":  # 3 lives each and at most one horse
        assert game.deals_played <= 3 * game.num_players + 1
    if game.variant in ("trade_barter", "old_game"):
        assert game.deals_played == game.deals_dealt == deals


def _decision_points(game, rng, how_many):
    """Play randomly, yielding at up to ``how_many`` random decision points."""
    stops = 0
    while not game.over and stops < how_many:
        if rng.random() < 0.3:
            stops += 1
            yield game
        if not game.over:
            game.apply(rng.choice(game.legal_actions()))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_setups(max_rounds=4), st.integers(0, 2**32 - 1))
def test_masked_actions_are_accepted_and_the_rest_refused_unchanged(setup, play_seed):
    # R12: one action table; an illegal action raises and changes nothing.
    game = setup_game(setup)
    total = game.total_value()
    for point in _decision_points(game, random.Random(play_seed), 3):
        legal = set(point.legal_actions())
        before = snapshot(point)
        for action in range(NUM_ACTIONS):
            if action in legal:
                trial = point.clone()
                trial.apply(action)
                assert_invariants(trial, total)
            else:
                with pytest.raises(IllegalActionError):
                    point.apply(action)
        assert snapshot(point) == before


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_setups(max_rounds=4), st.integers(0, 2**32 - 1))
def test_env_mask_equals_legal_actions(setup, play_seed):
    # R12 through the AEC env: the int8 mask is the engine's legal actions, for the agent to act only.
    rules, num_players, seed, dealer = setup
    env = commerce_env.raw_env(variant=rules.variant, num_players=num_players,
                               **{k: v for k, v in rules.options().items() if k != "variant"})
    env.reset(seed=seed, options={"dealer": dealer})
    rng = random.Random(play_seed)
    while not all(env.terminations.values()):
        agent = env.agent_selection
        legal = env.game.legal_actions()
        for other in env.agents:
            mask = env.observe(other)["action_mask"]
            assert mask.dtype == np.int8
            expected = np.zeros(NUM_ACTIONS, dtype=np.int8)
            if other == agent:
                expected[legal] = 1
            assert np.array_equal(mask, expected)
        env.step(rng.choice(legal))


def _trace(setup, play_seed, decks=None):
    rules, num_players, seed, dealer = setup
    game = new_game(rules, num_players, seed=seed, dealer=dealer, decks=decks)
    rng = random.Random(play_seed)
    trace = []
    while not game.over:
        trace.append([encode(game, s).tobytes() for s in range(num_players)])
        game.apply(rng.choice(game.legal_actions()))
        trace.append(game.take_rewards())
    return game.history_texts(), trace, game.returns()


@settings(max_examples=60, deadline=None)
@given(game_setups(max_rounds=4), st.integers(0, 2**32 - 1))
def test_same_seed_same_game(setup, play_seed):
    # R1.5: the same seed gives the same deals, histories, observations and rewards.
    assert _trace(setup, play_seed) == _trace(setup, play_seed)


@settings(max_examples=60, deadline=None)
@given(game_setups(max_rounds=4), st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1))
def test_same_pack_same_deal(setup, play_seed, pack_seed):
    # R1.5: a given pack and dealer fix the deal whatever the seed.
    rules, num_players, seed, dealer = setup
    pack = list(commerce_env.cards.make_pack(rules.deck_size))
    random.Random(pack_seed).shuffle(pack)
    first = new_game(rules, num_players, seed=seed, dealer=dealer, decks=[pack])
    second = new_game(rules, num_players, seed=seed + 1, dealer=dealer, decks=[pack])
    if first.deals_dealt == 1:  # not settled at once by a dealt ship (R7.3), which deals again
        assert first.hands == second.hands and first.table == second.table and first.stock == second.stock
    other_seed = (rules, num_players, seed + 1, dealer)
    history, trace, returns = _trace(setup, play_seed, decks=[pack])
    history_2, trace_2, returns_2 = _trace(other_seed, play_seed, decks=[pack])
    if first.deals_dealt == 1 and rules.deals == 1:  # the whole match is the given deal
        assert (history, trace, returns) == (history_2, trace_2, returns_2)


@FAST
@given(game_setups(), st.integers(0, 2**32 - 1))
def test_a_seat_the_match_is_finished_for_never_acts_and_is_never_paid_again(setup, play_seed):
    # R4.6, R6.5, R7.5: an out player is dealt nothing and paid nothing; R9.4: the horse is offered
    # to one of them only while it is that seat's turn.  Outcome rewards settle at the end (DESIGN).
    game = setup_game(setup)
    rng = random.Random(play_seed)
    finished_at: dict[int, list[float]] = {}  # seat -> its returns when first finished
    while True:
        for seat in range(game.num_players):
            if game.finished_for(seat):
                finished_at.setdefault(seat, game.returns())
                assert game.current_player != seat
            else:
                assert seat not in finished_at  # once finished, always finished
        if game.over:
            break
        game.apply(rng.choice(game.legal_actions()))
    for seat, returns in finished_at.items():
        assert game.returns()[seat] == returns[seat]  # its return was final
    if game.rules.reward == "outcome" or not game.rules.has_lives:
        assert all(returns == game.returns() for returns in finished_at.values())  # only at the end
    else:
        out = [s for s in range(game.num_players) if game.out[s]]
        assert set(out) <= set(finished_at)
