"""A model with test-time search (model.json ``search``): the network proposes, determinized
rollouts overrule it only when another action is better by ``margin`` standard errors.

Here: it plays exactly as ``search`` with the network as its prior; with a margin no rollout
clears it plays the network's own choice; every action is legal and a seed replays it; the
network alone on request (and on an AEC observation dict); bad settings refused naming the
value, in model.json, in ``make_meta`` and in a training config; the batched opponents refuse it,
and the arena's batched path plays it with the local path's result.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from helpers import views_through_a_game
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.arena import run_arena
from agents.arena_batched import applies
from agents.learned import load_agent
from agents.model_files import make_meta, read_model
from agents.search import SearchAgent
from agents.specs import parse_spec
from commerce_env.rules import make_rules

VARIANTS = ("pool", "widow", "my_ship_sails")


def _with_search(folder, search) -> None:
    """Give a saved model a ``search`` setting (the weights and their checksum are untouched)."""
    path = folder / "model.json"
    meta = json.loads(path.read_text())
    meta["search"] = search
    path.write_text(json.dumps(meta))


def _views(variant: str, seed: int, steps: int = 60):
    """Views of the player to act through a game of expected_value and random moves."""
    return views_through_a_game(variant, seed, steps, tag="search-model")


@pytest.fixture(scope="module")
def search_model(tiny_model):
    def make(variant: str, worlds: int = 4, margin: float = 1.0):
        folder = tiny_model(variant, 4)
        _with_search(folder, {"worlds": worlds, "margin": margin})
        return folder

    return make


@pytest.mark.parametrize("variant", VARIANTS)
def test_it_plays_exactly_as_search_with_the_network_as_its_prior(search_model, variant):
    # R11: both sample their worlds from the seat's view; with one seed they sample the same ones.
    folder = search_model(variant, worlds=3, margin=0.5)
    model = load_agent(folder)
    reference = SearchAgent(worlds=3, margin=0.5, prior=True)
    reference.prior = load_agent(folder, search=False)
    rules = make_rules(variant)
    model.reset(0, 4, rules, seed=11)
    reference.reset(0, 4, rules, seed=11)
    actions = 0
    for view in _views(variant, 3, steps=40):
        assert model.act(view) == reference.act(view)
        actions += 1
    assert actions > 10


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_huge_margin_overrules_the_network_only_on_a_sure_gain_and_a_zero_margin_more_often(
        search_model, variant):
    # A huge margin leaves the network its choice unless the rollouts gain the same in every
    # world (a standard error of 0); a zero margin takes any better mean.
    network = load_agent(search_model(variant), search=False)
    huge = load_agent(search_model(variant, worlds=3, margin=1e9))
    zero = load_agent(search_model(variant, worlds=3, margin=0.0))
    overruled = {"huge": 0, "zero": 0}
    for seed in range(3):
        for view in _views(variant, seed, steps=40):
            proposed, kept = network.act(view), huge.act(view)
            if kept != proposed:
                values = huge.search.last_values
                assert values[kept] > values[proposed]
                overruled["huge"] += 1
            overruled["zero"] += zero.act(view) != proposed
    assert overruled["zero"] > overruled["huge"]


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6), variant=st.sampled_from(VARIANTS))
def test_every_action_is_legal_and_a_seed_replays_it(search_model, seed, variant):
    folder = search_model(variant, worlds=2, margin=0.0)
    first, second = load_agent(folder, seed=seed), load_agent(folder, seed=seed)
    for view in _views(variant, seed, steps=25):
        action = first.act(view)
        assert action in view.legal_actions
        assert second.act(view) == action


def test_the_network_alone_on_request_and_given_an_observation_dict(search_model):
    folder = search_model("pool")
    model, network = load_agent(folder), load_agent(folder, search=False)
    assert model.search is not None and network.search is None
    for view in _views("pool", 5, steps=20):
        aec = {"observation": view["observation"], "action_mask": view["action_mask"]}  # the AEC env's dict
        assert model.act(aec) == network.act(view)


def test_another_search_budget_on_request_without_editing_the_model(search_model, tiny_model, tmp_path):
    import shutil

    folder = search_model("widow", worlds=4, margin=1.0)
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    _with_search(copy, {"worlds": 3, "margin": 0.5})
    rules = make_rules("widow")
    given, written = load_agent(folder, search={"worlds": 3, "margin": 0.5}), load_agent(copy)
    assert (given.search.worlds, given.search.margin) == (3, 0.5)
    given.reset(0, 4, rules, seed=5)
    written.reset(0, 4, rules, seed=5)
    for view in _views("widow", 4, steps=30):  # plays as the model whose model.json says so
        assert given.act(view) == written.act(view)
    # a model without search gets one on request, and the spec form names it at the table
    plain = tiny_model("widow", 4)
    assert load_agent(plain).search is None
    assert load_agent(plain, search={"worlds": 2, "margin": 1.0}).search.worlds == 2
    spec = parse_spec(f"model:{plain}(search={{worlds: 2, margin: 1.0}})")
    assert spec == {"agent": f"model:{plain}", "search": {"worlds": 2, "margin": 1.0}}
    result = run_arena([spec, "greedy"], variant="widow", games=8, seed=3, progress=False)
    assert f'model:{plain}(search={{"margin": 1.0, "worlds": 2}})' in result["agents"]
    for bad in ({"worlds": 0, "margin": 1.0}, {"worlds": 2}):
        with pytest.raises(ValueError, match="search"):
            load_agent(folder, search=bad)


@pytest.mark.parametrize("bad", [
    {"worlds": 0, "margin": 1.0},
    {"worlds": 24},
    {"worlds": True, "margin": 1.0},
    {"worlds": 24, "margin": -1.0},
    {"worlds": 24, "margin": "wide"},
    {"worlds": 24, "margin": 1.0, "depth": 3},
    {"worlds": 10**6, "margin": 1.0},
    "fast",
])
def test_a_bad_search_in_model_json_is_refused_naming_it(tiny_model, bad):
    folder = tiny_model("pool", 4)
    _with_search(folder, bad)
    with pytest.raises(ValueError, match="search") as error:
        read_model(folder)
    assert repr(bad) in str(error.value)
    with pytest.raises(ValueError, match="search"):
        make_meta(make_rules("pool"), 4, {"hidden": [8], "activation": "tanh"},
                  search=bad if isinstance(bad, dict) else {"worlds": bad})


@pytest.mark.parametrize("margin", [math.nan, math.inf])
def test_make_meta_refuses_a_margin_that_is_not_finite(margin):
    # (model.json cannot hold one: the file reader refuses NaN and infinities itself)
    with pytest.raises(ValueError, match="margin"):
        make_meta(make_rules("pool"), 4, {"hidden": [8], "activation": "tanh"}, search={"worlds": 8, "margin": margin})


def test_make_meta_writes_search_only_when_given():
    rules, network = make_rules("widow"), {"hidden": [8], "activation": "tanh"}
    assert "search" not in make_meta(rules, 4, network)
    assert make_meta(rules, 4, network, search={"worlds": 8, "margin": 1})["search"] == {"worlds": 8, "margin": 1}


def test_the_batched_engine_refuses_it_and_takes_the_network_alone_on_request(search_model):
    from agents.batched import BatchedPolicy, batched_agent

    folder = search_model("pool")
    rules = make_rules("pool")
    for spec in (f"model:{folder}", load_agent(folder)):
        with pytest.raises(ValueError, match="search: false"):
            batched_agent(spec, rules, 4)
    assert isinstance(batched_agent({"agent": f"model:{folder}", "search": False}, rules, 4), BatchedPolicy)


def test_the_arena_plays_it_on_the_batched_path_with_the_local_result(search_model):
    pytest.importorskip("numba")
    folder = search_model("widow", worlds=2)
    rules = make_rules("widow")
    assert applies([f"model:{folder}", "greedy"], rules)
    assert applies([load_agent(folder, search=False), "greedy"], rules)
    batched = run_arena([f"model:{folder}", "greedy"], variant="widow", games=8, seed=3, batched=True,
                        progress=False)
    local = run_arena([f"model:{folder}", "greedy"], variant="widow", games=8, seed=3, batched=False,
                      progress=False)
    assert local["agents"] == batched["agents"]


def test_a_training_config_checks_policy_search_and_the_export_records_it(tiny_ppo):
    from training.checkpoints import policy_agent
    from training.config import validate

    base = {"env": {"variant": "trade_barter", "num_players": 3}}
    for bad in ({"worlds": 0, "margin": 1}, {"margin": 1}, "yes"):
        with pytest.raises(ValueError, match="'policy.search'"):
            validate({**base, "policy": {"search": bad}})
    config = validate({**base, "policy": {"net_arch": [16], "search": {"worlds": 6, "margin": 1.5}}})
    agent, _, meta = policy_agent(tiny_ppo("trade_barter", 3), config.env, config.name, config.policy.search)
    assert meta["search"] == {"worlds": 6, "margin": 1.5}
    assert agent.search is None  # the run trains and evaluates the network alone
    plain = validate(base)
    assert "search" not in policy_agent(tiny_ppo("trade_barter", 3), plain.env, plain.name, plain.policy.search)[2]
    assert np.isfinite(agent.logits(np.zeros(agent.layers[0][0].shape[0]))).all()


def test_a_batched_training_config_refuses_an_opponent_with_search_before_anything_runs(search_model, tmp_path):
    pytest.importorskip("numba")
    from training.config import validate

    folder = search_model("pool")
    base = {"output": str(tmp_path / "run"), "env": {"variant": "pool", "num_players": 4},
            "training": {"vec_env": "batch"}}
    for pool, words in (([f"model:{folder}"], ["opponents.pool[0]", "search: false"]),
                        (["greedy", "search"], ["opponents.pool[1]", "'search'", "no batched form"])):
        with pytest.raises(ValueError) as error:
            validate({**base, "opponents": {"pool": pool}})
        for word in words:
            assert word in str(error.value)
    assert not (tmp_path / "run").exists()
    ok = validate({**base, "opponents": {"pool": [{"agent": f"model:{folder}", "search": False}, "greedy"]}})
    assert ok["opponents"]["pool"][1] == "greedy"
    dummy = validate({**base, "training": {"vec_env": "dummy"}, "opponents": {"pool": [f"model:{folder}"]}})
    assert dummy["training"]["vec_env"] == "dummy"  # the readable env plays it with its search
