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
* ``pretrain.json`` and ``clone/``: what imitation of the teacher did and the imitation
  itself (safe format), when the config has a teacher (:mod:`training.pretrain`)
* ``model/``: the final policy in the safe format (:mod:`agents.learned`)
* ``report.json`` / ``report.txt``: the final duplicate-deal evaluation
* ``.commerce-run.json`` / ``.commerce-run.lock``: the files the run wrote, and
  the lock that keeps a second run out (:mod:`training.run_folder`)
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from agents.learned import ZIP_RULES_KEY
from agents.sb3_models import ZIP_LAYOUT_KEY
from commerce_env import observation as obs
from commerce_env.files import atomic_write

from .callbacks import (  # noqa: F401 - budget_progress re-exported
    AnchorToTeacher,
    BudgetProgressBar,
    LinearLearningRate,
    PeriodicCheckpoint,
    PeriodicEvaluation,
    RunState,
    SelfPlaySnapshots,
    TimeBudget,
    budget_progress,
)
from .checkpoints import CHECKPOINT, STATE, export_model, policy_agent, save_checkpoint  # noqa: F401
from .config import OpponentsSection, PretrainSection, TrainConfig
from .evaluation import evaluate, final_report, summary_lines, verdict  # noqa: F401 - re-exported
from .run_envs import build_model, env_kwargs, make_vec_env  # noqa: F401 - re-exported
from .run_folder import MANIFEST, RunFolder

CLONE = "clone"  # the run folder's imitation of pretrain.teacher (safe format)


def _pretrain(model: Any, config: TrainConfig, run: RunFolder, vec_env: Any,
              state: dict[str, Any]) -> tuple[Any, Any]:
    """Imitation of the teacher (:mod:`training.pretrain`), counted in the run's time.  The clone
    is saved in ``clone/``; with ``pretrain.snapshot`` it is the league's first snapshot, and with
    ``pretrain.opponent_weight`` it joins the opponent pool for the whole run.  Returns the env
    PPO then trains on, and the demonstrations (for ``pretrain.anchor_batches``)."""
    from .pretrain import PRETRAIN_FILE, pretrain

    record, demonstrations = pretrain(model, config.pretrain, config.env, config.seed)
    state["elapsed_seconds"] += record["seconds"]
    run.write(PRETRAIN_FILE, json.dumps(record, indent=2))
    folder = export_model(model, config.env, config.name, run.path / CLONE, run)
    if config.pretrain.opponent_weight > 0:
        vec_env.close()
        vec_env = make_vec_env(config.env, with_clone(config.opponents, config.pretrain, run), config.selfplay,
                               config.training, config.seed)
        model.set_env(vec_env)
    if config.pretrain.snapshot and config.selfplay.enabled:
        vec_env.env_method("add_snapshot", str(folder))
        state["snapshots"].append(str(folder))
    return vec_env, demonstrations


def _anchor(model: Any, config: TrainConfig, demonstrations: Any) -> Any:
    """The imitation anchor of ``pretrain.anchor_*`` on ``demonstrations`` (collected again, the
    same for the seed, when a resumed run has none)."""
    from .pretrain import ImitationAnchor, demonstrations_of

    section = config.pretrain
    if demonstrations is None:
        demonstrations = demonstrations_of(section, config.env, config.seed)
    return ImitationAnchor(model.policy, demonstrations, section.anchor_kind, section.anchor_batches,
                           section.batch_size, section.anchor_learning_rate, config.seed)


def with_clone(opponents: OpponentsSection, pretrain: PretrainSection, run: RunFolder) -> OpponentsSection:
    """The opponents of the run's envs: ``opponents`` with the run's clone in the pool at
    ``pretrain.opponent_weight`` (relative to the pool's weights; equal weights when the pool has none),
    a new section that leaves the config's as it was; ``opponents`` itself when there is no clone."""
    if pretrain.teacher is None or pretrain.opponent_weight <= 0:
        return opponents
    weights = opponents.weights or [1.0] * len(opponents.pool)
    return OpponentsSection(pool=[*opponents.pool, f"model:{run.path / CLONE}"],
                            weights=[*weights, pretrain.opponent_weight])


def _trim_history(path: Path, steps: int) -> None:
    """Drop evaluations made after the checkpoint a run resumes from (they will be made again)."""
    if path.exists():
        lines = [line for line in path.read_text().splitlines() if line.strip()]
        kept = [line for line in lines if json.loads(line)["steps"] <= steps]
        atomic_write(path, "".join(line + "\n" for line in kept))


def train(config: TrainConfig, resume: bool = False, quiet: bool = False, force: bool = False) -> dict[str, Any]:
    """Run (or resume) the training of ``config``; returns the final evaluation report.

    The output folder is locked for the run (a second run on it is refused).  A
    new run needs an empty folder; ``force`` first removes the files a previous
    run wrote there (and only those: :mod:`training.run_folder`).
    """
    out = Path(config.output)
    checkpoint = out / CHECKPOINT
    expert = config.expert_iteration.rounds > 0  # training.expert_iteration: rounds of search as teacher
    if resume and expert and not (out / "rounds").is_dir():
        raise ValueError(f"--resume: no rounds of expert iteration in {out}")
    if resume and not expert and not checkpoint.is_file():
        raise ValueError(f"--resume: no checkpoint at {checkpoint}")
    with RunFolder(out).locked() as run:
        for written in (CHECKPOINT, STATE, MANIFEST):  # left by a kill during an atomic write
            run.remove_stale_temporaries(written)
        if not resume:
            run.prepare_new_run(force=force)
        if expert:
            from .expert_iteration import train_expert

            return train_expert(config, run, quiet)
        return _train(config, run, resume, quiet)


def _train(config: TrainConfig, run: RunFolder, resume: bool, quiet: bool) -> dict[str, Any]:
    from threadpoolctl import threadpool_limits

    # numpy's BLAS (the network opponents' forward passes) would start a thread per core, beside
    # torch's: two runs side by side on 2 cores then spin against each other (5x fewer steps,
    # docs/training.md "Throughput").  Both get training.torch_threads.
    with threadpool_limits(limits=config.training.torch_threads, user_api="blas"):
        return _train_limited(config, run, resume, quiet)


def _train_limited(config: TrainConfig, run: RunFolder, resume: bool, quiet: bool) -> dict[str, Any]:
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(config.training.torch_threads)
    out = run.path
    checkpoint = out / CHECKPOINT
    run.write("config.yaml", yaml.safe_dump(config.to_dict(), sort_keys=False))
    evaluation, training = config.evaluation, config.training
    demonstrations = None  # the teacher's, when pretrain made them (a resumed run collects them again)
    if resume:
        state = json.loads((out / STATE).read_text())
        vec_env = make_vec_env(config.env, with_clone(config.opponents, config.pretrain, run), config.selfplay,
                               training, config.seed + int(state["num_timesteps"]))
        model = MaskablePPO.load(str(checkpoint), env=vec_env, device="cpu", tensorboard_log=str(out / "tb"))
        _trim_history(out / "eval_history.jsonl", model.num_timesteps)
        for path in state["snapshots"]:
            vec_env.env_method("add_snapshot", path)
    else:
        state = {"num_timesteps": 0, "snapshots": [], "elapsed_seconds": 0.0,
                 "next_checkpoint": training.checkpoint_every, "next_eval": evaluation.every_steps,
                 "next_snapshot": config.selfplay.every_steps}
        vec_env = make_vec_env(config.env, config.opponents, config.selfplay, training, config.seed)
        model = build_model(config.policy, config.ppo, vec_env, out, config.seed)
        if config.pretrain.teacher is not None:
            vec_env, demonstrations = _pretrain(model, config, run, vec_env, state)
    env = config.env  # saved in every checkpoint zip (plain JSON), so load_agent knows its rules
    setattr(model, ZIP_RULES_KEY, {"variant": env.variant,
                                   "rules": env.make_rules().options(),
                                   ZIP_LAYOUT_KEY: obs.LAYOUT_VERSION})
    clock = RunState(state)
    remaining = training.total_timesteps - model.num_timesteps
    # Order as before the split: snapshot, evaluation, checkpoint at each rollout's end.
    callbacks = [SelfPlaySnapshots(config.selfplay, env, config.name, run, clock),
                 PeriodicEvaluation(evaluation, env, config.name, config.policy.search, run, clock),
                 PeriodicCheckpoint(training, run, clock),
                 TimeBudget(training.time_limit_minutes, clock)]
    if training.learning_rate_schedule == "linear":
        callbacks.append(LinearLearningRate(training, config.ppo, clock))
    if config.pretrain.anchor_batches > 0:
        callbacks.append(AnchorToTeacher(_anchor(model, config, demonstrations)))
    if training.progress_bar and not quiet:
        callbacks.append(BudgetProgressBar(training.total_timesteps, training.time_limit_minutes, clock))
    try:
        if remaining > 0:
            model.learn(total_timesteps=remaining, callback=callbacks, reset_num_timesteps=not resume,
                        tb_log_name="ppo")
    except KeyboardInterrupt as stop:  # Ctrl-C or SIGTERM: a checkpoint at the stop, so --resume loses nothing
        with _signals_ignored():
            save_checkpoint(model, run, clock.saved())
        stop.checkpoint_steps = int(model.num_timesteps)
        raise
    finally:
        run.record_tree("tb")  # TensorBoard's files are the run's, even when it is interrupted
    save_checkpoint(model, run, clock.saved())
    vec_env.close()
    export_model(model, env, config.name, out / "model", run, search=config.policy.search)
    report = final_report(model, env, config.name, config.policy.search, evaluation, run,
                          progress=training.progress_bar and not quiet)
    if not quiet:
        print("\n".join(report["summary"]))
    return report


@contextmanager
def _signals_ignored() -> Iterator[None]:
    """A block that a second Ctrl-C or SIGTERM does not cut short (a checkpoint being written)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():  # only the main thread takes signals
        yield
        return
    previous = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
