"""No spec can make the project unpickle: ``trust_sb3_zip`` is a Python keyword argument only.

Each path an agent spec is read from gets a crafted stable-baselines3 zip whose unpickling would
write a marker file: the spec is refused, the error names it, and the marker never appears."""

from __future__ import annotations

import pytest
import yaml
from helpers import evil_sb3_zip

from agents.specs import check_spec, make_agent, parse_spec


@pytest.fixture
def evil(tmp_path):
    """(the crafted zip's path, the marker its code would write)."""
    marker = tmp_path / "pwned"
    return evil_sb3_zip(tmp_path / "evil.zip", marker), marker


def text_spec(zip_path) -> str:
    return f"model:{zip_path}(trust_sb3_zip=true)"


@pytest.mark.parametrize("argument", ["trust_sb3_zip", "TRUST_SB3_ZIP", "trust_anything"])
def test_spec_text_cannot_carry_a_trust_argument(evil, argument):
    zip_path, marker = evil
    text = f"model:{zip_path}({argument}=true)"
    with pytest.raises(ValueError, match=argument) as error:
        parse_spec(text)
    assert str(zip_path) in str(error.value)
    assert not marker.exists()


@pytest.mark.parametrize("form", ["text", "mapping", "agent_text_in_mapping"])
def test_make_agent_refuses_trust_from_a_spec(evil, form):
    zip_path, marker = evil
    spec = {"text": text_spec(zip_path),
            "mapping": {"agent": f"model:{zip_path}", "trust_sb3_zip": True},
            "agent_text_in_mapping": {"agent": text_spec(zip_path)}}[form]
    with pytest.raises(ValueError, match="trust_sb3_zip"):
        make_agent(spec, variant="trade_barter")
    with pytest.raises(ValueError, match="trust_sb3_zip"):
        check_spec(spec)
    assert not marker.exists()


def test_python_code_still_trusts_a_zip_by_keyword(evil):
    """The control: the same file does run code when code says it trusts it (so the refusals above matter)."""
    zip_path, marker = evil
    with pytest.raises(Exception):  # noqa: B017 - whatever the loader makes of the file after unpickling
        make_agent(f"model:{zip_path}", variant="trade_barter", trust_sb3_zip=True)
    assert marker.exists()


def test_the_batched_resolver_refuses_trust_from_a_spec(evil):
    pytest.importorskip("numba")
    from agents.batched import batched_agent

    zip_path, marker = evil
    for spec in ({"agent": f"model:{zip_path}", "trust_sb3_zip": True}, text_spec(zip_path)):
        with pytest.raises(ValueError, match="trust_sb3_zip"):
            batched_agent(spec)
    assert not marker.exists()


@pytest.mark.parametrize("key, value", [
    ("opponents", {"pool": ["TEXT"]}),
    ("opponents", {"pool": [{"agent": "TEXT"}]}),
    ("evaluation", {"baselines": ["TEXT"]}),
    ("pretrain", {"teacher": "TEXT"}),
])
def test_a_training_config_cannot_trust_a_zip_through_spec_text(evil, tmp_path, key, value):
    pytest.importorskip("sb3_contrib")
    from training.config import load_config

    zip_path, marker = evil
    data = {"name": "t", "output": str(tmp_path / "run"), "env": {"num_players": 3},
            "training": {"total_timesteps": 1024, "n_envs": 2}, "ppo": {"n_steps": 64, "batch_size": 64},
            key: yaml.safe_load(yaml.safe_dump(value).replace("TEXT", text_spec(zip_path)))}
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ValueError, match="trust_sb3_zip") as error:
        load_config(path)
    assert str(zip_path) in str(error.value)
    assert not marker.exists() and not (tmp_path / "run").exists()


def test_an_rllib_config_checks_model_heuristics_too(evil, tmp_path):
    pytest.importorskip("ray.rllib")
    from training.rllib_config import validate

    zip_path, marker = evil
    data = {"backend": "rllib", "output": str(tmp_path / "run"),
            "league": {"shared": 1.0, "heuristics": {text_spec(zip_path): 0.5}}}
    with pytest.raises(ValueError, match="league.heuristics.*trust_sb3_zip"):
        validate(data)
    assert not marker.exists()


def test_the_arena_refuses_trust_in_its_lineup(evil):
    from agents.arena import run_arena

    zip_path, marker = evil
    with pytest.raises(ValueError, match="trust_sb3_zip"):
        run_arena([text_spec(zip_path), "random", "random"], variant="trade_barter", num_players=3, games=3,
                  progress=False)
    assert not marker.exists()


@pytest.mark.parametrize("spec", [{"agent": {}}, {"agent": {"agent": {}}}, {"agent": {"worlds": 9}}, {"agent": 3}])
def test_a_nested_spec_without_a_name_is_a_named_value_error(spec):
    """Text from a config: a nested mapping with no agent name is refused as a bad spec, not a KeyError."""
    with pytest.raises(ValueError, match="bad agent spec"):
        check_spec(spec)
