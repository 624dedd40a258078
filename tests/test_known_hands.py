"""The ``known_hands`` feature: the cards a seat knows to be in the other hands (R11).

The feature reads ``view.public_hands`` (the readable reference) or the batched
engine's record of the same knowledge (``BatchEngine.known_cards``; the two are
compared at every step of random matches in tests/test_vector_engine.py).
Here: what it marks is true and public, it needs the seat's view, a batched
learned policy with it picks what the one-game agent picks, and a run trained
with it ships a model that plays in the arena.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from commerce_env.engine import new_game
from commerce_env.engine.actions import EXCHANGE, KEEP_HAND
from commerce_env.features import KnownHands, append_features, feature_builders
from commerce_env.observation import encode
from commerce_env.rules import VARIANTS, make_rules
from commerce_env.view import seat_view


def marked(columns: np.ndarray, num_players: int) -> dict[int, set[int]]:
    """Relative seat (1: the left neighbour) -> the cards the columns mark."""
    return {j: set(np.flatnonzero(columns[(j - 1) * 52:j * 52]).tolist()) for j in range(1, num_players)}


@settings(max_examples=25, deadline=None)
@given(variant=st.sampled_from(VARIANTS), num_players=st.integers(2, 6), seed=st.integers(0, 2**32 - 1))
def test_every_card_marked_is_in_that_hand_and_was_seen_by_the_seat(variant, num_players, seed):
    # R11: the feature marks only cards the seat has seen (face up, or passed through its own
    # hands), and each is truly in the hand it is marked for, from the seat's left.
    rules = make_rules(variant)
    rng = random.Random(seed)
    game = new_game(rules, num_players, dealer=rng.randrange(num_players), rng=random.Random(seed))
    feature = KnownHands(rules, num_players)
    for _ in range(120):
        if game.over:
            break
        for seat in range(num_players):
            view = seat_view(game, seat)
            columns = feature(view.observation, view)
            assert columns.shape == (52 * (num_players - 1),)
            for j, cards in marked(columns, num_players).items():
                holder = (seat + j) % num_players
                assert cards <= set(game.hands[holder]), (seat, holder, cards, game.hands[holder])
                assert not cards & set(view.unseen), (seat, holder, cards)
        game.apply(rng.choice(game.legal_actions()))


def test_a_card_taken_from_the_widow_table_is_marked_for_the_taker():
    # R6.3: an exchange with the table is face up; the taken card is in the taker's hand.
    rules = make_rules("widow")
    game = new_game(rules, 4, dealer=0, rng=random.Random(5))
    game.apply(KEEP_HAND)  # R6.2: the dealer's blind choice
    taker = game.current_player
    exchange = max(game.legal_actions())
    assert exchange >= EXCHANGE
    taken = game.action_cards(exchange)[1]
    game.apply(exchange)
    for seat in range(4):
        if seat == taker:
            continue
        view = seat_view(game, seat)
        columns = KnownHands(rules, 4)(view.observation, view)
        assert taken in marked(columns, 4)[(taker - seat) % 4]


def test_the_feature_needs_the_seats_view_and_says_so():
    rules = make_rules("widow")
    game = new_game(rules, 4, dealer=0, rng=random.Random(1))
    feature = KnownHands(rules, 4)
    with pytest.raises(ValueError, match="known_hands.*SeatView.*dict"):
        feature(encode(game, 0), {"observation": encode(game, 0)})
    builders = feature_builders(["hand_strength", "known_hands"], rules, 4)
    view = seat_view(game, 1)
    vector = append_features(view.observation, builders, view)
    assert vector.shape == (len(view.observation) + 20 + 3 * 52,)


@pytest.mark.parametrize("variant", ["widow", "old_game", "pool"])
def test_batched_policy_with_known_hands_picks_what_the_learned_agent_picks(variant):
    pytest.importorskip("numba")
    from test_vector_env import lockstep_states

    from agents.batched import BatchedPolicy
    from agents.learned import LearnedAgent, expected_shapes
    from commerce_env.observation import LAYOUT_VERSION, observation_size

    rng = np.random.default_rng(3)
    size = observation_size(4) + 20 + 3 * 52
    weights = {name: rng.normal(0, 0.3, shape).astype(np.float32)
               for name, shape in expected_shapes(size, [16]).items()}
    for name in weights:  # the known-hand columns weigh heavily, so that they decide
        if name.endswith("0.weight"):
            weights[name][:, -3 * 52:] *= 10
    meta = {"variant": variant, "num_players": 4, "network": {"hidden": [16], "activation": "tanh"},
            "features": ["hand_strength", "known_hands"], "rules": make_rules(variant).options(),
            "observation_layout_version": LAYOUT_VERSION}
    agent = LearnedAgent(weights, meta)
    blind = LearnedAgent(weights, {**meta})
    blind.feature_builders = [blind.feature_builders[0], _Blank(3 * 52)]
    batched = BatchedPolicy(agent)
    differ = 0
    for engine, refs, live in lockstep_states(variant, {}, 4, 6, f"known-{variant}", steps=40):
        games = np.flatnonzero(live)
        got = batched.act_batch(engine, games, engine.current_player[games])
        views = [seat_view(refs[g], refs[g].current_player) for g in games]
        assert got.tolist() == [agent.act(v) for v in views]
        differ += sum(agent.act(v) != blind.act(v) for v in views)
    assert differ > 0  # the feature reached the network: without it some choices change


class _Blank:
    needs_view = True

    def __init__(self, size):
        self.size = size

    def __call__(self, vector, view=None):
        return np.zeros(self.size, dtype=np.float32)


def test_a_run_with_known_hands_ships_a_model_that_plays_in_the_arena(tmp_path: Path):
    pytest.importorskip("numba")
    from test_training import tiny

    from agents.evaluate import evaluate_agent
    from agents.learned import load_agent
    from training.config import validate
    from training.train import train

    config = validate(tiny(tmp_path, env={"variant": "widow", "num_players": 4, "rules": {},
                                          "features": ["hand_strength", "known_hands"]},
                           opponents={"pool": ["greedy"]},
                           training={"total_timesteps": 512, "vec_env": "batch", "n_envs": 4},
                           evaluation={"every_steps": 10_000, "final_deals": 0}))
    train(config, quiet=True)
    model = Path(config["output"]) / "model"
    agent = load_agent(model)
    assert agent.features == ["hand_strength", "known_hands"]
    for opponent in ("greedy", "expected_value"):  # the batched arena, and the readable one
        report = evaluate_agent(f"model:{model}", [opponent], variant="widow", deals=24, seed=1)
        assert report["result"]["games"] == 24


def test_known_cards_names_a_bad_seat_and_gives_one_row_per_game():
    pytest.importorskip("numba")
    from commerce_env.vector import BatchEngine

    engine = BatchEngine("widow", 4, 3, seed=1)
    engine.reset()
    assert engine.known_cards(0).shape == (3, 3 * 52)
    assert engine.known_cards([1, 2], games=np.array([0, 2])).shape == (2, 3 * 52)
    with pytest.raises(ValueError, match="seats must be one seat from 0 to 3.*7"):
        engine.known_cards(7)
