"""Wrong types and values given to the envs and agents: each refused with an error that names the
bad value, and nothing changed; or, where the meaning is plain (a numpy seed, one feature name,
a number YAML read as text), simply taken."""

from __future__ import annotations

import math

import gymnasium
import numpy as np
import pytest
import yaml

import commerce_env
from agents import make_agent
from agents.search import MAX_MS, MAX_WORLDS, SearchAgent
from commerce_env.observation import observation_size
from commerce_env.single_agent import CommerceEnv


def aec():
    env = commerce_env.env(num_players=3)
    env.reset(seed=1)
    return env


def single():
    env = CommerceEnv(num_players=3)
    env.reset(seed=1)
    return env


def raw():
    env = commerce_env.raw_env(num_players=3)
    env.reset(seed=1)
    return env


def gym():
    env = gymnasium.make("commerce/Commerce-v0", num_players=3)
    env.reset(seed=1)
    return env


ENVS = {"aec": aec, "raw": raw, "single": single, "gym": gym}


def game_of(env):
    return env.unwrapped.game


def first_observation(env):
    if isinstance(env.unwrapped, CommerceEnv):
        return env.unwrapped._observe()
    return env.observe(env.agent_selection)["observation"]


# ------------------------------------------------------------------ seeds
@pytest.mark.parametrize("make", ENVS.values(), ids=ENVS.keys())
@pytest.mark.parametrize("seed", [np.int64(3), np.int32(3), np.uint64(3)])
def test_a_numpy_integer_seed_is_the_same_seed(make, seed):
    env, twin = make(), make()
    env.reset(seed=seed)
    twin.reset(seed=3)
    assert game_of(env).record == game_of(twin).record
    np.testing.assert_array_equal(first_observation(env), first_observation(twin))


@pytest.mark.parametrize("make", ENVS.values(), ids=ENVS.keys())
@pytest.mark.parametrize("seed", ["3", 3.5, True, [3]])
def test_a_seed_that_is_no_integer_is_refused_and_changes_nothing(make, seed):
    env = make()
    game = game_of(env)
    with pytest.raises(TypeError, match=f"seed.*{seed!r}".replace("[", r"\[")):
        env.reset(seed=seed)
    assert game_of(env) is game


# ---------------------------------------------------------- reset options
@pytest.mark.parametrize("make", ENVS.values(), ids=ENVS.keys())
@pytest.mark.parametrize("options, named", [
    ([1], r"options.*\[1\]"),
    ("deck", "options.*'deck'"),
    (5, "options.*5"),
    ({"deck": 5}, "deck.*5"),
    ({"decks": 5}, "decks.*5"),
    ({"deck": None}, "deck.*None"),
    ({"decks": [5]}, "5"),
])
def test_reset_options_of_the_wrong_type_are_named_and_change_nothing(make, options, named):
    env = make()
    game = game_of(env)
    with pytest.raises((TypeError, ValueError), match=named):
        env.reset(seed=2, options=options)
    assert game_of(env) is game


# ----------------------------------------------------------------- config
@pytest.mark.parametrize("make", [commerce_env.env, commerce_env.raw_env, CommerceEnv,
                                  lambda **kw: gymnasium.make("commerce/Commerce-v0", **kw)])
@pytest.mark.parametrize("config", [123, ["rules.yaml"], {"variant": "widow"}])
def test_a_config_that_is_no_path_is_named(make, config):
    with pytest.raises(TypeError, match=f"config.*{config!r}".replace("[", r"\[")):
        make(config=config)


# -------------------------------------------------------------- opponents
def vec(**kwargs):
    pytest.importorskip("numba")
    from training.vec_env import make_vec_env

    return make_vec_env("trade_barter", 3, 2, **kwargs)


SINGLE_AGENT_ENVS = {"single": CommerceEnv, "gym": lambda **kw: gymnasium.make("commerce/Commerce-v0", **kw),
                     "vec": vec}


@pytest.mark.parametrize("make", SINGLE_AGENT_ENVS.values(), ids=SINGLE_AGENT_ENVS.keys())
@pytest.mark.parametrize("opponents, named", [
    ([42], r"opponents\[0\].*42"), (["random", None], r"opponents\[1\].*None"), ([2.5], r"opponents\[0\].*2.5"),
    ([["greedy"]], r"opponents\[0\]"),
])
def test_an_opponent_that_is_no_spec_is_named_with_its_place(make, opponents, named):
    with pytest.raises((TypeError, ValueError), match=named):
        make(opponents=opponents)


@pytest.mark.parametrize("make", SINGLE_AGENT_ENVS.values(), ids=SINGLE_AGENT_ENVS.keys())
@pytest.mark.parametrize("weights, named", [
    ([math.nan], "nan"), ([math.inf], "inf"), (["x"], "'x'"), ([-1.0], "-1"), ([0.0], "opponent_weights"),
    ([1.0, 1.0], "opponent_weights"), (5, "5"), ("1", "'1'"), ([True], "True"),
])
def test_bad_opponent_weights_are_refused_when_the_env_is_made(make, weights, named):
    # Refused at construction, not at the first reset that draws opponents.
    with pytest.raises((TypeError, ValueError), match=named):
        make(opponents=["random"], opponent_weights=weights)


# --------------------------------------------------------------- features
@pytest.mark.parametrize("make", SINGLE_AGENT_ENVS.values(), ids=SINGLE_AGENT_ENVS.keys())
def test_one_feature_name_as_text_is_that_feature(make):
    env = make(opponents=["random"], features="hand_strength")
    assert env.observation_space.shape == (observation_size(3 if make is vec else 4) + 20,)
    assert env.unwrapped.features == ["hand_strength"] if make is not vec else env.features == ["hand_strength"]


@pytest.mark.parametrize("make", SINGLE_AGENT_ENVS.values(), ids=SINGLE_AGENT_ENVS.keys())
@pytest.mark.parametrize("features, named", [(5, "features.*5"), (["hand_strength", 7], "7"),
                                             ("no_such_feature", "no_such_feature")])
def test_features_that_are_no_names_are_named(make, features, named):
    with pytest.raises((TypeError, ValueError), match=named):
        make(opponents=["random"], features=features)


# ---------------------------------------------------------- agent numbers
@pytest.mark.parametrize("spec, attribute, value", [
    ({"agent": "search", "ms": "1e3"}, "ms", 1000.0),  # YAML 1.1 reads 1e3 as text
    ({"agent": "search", "worlds": "48"}, "worlds", 48),
    ({"agent": "search", "worlds": "1e2"}, "worlds", 100),
    ("search(margin=2)", "margin", 2.0),
    ({"agent": "greedy", "quantile": "7e-1"}, "quantile", 0.7),
    ({"agent": "expected_value", "knock_threshold": "5e-1"}, "knock_threshold", 0.5),
])
def test_numbers_written_as_text_are_read_as_numbers(spec, attribute, value):
    agent = make_agent(spec)
    assert getattr(agent, attribute) == value and type(getattr(agent, attribute)) is type(value)


@pytest.mark.parametrize("arguments, named", [
    ({"ms": "1e12"}, "ms.*1e12"), ({"ms": 1e12}, "ms.*1000000000000"), ({"ms": MAX_MS + 1}, "ms"),
    ({"worlds": 10**9}, "worlds.*1000000000"), ({"worlds": MAX_WORLDS + 1}, "worlds"),
    ({"worlds": "many"}, "worlds.*'many'"), ({"worlds": 2.5}, "worlds.*2.5"), ({"ms": "nan"}, "ms.*nan"),
    ({"ms": [5]}, r"ms.*\[5\]"), ({"margin": "inf"}, "margin.*inf"), ({"barter": "no"}, "barter.*'no'"),
    ({"prior": "yes"}, "prior.*'yes'"), ({"rollout_quantile": "x"}, "rollout_quantile.*'x'"),
    ({"worlds": True}, "worlds.*True"),
])
def test_search_arguments_out_of_bounds_or_of_the_wrong_type_are_named(arguments, named):
    with pytest.raises(ValueError, match=named):
        SearchAgent(**arguments)
    with pytest.raises(ValueError, match=named):
        make_agent({"agent": "search", **arguments})


@pytest.mark.parametrize("spec, named", [
    ({"agent": "greedy", "quantile": "high"}, "quantile.*'high'"), ({"agent": "greedy", "barter": "no"}, "barter"),
    ({"agent": "greedy", "quantile": math.nan}, "quantile.*nan"),
    ({"agent": "expected_value", "stand_threshold": [1]}, r"stand_threshold.*\[1\]"),
])
def test_heuristic_arguments_of_the_wrong_type_are_named(spec, named):
    with pytest.raises(ValueError, match=named):
        make_agent(spec)


@pytest.mark.parametrize("seed", ["3", 3.5, True])
def test_a_vec_env_seed_that_is_no_integer_is_named(seed):
    with pytest.raises(TypeError, match=f"seed.*{seed!r}"):
        vec(opponents=["random"], seed=seed)
    env = vec(opponents=["random"])
    with pytest.raises(TypeError, match=f"seed.*{seed!r}"):
        env.seed(seed)


def test_a_vec_env_takes_a_numpy_integer_seed():
    np.testing.assert_array_equal(vec(opponents=["random"], seed=np.int64(3)).reset(),
                                  vec(opponents=["random"], seed=3).reset())


def test_yaml_numbers_in_exponent_form_reach_search_as_numbers():
    spec = yaml.safe_load("{agent: search, ms: 1e3, worlds: 1e2}")
    assert spec["ms"] == "1e3"  # YAML 1.1 reads it as text
    agent = make_agent(spec)
    assert agent.ms == 1000.0 and agent.worlds == 100
    with pytest.raises(ValueError, match="ms.*1e12"):
        make_agent(yaml.safe_load("{agent: search, ms: 1e12}"))
    with pytest.raises(ValueError, match="ms.*1e12"):
        make_agent("search(ms=1e12)")
