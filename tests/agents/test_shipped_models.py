"""The shipped models (``models/<variant>/``, docs/benchmark.md) load and play wherever an agent does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.arena import run_arena
from commerce_env.observation import LAYOUT_VERSION
from commerce_env.rules import make_rules

MODELS = Path(__file__).resolve().parents[2] / "models"
SHIPPED = sorted(p.parent for p in MODELS.glob("*/model.json"))


@pytest.mark.parametrize("folder", SHIPPED, ids=[p.name for p in SHIPPED])
def test_a_shipped_model_is_its_variants_4_player_model_with_the_r12_defaults(folder):
    meta = json.loads((folder / "model.json").read_text())
    assert meta["variant"] == folder.name and meta["num_players"] == 4
    assert meta["rules"] == make_rules(folder.name).options()  # R12 defaults
    assert meta["observation_layout_version"] == LAYOUT_VERSION  # trained on today's observation


@pytest.mark.parametrize("folder", SHIPPED, ids=[p.name for p in SHIPPED])
def test_a_shipped_model_plays_in_the_arena_by_its_spec(folder):
    result = run_arena([f"model:{folder}", "greedy"], variant=folder.name, games=8, seed=3, progress=False)
    assert result["games"] >= 8 and len(result["agents"]) == 2


@pytest.mark.parametrize("folder", SHIPPED, ids=[p.name for p in SHIPPED])
def test_a_shipped_model_is_what_its_benchmark_config_exports(folder):
    """docs/benchmark.md says which config made each model: its network, features and test-time
    search (``policy.search``, recorded in model.json) must be that config's, so that retraining
    the config reproduces what is shipped."""
    from training.config import load_config

    config = load_config(MODELS.parent / "configs" / "train" / f"{folder.name}.yaml")
    meta = json.loads((folder / "model.json").read_text())
    assert meta["network"]["hidden"] == list(config["policy"]["net_arch"])
    assert meta["network"]["activation"] == config["policy"]["activation"]
    assert meta.get("features", []) == list(config["env"].get("features") or [])
    assert meta.get("search") == config["policy"].get("search")
