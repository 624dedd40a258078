"""Train MaskablePPO on Commerce from a config (see :mod:`training.config`), top to bottom.

The run folder (``output`` in the config) holds:

* ``config.yaml``: the full config of the run (defaults filled in)
* ``checkpoints/last.zip`` + ``checkpoints/state.json``: the latest checkpoint,
  written at the end of a rollout every ``checkpoint_every`` steps, each file
  through a temporary file and ``os.replace`` (a kill never leaves a
  half-written checkpoint); ``--resume`` continues from it with its step count
* ``tb/``: TensorBoard logs (SB3's ``rollout/``, ``train/`` and our ``eval/``)
* ``snapshots/step_<n>/``: self-play snapshots of the learner (safe format)
* ``eval_history.jsonl``: the periodic evaluations (steps, mean reward, CIs)
* ``model/``: the final policy in the safe format (:mod:`agents.learned`)
* ``report.json`` / ``report.txt``: the final duplicate-deal evaluation
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import yaml

from agents.learned import LearnedAgent, make_meta, save_model, weights_from_policy
from commerce_env.rules import make_rules

from .evaluation import evaluate, summary_lines

CHECKPOINT = "checkpoints/last.zip"
STATE = "checkpoints/state.json"


# -------------------------------------------------------------- the envs
def env_kwargs(config: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments of :class:`commerce_env.single_agent.CommerceEnv` for this run."""
    env, opponents, selfplay = config["env"], config["opponents"], config["selfplay"]
    return dict(variant=env["variant"], num_players=env["num_players"], seat=env["seat"],
                opponents=list(opponents["pool"]), opponent_weights=opponents["weights"],
                snapshot_share=float(selfplay["snapshot_share"]), max_snapshots=selfplay["max_snapshots"],
                features=list(env["features"]), illegal_action="raise", **env["rules"])


def _make_env(kwargs: dict[str, Any]):
    def build():
        import torch

        torch.set_num_threads(1)
        from agents import make_agent
        from commerce_env.single_agent import CommerceEnv

        return CommerceEnv(resolver=make_agent, **kwargs)  # opponent specs resolved by agents
    return build


def make_vec_env(config: dict[str, Any], seed: int):
    """``n_envs`` copies of the env in one process (``dummy``) or one process each (``subproc``)."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    training = config["training"]
    factories = [_make_env(env_kwargs(config)) for _ in range(training["n_envs"])]
    vec = DummyVecEnv(factories) if training["vec_env"] == "dummy" else SubprocVecEnv(factories,
                                                                                   start_method="spawn")
    vec.seed(seed)
    return VecMonitor(vec)


# ------------------------------------------------------------ exporting
def policy_agent(model: Any, config: dict[str, Any], **extra: Any) -> tuple[LearnedAgent, dict, dict]:
    """The current policy as a numpy :class:`LearnedAgent`, its weights and its ``model.json`` record."""
    env = config["env"]
    rules = make_rules(env["variant"], **env["rules"])
    weights, network = weights_from_policy(model.policy)
    meta = make_meta(rules, env["num_players"], network, features=env["features"],
                     trained_steps=int(model.num_timesteps),
                     run=config["name"], **extra)
    return LearnedAgent(weights, meta), weights, meta


def export_model(model: Any, config: dict[str, Any], folder: str | Path) -> Path:
    """Write the policy of ``model`` in the safe format (:mod:`agents.learned`)."""
    _, weights, meta = policy_agent(model, config)
    return save_model(folder, weights, meta)


def atomic_write_text(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def save_checkpoint(model: Any, out: Path, state: dict[str, Any]) -> None:
    """The model zip then its state, each written to a temporary file and renamed into place."""
    path = out / CHECKPOINT
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(".last.zip.tmp")
    with open(tmp, "wb") as handle:
        model.save(handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    atomic_write_text(out / STATE, json.dumps(dict(state, num_timesteps=int(model.num_timesteps)), indent=2))


# ------------------------------------------------------------ callbacks
def _callbacks(config: dict[str, Any], out: Path, state: dict[str, Any], started: float):
    from stable_baselines3.common.callbacks import BaseCallback

    training, evaluation, selfplay = config["training"], config["evaluation"], config["selfplay"]
    limit = training["time_limit_minutes"]

    class RunCallback(BaseCallback):
        """Checkpoints, self-play snapshots, evaluations and the time budget, at rollout ends."""

        def _elapsed(self) -> float:
            return state["elapsed_seconds"] + time.monotonic() - started

        def _on_step(self) -> bool:
            return limit is None or self._elapsed() < limit * 60

        def _on_rollout_end(self) -> None:
            steps = self.model.num_timesteps
            if selfplay["enabled"] and steps >= state["next_snapshot"]:
                self._snapshot(steps)
                state["next_snapshot"] = steps + selfplay["every_steps"]
            if steps >= state["next_eval"]:
                self._evaluate(steps)
                state["next_eval"] = steps + evaluation["every_steps"]
            if steps >= state["next_checkpoint"]:
                state["next_checkpoint"] = steps + training["checkpoint_every"]
                self._checkpoint()

        def _checkpoint(self) -> None:
            save_checkpoint(self.model, out, dict(state, elapsed_seconds=self._elapsed()))

        def _snapshot(self, steps: int) -> None:
            folder = export_model(self.model, config, out / "snapshots" / f"step_{steps}")
            self.training_env.env_method("add_snapshot", str(folder))
            state["snapshots"] = (state["snapshots"] + [str(folder)])[-selfplay["max_snapshots"]:]

        def _evaluate(self, steps: int) -> None:
            agent, _, _ = policy_agent(self.model, config)
            env = config["env"]
            report = evaluate(agent, evaluation["baselines"], variant=env["variant"],
                              num_players=env["num_players"], options=env["rules"], deals=evaluation["deals"],
                              seed=evaluation["seed"], workers=evaluation["workers"])
            for name, row in report["opponents"].items():
                self.logger.record(f"eval/{name}/mean_reward", row["mean_reward"])
                self.logger.record(f"eval/{name}/diff", row["diff"])
            self.logger.dump(steps)
            report.pop("arena", None)
            with open(out / "eval_history.jsonl", "a") as handle:
                handle.write(json.dumps({"steps": int(steps), "elapsed_seconds": self._elapsed(),
                                         "opponents": report["opponents"]}) + "\n")

    return RunCallback()


def _progress_bar(config: dict[str, Any], state: dict[str, Any], started: float):
    """A tqdm bar over the budget that ends the run first: steps, or minutes when a time limit is set."""
    from stable_baselines3.common.callbacks import BaseCallback
    from tqdm.auto import tqdm

    training = config["training"]
    limit = training["time_limit_minutes"]

    class ProgressBar(BaseCallback):
        def _on_training_start(self) -> None:
            if limit is None:
                self.bar = tqdm(total=training["total_timesteps"], initial=self.model.num_timesteps, unit="step")
            else:
                self.bar = tqdm(total=round(limit * 60), initial=round(state["elapsed_seconds"]), unit="s",
                                bar_format="{l_bar}{bar}| {n:.0f}/{total:.0f} s {postfix}")

        def _on_step(self) -> bool:
            if limit is None:
                self.bar.update(self.model.num_timesteps - self.bar.n)
            else:
                elapsed = min(state["elapsed_seconds"] + time.monotonic() - started, limit * 60)
                if elapsed - self.bar.n >= 1:
                    self.bar.update(elapsed - self.bar.n)
                    self.bar.set_postfix_str(f"{self.model.num_timesteps:,} steps", refresh=False)
            return True

        def _on_training_end(self) -> None:
            self.bar.close()

    return ProgressBar()


# ---------------------------------------------------------------- train
def build_model(config: dict[str, Any], vec_env: Any, out: Path):
    import torch.nn as nn
    from sb3_contrib import MaskablePPO

    policy = config["policy"]
    activation = {"tanh": nn.Tanh, "relu": nn.ReLU}[policy["activation"]]
    return MaskablePPO("MlpPolicy", vec_env, seed=config["seed"], tensorboard_log=str(out / "tb"), verbose=0,
                       device="cpu", policy_kwargs=dict(net_arch=dict(pi=list(policy["net_arch"]),
                                                                      vf=list(policy["net_arch"])),
                                                        activation_fn=activation),
                       **config["ppo"])


def _trim_history(path: Path, steps: int) -> None:
    """Drop evaluations made after the checkpoint a run resumes from (they will be made again)."""
    if path.exists():
        lines = [line for line in path.read_text().splitlines() if line.strip()]
        kept = [line for line in lines if json.loads(line)["steps"] <= steps]
        atomic_write_text(path, "".join(line + "\n" for line in kept))


def train(config: dict[str, Any], resume: bool = False, quiet: bool = False) -> dict[str, Any]:
    """Run (or resume) the training of ``config``; returns the final evaluation report."""
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(config["training"]["torch_threads"])
    out = Path(config["output"])
    checkpoint = out / CHECKPOINT
    if resume and not checkpoint.is_file():
        raise ValueError(f"--resume: no checkpoint at {checkpoint}")
    if not resume and checkpoint.is_file():
        raise ValueError(f"{out} already holds a run; use --resume to continue it or choose another output")
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob("checkpoints/.*.tmp"):  # left by a kill during a write; the renamed file is whole
        stale.unlink()
    atomic_write_text(out / "config.yaml", yaml.safe_dump(config, sort_keys=False))
    evaluation, training = config["evaluation"], config["training"]
    if resume:
        state = json.loads((out / STATE).read_text())
        vec_env = make_vec_env(config, config["seed"] + int(state["num_timesteps"]))
        model = MaskablePPO.load(str(checkpoint), env=vec_env, device="cpu", tensorboard_log=str(out / "tb"))
        _trim_history(out / "eval_history.jsonl", model.num_timesteps)
        for path in state["snapshots"]:
            vec_env.env_method("add_snapshot", path)
    else:
        (out / "eval_history.jsonl").unlink(missing_ok=True)  # left by a run killed before its first checkpoint
        state = {"num_timesteps": 0, "snapshots": [], "elapsed_seconds": 0.0,
                 "next_checkpoint": training["checkpoint_every"], "next_eval": evaluation["every_steps"],
                 "next_snapshot": config["selfplay"]["every_steps"]}
        vec_env = make_vec_env(config, config["seed"])
        model = build_model(config, vec_env, out)
    started = time.monotonic()
    remaining = training["total_timesteps"] - model.num_timesteps
    callbacks = [_callbacks(config, out, state, started)]
    if training["progress_bar"] and not quiet:
        callbacks.append(_progress_bar(config, state, started))
    if remaining > 0:
        model.learn(total_timesteps=remaining, callback=callbacks, reset_num_timesteps=not resume,
                    tb_log_name="ppo")
    save_checkpoint(model, out, dict(state, elapsed_seconds=state["elapsed_seconds"] + time.monotonic() - started))
    vec_env.close()
    export_model(model, config, out / "model")
    report = final_report(model, config, out)
    if not quiet:
        print("\n".join(report["summary"]))
    return report


def final_report(model: Any, config: dict[str, Any], out: Path) -> dict[str, Any]:
    """The arena's evaluation of the final policy, written to ``report.json`` and ``report.txt``."""
    evaluation, env = config["evaluation"], config["env"]
    agent, _, _ = policy_agent(model, config)
    report = {"run": config["name"], "steps": int(model.num_timesteps), "model": str(out / "model")}
    if evaluation["final_deals"] > 0:
        report.update(evaluate(agent, evaluation["baselines"], variant=env["variant"], num_players=env["num_players"],
                               options=env["rules"], deals=evaluation["final_deals"], seed=evaluation["seed"] + 1,
                               workers=evaluation["workers"]))
        report["summary"] = [f"run {config['name']}: {report['steps']} steps"] + summary_lines(report)
        arena = report.pop("arena", {})
        if arena:
            from agents.arena import write_outputs

            for name, result in arena.items():  # the arena's own report (result.json, report.md, a plot)
                write_outputs(result, out / "arena" / name)
            report["arena_reports"] = {name: str(out / "arena" / name) for name in arena}
    else:
        report["summary"] = [f"run {config['name']}: {report['steps']} steps (no final evaluation)"]
    atomic_write_text(out / "report.json", json.dumps(report, indent=2))
    atomic_write_text(out / "report.txt", "\n".join(report["summary"]) + "\n")
    return report
