"""Train MaskablePPO on Commerce from a config (see :mod:`training.config`), top to bottom.

The run folder (``output`` in the config) holds:

* ``config.yaml``: the full config of the run (defaults filled in)
* ``checkpoints/last.zip`` + ``checkpoints/state.json``: the latest checkpoint,
  written at the end of a rollout every ``checkpoint_every`` steps, each file
  atomically (:func:`commerce_env.files.atomic_write`: a kill never leaves a
  half-written checkpoint); ``--resume`` continues from it with its step count
* ``tb/``: TensorBoard logs (SB3's ``rollout/``, ``train/`` and our ``eval/``)
* ``snapshots/step_<n>/``: self-play snapshots of the learner (safe format)
* ``eval_history.jsonl``: the periodic evaluations (steps, mean reward, CIs)
* ``model/``: the final policy in the safe format (:mod:`agents.learned`)
* ``report.json`` / ``report.txt``: the final duplicate-deal evaluation
* ``.commerce-run.json`` / ``.commerce-run.lock``: the files the run wrote, and
  the lock that keeps a second run out (:mod:`training.run_folder`)
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import yaml

from agents.learned import ZIP_RULES_KEY, LearnedAgent, make_meta, save_model, weights_from_policy
from commerce_env.files import atomic_write
from commerce_env.rules import make_rules

from .evaluation import evaluate, summary_lines
from .run_folder import MANIFEST, RunFolder

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
    """``n_envs`` copies of the env in one process (``dummy``), one process each (``subproc``),
    or all in one batched engine (``batch``, :func:`commerce_env.vector.make_vec_env`)."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    training = config["training"]
    if training["vec_env"] == "batch":
        from agents.batched import batched_agent
        from commerce_env.vector import make_vec_env as batch_vec_env

        kwargs = env_kwargs(config)
        del kwargs["illegal_action"]  # the batched env always raises
        return VecMonitor(batch_vec_env(num_envs=training["n_envs"], seed=seed, resolver=batched_agent, **kwargs))
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


def export_model(model: Any, config: dict[str, Any], folder: str | Path, run: RunFolder | None = None) -> Path:
    """Write the policy of ``model`` in the safe format (:mod:`agents.learned`); ``run`` records its files."""
    _, weights, meta = policy_agent(model, config)
    folder = save_model(folder, weights, meta)
    if run is not None:
        run.record_tree(Path(folder).relative_to(run.path).as_posix())
    return folder


def save_checkpoint(model: Any, run: RunFolder, state: dict[str, Any]) -> None:
    """The model zip then its state, each written atomically; TensorBoard's files recorded with them."""
    path = run.path / CHECKPOINT
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, model.save)
    run.record([path])
    run.write(STATE, json.dumps(dict(state, num_timesteps=int(model.num_timesteps)), indent=2))
    run.record_tree("tb")


# ------------------------------------------------------------ callbacks
def _callbacks(config: dict[str, Any], run: RunFolder, state: dict[str, Any], started: float):
    from stable_baselines3.common.callbacks import BaseCallback

    training, evaluation, selfplay = config["training"], config["evaluation"], config["selfplay"]
    limit = training["time_limit_minutes"]
    out = run.path

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
            save_checkpoint(self.model, run, dict(state, elapsed_seconds=self._elapsed()))

        def _snapshot(self, steps: int) -> None:
            folder = export_model(self.model, config, out / "snapshots" / f"step_{steps}", run)
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
            run.record(["eval_history.jsonl"])
            with open(out / "eval_history.jsonl", "a") as handle:
                handle.write(json.dumps({"steps": int(steps), "elapsed_seconds": self._elapsed(),
                                         "opponents": report["opponents"]}) + "\n")

    return RunCallback()


def budget_progress(steps: int, total_steps: int, elapsed: float, limit_minutes: float | None) -> tuple[float, str]:
    """How far the run is, as the fraction of whichever budget is nearer its end, and which one that is."""
    by_steps = min(steps / total_steps, 1.0)
    if limit_minutes is None:
        return by_steps, "steps"
    by_time = min(elapsed / (limit_minutes * 60), 1.0)
    return (by_steps, "steps") if by_steps >= by_time else (by_time, "time")


def _progress_bar(config: dict[str, Any], state: dict[str, Any], started: float):
    """A tqdm bar over the budget that ends the run: the step budget or the time limit, whichever is nearer."""
    from stable_baselines3.common.callbacks import BaseCallback
    from tqdm.auto import tqdm

    training = config["training"]
    limit, total = training["time_limit_minutes"], training["total_timesteps"]
    budget = f"{total:,} steps" + (f" or {limit:g} min" if limit is not None else "")

    class ProgressBar(BaseCallback):
        def _on_training_start(self) -> None:
            self.bar = tqdm(total=1000, leave=True, bar_format="training: {percentage:3.0f}%|{bar}| {desc}")
            self._update()

        def _update(self) -> None:
            elapsed = state["elapsed_seconds"] + time.monotonic() - started
            steps = self.model.num_timesteps
            fraction, leading = budget_progress(steps, total, elapsed, limit)
            self.bar.set_description_str(f"{steps:,} steps, {elapsed:.0f} s of {budget} (ends on {leading})",
                                         refresh=False)
            done = round(fraction * 1000)
            if done != self.bar.n:
                self.bar.update(done - self.bar.n)

        def _on_step(self) -> bool:
            if self.n_calls % 64 == 0:
                self._update()
            return True

        def _on_training_end(self) -> None:
            self._update()
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
        atomic_write(path, "".join(line + "\n" for line in kept))


def train(config: dict[str, Any], resume: bool = False, quiet: bool = False, force: bool = False) -> dict[str, Any]:
    """Run (or resume) the training of ``config``; returns the final evaluation report.

    The output folder is locked for the run (a second run on it is refused).  A
    new run needs an empty folder; ``force`` first removes the files a previous
    run wrote there (and only those: :mod:`training.run_folder`).
    """
    out = Path(config["output"])
    checkpoint = out / CHECKPOINT
    if resume and not checkpoint.is_file():
        raise ValueError(f"--resume: no checkpoint at {checkpoint}")
    with RunFolder(out).locked() as run:
        for written in (CHECKPOINT, STATE, MANIFEST):  # left by a kill during an atomic write
            run.remove_stale_temporaries(written)
        if not resume:
            run.prepare_new_run(force=force)
        return _train(config, run, resume, quiet)


def _train(config: dict[str, Any], run: RunFolder, resume: bool, quiet: bool) -> dict[str, Any]:
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(config["training"]["torch_threads"])
    out = run.path
    checkpoint = out / CHECKPOINT
    run.write("config.yaml", yaml.safe_dump(config, sort_keys=False))
    evaluation, training = config["evaluation"], config["training"]
    if resume:
        state = json.loads((out / STATE).read_text())
        vec_env = make_vec_env(config, config["seed"] + int(state["num_timesteps"]))
        model = MaskablePPO.load(str(checkpoint), env=vec_env, device="cpu", tensorboard_log=str(out / "tb"))
        _trim_history(out / "eval_history.jsonl", model.num_timesteps)
        for path in state["snapshots"]:
            vec_env.env_method("add_snapshot", path)
    else:
        state = {"num_timesteps": 0, "snapshots": [], "elapsed_seconds": 0.0,
                 "next_checkpoint": training["checkpoint_every"], "next_eval": evaluation["every_steps"],
                 "next_snapshot": config["selfplay"]["every_steps"]}
        vec_env = make_vec_env(config, config["seed"])
        model = build_model(config, vec_env, out)
    env = config["env"]  # saved in every checkpoint zip (plain JSON), so load_agent knows its rules
    setattr(model, ZIP_RULES_KEY, {"variant": env["variant"],
                                   "rules": make_rules(env["variant"], **env["rules"]).options()})
    started = time.monotonic()
    remaining = training["total_timesteps"] - model.num_timesteps
    callbacks = [_callbacks(config, run, state, started)]
    if training["progress_bar"] and not quiet:
        callbacks.append(_progress_bar(config, state, started))
    try:
        if remaining > 0:
            model.learn(total_timesteps=remaining, callback=callbacks, reset_num_timesteps=not resume,
                        tb_log_name="ppo")
    finally:
        run.record_tree("tb")  # TensorBoard's files are the run's, even when it is interrupted
    save_checkpoint(model, run, dict(state, elapsed_seconds=state["elapsed_seconds"] + time.monotonic() - started))
    vec_env.close()
    export_model(model, config, out / "model", run)
    report = final_report(model, config, run, progress=training["progress_bar"] and not quiet)
    if not quiet:
        print("\n".join(report["summary"]))
    return report


def final_report(model: Any, config: dict[str, Any], run: RunFolder, progress: bool = False) -> dict[str, Any]:
    """The arena's evaluation of the final policy, written to ``report.json`` and ``report.txt``.

    ``progress`` shows what it plays as it goes (a minute or so of duplicate deals in the demo).
    """
    evaluation, env = config["evaluation"], config["env"]
    out = run.path
    agent, _, _ = policy_agent(model, config)
    report = {"run": config["name"], "steps": int(model.num_timesteps), "model": str(out / "model")}
    if evaluation["final_deals"] > 0:
        report.update(evaluate(agent, evaluation["baselines"], variant=env["variant"], num_players=env["num_players"],
                               options=env["rules"], deals=evaluation["final_deals"], seed=evaluation["seed"] + 1,
                               workers=evaluation["workers"], progress=progress))
        report["summary"] = [f"run {config['name']}: {report['steps']} steps"] + summary_lines(report)
        arena = report.pop("arena", {})
        if arena:
            from agents.arena import write_outputs

            for name, result in arena.items():  # the arena's own report (result.json, report.md, a plot)
                write_outputs(result, out / "arena" / name)
                run.record_tree(f"arena/{name}")
            report["arena_reports"] = {name: str(out / "arena" / name) for name in arena}
    else:
        report["summary"] = [f"run {config['name']}: {report['steps']} steps (no final evaluation)"]
    run.write("report.json", json.dumps(report, indent=2))
    run.write("report.txt", "\n".join(report["summary"]) + "\n")
    return report
