"""RLlib self-play on a local Ray with 2 CPUs: a few iterations, checkpoint and --resume, and an
exported model that plays legal moves in the arena, in `commerce play` and as an SB3 opponent.

Marked ``ray`` (deselected by default; CI runs ``python -m pytest -q -m ray``).
"""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import yaml

pytest.importorskip("ray.rllib", reason="the RLlib tests need the distributed extra: pip install -e '.[distributed]'")

from agents.arena import run_arena  # noqa: E402
from agents.learned import load_agent  # noqa: E402
from training.config import load_config  # noqa: E402

pytestmark = pytest.mark.ray
ROOT = Path(__file__).resolve().parents[2]


def tiny(tmp_path: Path) -> dict:
    return {
        "backend": "rllib", "name": "tiny", "seed": 1, "output": str(tmp_path / "run"),
        "env": {"variant": "trade_barter", "num_players": 4, "rules": {"preset": "foster"},
                "features": ["hand_strength"]},
        "league": {"shared": 0.5, "snapshots": 0.3, "heuristics": {"greedy": 0.1, "random": 0.1}},
        "selfplay": {"enabled": True, "every_steps": 400, "max_snapshots": 2},
        "ray": {"num_cpus": 2, "num_env_runners": 2, "num_envs_per_env_runner": 2},
        "training": {"total_timesteps": 1200, "checkpoint_every": 400, "progress_bar": False},
        "policy": {"net_arch": [16, 16]},
        "ppo": {"train_batch_size_per_learner": 400, "minibatch_size": 100, "num_epochs": 1},
        "evaluation": {"every_steps": 800, "deals": 8, "baselines": ["random"], "final_deals": 24},
    }


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A few iterations, then two more after --resume, through `commerce train`."""
    from training.cli import main

    tmp_path = tmp_path_factory.mktemp("rllib")
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(tiny(tmp_path)))
    # the first run as a user starts it, in a process of its own: what it prints is checked below
    done = subprocess.run([sys.executable, "-m", "training.cli", "train", "--config", str(path), "--no-progress"],
                          capture_output=True, text=True, cwd=ROOT, check=False, timeout=900)
    assert done.returncode == 0, done.stderr
    (tmp_path / "first_run_stderr.txt").write_text(done.stderr)
    out = tmp_path / "run"
    first = json.loads((out / "checkpoints" / "state.json").read_text())
    assert main(["train", "--config", str(path), "--resume", "--steps", "2000", "--no-progress"]) == 0
    return out, first


def test_a_run_trains_checkpoints_resumes_and_evaluates(trained):
    out, first = trained
    state = json.loads((out / "checkpoints" / "state.json").read_text())
    assert first["steps"] >= 1200 and state["steps"] >= 2000 > first["steps"]  # resumed, not restarted
    assert state["iterations"] > first["iterations"]
    assert state["next_snapshot_slot"] >= 3  # self-play snapshots were taken
    assert (out / "checkpoints" / "rllib" / "rllib_checkpoint.json").is_file()
    assert list((out / "tb").rglob("events.out.tfevents.*"))
    history = [json.loads(line) for line in (out / "eval_history.jsonl").read_text().splitlines()]
    assert history and all("random" in h["opponents"] for h in history)
    report = json.loads((out / "report.json").read_text())
    assert report["backend"] == "rllib" and "random" in report["opponents"]
    assert (out / "arena" / "random" / "result.json").is_file()


# A line of Ray's Python loggers (date, time, level) or of its C++ core (``[date time L pid tid]``).
RAY_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+\s+[A-Z]+ |^\[\d{4}-\d\d-\d\d [\d:,]+ [A-Z] \d+ \d+\]")


def test_a_run_that_succeeds_prints_no_line_of_ray(trained):
    out, _ = trained
    stderr = (out.parent / "first_run_stderr.txt").read_text()
    assert [line for line in stderr.splitlines() if RAY_LINE.match(line)] == []


def test_the_pattern_knows_ray_lines():
    assert RAY_LINE.match("[2026-12-06 20:43:04,155 E 3938 3938] core_worker.cc:2465: Actor with class name")
    assert RAY_LINE.match("2026-12-06 20:43:01,572\tWARNING algorithm_config.py:5160 -- You are running PPO")
    assert not RAY_LINE.match("iteration 1: 400 env steps, 2 s, shared return +0.159")


def test_resume_refuses_a_missing_run_and_a_fresh_start_refuses_an_existing_one(trained, tmp_path):
    from training.rllib_train import train

    out, _ = trained
    config = load_config_from(tiny(tmp_path))
    with pytest.raises(ValueError, match="--resume"):
        train(config, resume=True)
    with pytest.raises(ValueError, match="already holds a run"):
        train(replace(config, output=str(out)))


def load_config_from(data: dict) -> dict:
    from training.rllib_config import validate

    return validate(data)


def test_the_exported_model_plays_legal_moves_in_the_arena(trained):
    out, _ = trained
    agent = load_agent(out / "model")
    assert agent.meta["backend"] == "rllib" and agent.meta["features"] == ["hand_strength"]
    result = run_arena([f"model:{out / 'model'}", "greedy", "random"], deals=24, seed=0, progress=False,
                       options={"preset": "foster"})
    assert result["agents"][f"model:{out / 'model'}"]["deals"] > 0  # an illegal move would have raised


def test_commerce_export_of_an_rllib_run_writes_the_final_policy(trained, tmp_path):
    from training.cli import main

    out, _ = trained
    assert main(["export", "--run", str(out), "--out", str(tmp_path / "exported")]) == 0
    exported, final = load_agent(tmp_path / "exported"), load_agent(out / "model")
    assert exported.meta["network"] == final.meta["network"]
    for (w1, b1), (w2, b2) in zip(exported.layers, final.layers, strict=True):
        assert np.array_equal(w1, w2) and np.array_equal(b1, b2)


def test_the_exported_model_plays_in_commerce_play_and_as_an_sb3_opponent(trained):
    from types import SimpleNamespace

    import gymnasium

    import commerce_env.single_agent  # noqa: F401  (registers the env id)
    from agents.cli import play_command

    out, _ = trained
    spec = f"model:{out / 'model'}"
    args = SimpleNamespace(variant="trade_barter", opponents=spec, players=4, seat=0, seed=3,
                           option=["preset=foster"])
    lines: list[str] = []
    answers = itertools.cycle(str(a) for a in range(27))  # the human tries numbers until one is legal
    assert play_command(args, read=lambda prompt="": next(answers), write=lines.append) == 0
    assert any("Match over" in line for line in lines)
    env = gymnasium.make("commerce/Commerce-v0", variant="trade_barter", num_players=4, preset="foster",
                         opponents=[spec], illegal_action="raise")
    observation, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(30):
        action = int(rng.choice(np.flatnonzero(env.unwrapped.action_masks())))
        observation, reward, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            observation, _ = env.reset()


def test_shipped_rllib_configs_are_valid():
    for name in ("rllib_selfplay_foster", "rllib_selfplay_widow"):
        config = load_config(ROOT / "configs" / "train" / f"{name}.yaml")
        assert config["backend"] == "rllib" and config["selfplay"]["enabled"]
        assert config["league"]["heuristics"] and config["league"]["snapshots"] > 0
