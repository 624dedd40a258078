"""The model of docs/distributed.md (trained by RLlib self-play) loads in the safe format and plays legal moves.

No Ray needed: the export is agents.learned's numpy network.
"""

from __future__ import annotations

from pathlib import Path

from agents.arena import run_arena
from agents.learned import load_agent

MODEL = Path(__file__).resolve().parents[2] / "docs" / "distributed" / "rllib_foster_model"


def test_the_rllib_model_loads_and_plays_legal_moves_in_the_arena():
    agent = load_agent(MODEL, variant="trade_barter", num_players=4)
    assert agent.meta["backend"] == "rllib" and agent.meta["features"] == ["hand_strength"]
    result = run_arena([f"model:{MODEL}", "greedy", "random"], options={"preset": "foster"}, games=48, seed=3,
                       progress=False)  # an illegal move would raise
    assert result["agents"][f"model:{MODEL}"]["deals"] >= 48


def test_the_ray_modules_import_without_starting_ray():
    """Caught in the default suite (the Ray-marked tests run apart): a moved name breaks these imports."""
    import importlib
    import sys

    for name in ("agents.arena_ray", "agents.ray_connect", "training.rllib_config", "training.rllib_train"):
        importlib.import_module(name)
    assert "ray" not in sys.modules or sys.modules["ray"].is_initialized() is False
