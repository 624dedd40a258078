"""``exchange: expected_value``: a learner's mask keeps only expected_value's exchange (R6.3, R8.2, R9.1).

The policy still chooses whether to exchange, stand or pass; which card goes for
which is the heuristic's.  Here: the narrowed mask in one game (the exchange the
agent makes, nothing else changed), the batched masks equal the one-game ones,
both envs, a model that records it and plays by it (one-game and batched alike),
the demonstrations pretraining keeps, and the refusals.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import views_through_a_game
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.heuristics import ExpectedValueAgent
from commerce_env.engine.actions import EXCHANGE
from commerce_env.exchange_limit import EXCHANGE_LIMITS, ExchangeLimit, check_exchange_limit
from commerce_env.rules import make_rules
from commerce_env.view import seat_view

TABLE_VARIANTS = ("widow", "old_game", "pool")


def _views(variant: str, seed: int, steps: int = 150):
    """Views of the player to act through a match of expected_value and random moves."""
    return views_through_a_game(variant, seed, steps, tag="limit")


@pytest.mark.parametrize("variant", TABLE_VARIANTS)
def test_the_mask_keeps_expected_values_exchange_and_nothing_else_changes(variant):
    # R6.3, R8.2: of the legal exchanges only the one expected_value makes stays; stand, pass,
    # knock and the rest are as the rules make them.
    limit, agent = ExchangeLimit(make_rules(variant), 4), ExpectedValueAgent()
    exchanged = 0
    for seed in range(5):
        for view in _views(variant, seed):
            legal = np.asarray(view["action_mask"], dtype=bool)
            narrowed = limit(legal, view)
            np.testing.assert_array_equal(narrowed[:EXCHANGE], legal[:EXCHANGE])
            assert not (narrowed & ~legal).any()
            assert narrowed[EXCHANGE:].sum() == (1 if legal[EXCHANGE:].any() else 0)
            action = agent.act(view)
            if action >= EXCHANGE:
                assert narrowed[action]
                exchanged += 1
    assert exchanged > 0


@settings(max_examples=25, deadline=None)
@given(variant=st.sampled_from(TABLE_VARIANTS), seed=st.integers(0, 10_000))
def test_the_narrowed_mask_is_never_empty_and_never_wider(variant, seed):
    # R8.2: whoever may exchange may still exchange (one way), and nothing illegal is let in.
    limit = ExchangeLimit(make_rules(variant), 4)
    for view in _views(variant, seed, steps=60):
        legal = np.asarray(view["action_mask"], dtype=bool)
        narrowed = limit(legal, view)
        assert narrowed.any() and not (narrowed & ~legal).any()
        assert narrowed[EXCHANGE:].any() == legal[EXCHANGE:].any()


def test_any_leaves_the_mask_as_the_rules_make_it():
    limit = ExchangeLimit(make_rules("pool"), 4, "any")
    for view in _views("pool", 3):
        np.testing.assert_array_equal(limit(view["action_mask"], view), np.asarray(view["action_mask"], dtype=bool))


@pytest.mark.parametrize("variant", TABLE_VARIANTS)
def test_the_batched_masks_equal_the_one_game_masks(variant):
    pytest.importorskip("numba")
    from test_vector_env import lockstep_states

    from commerce_env.exchange_limit import BatchExchangeLimit

    rules = make_rules(variant)
    one, batched = ExchangeLimit(rules, 4), BatchExchangeLimit(rules, 4)
    narrowed = 0
    for engine, refs, live in lockstep_states(variant, {}, 4, 6, f"limit-{variant}", steps=40):
        games = np.flatnonzero(live)
        seats = engine.current_player[games]
        masks = batched(engine.action_mask[games], engine, games, seats)
        for row, g in enumerate(games):
            view = seat_view(refs[g], refs[g].current_player)
            expected = one(view["action_mask"], view)
            np.testing.assert_array_equal(masks[row], expected)
            narrowed += int(np.asarray(view["action_mask"], dtype=bool)[EXCHANGE:].sum() > expected[EXCHANGE:].sum())
    assert narrowed > 0


def test_both_envs_give_the_learner_the_narrowed_mask():
    # R9.1: pool commerce plays each deal as the old game; the learner's mask has one exchange at most.
    pytest.importorskip("numba")
    import agents
    from commerce_env.single_agent import CommerceEnv
    from training.vec_env import make_vec_env

    env = CommerceEnv("pool", 4, opponents=["greedy"], exchange="expected_value", resolver=agents.make_agent)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    seen = 0
    for _ in range(150):
        mask, legal = env.action_masks(), np.zeros(27, dtype=bool)
        legal[env.game.legal_actions()] = True
        view = seat_view(env.game, env.seat)
        np.testing.assert_array_equal(mask, ExchangeLimit(env.rules, 4)(legal, view))
        seen += int(legal[EXCHANGE:].sum() > 1)
        _, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if done:
            env.reset()
    assert seen > 0
    vec = make_vec_env("pool", 4, 8, opponents=["greedy"], seed=2, exchange="expected_value")
    plain = make_vec_env("pool", 4, 8, opponents=["greedy"], seed=2)
    vec.reset(), plain.reset()
    for _ in range(40):
        masks, legal = vec.action_masks(), vec.engine.action_mask.astype(bool)
        np.testing.assert_array_equal(plain.action_masks(), plain.engine.action_mask.astype(bool))
        assert not (masks & ~legal).any() and (masks[:, EXCHANGE:].sum(axis=1) == legal[:, EXCHANGE:].any(axis=1)).all()
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        vec.step(actions)
        plain.step((rng.random(masks.shape) * plain.action_masks()).argmax(axis=1))


@pytest.mark.parametrize("bad", ["ev", "", None, 1, ["expected_value"]])
def test_a_bad_limit_is_refused_by_name(bad):
    with pytest.raises(ValueError, match="exchange"):
        check_exchange_limit(bad, "pool")
    with pytest.raises(ValueError, match=repr(bad) if isinstance(bad, str) and bad else "exchange"):
        ExchangeLimit(make_rules("pool"), 4, bad)


@pytest.mark.parametrize("variant", ["trade_barter", "my_ship_sails"])
def test_a_variant_without_a_face_up_table_refuses_the_limit(variant):
    # R5, R7: no face-up table, so no exchange with it to limit
    with pytest.raises(ValueError, match=variant):
        check_exchange_limit("expected_value", variant)
    assert check_exchange_limit("any", variant) == "any"
    assert EXCHANGE_LIMITS == ("any", "expected_value")


def test_the_config_checks_env_exchange(tmp_path):
    from test_training import tiny

    from training.config import validate

    with pytest.raises(ValueError, match="env.exchange 'ev'"):
        validate(tiny(tmp_path, env={"variant": "pool", "num_players": 4, "rules": {}, "exchange": "ev"}))
    with pytest.raises(ValueError, match="trade_barter"):
        validate(tiny(tmp_path, env={"variant": "trade_barter", "num_players": 4, "rules": {},
                                     "exchange": "expected_value"}))
    assert validate(tiny(tmp_path, env={"variant": "pool", "num_players": 4, "rules": {}}))["env"]["exchange"] == "any"


def _limited_model(tiny_model, seed=0):
    """A random pool model whose model.json says ``exchange: expected_value``."""
    folder = tiny_model("pool", 4, seed=seed, features=["hand_strength"])
    meta = json.loads((folder / "model.json").read_text())
    assert "exchange" not in meta  # make_meta writes it only when it is not "any"
    meta["exchange"] = "expected_value"
    (folder / "model.json").write_text(json.dumps(meta))
    return folder


def test_a_limited_model_plays_only_expected_values_exchange_one_game_and_batched(tiny_model):
    # R8.2: whenever the model exchanges, it makes expected_value's exchange; the batched policy agrees.
    pytest.importorskip("numba")
    from test_vector_env import lockstep_states

    from agents.batched import BatchedPolicy
    from agents.learned import load_agent

    agent = load_agent(_limited_model(tiny_model))
    free = load_agent(tiny_model("pool", 4, seed=0, features=["hand_strength"]))
    assert agent.exchange == "expected_value" and free.exchange == "any"
    batched, limit = BatchedPolicy(agent), ExchangeLimit(make_rules("pool"), 4)
    exchanges = differ = 0
    for engine, refs, live in lockstep_states("pool", {}, 4, 6, "limited-model", steps=50):
        games = np.flatnonzero(live)
        got = batched.act_batch(engine, games, engine.current_player[games])
        for row, g in enumerate(games):
            view = seat_view(refs[g], refs[g].current_player)
            action = agent.act(view)
            assert got[row] == action
            assert limit(view["action_mask"], view)[action]
            exchanges += action >= EXCHANGE
            differ += action != free.act(view)
    assert exchanges > 0 and differ > 0


def test_a_model_json_with_a_bad_limit_is_refused(tiny_model):
    from agents.learned import load_agent

    folder = _limited_model(tiny_model, seed=1)
    meta = json.loads((folder / "model.json").read_text())
    for bad in ("whatever", 3):
        meta["exchange"] = bad
        (folder / "model.json").write_text(json.dumps(meta))
        with pytest.raises(ValueError, match="exchange"):
            load_agent(folder)
    folder = tiny_model("trade_barter", 4, seed=1)
    meta = json.loads((folder / "model.json").read_text())
    meta["exchange"] = "expected_value"
    (folder / "model.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="trade_barter"):
        load_agent(folder)


def test_pretraining_keeps_only_the_decisions_the_limited_mask_allows():
    # greedy's exchange is often not expected_value's: those decisions are played but not kept.
    from training.pretrain import collect

    free = collect("greedy", "old_game", 4, {}, [], 300, seed=6)
    limited = collect("greedy", "old_game", 4, {}, [], 300, seed=6, exchange="expected_value")
    assert limited.masks[np.arange(len(limited)), limited.actions].all()
    assert (limited.masks[:, EXCHANGE:].sum(axis=1) <= 1).all()
    assert (free.masks[:, EXCHANGE:].sum(axis=1) > 1).any()
    both = collect("expected_value", "old_game", 4, {}, [], 200, seed=6, exchange="expected_value")
    kept = collect("expected_value", "old_game", 4, {}, [], 200, seed=6)
    assert len(both) == len(kept)  # expected_value's own decisions are all allowed
    np.testing.assert_array_equal(both.actions, kept.actions)


def test_a_run_with_the_limit_records_it_and_its_model_plays_by_it(tmp_path):
    pytest.importorskip("numba")
    from pathlib import Path

    from test_training import tiny

    from agents.evaluate import evaluate_agent
    from agents.learned import load_agent
    from training.config import validate
    from training.train import train

    config = validate(tiny(tmp_path, env={"variant": "pool", "num_players": 4, "rules": {},
                                          "features": ["hand_strength"], "exchange": "expected_value"},
                           opponents={"pool": ["greedy"]},
                           training={"total_timesteps": 512, "vec_env": "batch", "n_envs": 4},
                           pretrain={"teacher": "expected_value", "decisions": 100, "epochs": 1},
                           evaluation={"every_steps": 10_000, "final_deals": 0}))
    train(config, quiet=True)
    model = Path(config["output"]) / "model"
    assert json.loads((model / "model.json").read_text())["exchange"] == "expected_value"
    assert load_agent(model).exchange_limit is not None
    for opponent in ("greedy", "expected_value"):  # the batched arena, and the readable one
        report = evaluate_agent(f"model:{model}", [opponent], variant="pool", deals=8, seed=1)
        assert report["result"]["games"] == 8
