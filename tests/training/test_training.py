"""Training: configs, a short run that checkpoints, resumes and exports, SIGKILL then --resume, self-play."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
import yaml

from commerce_env.rules import VARIANTS

pytest.importorskip("sb3_contrib")

from agents.learned import load_agent  # noqa: E402
from training.config import EnvSection, PPOSection, load_config, validate  # noqa: E402
from training.train import CHECKPOINT, STATE, train  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "configs" / "train"


def tiny(tmp_path: Path, **sections) -> dict:
    """A config small enough to train in a few seconds."""
    data = {
        "name": "tiny", "seed": 3, "output": str(tmp_path / "run"),
        "env": {"variant": "trade_barter", "num_players": 3, "rules": {"preset": "foster"}},
        "opponents": {"pool": ["random"]},
        "training": {"total_timesteps": 1024, "n_envs": 2, "checkpoint_every": 256, "progress_bar": False},
        "policy": {"net_arch": [16, 16]},
        "ppo": {"n_steps": 128, "batch_size": 64, "n_epochs": 1},
        "evaluation": {"every_steps": 512, "deals": 6, "baselines": ["random"], "final_deals": 6},
    }
    for key, value in sections.items():
        data[key] = {**data.get(key, {}), **value} if isinstance(value, dict) else value
    return data


def write_config(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("*.yaml")), ids=lambda p: p.stem)
def test_shipped_configs_are_valid(path):
    config = load_config(path)
    assert config["env"]["variant"] in VARIANTS


def test_shipped_configs_cover_the_required_runs():
    variants = {load_config(p)["env"]["variant"] for p in CONFIGS.glob("*.yaml")}
    assert variants == set(VARIANTS)
    assert any(load_config(p)["selfplay"]["enabled"] for p in CONFIGS.glob("*.yaml"))
    assert (CONFIGS / "demo.yaml").is_file()


@pytest.mark.parametrize("change, message", [
    ({"learning_rate": 0.1}, "unknown key 'learning_rate'"),
    ({"ppo": {"lerning_rate": 0.1}}, "ppo.lerning_rate"),
    ({"training": {"n_env": 2}}, "training.n_env"),
    ({"training": {"vec_env": "threads"}}, "training.vec_env"),
    ({"env": {"variant": "poker"}}, "poker"),
    ({"env": {"rules": {"tie_break": "coin"}}}, "coin"),
    ({"env": {"num_players": 13}}, "num_players"),
    ({"opponents": {"pool": ["grandmaster"]}}, "grandmaster"),
    ({"opponents": {"pool": ["random"], "weights": [1, 2]}}, "opponents.weights"),
    ({"selfplay": {"snapshot_share": 2}}, "selfplay.snapshot_share"),
    ({"policy": {"net_arch": [0]}}, "policy.net_arch"),
    ({"evaluation": {"baselines": []}}, "evaluation.baselines"),
    ({"ppo": {"policy": "CnnPolicy"}}, "ppo.policy"),
    ({"training": {"learning_rate_schedule": "cosine"}}, "training.learning_rate_schedule"),
    ({"training": {"episode": "round"}}, "training.episode"),
    # R9.5: in pool commerce the pool is paid at the match's end: a deal's own reward misses it.
    ({"env": {"variant": "pool"}, "training": {"episode": "deal"}}, "training.episode"),
])
def test_a_bad_config_is_refused_naming_the_key(tmp_path, change, message):
    data = tiny(tmp_path)
    for key, value in change.items():
        data[key] = {**data[key], **value} if isinstance(value, dict) and isinstance(data.get(key), dict) else value
    with pytest.raises(ValueError, match=message.replace(".", r"\.")):
        load_config(write_config(tmp_path, data))
    assert not (tmp_path / "run").exists()


def test_a_config_that_is_not_a_mapping_is_refused(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("- just\n- a list\n")
    with pytest.raises(ValueError, match="mapping"):
        load_config(path)
    path.write_text("env: [unclosed\n")
    with pytest.raises(ValueError, match="not valid YAML"):
        load_config(path)


def test_defaults_fill_what_the_config_leaves_out(tmp_path):
    config = validate({"ppo": {"n_steps": 64}})
    assert config.ppo.n_steps == 64 and config.ppo.gamma == PPOSection().gamma
    assert config.env == EnvSection()


def test_short_run_checkpoints_resumes_exports_and_plays_legal_moves(tmp_path):
    from commerce_env.rules import make_rules
    from training.cli import main

    config = validate(tiny(tmp_path))
    report = train(config, quiet=True)
    out = Path(config["output"])
    assert report["steps"] >= 1024
    state = json.loads((out / STATE).read_text())
    assert state["num_timesteps"] == report["steps"]
    assert zipfile.ZipFile(out / CHECKPOINT).testzip() is None
    history = [json.loads(line) for line in (out / "eval_history.jsonl").read_text().splitlines()]
    assert [h["steps"] for h in history] == sorted(h["steps"] for h in history) and history
    assert "random" in history[0]["opponents"]
    assert list((out / "tb").rglob("events.out.tfevents.*"))
    assert (out / "report.txt").read_text().startswith("run tiny")

    with pytest.raises(ValueError, match="--resume"):  # a second run into the same folder
        train(config, quiet=True)
    more = validate(tiny(tmp_path, training={"total_timesteps": 2048}))
    resumed = train(more, resume=True, quiet=True)
    assert resumed["steps"] >= 2048
    assert json.loads((out / STATE).read_text())["num_timesteps"] == resumed["steps"]

    assert main(["export", "--run", str(out), "--out", str(tmp_path / "exported")]) == 0
    agent = load_agent(tmp_path / "exported", variant="trade_barter", num_players=3)
    assert agent.meta["trained_steps"] == resumed["steps"]
    # a second export never silently replaces the model: --force says so
    assert main(["export", "--run", str(out), "--out", str(tmp_path / "exported")]) == 2
    assert main(["export", "--run", str(out), "--out", str(tmp_path / "exported"), "--force"]) == 0

    # what `commerce train` prints at the end names files that exist and commands that run as printed
    from training.commands import next_steps

    printed = next_steps(more)
    assert str(out / "model") in printed and str(out / "report.txt") in printed and str(out / "tb") in printed
    arena_line = next(line.strip() for line in printed.splitlines() if line.strip().startswith("commerce arena"))
    arena_line = arena_line.replace(",search", "")  # the slowest agent aside, the command as printed
    assert main(shlex.split(arena_line)[1:] + ["--games", "6", "--no-progress"]) == 0
    from agents.arena import play_game
    from agents.base import RandomAgent
    from commerce_env.engine import new_game

    rules = make_rules("trade_barter", preset="foster")
    for deal in range(20):  # the engine raises on an illegal action
        game = new_game(rules, 3, seed=deal, dealer=deal % 3)
        assert sum(play_game(game, [agent, RandomAgent(), RandomAgent()])) == 0  # R4.3
    from agents.evaluate import evaluate_agent

    result = evaluate_agent(f"model:{tmp_path / 'exported'}", ["random"], variant="trade_barter", num_players=3,
                            options={"preset": "foster"}, deals=9, seed=1)
    assert result["result"]["deals_played"] == 9 and "random" in result["vs"]


def test_selfplay_adds_snapshots_to_the_opponent_pool(tmp_path):
    config = validate(tiny(tmp_path, selfplay={"enabled": True, "every_steps": 256, "max_snapshots": 2,
                                                "snapshot_share": 1.0},
                           evaluation={"every_steps": 10_000, "final_deals": 0}))
    train(config, quiet=True)
    out = Path(config["output"])
    snapshots = sorted((out / "snapshots").iterdir())
    assert len(snapshots) >= 3
    state = json.loads((out / STATE).read_text())
    assert len(state["snapshots"]) == 2 and state["snapshots"] == sorted(
        state["snapshots"], key=lambda p: int(p.rsplit("_", 1)[1]))
    for path in state["snapshots"]:
        load_agent(path, variant="trade_barter", num_players=3)


def test_sigkill_then_resume_keeps_the_step_count(tmp_path):
    data = tiny(tmp_path, training={"total_timesteps": 1_000_000, "checkpoint_every": 256},
                evaluation={"every_steps": 1_000_000, "final_deals": 0})
    path = write_config(tmp_path, data)
    out = Path(data["output"])
    command = [sys.executable, "-m", "training.cli", "train", "--config", str(path), "--no-progress"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    try:
        deadline = time.monotonic() + 120
        steps = 0
        while time.monotonic() < deadline and steps < 1024:
            time.sleep(0.2)
            if process.poll() is not None:
                pytest.fail(f"training stopped early: {process.stderr.read().decode()[-2000:]}")
            try:
                steps = json.loads((out / STATE).read_text())["num_timesteps"]
            except (OSError, ValueError):
                steps = 0
        assert steps >= 1024, "no checkpoint in time"
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    # whatever the moment of the kill, the checkpoint in place is whole and matches its state
    from sb3_contrib import MaskablePPO

    killed_at = json.loads((out / STATE).read_text())["num_timesteps"]
    assert zipfile.ZipFile(out / CHECKPOINT).testzip() is None
    assert MaskablePPO.load(out / CHECKPOINT, device="cpu").num_timesteps >= killed_at

    target = killed_at + 512
    result = subprocess.run(command + ["--resume", "--steps", str(target)], capture_output=True, text=True,
                            timeout=300, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-2000:]
    final = json.loads((out / STATE).read_text())["num_timesteps"]
    assert target <= final < target + 512  # continued from the checkpoint, not from zero
    assert not list(out.glob("checkpoints/.*.tmp"))
    model = load_agent(out / "model")
    assert model.meta["trained_steps"] == final


def test_resume_without_a_checkpoint_is_refused(tmp_path):
    with pytest.raises(ValueError, match="no checkpoint"):
        train(validate(tiny(tmp_path)), resume=True, quiet=True)


def test_env_pool_accepts_saved_models(tmp_path):
    config = validate(tiny(tmp_path, training={"total_timesteps": 256},
                           evaluation={"every_steps": 10_000, "final_deals": 0}))
    train(config, quiet=True)
    from commerce_env.single_agent import CommerceEnv

    env = CommerceEnv(num_players=3, opponents=[f"model:{Path(config['output']) / 'model'}"])
    env.reset(seed=0)
    assert type(env.seat_agents[(env.seat + 1) % 3]).__name__ == "LearnedAgent"
    assert np.any(env.action_masks())


def test_resume_forgets_evaluations_made_after_the_checkpoint(tmp_path):
    from training.train import _trim_history

    path = tmp_path / "eval_history.jsonl"
    path.write_text("".join(json.dumps({"steps": s, "opponents": {}}) + "\n" for s in (100, 200, 300)))
    _trim_history(path, 200)
    assert [json.loads(line)["steps"] for line in path.read_text().splitlines()] == [100, 200]


def test_commerce_train_refuses_a_bad_config_with_exit_code_2(tmp_path, capsys):
    from training.cli import main

    data = tiny(tmp_path)
    data["ppo"]["n_stepz"] = 64
    assert main(["train", "--config", str(write_config(tmp_path, data))]) == 2
    assert "ppo.n_stepz" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_training_runs_on_subprocess_envs(tmp_path):
    config = validate(tiny(tmp_path, training={"total_timesteps": 256, "vec_env": "subproc"},
                           evaluation={"every_steps": 10_000, "final_deals": 0}))
    report = train(config, quiet=True)
    assert report["steps"] >= 256 and (Path(config["output"]) / "model" / "model.json").is_file()


def test_a_new_run_replaces_a_previous_run_only_with_force_and_keeps_a_users_files(tmp_path):
    config = validate(tiny(tmp_path, training={"total_timesteps": 256},
                           evaluation={"every_steps": 10_000, "final_deals": 0}))
    out = Path(config["output"])
    train(config, quiet=True)
    first = (out / CHECKPOINT).stat().st_mtime_ns
    with pytest.raises(ValueError, match="--force"):
        train(config, quiet=True)
    assert (out / CHECKPOINT).stat().st_mtime_ns == first
    train(config, quiet=True, force=True)  # removes what the first run wrote, then runs afresh
    assert json.loads((out / STATE).read_text())["num_timesteps"] >= 256
    assert len(list((out / "tb").iterdir())) == 1  # the first run's TensorBoard folder went with it
    (out / "notes.md").write_text("my notes")
    with pytest.raises(ValueError, match="notes.md"):
        train(config, quiet=True, force=True)
    assert (out / "notes.md").read_text() == "my notes" and (out / CHECKPOINT).is_file()


@pytest.mark.parametrize("steps, total, elapsed, limit, expected", [
    (512, 512, 1.0, 5.0, (1.0, "steps")),  # the step budget ends the run long before the time limit
    (100, 1000, 150.0, 5.0, (0.5, "time")),
    (300, 500, 60.0, None, (0.6, "steps")),
    (10, 1000, 10_000.0, 1.0, (1.0, "time")),
])
def test_progress_follows_whichever_budget_is_nearer_its_end(steps, total, elapsed, limit, expected):
    from training.train import budget_progress

    fraction, leading = budget_progress(steps, total, elapsed, limit)
    assert fraction == pytest.approx(expected[0]) and leading == expected[1]


@pytest.mark.parametrize("schedule, factors", [("constant", [1, 1, 1, 1]), ("linear", [0.75, 0.5, 0.25, 0])])
def test_the_learning_rate_of_each_update_follows_the_schedule(tmp_path, monkeypatch, schedule, factors):
    # 4 rollouts of 256 steps in a budget of 1,024: a linear schedule leaves 3/4, 1/2, 1/4, then 0
    # of ppo.learning_rate to the update after each, as rl-zoo's lin_<rate> does over the steps.
    from sb3_contrib import MaskablePPO

    used, original = [], MaskablePPO.train

    def recording_train(self):
        used.append(self.lr_schedule(self._current_progress_remaining))
        return original(self)

    monkeypatch.setattr(MaskablePPO, "train", recording_train)
    config = validate(tiny(tmp_path, training={"learning_rate_schedule": schedule, "time_limit_minutes": 60},
                           ppo={"learning_rate": 0.002}, evaluation={"every_steps": 10_000, "final_deals": 0}))
    train(config, quiet=True)
    assert used == pytest.approx([0.002 * f for f in factors])


@pytest.mark.parametrize("initial, done, expected", [(3e-4, 0.0, 3e-4), (3e-4, 0.25, 2.25e-4), (1e-4, 1.0, 0.0),
                                                     (1e-4, 1.5, 0.0)])
def test_a_linear_rate_is_the_initial_rate_times_the_budget_left(initial, done, expected):
    from training.callbacks import linear_learning_rate

    assert linear_learning_rate(initial, done) == pytest.approx(expected)


def test_the_bar_ends_full_when_the_step_budget_ends_the_run_and_the_final_evaluation_shows_progress(tmp_path,
                                                                                                     capsys):
    config = validate(tiny(tmp_path, training={"total_timesteps": 512, "time_limit_minutes": 30,
                                                "progress_bar": True},
                           evaluation={"every_steps": 10_000, "final_deals": 6, "baselines": ["random", "greedy"]}))
    train(config)
    captured = capsys.readouterr()
    last_bar = captured.err.replace("\r", "\n").strip().splitlines()
    bars = [line for line in last_bar if line.startswith("training:")]
    assert bars and "100%" in bars[-1] and "ends on steps" in bars[-1], bars[-3:]
    assert "evaluation 1/2: 6 deals against a table of random" in captured.out
    assert "evaluation 2/2: 6 deals against a table of greedy" in captured.out


def test_a_training_checkpoint_zip_records_its_rules_for_load_agent(tmp_path):
    from agents.learned import zip_rules

    config = validate(tiny(tmp_path, env={"variant": "widow", "num_players": 3, "rules": {"match_end": "freeze_out"}},
                           training={"total_timesteps": 256}, evaluation={"every_steps": 10_000, "final_deals": 0}))
    train(config, quiet=True)
    checkpoint = Path(config["output"]) / CHECKPOINT
    assert zip_rules(checkpoint)["variant"] == "widow"  # read as JSON, before anything is unpickled
    agent = load_agent(checkpoint, trust_sb3_zip=True)
    assert agent.variant == "widow" and agent.meta["rules"]["match_end"] == "freeze_out"
    with pytest.raises(ValueError, match="trained for variant 'widow'"):
        load_agent(checkpoint, trust_sb3_zip=True, variant="pool")
def test_training_runs_on_the_batched_engine_with_selfplay_and_resumes(tmp_path):
    # vec_env: batch (commerce_env.vector): greedy opponents in batch, snapshots joining the pool, a resume.
    pytest.importorskip("numba")
    config = validate(tiny(tmp_path, env={"features": ["hand_strength"]}, opponents={"pool": ["greedy", "random"]},
                           training={"total_timesteps": 768, "vec_env": "batch", "n_envs": 4},
                           selfplay={"enabled": True, "every_steps": 256, "max_snapshots": 2, "snapshot_share": 0.5},
                           evaluation={"every_steps": 10_000, "final_deals": 0}))
    report = train(config, quiet=True)
    assert report["steps"] >= 768
    out = Path(config["output"])
    assert len(json.loads((out / STATE).read_text())["snapshots"]) == 2
    config.training.total_timesteps = 1280
    assert train(config, resume=True, quiet=True)["steps"] >= 1280


@pytest.mark.parametrize("threads", [1, 2])
def test_numpys_blas_runs_on_the_runs_threads_as_torch_does(tmp_path, monkeypatch, threads):
    # Network opponents multiply matrices in numpy; an unlimited BLAS starts a thread per core
    # and two runs side by side then spin against each other (docs/training.md, "Throughput").
    from threadpoolctl import threadpool_info

    import training.train as train_module

    seen = []
    monkeypatch.setattr(train_module, "_train_limited", lambda *args: seen.append(
        {pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"}) or {})
    train(validate(tiny(tmp_path, training={"torch_threads": threads})), quiet=True)
    assert seen == [{threads}]


def test_with_policy_search_the_model_plays_with_it_and_the_clone_and_snapshots_by_their_networks(tmp_path):
    # The clone and the snapshots join the batched opponent pool, which plays networks alone: before
    # this was kept apart, the clone carried policy.search and the batched env refused it.
    pytest.importorskip("numba")
    config = validate(tiny(tmp_path, env={"variant": "pool", "num_players": 4, "rules": {}},
                           opponents={"pool": ["greedy"]}, policy={"search": {"worlds": 2, "margin": 1.0}},
                           training={"total_timesteps": 512, "vec_env": "batch", "n_envs": 4},
                           selfplay={"enabled": True, "every_steps": 256, "max_snapshots": 2, "snapshot_share": 0.5},
                           pretrain={"teacher": "greedy", "decisions": 200, "epochs": 1, "snapshot": True,
                                     "opponent_weight": 1.0},
                           evaluation={"every_steps": 10_000, "final_deals": 0}))
    train(config, quiet=True)
    out = Path(config["output"])
    assert json.loads((out / "model" / "model.json").read_text())["search"] == {"worlds": 2, "margin": 1.0}
    assert load_agent(out / "model").search is not None
    internal = [out / "clone", *json.loads((out / STATE).read_text())["snapshots"]]
    assert len(internal) == 3
    for folder in internal:
        assert "search" not in json.loads((Path(folder) / "model.json").read_text())


def test_a_run_folder_config_naming_a_removed_option_reads_only_with_todays_behaviour(tmp_path):
    # A config.yaml written before an option was removed names it with the value that is now the only one.
    data = tiny(tmp_path, training={"shaping": None}, policy={"critic": "observation"})
    assert load_config(write_config(tmp_path, data))["policy"]["net_arch"] == [16, 16]
    for section, key, value in (("policy", "critic", "privileged"), ("training", "shaping", "pool_share")):
        data = tiny(tmp_path, **{section: {key: value}})
        with pytest.raises(ValueError, match=rf"'{section}\.{key}'.*{value}|{value}.*'{section}\.{key}'"):
            load_config(write_config(tmp_path, data))
