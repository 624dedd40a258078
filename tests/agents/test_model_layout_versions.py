"""Models of every observation layout version play on the input they were trained on (observation.LAYOUT_VERSIONS).

Layout 1 (the first models' layout): a player who had done nothing yet in the deal set `passed`;
layout 2: he sets `last_none`, and `passed` means a pass (R6.3, R8.2).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import commerce_env
from agents.learned import LearnedAgent, load_agent
from commerce_env import observation as obs
from commerce_env.observation import PLAYER_FEATURES, PLAYER_FIELDS
from commerce_env.rules import VARIANTS

PASSED, LAST_NONE = PLAYER_FIELDS.index("passed"), PLAYER_FIELDS.index("last_none")


def _blocks(vector: np.ndarray, num_players: int) -> np.ndarray:
    start = dict((name, begin) for name, begin, _ in obs.layout(num_players))["players"]
    return np.asarray(vector)[..., start:start + num_players * PLAYER_FEATURES].reshape(
        *np.shape(vector)[:-1], num_players, PLAYER_FEATURES)


def _inputs(agent: LearnedAgent) -> list[np.ndarray]:
    """Record what ``agent``'s network is given."""
    seen: list[np.ndarray] = []
    logits = agent.logits

    def spy(x):
        seen.append(np.array(x))
        return logits(x)

    agent.logits = spy
    return seen


def _v1_reference(vector: np.ndarray, game, seat: int) -> np.ndarray:
    """Layout 1 as its encoder wrote it: the index -1 (nothing done yet) fell on `passed`."""
    out = np.array(vector)
    n = game.num_players
    blocks = _blocks(out, n)
    for k in range(n):
        if game.last_kind[(seat + k) % n] < 0:
            blocks[k, PASSED], blocks[k, LAST_NONE] = 1.0, 0.0
    start = dict((name, begin) for name, begin, _ in obs.layout(n))["players"]
    out[start:start + n * PLAYER_FEATURES] = blocks.reshape(-1)
    return out


@pytest.mark.parametrize("variant", ["trade_barter", "old_game", "widow"])
def test_a_layout_1_model_sees_passed_for_a_player_who_has_not_acted(tiny_model, variant):
    # R6.3 / R8.2: before anyone acts the current observation says `last_none`; a layout-1 model was
    # trained on `passed` there, and gets it.
    env = commerce_env.raw_env(variant=variant, num_players=3)
    env.reset(seed=0)
    view = env.observe(env.agent_selection)
    assert (_blocks(view["observation"], 3)[:, LAST_NONE] == 1).all()
    assert (_blocks(view["observation"], 3)[:, PASSED] == 0).all()
    old = load_agent(tiny_model(variant, 3, layout_version=1))
    new = load_agent(tiny_model(variant, 3))
    old_inputs, new_inputs = _inputs(old), _inputs(new)
    observation = view["observation"].copy()
    old.act(view)
    new.act(view)
    assert np.array_equal(view["observation"], observation)  # the view is not changed
    assert (_blocks(old_inputs[0], 3)[:, PASSED] == 1).all() and (_blocks(old_inputs[0], 3)[:, LAST_NONE] == 0).all()
    assert np.array_equal(new_inputs[0], view["observation"])  # layout 2: the observation as it is


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_layout_1_model_gets_layout_1_at_every_decision(tiny_model, variant):
    # Played out with the model at every seat: its input is layout 1 exactly, and layout 2's
    # passed/last_none differ from it wherever someone has not acted yet (R6.3, R8.2).
    agent = load_agent(tiny_model(variant, 4, layout_version=1, features=["hand_strength"]))
    seen = _inputs(agent)
    env = commerce_env.raw_env(variant=variant, num_players=4)
    env.reset(seed=3)
    differs = 0
    size = obs.observation_size(4)
    for _ in range(200):
        if env.game.over:
            break
        seat = env.game.current_player
        view = env.observe(env.agent_selection)
        action = agent.act(view)
        expected = _v1_reference(view["observation"], env.game, seat)
        assert np.array_equal(seen[-1][:size], expected)
        differs += not np.array_equal(expected, view["observation"])
        env.step(action)
    assert differs > 0


def test_the_layout_1_input_of_a_batch_is_each_vectors_layout_1_input():
    rng = np.random.default_rng(0)
    batch = (rng.random((5, obs.observation_size(3))) < 0.3).astype(np.float32)
    converted = obs.as_layout(batch, 1, 3)
    for row, vector in zip(converted, batch, strict=True):
        assert np.array_equal(row, obs.as_layout(vector, 1, 3))
    assert (_blocks(converted, 3)[..., LAST_NONE] == 0).all()
    assert np.array_equal(_blocks(converted, 3)[..., PASSED],
                          np.maximum(_blocks(batch, 3)[..., PASSED], _blocks(batch, 3)[..., LAST_NONE]))
    assert np.array_equal(obs.as_layout(batch, 2, 3), batch)
    with pytest.raises(ValueError, match="size 40"):
        obs.as_layout(batch[:, :40], 1, 3)


def test_the_batched_policy_gives_a_layout_1_model_layout_1(tiny_model):
    pytest.importorskip("numba")
    from agents.batched import BatchedPolicy
    from commerce_env.vector import BatchEngine

    engine = BatchEngine("trade_barter", 4, num_games=6, seed=1)
    engine.reset(dealer=list(range(4)) + [0, 1])
    games = np.arange(6)
    seats = engine.current_player[games]
    for version in obs.LAYOUT_VERSIONS:
        agent = load_agent(tiny_model("trade_barter", 4, layout_version=version))
        seen = _inputs(agent)
        actions = BatchedPolicy(agent).act_batch(engine, games, seats)
        observed = engine.observe(seats, games)
        assert np.array_equal(seen[0], obs.as_layout(observed, version, 4))
        assert (_blocks(seen[0], 4)[..., PASSED] == (version == 1)).all()  # nobody has acted yet
        one_by_one = [agent.act({"observation": o, "action_mask": m})
                      for o, m in zip(observed, engine.action_mask[games], strict=True)]
        assert list(actions) == one_by_one


def test_new_exports_record_the_current_layout(tiny_model):
    meta = json.loads((tiny_model("trade_barter", 3) / "model.json").read_text())
    assert meta["observation_layout_version"] == obs.LAYOUT_VERSION == 2


@pytest.mark.parametrize("version", [0, 3, 999, -1, True, 1.0, "2", None, [1]])
def test_an_unknown_layout_version_is_refused_naming_it(tiny_model, version):
    folder = tiny_model("trade_barter", 3)
    meta = json.loads((folder / "model.json").read_text())
    meta["observation_layout_version"] = version
    (folder / "model.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match=rf"observation layout version {repr(version).replace('[', '.')}"):
        load_agent(folder)
    with pytest.raises(ValueError, match="observation layout version"):
        LearnedAgent({}, meta)


def test_the_shipped_layout_1_models_still_load_and_say_so():
    from pathlib import Path

    docs = Path(__file__).resolve().parents[2] / "docs"
    for folder in (docs / "training" / "foster_model", docs / "distributed" / "rllib_foster_model"):
        assert load_agent(folder).layout_version == 1


def _rewrite_zip_record(source, target, change) -> None:
    """A copy of an SB3 zip whose ``commerce_rules`` record ``change(record)`` edits (the rest byte-equal)."""
    import zipfile

    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for item in old.infolist():
            payload = old.read(item.filename)
            if item.filename == "data":
                data = json.loads(payload)
                change(data["commerce_rules"])
                payload = json.dumps(data).encode()
            new.writestr(item, payload)


def test_a_training_zip_records_its_layout_and_loads_as_that_layout(tmp_path):
    pytest.importorskip("sb3_contrib")
    from test_training import tiny

    from agents.learned import zip_rules
    from training.config import validate
    from training.train import CHECKPOINT, train

    config = validate(tiny(tmp_path, training={"total_timesteps": 256},
                           evaluation={"every_steps": 10_000, "final_deals": 0}))
    train(config, quiet=True)
    checkpoint = tmp_path / "run" / CHECKPOINT
    assert zip_rules(checkpoint)["observation_layout_version"] == obs.LAYOUT_VERSION
    assert load_agent(checkpoint, trust_sb3_zip=True).layout_version == obs.LAYOUT_VERSION
    older = tmp_path / "older.zip"
    _rewrite_zip_record(checkpoint, older, lambda record: record.update(observation_layout_version=1))
    assert load_agent(older, trust_sb3_zip=True).layout_version == 1
    unknown = tmp_path / "unknown.zip"
    _rewrite_zip_record(checkpoint, unknown, lambda record: record.update(observation_layout_version=99))
    with pytest.raises(ValueError, match="layout version 99"):
        load_agent(unknown, trust_sb3_zip=True)
    unrecorded = tmp_path / "unrecorded.zip"  # a zip of a run before the record: today's layout, as before
    _rewrite_zip_record(checkpoint, unrecorded, lambda record: record.pop("observation_layout_version"))
    assert load_agent(unrecorded, trust_sb3_zip=True).layout_version == obs.LAYOUT_VERSION
