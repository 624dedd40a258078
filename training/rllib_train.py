"""Multi-agent self-play on RLlib (``backend: rllib``), top to bottom.

Every seat is played by an RLModule: the learning policy ``shared``, frozen
snapshots of it (``snapshot_<k>``) and built-in heuristics (non-learning
:class:`~training.rllib_modules.HeuristicRLModule`\\s), drawn per seat and per
episode by the config's ``league`` shares.  PPO with action masking on
RLlib's new API stack; env runners are Ray actors (local, or on the cluster
at ``ray.address`` / ``RAY_ADDRESS``).

The run folder (``output``) holds what an SB3 run's does (training/train.py):
``config.yaml``; ``checkpoints/rllib/`` (RLlib's own checkpoint, pickles:
resume only your own runs) with ``checkpoints/state.json``, each replaced
whole; ``tb/`` (TensorBoard); ``eval_history.jsonl``; ``model/`` (the
``shared`` policy in the safe format, :mod:`agents.learned`, so
``model:<output>/model`` plays in the arena, ``commerce play`` and as an SB3
opponent); ``report.json`` / ``report.txt`` and ``arena/<baseline>/``.

Snapshot slots start as copies of the initial policy; every
``selfplay.every_steps`` env steps the oldest slot gets the current weights.
Steps here are env steps, one decision of any seat (an SB3 run counts only
its learner's decisions).
"""

from __future__ import annotations

import functools
import json
import os
import random
import shutil
import time
from pathlib import Path
from typing import Any

import yaml

from agents.learned import LearnedAgent, make_meta, save_model

from .evaluation import evaluate, write_final_report
from .rllib_config import RLlibConfig
from .run_folder import MANIFEST, RunFolder
from .train import _trim_history

SHARED = "shared"
CHECKPOINT = "checkpoints/rllib"
STATE = "checkpoints/state.json"


# ------------------------------------------------------------- the league
def heuristic_module_id(spec: str, index: int) -> str:
    return spec if not spec.startswith("model:") else f"model_{index}"


def league(config: RLlibConfig) -> tuple[list[str], list[float], list[str]]:
    """Module ids, their shares of the seats, and the heuristics' specs (in ``heuristic_actions`` order)."""
    shares = config.league
    heuristics = [h for h, share in shares.heuristics.items() if share > 0]
    ids, weights = [SHARED], [float(shares.shared)]
    if config.selfplay.enabled and shares.snapshots > 0:
        slots = config.selfplay.max_snapshots
        ids += [f"snapshot_{k}" for k in range(slots)]
        weights += [shares.snapshots / slots] * slots
    ids += [heuristic_module_id(h, k) for k, h in enumerate(heuristics)]
    weights += [float(shares.heuristics[h]) for h in heuristics]
    return ids, weights, heuristics


def choose_modules(episode_id: str, modules: list[str], weights: list[float], num_players: int) -> list[str]:
    """The module of every seat of one episode: drawn by ``weights``, at least one seat ``shared``."""
    rng = random.Random(str(episode_id))
    roles = rng.choices(modules, weights=weights, k=num_players)
    if SHARED not in roles:
        roles[rng.randrange(num_players)] = SHARED
    return roles


def map_agent(agent_id: str, episode: Any, *, modules: list[str], weights: list[float], num_players: int,
              **kwargs: Any) -> str:
    """RLlib's agent-to-module mapping: the same draw for every seat of an episode."""
    from .rllib_env import seat_of

    return choose_modules(episode.id_, modules, weights, num_players)[seat_of(agent_id)]


# ------------------------------------------------------------ the algorithm
def env_config(config: RLlibConfig) -> dict[str, Any]:
    env = config.env
    return {"variant": env.variant, "num_players": env.num_players, "rules": dict(env.rules),
            "features": list(env.features), "heuristics": league(config)[2]}


def module_spec(config: RLlibConfig, observation_space: Any = None, action_space: Any = None):
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from .rllib_modules import MaskedPPOModule

    policy = config.policy
    model = DefaultModelConfig(fcnet_hiddens=list(policy.net_arch), fcnet_activation=policy.activation,
                               head_fcnet_hiddens=[], vf_share_layers=False)
    return RLModuleSpec(module_class=MaskedPPOModule, model_config=model, observation_space=observation_space,
                        action_space=action_space)


def algorithm_config(config: RLlibConfig):
    """RLlib's ``PPOConfig`` for this run."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from .rllib_env import ENV_NAME, register
    from .rllib_modules import HeuristicRLModule

    register()
    modules, weights, heuristics = league(config)
    specs = {mid: module_spec(config) for mid in modules if mid == SHARED or mid.startswith("snapshot_")}
    for index, spec in enumerate(heuristics):
        specs[heuristic_module_id(spec, index)] = RLModuleSpec(module_class=HeuristicRLModule,
                                                               model_config={"index": index})
    ray_section, training = config.ray, config.training
    mapping = functools.partial(map_agent, modules=modules, weights=weights,
                                num_players=config.env.num_players)
    return (
        PPOConfig()
        .environment(ENV_NAME, env_config=env_config(config), disable_env_checking=True)  # its checker steps unmasked
        .framework("torch", torch_compile_learner=False)
        .env_runners(num_env_runners=ray_section.num_env_runners,
                     num_envs_per_env_runner=ray_section.num_envs_per_env_runner,
                     episodes_to_numpy=False,  # RLlib 2.60 re-numpies finished episodes each step: quadratic
                     # RLlib's default 60 s drops a whole sample that a loaded machine takes longer to collect
                     sample_timeout_s=None)
        .learners(num_learners=0)
        # A failed env runner stops the run with its error (--resume goes on from the last checkpoint);
        # restarts would also make Ray print an error-level line at every start (max_restarts > 0).
        .fault_tolerance(restart_failed_env_runners=False)
        .multi_agent(policies=set(modules), policy_mapping_fn=mapping, policies_to_train=[SHARED])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(**config.ppo)
        .debugging(seed=config.seed, log_level="ERROR")
        .python_environment(extra_python_environs_for_worker={"OMP_NUM_THREADS": str(training.torch_threads)})
    )


def _shared_state(algo: Any) -> dict[str, Any]:
    path = f"learner/rl_module/{SHARED}"
    return algo.learner_group.get_state(components=path)["learner"]["rl_module"][SHARED]


def copy_shared_to(algo: Any, slots: list[str]) -> None:
    """Freeze the current ``shared`` weights into ``slots`` (learner and env runners)."""
    if not slots:
        return
    state = _shared_state(algo)
    algo.learner_group.set_state({"learner": {"rl_module": dict.fromkeys(slots, state)}})
    algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group, policies=slots,
                                       inference_only=True)


# --------------------------------------------------------------- exporting
def policy_agent(algo: Any, config: RLlibConfig, steps: int) -> tuple[LearnedAgent, dict, dict]:
    """The ``shared`` policy as a numpy :class:`LearnedAgent`, its weights and its ``model.json`` record."""
    from .rllib_env import TurnBasedCommerceEnv
    from .rllib_modules import policy_weights

    env = TurnBasedCommerceEnv(env_config(config))
    module = module_spec(config, env.observation_spaces["player_0"], env.action_spaces["player_0"]).build()
    module.set_state(_shared_state(algo))
    weights, network = policy_weights(module)
    meta = _meta(config, network, steps)
    return LearnedAgent(weights, meta), weights, meta


def _meta(config: RLlibConfig, network: dict[str, Any], steps: int) -> dict[str, Any]:
    rules = config.env.make_rules()
    return make_meta(rules, config.env.num_players, network, features=config.env.features,
                     trained_steps=int(steps), run=config.name, backend="rllib")


def export_checkpoint(run: Path, config: RLlibConfig, folder: str | Path) -> tuple[Path, int]:
    """``commerce export`` of an RLlib run: the ``shared`` module of its checkpoint, in the safe format.

    The checkpoint is RLlib's (pickles): export only runs you made yourself."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    from .rllib_modules import policy_weights

    path = run / CHECKPOINT / "learner_group" / "learner" / "rl_module" / SHARED
    if not path.is_dir() or not (run / STATE).is_file():
        raise ValueError(f"no RLlib checkpoint at {run / CHECKPOINT}")
    module = RLModule.from_checkpoint(str(path.resolve()))
    weights, network = policy_weights(module)
    steps = int(json.loads((run / STATE).read_text())["steps"])
    return save_model(folder, weights, _meta(config, network, steps)), steps


# ---------------------------------------------------------- checkpointing
NEW_CHECKPOINT, OLD_CHECKPOINT = "checkpoints/.rllib.new", "checkpoints/.rllib.old"


def save_checkpoint(algo: Any, run: RunFolder, state: dict[str, Any]) -> None:
    """RLlib's checkpoint folder, written beside the last one and swapped in whole, then the run's state.

    A kill at any moment leaves a whole checkpoint: the last one, or the new one
    under ``.rllib.new`` / the old one under ``.rllib.old`` (put back by :func:`_recover`)."""
    final, fresh, old = run.path / CHECKPOINT, run.path / NEW_CHECKPOINT, run.path / OLD_CHECKPOINT
    for leftover in (fresh, old):  # a kill's, and ours (else refused)
        _remove_own_tree(run, leftover)
    fresh.parent.mkdir(parents=True, exist_ok=True)
    algo.save_to_path(str(fresh.resolve()))
    run.record_tree(NEW_CHECKPOINT)
    if final.exists():
        # ours, under its next name (paths relative to the run folder, as the manifest keeps them)
        run.record((Path(OLD_CHECKPOINT) / p.relative_to(final)).as_posix() for p in final.rglob("*") if p.is_file())
        os.replace(final, old)
    os.replace(fresh, final)
    run.record_tree(CHECKPOINT)
    _remove_own_tree(run, old)
    run.write(STATE, json.dumps(state, indent=2))
    run.record_tree("tb")


def _remove_own_tree(run: RunFolder, folder: Path) -> None:
    """Delete ``folder`` if this run's manifest records every file in it; refuse otherwise."""
    if not folder.exists():
        return
    foreign = set(run.foreign_files())
    inside = [p.relative_to(run.path).as_posix() for p in folder.rglob("*") if p.is_file() or p.is_symlink()]
    if any(f in foreign for f in inside):
        raise ValueError(f"{folder} holds files that no commerce run wrote; they are kept: move them away")
    shutil.rmtree(folder)


def _recover(run: RunFolder) -> None:
    """After a kill between the two renames of :func:`save_checkpoint`: the old checkpoint back in place."""
    final, old = run.path / CHECKPOINT, run.path / OLD_CHECKPOINT
    if not final.exists() and old.exists():
        os.replace(old, final)
    _remove_own_tree(run, run.path / NEW_CHECKPOINT)
    _remove_own_tree(run, old)


def _log(writer: Any, result: dict[str, Any], steps: int) -> dict[str, float]:
    """The scalars of one iteration to TensorBoard; returns the few printed."""
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, LEARNER_RESULTS

    runners = result.get(ENV_RUNNER_RESULTS, {})
    scalars = {}
    for key in ("episode_return_mean", "episode_len_mean", "num_env_steps_sampled_lifetime"):
        if isinstance(runners.get(key), (int, float)):
            scalars[f"env_runners/{key}"] = runners[key]
    for module, value in (runners.get("module_episode_returns_mean") or {}).items():
        scalars[f"returns/{module}"] = value
    for key, value in (result.get(LEARNER_RESULTS, {}).get(SHARED) or {}).items():
        if isinstance(value, (int, float)):
            scalars[f"learner/{key}"] = value
    for tag, value in scalars.items():
        writer.add_scalar(tag, float(value), steps)
    return scalars


# ------------------------------------------------------------------ train
def sampled_steps(result: dict[str, Any]) -> int:
    """The env steps sampled so far, from the result of ``algo.train()``."""
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME

    return int(result.get(ENV_RUNNER_RESULTS, {}).get(NUM_ENV_STEPS_SAMPLED_LIFETIME, 0))


def train(config: RLlibConfig, resume: bool = False, quiet: bool = False, force: bool = False) -> dict[str, Any]:
    """Run (or resume) the RLlib training of ``config``; returns the final evaluation report.

    The output folder is locked and kept as an SB3 run's is (:mod:`training.run_folder`): a new run
    needs an empty folder, ``force`` first removes the files a previous run wrote there.
    """
    out = Path(config.output)
    if resume and not (out / STATE).is_file():
        raise ValueError(f"--resume: no checkpoint at {out / CHECKPOINT}")
    with RunFolder(out).locked() as run:
        for written in (STATE, MANIFEST):  # left by a kill during an atomic write
            run.remove_stale_temporaries(written)
        if resume:
            _recover(run)
        else:
            run.prepare_new_run(force=force)
        return _train(config, run, resume, quiet)


def _train(config: RLlibConfig, run: RunFolder, resume: bool, quiet: bool) -> dict[str, Any]:
    import torch
    from torch.utils.tensorboard import SummaryWriter

    from agents.ray_connect import connect, shutdown

    torch.set_num_threads(config.training.torch_threads)
    out = run.path
    run.write("config.yaml", yaml.safe_dump(config.to_dict(), sort_keys=False))
    training, evaluation, selfplay = config.training, config.evaluation, config.selfplay
    started_ray = connect(config.ray.address, config.ray.num_cpus)
    try:
        algo = algorithm_config(config).build_algo()
        snapshots = [m for m in league(config)[0] if m.startswith("snapshot_")]
        if resume:
            state = json.loads((out / STATE).read_text())
            algo.restore_from_path(str((out / CHECKPOINT).resolve()))
            algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group,
                                               inference_only=True)
            _trim_history(out / "eval_history.jsonl", state["steps"])
        else:
            copy_shared_to(algo, snapshots)  # the league starts with frozen copies of the initial policy
            state = {"steps": 0, "iterations": 0, "elapsed_seconds": 0.0, "next_snapshot_slot": 0,
                     "next_snapshot": selfplay.every_steps, "next_eval": evaluation.every_steps,
                     "next_checkpoint": training.checkpoint_every}
        writer = SummaryWriter(str(out / "tb"))
        began, offset = time.monotonic(), state["elapsed_seconds"]
        limit = training.time_limit_minutes

        def elapsed() -> float:
            return offset + time.monotonic() - began

        while state["steps"] < training.total_timesteps and (limit is None or elapsed() < limit * 60):
            # ---- one PPO iteration: sample on the env runners, update on the learner
            result = algo.train()
            state["steps"] = max(sampled_steps(result), state["steps"])
            state["iterations"] += 1
            scalars = _log(writer, result, state["steps"])
            if training.progress_bar and not quiet:
                ret = scalars.get(f"returns/{SHARED}", float("nan"))
                print(f"iteration {state['iterations']}: {state['steps']:,} env steps, {elapsed():.0f} s, "
                      f"shared return {ret:+.3f}", flush=True)
            # ---- self-play: the oldest snapshot slot gets the current weights
            if snapshots and state["steps"] >= state["next_snapshot"]:
                copy_shared_to(algo, [snapshots[state["next_snapshot_slot"] % len(snapshots)]])
                state["next_snapshot_slot"] += 1
                state["next_snapshot"] += selfplay.every_steps
            # ---- periodic evaluation in the arena against the built-in agents
            if state["steps"] >= state["next_eval"]:
                _evaluate(algo, config, run, writer, state["steps"], elapsed())
                state["next_eval"] += evaluation.every_steps
            if state["steps"] >= state["next_checkpoint"]:
                save_checkpoint(algo, run, dict(state, elapsed_seconds=elapsed()))
                state["next_checkpoint"] += training.checkpoint_every
        state["elapsed_seconds"] = elapsed()
        writer.close()
        save_checkpoint(algo, run, state)
        agent, weights, meta = policy_agent(algo, config, state["steps"])
        save_model(out / "model", weights, meta)
        run.record_tree("model")
        algo.stop()
    finally:
        run.record_tree("tb")  # TensorBoard's files are the run's, even when it is interrupted
        shutdown(started_ray)
    report = final_report(agent, config, run, state["steps"])
    if not quiet:
        print("\n".join(report["summary"]))
    return report


def _evaluate(algo: Any, config: RLlibConfig, run: RunFolder, writer: Any, steps: int, elapsed: float) -> None:
    evaluation, env = config.evaluation, config.env
    agent, _, _ = policy_agent(algo, config, steps)
    report = evaluate(agent, evaluation.baselines, variant=env.variant, num_players=env.num_players,
                      options=env.rules, deals=evaluation.deals, seed=evaluation.seed,
                      workers=evaluation.workers)
    line = {"steps": steps, "elapsed_seconds": elapsed, "opponents": report["opponents"]}
    run.record(["eval_history.jsonl"])
    with open(run.path / "eval_history.jsonl", "a") as handle:
        handle.write(json.dumps(line) + "\n")
    for name, row in report["opponents"].items():
        writer.add_scalar(f"eval/{name}/mean_reward", row["mean_reward"], steps)
        writer.add_scalar(f"eval/{name}/diff", row["diff"], steps)


def final_report(agent: LearnedAgent, config: RLlibConfig, run: RunFolder, steps: int) -> dict[str, Any]:
    """The arena's evaluation of the exported policy, in ``report.json``, ``report.txt`` and ``arena/``."""
    report = {"run": config.name, "backend": "rllib", "steps": steps, "model": "model"}
    title = f"run {config.name}: {steps} env steps"
    return write_final_report(agent, config.evaluation, config.env, run, report, title)
