"""The run's callbacks, one job each, in stable-baselines3's style (composed in a list by
:func:`training.train.train`): the time budget, self-play snapshots, periodic evaluation,
checkpoints, the learning-rate schedule, the imitation anchor and the progress bar.  They share
one :class:`RunState`, the schedule and clock that every checkpoint saves and ``--resume`` reads back.
"""

from __future__ import annotations

import json
import time
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

from .checkpoints import export_model, policy_agent, save_checkpoint
from .config import EnvSection, EvaluationSection, PPOSection, SelfPlaySection, TrainingSection
from .evaluation import evaluate
from .run_folder import RunFolder


class RunState:
    """The run's schedule (next snapshot, evaluation and checkpoint), its snapshots and its
    clock: plain JSON in ``data``, saved with every checkpoint."""

    def __init__(self, data: dict[str, Any]):
        self.data = data
        self.started = time.monotonic()

    def elapsed(self) -> float:
        """Seconds of training, the earlier runs of a resumed run included."""
        return self.data["elapsed_seconds"] + time.monotonic() - self.started

    def saved(self) -> dict[str, Any]:
        """What a checkpoint writes: the schedule, with the clock as of now."""
        return dict(self.data, elapsed_seconds=self.elapsed())

    def due(self, key: str, steps: int, every: int) -> bool:
        """Whether the event scheduled at ``data[key]`` is due at ``steps``; if so, schedule the next."""
        if steps < self.data[key]:
            return False
        self.data[key] = steps + every
        return True


class TimeBudget(BaseCallback):
    """Stops training once the run has used ``limit_minutes`` (``None``: no limit)."""

    def __init__(self, limit_minutes: float | None, state: RunState):
        super().__init__()
        self.limit_minutes, self.state = limit_minutes, state

    def _on_step(self) -> bool:
        return self.limit_minutes is None or self.state.elapsed() < self.limit_minutes * 60


class RolloutEndCallback(BaseCallback):
    """A callback of the run that acts at rollout ends (on its :class:`RunState` schedule)
    and never stops training.  Each subclass takes the config's sections it reads."""

    def __init__(self, state: RunState):
        super().__init__()
        self.state = state

    def _on_step(self) -> bool:
        return True


class AnchorToTeacher(BaseCallback):
    """After every PPO update, the imitation anchor's steps (:class:`training.pretrain.ImitationAnchor`);
    the loss is logged as ``pretrain/anchor_loss``."""

    def __init__(self, anchor: Any):
        super().__init__()
        self.anchor, self.rollouts = anchor, 0

    def _on_step(self) -> bool:
        return True

    def _on_rollout_start(self) -> None:
        self.rollouts += 1
        if self.rollouts > 1:  # the first rollout of a learn() call follows no update of it
            self.logger.record("pretrain/anchor_loss", self.anchor.step())


class SelfPlaySnapshots(RolloutEndCallback):
    """Every ``selfplay.every_steps``, the policy joins the opponents' pool (self-play); the snapshot
    is exported for ``env``'s game under the run's ``name``, in ``run``'s ``snapshots/``."""

    def __init__(self, selfplay: SelfPlaySection, env: EnvSection, name: str, run: RunFolder, state: RunState):
        super().__init__(state)
        self.selfplay, self.env, self.name, self.run = selfplay, env, name, run

    def _on_rollout_end(self) -> None:
        selfplay, steps = self.selfplay, self.model.num_timesteps
        if not selfplay.enabled or not self.state.due("next_snapshot", steps, selfplay.every_steps):
            return
        folder = export_model(self.model, self.env, self.name, self.run.path / "snapshots" / f"step_{steps}",
                              self.run)
        self.training_env.env_method("add_snapshot", str(folder))
        self.state.data["snapshots"] = (self.state.data["snapshots"] + [str(folder)])[-selfplay.max_snapshots:]


class PeriodicEvaluation(RolloutEndCallback):
    """Every ``evaluation.every_steps``, the policy against the baselines on duplicate deals of
    ``env``'s game: logged to TensorBoard and appended to ``run``'s ``eval_history.jsonl``.  ``name``
    and ``search`` (``policy.search``) are the agent's record, as :func:`policy_agent` makes it."""

    def __init__(self, evaluation: EvaluationSection, env: EnvSection, name: str, search: dict[str, Any] | None,
                 run: RunFolder, state: RunState):
        super().__init__(state)
        self.evaluation, self.env, self.name, self.search, self.run = evaluation, env, name, search, run

    def _on_rollout_end(self) -> None:
        evaluation, steps = self.evaluation, self.model.num_timesteps
        if not self.state.due("next_eval", steps, evaluation.every_steps):
            return
        agent, _, _ = policy_agent(self.model, self.env, self.name, self.search)
        env = self.env
        report = evaluate(agent, evaluation.baselines, variant=env.variant, num_players=env.num_players,
                          options=env.rules, deals=evaluation.deals, seed=evaluation.seed,
                          workers=evaluation.workers)
        for name, row in report["opponents"].items():
            self.logger.record(f"eval/{name}/mean_reward", row["mean_reward"])
            self.logger.record(f"eval/{name}/diff", row["diff"])
        self.logger.dump(steps)
        self.run.record(["eval_history.jsonl"])
        with open(self.run.path / "eval_history.jsonl", "a") as handle:
            handle.write(json.dumps({"steps": int(steps), "elapsed_seconds": self.state.elapsed(),
                                     "opponents": report["opponents"]}) + "\n")


class PeriodicCheckpoint(RolloutEndCallback):
    """Every ``training.checkpoint_every`` steps, the model and the run state, written atomically in ``run``."""

    def __init__(self, training: TrainingSection, run: RunFolder, state: RunState):
        super().__init__(state)
        self.training, self.run = training, run

    def _on_rollout_end(self) -> None:
        every = self.training.checkpoint_every
        if self.state.due("next_checkpoint", self.model.num_timesteps, every):
            save_checkpoint(self.model, self.run, self.state.saved())


def budget_progress(steps: int, total_steps: int, elapsed: float, limit_minutes: float | None) -> tuple[float, str]:
    """How far the run is, as the fraction of whichever budget is nearer its end, and which one that is."""
    by_steps = min(steps / total_steps, 1.0)
    if limit_minutes is None:
        return by_steps, "steps"
    by_time = min(elapsed / (limit_minutes * 60), 1.0)
    return (by_steps, "steps") if by_steps >= by_time else (by_time, "time")


def linear_learning_rate(initial: float, fraction_done: float) -> float:
    """``initial`` scaled by the budget still left (rl-zoo's ``lin_<rate>``, over whichever budget ends the run)."""
    return initial * max(1.0 - fraction_done, 0.0)


class LinearLearningRate(RolloutEndCallback):
    """``training.learning_rate_schedule: linear``: before each PPO update, the learning rate is
    ``ppo.learning_rate`` times the budget left.  stable-baselines3's own schedules follow the step
    budget only; a run that the time limit ends would stop with its rate barely lowered."""

    def __init__(self, training: TrainingSection, ppo: PPOSection, state: RunState):
        super().__init__(state)
        self.training, self.ppo = training, ppo

    def _on_rollout_end(self) -> None:
        training = self.training
        fraction, _ = budget_progress(self.model.num_timesteps, training.total_timesteps, self.state.elapsed(),
                                      training.time_limit_minutes)
        self.model.learning_rate = linear_learning_rate(self.ppo.learning_rate, fraction)
        self.model._setup_lr_schedule()  # the update that follows reads model.lr_schedule


class BudgetProgressBar(BaseCallback):
    """A tqdm bar over the budget that ends the run: the step budget or the time limit, whichever is nearer."""

    def __init__(self, total_steps: int, limit_minutes: float | None, state: RunState):
        super().__init__()
        self.total, self.limit, self.state = total_steps, limit_minutes, state
        self.budget = f"{total_steps:,} steps" + (f" or {limit_minutes:g} min" if limit_minutes is not None else "")

    def _on_training_start(self) -> None:
        from tqdm.auto import tqdm

        self.bar = tqdm(total=1000, leave=True, bar_format="training: {percentage:3.0f}%|{bar}| {desc}")
        self._update()

    def _update(self) -> None:
        elapsed, steps = self.state.elapsed(), self.model.num_timesteps
        fraction, leading = budget_progress(steps, self.total, elapsed, self.limit)
        self.bar.set_description_str(f"{steps:,} steps, {elapsed:.0f} s of {self.budget} (ends on {leading})",
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
