"""Training configs: every value is checked before anything is written, and the error names the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("sb3_contrib")

from helpers import evil_sb3_zip  # noqa: E402

from agents.learned import MAX_HIDDEN_LAYERS, MAX_HIDDEN_SIZE  # noqa: E402
from training.config import load_config, validate  # noqa: E402
from training.sections import MAX_SEED  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BASE = {"name": "t", "output": "never/written", "env": {"num_players": 3},
        "training": {"total_timesteps": 1024, "n_envs": 2}, "ppo": {"n_steps": 64, "batch_size": 64}}


def config_with(key: str, value) -> dict:
    """BASE with ``section.key`` (or a top-level key) set to ``value``."""
    data = json.loads(json.dumps(BASE))
    if "." in key:
        section, sub = key.split(".", 1)
        data.setdefault(section, {})[sub] = value
    else:
        data[key] = value
    return data


@pytest.mark.parametrize("key, value", [
    ("ppo.learning_rate", "fast"),
    ("ppo.learning_rate", "1e-3"),  # YAML 1.1 reads this as text
    ("ppo.learning_rate", 0),
    ("ppo.learning_rate", True),
    ("ppo.gamma", 1.5),
    ("ppo.n_steps", 0),
    ("ppo.batch_size", -64),
    ("ppo.n_epochs", 2.5),
    ("ppo.clip_range", float("nan")),
    ("ppo.target_kl", "none"),
    ("ppo.rollout_buffer_class", "RolloutBuffer"),
    ("seed", -1),
    ("seed", MAX_SEED + 1),
    ("seed", 2**64),
    ("seed", True),
    ("evaluation.seed", 2**40),
    ("training.total_timesteps", 0),
    ("training.total_timesteps", -5),
    ("training.total_timesteps", True),
    ("training.time_limit_minutes", 0),
    ("training.time_limit_minutes", True),
    ("training.time_limit_minutes", float("inf")),
    ("training.n_envs", 0),
    ("training.n_envs", 100_000),
    ("training.checkpoint_every", 0),
    ("training.torch_threads", 10**6),
    ("policy.net_arch", [MAX_HIDDEN_SIZE + 1]),
    ("policy.net_arch", [5000]),
    ("policy.net_arch", [8] * (MAX_HIDDEN_LAYERS + 1)),
    ("policy.net_arch", [True]),
    ("policy.net_arch", []),
    ("evaluation.deals", 0),
    ("evaluation.final_deals", -1),
    ("evaluation.workers", 0),
    ("selfplay.snapshot_share", True),
    ("selfplay.max_snapshots", 0),
    ("opponents.weights", [True]),
    ("env.seat", 3),
    ("env.seat", -1),
    ("env.num_players", "four"),
    ("env.features", [["hand_strength"]]),
    ("env.end_when_out", "yes"),
    ("env.end_when_out", 1),
    ("name", 7),
])
def test_a_bad_value_is_a_value_error_naming_the_key(key, value):
    with pytest.raises(ValueError, match=f"'{key}'"):
        validate(config_with(key, value))


def test_the_largest_network_a_model_file_may_hold_is_accepted():
    assert validate(config_with("policy.net_arch", [MAX_HIDDEN_SIZE] * 2))["policy"]["net_arch"] == [4096, 4096]


@pytest.mark.parametrize("pool, words", [
    ([{"agent": "greedy", "bogus_argument": 3}], ["opponents.pool[0]", "bogus_argument"]),
    (["random", {"agent": "search", "seed": 8, "color": "red"}], ["opponents.pool[1]", "color"]),
    (["model:does/not/exist"], ["opponents.pool[0]", "does/not/exist"]),
    (["model:model.zip"], ["opponents.pool[0]", "pickled code"]),
])
def test_opponents_are_built_when_the_config_is_checked(pool, words):
    with pytest.raises(ValueError) as error:
        validate(config_with("opponents.pool", pool))
    for word in words:
        assert word in str(error.value)


def test_a_config_cannot_trust_an_sb3_zip(tmp_path):
    marker = tmp_path / "pwned"
    zip_path = evil_sb3_zip(tmp_path / "evil.zip", marker)
    data = config_with("opponents.pool", [{"agent": f"model:{zip_path}", "trust_sb3_zip": True}])
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ValueError, match=r"opponents\.pool\[0\].*trust_sb3_zip.*commerce export"):
        load_config(path)
    assert not marker.exists()


def test_the_evil_zip_really_runs_code_when_trusted_in_python(tmp_path):
    from agents.learned import load_agent

    marker = tmp_path / "pwned"
    with pytest.raises(Exception):  # noqa: B017 - whatever the loader makes of it afterwards
        load_agent(evil_sb3_zip(tmp_path / "evil.zip", marker), trust_sb3_zip=True, variant="trade_barter")
    assert marker.exists()  # so the refusal above is what kept it from running


@pytest.mark.parametrize("flags, word", [(["--steps", "0"], "--steps"), (["--minutes", "0"], "--minutes"),
                                         (["--steps", "-3"], "--steps"), (["--minutes", "nan"], "--minutes")])
def test_zero_budgets_on_the_command_line_are_refused_not_ignored(tmp_path, capsys, flags, word):
    from training.cli import main

    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config_with("output", str(tmp_path / "run"))))
    with pytest.raises(SystemExit) as exit_:
        main(["train", "--config", str(path), *flags])
    assert exit_.value.code == 2 and word in capsys.readouterr().err
    assert not (tmp_path / "run").exists()



def test_seed_on_the_command_line_overrides_the_configs_and_a_bad_one_is_refused_naming_it(tmp_path, capsys,
                                                                                         monkeypatch):
    import training.train
    from training.cli import main

    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config_with("output", str(tmp_path / "run"))))
    seen = []
    monkeypatch.setattr(training.train, "train", lambda config, **_: seen.append(config["seed"]))
    assert main(["train", "--config", str(path), "--seed", "17"]) == 0
    assert seen == [17]
    assert main(["train", "--config", str(path), "--seed", str(2**40)]) == 2
    assert "seed" in capsys.readouterr().err and seen == [17]
    assert not (tmp_path / "run").exists()

KEYS = ["seed", "name", "output", "env.num_players", "env.seat", "env.features", "env.end_when_out", "env.variant",
        "opponents.pool", "opponents.weights", "selfplay.enabled", "selfplay.every_steps", "selfplay.snapshot_share",
        "training.total_timesteps", "training.time_limit_minutes", "training.n_envs", "training.vec_env",
        "training.progress_bar", "training.torch_threads", "policy.net_arch", "policy.activation",
        "ppo.learning_rate", "ppo.n_steps", "ppo.gamma", "ppo.clip_range_vf", "ppo.normalize_advantage",
        "evaluation.deals", "evaluation.seed", "evaluation.baselines", "evaluation.workers"]
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8) | st.sampled_from(["random", "greedy", "model:x", "rotate", "tanh"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["agent", "x", "seed"]), inner,
                                                                max_size=2),
    max_leaves=6)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(KEYS), value=VALUES)
def test_any_value_is_accepted_or_refused_with_a_value_error_naming_its_key(key, value):
    try:
        validate(config_with(key, value))
    except ValueError as error:
        section = key.split(".")[0]
        assert key in str(error) or (section == "env" and "env" in str(error)), str(error)


@pytest.mark.parametrize("path", sorted((ROOT / "configs" / "train").glob("*.yaml")), ids=lambda p: p.stem)
def test_a_config_reads_back_from_the_yaml_a_run_folder_writes(path):
    # config.yaml of a run folder (resume, export) is the typed config written as plain YAML.
    if "rllib" in path.stem:
        pytest.importorskip("ray.rllib")
    config = load_config(path)
    written = yaml.safe_dump(config.to_dict(), sort_keys=False)
    assert validate(yaml.safe_load(written)) == config
    assert config.env.variant == yaml.safe_load(path.read_text())["env"]["variant"]


def test_the_ppo_section_is_maskableppos_arguments_with_its_defaults():
    import inspect

    from sb3_contrib import MaskablePPO

    from training.config import PPOSection

    signature = inspect.signature(MaskablePPO.__init__).parameters
    for name, value in PPOSection().items():
        assert name in signature, name
        if name not in ("learning_rate", "n_steps", "batch_size", "n_epochs", "gamma", "ent_coef"):  # ours
            assert value == signature[name].default, name


def test_every_key_of_a_config_says_what_it_does():
    # CleanRL's Args: a docstring under each field (a nested section documents itself).
    import ast

    for module in ("config", "sections", "rllib_config"):
        tree = ast.parse((ROOT / "training" / f"{module}.py").read_text())
        for node in (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name.endswith(("Section", "Config"))):
            for k, item in enumerate(node.body):
                if not isinstance(item, ast.AnnAssign):
                    continue
                nested = isinstance(item.value, ast.Call) and getattr(item.value.func, "id", "") == "section"
                after = node.body[k + 1] if k + 1 < len(node.body) else None
                documented = isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                assert nested or documented, f"{module}.{node.name}.{item.target.id}"
