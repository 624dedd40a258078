"""The ``exchange_odds`` feature: what ``expected_value`` weighs at the face-up table (R6.3-R6.4, R8.2-R8.3, R9.3).

The one-game feature reads the seat's view (:func:`commerce_env.odds.exchange_outlook`,
the same function ``expected_value`` chooses by); the batched one reads the batched
engine.  Here: its one-hot is ``expected_value``'s exchange whenever that agent
exchanges, the batched columns equal the readable ones at every decision of
lockstep matches, and it refuses variants without a table and calls without a view.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_rules_common import random_options

from agents.heuristics import ExpectedValueAgent
from commerce_env.engine import new_game
from commerce_env.engine.actions import EXCHANGE
from commerce_env.features import ExchangeOdds, feature_builders
from commerce_env.rules import make_rules
from commerce_env.view import seat_view

TABLE_VARIANTS = ("widow", "old_game", "pool")


def _decisions(variant, seed, n=4, steps=200, options=None):
    """Views of the player to act through a random-and-expected_value match, with its game."""
    rng = random.Random(f"odds-{variant}-{seed}")
    game = new_game(make_rules(variant, **(options or {})), n, dealer=rng.randrange(n), rng=random.Random(seed))
    agent = ExpectedValueAgent()
    for _ in range(steps):
        if game.over:
            return
        seat = game.current_player
        view = seat_view(game, seat)
        yield game, view
        action = agent.act(view) if rng.random() < 0.7 else rng.choice(game.legal_actions())
        game.apply(action)


@pytest.mark.parametrize("variant", TABLE_VARIANTS)
def test_the_one_hot_is_the_exchange_expected_value_makes(variant):
    # R8.2, R9.3: whenever expected_value exchanges, it takes the exchange the feature marks best,
    # and the marked exchange has the highest score of the legal ones.
    rules = make_rules(variant)
    feature, agent = ExchangeOdds(rules, 4), ExpectedValueAgent()
    exchanged = 0
    for seed in range(6):
        for _, view in _decisions(variant, seed):
            columns = feature(view.observation, view)
            legal = [a - EXCHANGE for a in view.legal_actions if a >= EXCHANGE]
            if not legal:
                assert not columns.any()
                continue
            assert columns[11:].sum() == 1.0
            marked = int(np.argmax(columns[11:]))
            assert marked in legal and columns[marked] == max(columns[i] for i in legal)
            assert all(columns[i] == 0.0 for i in range(9) if i not in legal)
            assert 0.0 <= columns[10] <= 1.0 and all(0.0 <= columns[i] <= 1.0 for i in legal)
            action = agent.act(view)
            if action >= EXCHANGE:
                exchanged += 1
                assert action - EXCHANGE == marked
    assert exchanged > 20


def test_pool_scores_weigh_the_life_the_worst_hand_loses():
    # R9.3: with lives at stake the score is not the bare chance to win: some pool decision
    # scores an exchange above another whose chance to win is at least as high.
    from commerce_env.odds import WinModel, exchange_outlook, finished_seats

    differs = 0
    for seed in range(4):
        for _, view in _decisions("pool", seed):
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


@pytest.mark.parametrize("variant", ["trade_barter", "my_ship_sails"])
def test_a_variant_without_a_table_is_refused_by_name(variant):
    with pytest.raises(ValueError, match=f"exchange_odds.*{variant}"):
        feature_builders(["exchange_odds"], make_rules(variant), 4)


def test_without_a_view_it_says_what_it_needs():
    rules = make_rules("pool")
    with pytest.raises(ValueError, match="SeatView"):
        ExchangeOdds(rules, 4)(np.zeros(10, np.float32), None)


@pytest.mark.parametrize("variant", TABLE_VARIANTS)
@pytest.mark.parametrize("seed", range(3))
def test_the_batched_feature_equals_the_readable_one(variant, seed):
    # The batched columns equal the one-game feature's at every decision of lockstep matches
    # (random options and table sizes, as the engine comparison in test_vector_engine.py).
    pytest.importorskip("numba")
    from test_vector_engine import _setup

    from commerce_env.vector import BatchEngine
    from commerce_env.vector.features import BatchExchangeOdds

    rng = random.Random(f"odds-batch-{variant}-{seed}")
    n = rng.choice([2, 3, 4, 5])
    options = random_options(rng, variant, n)
    rules = make_rules(variant, **options)
    games, packs = 3, 20
    decks, dealers = _setup(rules, n, games, rng, packs)
    refs = [new_game(rules, n, decks=d, dealer=dealer) for d, dealer in zip(decks, dealers, strict=True)]
    engine = BatchEngine(variant, n, games, **options)
    engine.reset(decks=decks, dealer=dealers)
    one, batched = ExchangeOdds(rules, n), BatchExchangeOdds(rules, n)
    agent = ExpectedValueAgent()
    compared = 0
    for _ in range(250):
        live = [not ref.over and ref.deals_dealt < packs - 3 for ref in refs]
        if not any(live):
            break
        seats = np.array([ref.current_player if ref.current_player is not None else 0 for ref in refs])
        columns = batched(engine.observe(seats), engine, np.arange(games), seats)
        actions = np.zeros(games, dtype=np.int64)
        for g, ref in enumerate(refs):
            if not live[g]:
                continue
            view = seat_view(ref, int(seats[g]))
            expected = one(view.observation, view)
            np.testing.assert_allclose(columns[g], expected, atol=1e-6, err_msg=str((options, n, g)))
            compared += bool(expected.any())
            actions[g] = agent.act(view) if rng.random() < 0.7 else rng.choice(ref.legal_actions())
            ref.apply(int(actions[g]))
        engine.step(actions, where=np.array(live))
    assert compared > 0


@pytest.mark.parametrize("variant", TABLE_VARIANTS)
def test_batched_policy_with_exchange_odds_picks_what_the_learned_agent_picks(variant):
    # The batched arena's model (BatchedPolicy) and the one-game LearnedAgent see the same
    # columns, so they choose alike; with the odds' columns blanked some choices change.
    pytest.importorskip("numba")
    from test_known_hands import _Blank
    from test_vector_env import lockstep_states

    from agents.batched import BatchedPolicy
    from agents.learned import LearnedAgent, expected_shapes
    from commerce_env.observation import LAYOUT_VERSION, observation_size

    rng = np.random.default_rng(5)
    size = observation_size(4) + 20 + 20
    weights = {name: rng.normal(0, 0.3, shape).astype(np.float32)
               for name, shape in expected_shapes(size, [16]).items()}
    for name in weights:  # the odds' columns weigh heavily, so that they decide
        if name.endswith("0.weight"):
            weights[name][:, -20:] *= 10
    meta = {"variant": variant, "num_players": 4, "network": {"hidden": [16], "activation": "tanh"},
            "features": ["hand_strength", "exchange_odds"], "rules": make_rules(variant).options(),
            "observation_layout_version": LAYOUT_VERSION}
    agent = LearnedAgent(weights, meta)
    blind = LearnedAgent(weights, {**meta})
    blind.feature_builders = [blind.feature_builders[0], _Blank(20)]
    batched = BatchedPolicy(agent)
    differ = 0
    for engine, refs, live in lockstep_states(variant, {}, 4, 6, f"odds-{variant}", steps=40):
        games = np.flatnonzero(live)
        got = batched.act_batch(engine, games, engine.current_player[games])
        views = [seat_view(refs[g], refs[g].current_player) for g in games]
        assert got.tolist() == [agent.act(v) for v in views]
        differ += sum(agent.act(v) != blind.act(v) for v in views)
    assert differ > 0


def test_a_run_with_exchange_odds_ships_a_model_that_plays_in_the_arena(tmp_path):
    pytest.importorskip("numba")
    from pathlib import Path

    from test_training import tiny

    from agents.evaluate import evaluate_agent
    from agents.learned import load_agent
    from training.config import validate
    from training.train import train

    config = validate(tiny(tmp_path, env={"variant": "pool", "num_players": 4, "rules": {},
                                          "features": ["hand_strength", "exchange_odds"]},
                           opponents={"pool": ["greedy"]},
                           training={"total_timesteps": 512, "vec_env": "batch", "n_envs": 4},
                           evaluation={"every_steps": 10_000, "final_deals": 0}))
    train(config, quiet=True)
    model = Path(config["output"]) / "model"
    assert load_agent(model).features == ["hand_strength", "exchange_odds"]
    for opponent in ("greedy", "expected_value"):  # the batched arena, and the readable one
        report = evaluate_agent(f"model:{model}", [opponent], variant="pool", deals=8, seed=1)
        assert report["result"]["games"] == 8


@pytest.mark.parametrize("variant", TABLE_VARIANTS)
def test_exchange_choice_is_the_one_hot_of_the_odds(variant):
    # exchange_choice: only expected_value's exchange (R8.2), as the odds mark it; one-game and batched.
    pytest.importorskip("numba")
    from test_vector_env import lockstep_states

    from commerce_env.features import ExchangeChoice
    from commerce_env.vector.features import BatchExchangeChoice, BatchExchangeOdds

    rules = make_rules(variant)
    odds, choice = ExchangeOdds(rules, 4), ExchangeChoice(rules, 4)
    batched_odds, batched_choice = BatchExchangeOdds(rules, 4), BatchExchangeChoice(rules, 4)
    marked = 0
    for engine, refs, live in lockstep_states(variant, {}, 4, 6, f"choice-{variant}", steps=40):
        games = np.flatnonzero(live)
        seats = engine.current_player[games]
        vectors = engine.observe(seats, games)
        columns = batched_choice(vectors, engine, games, seats)
        assert columns.shape == (len(games), 9)
        np.testing.assert_array_equal(columns, batched_odds(vectors, engine, games, seats)[:, 11:])
        for row, g in enumerate(games):
            view = seat_view(refs[g], refs[g].current_player)
            one = choice(view.observation, view)
            np.testing.assert_array_equal(one, odds(view.observation, view)[11:])
            np.testing.assert_array_equal(one, columns[row])
            marked += int(one.sum())
    assert marked > 0
