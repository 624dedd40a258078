"""The safe model format (agents.learned): it loads without unpickling and refuses tampered files."""

from __future__ import annotations

import hashlib
import json
import pickle
import shutil
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
sb3_contrib = pytest.importorskip("sb3_contrib")

from agents.learned import LearnedAgent, load_agent  # noqa: E402
from commerce_env import observation as obs  # noqa: E402
from commerce_env.engine.actions import NUM_ACTIONS  # noqa: E402
from commerce_env.rules import make_rules  # noqa: E402
from commerce_env.single_agent import CommerceEnv  # noqa: E402


@pytest.fixture(scope="module")
def sb3_model(tiny_ppo):
    return tiny_ppo(num_players=3, net_arch=(16, 8))


@pytest.fixture
def model_dir(tmp_path, sb3_model, tiny_model):
    return tiny_model("trade_barter", 3, tmp_path / "model", ppo=sb3_model, use_safetensors=False)


def _rewrite_weights(folder: Path, write) -> None:
    """Replace the weights file and update model.json's checksum, as a careful attacker would."""
    path = folder / "weights.pt"
    write(path)
    meta = json.loads((folder / "model.json").read_text())
    meta["weights_sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    (folder / "model.json").write_text(json.dumps(meta))


def _edit_meta(folder: Path, **changes) -> None:
    meta = json.loads((folder / "model.json").read_text())
    meta.update(changes)
    (folder / "model.json").write_text(json.dumps(meta))


def test_exported_policy_chooses_what_the_sb3_policy_chooses(model_dir, sb3_model):
    agent = load_agent(model_dir, variant="trade_barter", num_players=3)
    env = CommerceEnv(num_players=3, opponents=["random"])
    for episode in range(30):
        observation, _ = env.reset(seed=episode)
        mask = env.action_masks()
        mine = agent.act({"observation": observation, "action_mask": mask.astype(np.int8)})
        theirs, _ = sb3_model.predict(observation, action_masks=mask, deterministic=True)
        assert mine == int(theirs) and mask[mine]
        with torch.no_grad():
            features = sb3_model.policy.extract_features(torch.as_tensor(observation[None]))
            logits = sb3_model.policy.action_net(sb3_model.policy.mlp_extractor.forward_actor(features))
        assert np.allclose(agent.logits(observation), logits.numpy()[0], atol=1e-5)


def test_model_json_names_variant_rules_layout_and_shape(model_dir):
    meta = json.loads((model_dir / "model.json").read_text())
    assert meta["variant"] == "trade_barter" and meta["num_players"] == 3
    assert meta["rules"] == make_rules("trade_barter").options()
    assert meta["observation_layout_version"] == obs.LAYOUT_VERSION
    assert meta["observation_size"] == obs.observation_size(3) and meta["num_actions"] == NUM_ACTIONS
    assert meta["network"] == {"hidden": [16, 8], "activation": "tanh"}
    assert meta["weights_file"] == "weights.pt"


class _Payload:
    marker: Path

    def __reduce__(self):
        return (Path.write_text, (self.marker, "pwned"))


def test_a_pickle_payload_is_refused_and_never_runs(model_dir, tmp_path):
    marker = tmp_path / "marker.txt"
    _Payload.marker = marker
    _rewrite_weights(model_dir, lambda path: path.write_bytes(pickle.dumps({"hidden.0.weight": _Payload()})))
    with pytest.raises(ValueError, match="weights_only"):
        load_agent(model_dir)
    assert not marker.exists()


def test_a_torch_file_with_pickled_objects_is_refused(model_dir, tmp_path):
    marker = tmp_path / "marker.txt"
    _Payload.marker = marker
    _rewrite_weights(model_dir, lambda path: torch.save({"hidden.0.weight": _Payload()}, path))
    with pytest.raises(ValueError, match="refusing model"):
        load_agent(model_dir)
    assert not marker.exists()


def test_changed_weights_without_a_new_checksum_are_refused(model_dir):
    path = model_dir / "weights.pt"
    data = bytearray(path.read_bytes())
    data[-20] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="SHA-256"):
        load_agent(model_dir)


def test_a_wrong_shape_is_refused(model_dir):
    tensors = torch.load(model_dir / "weights.pt", weights_only=True)
    tensors["hidden.1.weight"] = torch.zeros(8, 17)
    _rewrite_weights(model_dir, lambda path: torch.save(tensors, path))
    with pytest.raises(ValueError, match=r"hidden.1.weight.*shape"):
        load_agent(model_dir)


def test_a_missing_tensor_is_refused(model_dir):
    tensors = torch.load(model_dir / "weights.pt", weights_only=True)
    del tensors["logits.bias"]
    _rewrite_weights(model_dir, lambda path: torch.save(tensors, path))
    with pytest.raises(ValueError, match="logits.bias"):
        load_agent(model_dir)


def test_another_variant_or_player_count_is_refused(model_dir):
    with pytest.raises(ValueError, match="widow"):
        load_agent(model_dir, variant="widow")
    with pytest.raises(ValueError, match="3 players, not 4"):
        load_agent(model_dir, num_players=4)
    agent = load_agent(model_dir)
    with pytest.raises(ValueError, match="trained for trade_barter with 3 players"):
        agent.reset(0, 4, make_rules("trade_barter"))
    with pytest.raises(ValueError, match="trained for trade_barter"):
        agent.reset(0, 3, make_rules("old_game"))


@pytest.mark.parametrize("changes, word", [
    ({"num_players": 4}, "observation_size"),  # the weights were made for 3 players' observations
    ({"variant": "poker"}, "poker"),
    ({"observation_layout_version": 999}, "layout"),
    ({"format": "sb3"}, "format"),
    ({"weights_file": "../../etc/passwd"}, "weights_file"),
    ({"network": {"hidden": [16, 8], "activation": "gelu"}}, "activation"),
    ({"rules": {"tie_break": "coin"}}, "coin"),
])
def test_a_tampered_model_json_is_refused(model_dir, changes, word):
    _edit_meta(model_dir, **changes)
    with pytest.raises(ValueError, match=word):
        load_agent(model_dir)


def test_a_raw_sb3_zip_needs_the_trust_flag(tmp_path, sb3_model):
    path = tmp_path / "model.zip"
    sb3_model.save(path)
    with pytest.raises(ValueError, match="trust_sb3_zip"):
        load_agent(path)
    agent = load_agent(path, trust_sb3_zip=True, variant="trade_barter")
    assert isinstance(agent, LearnedAgent) and agent.num_players == 3


def test_safetensors_weights_load_when_the_package_is_there(tmp_path, sb3_model, model_dir, tiny_model):
    pytest.importorskip("safetensors")
    folder = tiny_model("trade_barter", 3, tmp_path / "st", ppo=sb3_model, use_safetensors=True)
    assert (folder / "weights.safetensors").exists()
    observation = np.zeros(obs.observation_size(3), dtype=np.float32)
    assert np.allclose(load_agent(folder).logits(observation), load_agent(model_dir).logits(observation))


def test_no_model_gives_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="no model"):
        load_agent(tmp_path / "missing")
    shutil.copytree(tmp_path, tmp_path / "empty")
    with pytest.raises(ValueError, match="model.json"):
        load_agent(tmp_path / "empty")


def test_a_model_with_hand_strength_features_rebuilds_them_at_play_time(tmp_path, tiny_ppo, tiny_model):
    model = tiny_ppo(num_players=3, seed=1, features=["hand_strength"])
    env = CommerceEnv(num_players=3, opponents=["random"], features=["hand_strength"])
    folder = tiny_model("trade_barter", 3, tmp_path / "m", ppo=model, features=["hand_strength"],
                        use_safetensors=False)
    agent = load_agent(folder)
    base = obs.observation_size(3)
    for episode in range(20):
        augmented, _ = env.reset(seed=episode)
        mask = env.action_masks()
        # the agent gets the AEC observation only, as every agent does, and adds the features itself
        mine = agent.act({"observation": augmented[:base], "action_mask": mask.astype(np.int8)})
        theirs, _ = model.predict(augmented, action_masks=mask, deterministic=True)
        assert mine == int(theirs)
    _edit_meta(folder, features=["x_ray"])
    with pytest.raises(ValueError, match="features"):
        load_agent(folder)


def test_a_zip_that_does_not_record_its_rules_needs_the_variant(tmp_path, sb3_model):
    path = tmp_path / "model.zip"
    sb3_model.save(path)
    with pytest.raises(ValueError, match=r"variant="):
        load_agent(path, trust_sb3_zip=True)  # it used to assume trade and barter silently


def test_a_model_json_with_a_narrowed_exchange_mask_is_refused_naming_the_field(tmp_path, tiny_model):
    # `exchange` (a mask narrowed to one exchange with the table, R6.3) is no longer played: a file that
    # asks for it is refused, naming the field and its value; "any" (every legal action) still loads.
    folder = tiny_model("pool", 4, tmp_path / "model")
    _edit_meta(folder, exchange="any")
    assert load_agent(folder).variant == "pool"
    _edit_meta(folder, exchange="expected_value")
    with pytest.raises(ValueError, match="exchange 'expected_value'"):
        load_agent(folder)


def test_the_arena_refuses_a_model_of_another_player_count_before_it_plays(model_dir, capsys):
    """Bad input, not an agent's crash: a clear error naming the model and its player count, no traceback."""
    from agents import run_arena
    from training.cli import main as cli

    with pytest.raises(ValueError, match="3 players, not 4"):
        run_arena([f"model:{model_dir}", "greedy"], num_players=4, games=4, progress=False)
    assert cli(["arena", "--players", "4", "--agents", f"model:{model_dir},greedy", "--games", "4",
                "--no-progress"]) == 2
    error = capsys.readouterr().err
    assert "3 players, not 4" in error and "Traceback" not in error
