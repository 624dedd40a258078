"""Ctrl-C (SIGINT) and SIGTERM stop `commerce train` and `commerce arena` cleanly: what they have is
saved, one or two lines say so and how to go on, the status is 130 or 143, and no traceback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def _commerce(*args: str, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "training.cli", *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})


def _wait_for(path: Path, process: subprocess.Popen, seconds: float = 240) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.1)


def _config(tmp_path: Path) -> Path:
    config = {"name": "stops", "output": str(tmp_path / "run"),
              "env": {"variant": "trade_barter", "num_players": 2},
              "opponents": {"pool": ["random"]},
              "training": {"total_timesteps": 50_000_000, "n_envs": 2, "vec_env": "dummy",
                           "checkpoint_every": 10_000_000, "progress_bar": False},
              "policy": {"net_arch": [16]}, "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1},
              "evaluation": {"every_steps": 10_000_000, "final_deals": 0}}
    path = tmp_path / "stops.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.mark.parametrize("how, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["ctrl-c", "sigterm"])
def test_a_stopped_training_run_saves_a_checkpoint_and_says_how_to_resume(tmp_path, how, status):
    config = _config(tmp_path)
    run = _commerce("train", "--config", str(config), cwd=tmp_path)
    _wait_for(tmp_path / "run" / "tb" / "ppo_1", run)  # PPO is learning
    time.sleep(2)
    run.send_signal(how)
    out, err = run.communicate(timeout=120)
    assert run.returncode == status, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert "--resume" in err and "commerce export" in err
    state = json.loads((tmp_path / "run" / "checkpoints" / "state.json").read_text())
    assert state["num_timesteps"] > 0 and (tmp_path / "run" / "checkpoints" / "last.zip").is_file()
    resumed = _commerce("train", "--config", str(config), "--resume", "--steps", str(state["num_timesteps"] + 64),
                        cwd=tmp_path)
    _, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err


def test_a_stopped_arena_keeps_the_groups_finished_before(tmp_path):
    out = tmp_path / "arena"
    arena = _commerce("arena", "--agents", "greedy,random", "--players", "2", "--games", "10000000",
                      "--engine", "local", "--no-progress", "--out", str(out), cwd=tmp_path)
    time.sleep(8)  # imports, then duplicate groups
    arena.send_signal(signal.SIGINT)
    printed, err = arena.communicate(timeout=120)
    assert arena.returncode == 130, err
    assert "Traceback" not in err and "stopped (Ctrl-C)" in err
    result = json.loads((out / "result.json").read_text())
    assert result["crash"]["error"] == "Interrupted" and result["groups"] > 0
    assert "greedy" in printed
