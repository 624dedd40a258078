"""Expert iteration (``expert_iteration.rounds`` > 0 in a training config): ``search`` with the
network as its prior is the teacher, and each round's network the next round's prior.

Round ``r`` (round 0 is the network the run starts from: ``warm_start``, or a fresh one):

1. the network of the last round that improved plays as ``search``'s prior, every decision of
   the learner's seats searched (:mod:`training.expert_data`); the decisions are saved in
   ``parts`` files, ``rounds/round_<r>/part_<k>.npz``;
2. the network is fitted to the search's choices (``target: visit``) or a softmax of its action
   values (``value``) on the last ``window`` rounds' decisions, and its value head to the
   outcomes; then ``ppo_steps`` of MaskablePPO, if any; saved as ``policy.zip`` (the run's own
   checkpoint) and ``model/`` (safe format);
3. its network alone is measured against ``measure_opponent`` and the network it started from
   (:mod:`training.expert_rounds`), one line of ``rounds.jsonl``, and kept or set aside.

Each step is skipped where its files exist, so ``--resume`` goes on where the run stopped: in
the middle of a round's collection it loses at most one part.  The run ends after ``rounds``
rounds, after ``patience`` rounds in a row that do not improve, or at the time limit; the last
round kept is exported to ``model/`` (with ``policy.search``) and evaluated as any run.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from .checkpoints import export_model
from .expert_data import ExpertDecisions, collect_round
from .expert_rounds import (
    RECORD,
    accepted_round,
    improves,
    line,
    measure,
    read_record,
    round_folder,
    stalled,
)
from .pretrain import fit_policy
from .run_envs import build_model, make_vec_env, warm_start
from .run_folder import RunFolder

if TYPE_CHECKING:
    from .config import TrainConfig

POLICY = "policy.zip"  # a round's MaskablePPO model (the run's own checkpoint: unpickled on resume)
MODEL = "model"  # a round's network in the safe format


def fit(policy: Any, data: ExpertDecisions, targets: np.ndarray, epochs: int, batch_size: int,
        learning_rate: float, value_coef: float, seed: int) -> dict[str, float]:
    """Cross-entropy of ``targets`` under the masked policy, plus ``value_coef`` times the value head's
    squared error on the outcomes; the last epoch's losses and the agreement with the search's choice."""
    import torch

    observations = torch.as_tensor(data.observations)
    masks = data.masks
    wanted = torch.as_tensor(targets)
    returns = torch.as_tensor(data.returns)

    def losses(batch: np.ndarray) -> tuple[Any, Any]:
        distribution = policy.get_distribution(observations[batch], action_masks=masks[batch])
        log_probs = torch.log_softmax(distribution.distribution.logits, dim=1)
        return (-(wanted[batch] * log_probs).sum(dim=1).mean(),
                torch.nn.functional.mse_loss(policy.predict_values(observations[batch]).flatten(), returns[batch]))

    stats = fit_policy(policy, len(data), losses, epochs, batch_size, learning_rate, value_coef, seed)
    with torch.no_grad():
        chosen = policy.get_distribution(observations, action_masks=masks).distribution.probs.argmax(dim=1)
    stats["agreement"] = float((chosen.numpy() == data.actions).mean())
    return stats


class ExpertIteration:
    """The rounds of one run (the module docstring); :meth:`run_rounds` plays those not yet recorded."""

    def __init__(self, config: TrainConfig, run: RunFolder, quiet: bool = False):
        self.config, self.run, self.quiet = config, run, quiet
        self.section = config.expert_iteration
        self.out = run.path
        self.vec_env = None
        self.started = time.monotonic()

    def say(self, text: str) -> None:
        if not self.quiet:
            print(text, flush=True)

    # ------------------------------------------------------------ the network
    def env(self) -> Any:
        if self.vec_env is None:
            config = self.config
            self.vec_env = make_vec_env(config.env, config.opponents, config.selfplay, config.training,
                                        config.seed)
        return self.vec_env

    def load(self, index: int) -> Any:
        """Round ``index``'s MaskablePPO model (round 0 made first, when the run starts)."""
        from sb3_contrib import MaskablePPO

        path = self.out / round_folder(index) / POLICY
        if index == 0 and not path.is_file():
            model = build_model(self.config.policy, self.config.ppo, self.env(), self.out, self.config.seed)
            if self.section.warm_start is not None:
                warm_start(model.policy, self.section.warm_start)
            self.save(model, 0)
            return model
        return MaskablePPO.load(str(path), env=self.env(), device="cpu", tensorboard_log=str(self.out / "tb"))

    def save(self, model: Any, index: int) -> None:
        """A round's model: the MaskablePPO zip, then its network in the safe format."""
        from agents.learned import ZIP_RULES_KEY
        from agents.sb3_models import ZIP_LAYOUT_KEY
        from commerce_env import observation as obs
        from commerce_env.files import atomic_write

        env = self.config.env
        setattr(model, ZIP_RULES_KEY, {"variant": env.variant, "rules": env.make_rules().options(),
                                       ZIP_LAYOUT_KEY: obs.LAYOUT_VERSION})
        folder = self.out / round_folder(index)
        folder.mkdir(parents=True, exist_ok=True)
        export_model(model, env, self.config.name, folder / MODEL, self.run)
        atomic_write(folder / POLICY, model.save)  # written last: the round's training is done
        self.run.record([folder / POLICY])

    # ------------------------------------------------------------ a round
    def collect(self, index: int, start: int) -> list[dict[str, Any]] | None:
        """Round ``index``'s decisions by the search around round ``start``'s network, part by part;
        None where the time limit stops it first."""
        section = self.section
        folder = round_folder(index)
        share = -(-section.decisions_per_round // section.parts)
        costs = []
        for part in range(section.parts):
            name = f"{folder}/part_{part}"
            self.run.remove_stale_temporaries(f"{name}.npz")
            if not (self.out / f"{name}.npz").is_file():
                if self.out_of_time():
                    return None
                seed = self.config.seed * 1_000_003 + index * 1009 + part
                data, cost = collect_round(self.out / round_folder(start) / MODEL, self.config, share, seed)
                self.run.write(f"{name}.json", json.dumps(cost, indent=2))
                self.run.write(f"{name}.npz", data.to_bytes())  # last: the part is done
                self.say(f"round {index}: part {part + 1}/{section.parts}, {cost['decisions']} decisions in "
                         f"{cost['seconds']:.0f} s ({cost['search_decisions_per_second']:.0f} searched/s)")
            costs.append(json.loads((self.out / f"{name}.json").read_text()))
        return costs

    def decisions(self, index: int) -> ExpertDecisions:
        """The decisions of round ``index`` and the ``window - 1`` rounds before it."""
        parts = []
        for earlier in range(max(1, index - self.section.window + 1), index + 1):
            parts += sorted((self.out / round_folder(earlier)).glob("part_*.npz"))
        return ExpertDecisions.concatenate([ExpertDecisions.load(path) for path in parts])

    def train(self, index: int, start: int) -> dict[str, Any]:
        """Round ``index``'s network: round ``start``'s, fitted to the window's decisions, then PPO."""
        section = self.section
        model = self.load(start)
        data = self.decisions(index)
        began = time.monotonic()
        stats = fit(model.policy, data, data.targets(section.target, section.temperature), section.epochs,
                    section.batch_size, section.learning_rate, section.value_coef, self.config.seed + index)
        stats.update(decisions=len(data), fit_seconds=time.monotonic() - began)
        if section.ppo_steps > 0:
            began = time.monotonic()
            try:
                model.learn(total_timesteps=section.ppo_steps, reset_num_timesteps=False, tb_log_name="ppo")
            finally:
                self.run.record_tree("tb")
            stats["ppo_seconds"] = time.monotonic() - began
        self.save(model, index)
        self.run.write(f"{round_folder(index)}/fit.json", json.dumps(stats, indent=2))
        return stats

    def record(self, entries: list[dict[str, Any]]) -> None:
        self.run.write(RECORD, "".join(json.dumps(entry) + "\n" for entry in entries))

    def out_of_time(self) -> bool:
        limit = self.config.training.time_limit_minutes
        return limit is not None and time.monotonic() - self.started >= 60 * limit

    def run_rounds(self) -> list[dict[str, Any]]:
        """Every round not yet recorded, until the last, the stop rule or the time limit."""
        section = self.section
        entries = read_record(self.out)
        if not entries:  # round 0: the network the run starts from
            self.load(0)
            began = time.monotonic()
            entries.append({"round": 0, "accepted": True, "measure": measure(self.out / round_folder(0) / MODEL,
                                                                              None, self.config),
                            "seconds": time.monotonic() - began})
            self.record(entries)
            self.say(line(entries[-1]))
        while len(entries) <= section.rounds and not stalled(entries, section.patience) and not self.out_of_time():
            index = len(entries)
            start = accepted_round(entries)
            began = time.monotonic()
            costs = self.collect(index, start)
            if costs is None:
                break
            path = self.out / round_folder(index) / POLICY
            stats = json.loads((path.parent / "fit.json").read_text()) if path.is_file() else self.train(index, start)
            measured = measure(self.out / round_folder(index) / MODEL, self.out / round_folder(start) / MODEL,
                               self.config)
            collected = sum(c["seconds"] for c in costs)
            kept = improves(measured, entries[start]["measure"], section.improve_by, section.improve_against)
            entries.append({"round": index, "started_from": start, "accepted": kept,
                            "measure": measured, "fit": stats, "collect_seconds": collected,
                            "search_decisions_per_second": sum(c["decisions"] for c in costs) / collected
                            if collected > 0 else None,
                            "seconds": time.monotonic() - began})
            self.record(entries)
            self.say(line(entries[-1]))
        return entries


def train_expert(config: TrainConfig, run: RunFolder, quiet: bool = False) -> dict[str, Any]:
    """The rounds (resumed where the record ends), then the last round kept exported to ``model/``
    with the config's test-time search and evaluated as every run; returns the final report."""
    import torch
    import yaml
    from threadpoolctl import threadpool_limits

    from .evaluation import final_report

    torch.set_num_threads(config.training.torch_threads)
    run.write("config.yaml", yaml.safe_dump(config.to_dict(), sort_keys=False))
    with threadpool_limits(limits=config.training.torch_threads, user_api="blas"):
        rounds = ExpertIteration(config, run, quiet)
        entries = rounds.run_rounds()
        kept = accepted_round(entries)
        model = rounds.load(kept)
        export_model(model, config.env, config.name, run.path / MODEL, run, search=config.policy.search)
        report = final_report(model, config.env, config.name, config.policy.search, config.evaluation, run,
                              progress=config.training.progress_bar and not quiet)
        report["expert_iteration"] = {"rounds": len(entries) - 1, "kept": kept,
                                      "stopped": "stalled" if stalled(entries, config.expert_iteration.patience)
                                      else "time" if rounds.out_of_time() else "rounds"}
        run.write("report.json", json.dumps(report, indent=2))
        if rounds.vec_env is not None:
            rounds.vec_env.close()
    if not quiet:
        print("\n".join(report["summary"]))
    return report
