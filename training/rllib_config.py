"""Configuration of an RLlib run (``backend: rllib``): one YAML file, checked before anything runs.

See ``configs/train/rllib_*.yaml`` and docs/distributed.md.  The sections are dataclasses, as
an SB3 run's (:mod:`training.config`; the game, the network and the evaluation are
:mod:`training.sections`); an unknown key anywhere is a ``ValueError`` naming it.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

from .checks import (
    Section,
    check_agent_names,
    fail,
    is_number,
    one_of,
    option,
    parse,
    section,
    whole,
)
from .sections import (
    MAX_SNAPSHOTS,
    MAX_STEPS,
    MAX_THREADS,
    BudgetSection,
    EvaluationSection,
    GameSection,
    NetworkSection,
    RunSection,
    SnapshotSection,
    check_rules,
)

# PPOConfig.training arguments the run sets itself, or that would break the export or the masking.
PPO_RESERVED = ("self", "kwargs", "model", "learner_class", "learner_connector",
                "add_default_connectors_to_learner_pipeline", "vf_share_layers")


def _share(value: Any) -> bool:
    return is_number(value) and value >= 0


def _shared(value: Any) -> str | None:
    return None if _share(value) and value > 0 else "a share > 0 (the learning policy must play)"


def _snapshots(value: Any) -> str | None:
    return None if _share(value) else "a share >= 0"


def _heuristics(value: Any) -> str | None:
    ok = isinstance(value, dict) and all(isinstance(k, str) and _share(v) for k, v in value.items())
    return None if ok else "a mapping of built-in agent names to shares"


def _address(value: Any) -> str | None:
    ok = value is None or (isinstance(value, str) and value != "")
    return None if ok else "null or a cluster address (host:port, ray://host:port)"


@dataclass(eq=False)
class LeagueSection(Section):
    """Who plays a seat, drawn per seat and per episode by these shares; every episode has at least
    one ``shared`` seat."""

    shared: float = option(1.0, _shared)
    """the learning policy"""
    snapshots: float = option(0.0, _snapshots)
    """frozen copies of it, split evenly over the ``selfplay.max_snapshots`` slots"""
    heuristics: dict[str, float] = option({}, _heuristics)
    """built-in agents as non-learning modules, by name: ``{greedy: 0.15, random: 0.05}``"""


@dataclass(eq=False)
class RLlibSelfPlaySection(SnapshotSection):
    """Snapshots of the learning policy, replacing the oldest slot."""

    max_snapshots: int = option(4, whole(1, MAX_SNAPSHOTS))
    """the snapshot slots"""


@dataclass(eq=False)
class RaySection(Section):
    """Where the run's actors live."""

    address: str | None = option(None, _address)
    """null: ``RAY_ADDRESS``, else a local instance with ``num_cpus`` CPUs"""
    num_cpus: int = option(2, whole(1, MAX_THREADS))
    """the local instance's CPUs"""
    num_env_runners: int = option(1, whole(0, MAX_THREADS))
    """env runner actors, a CPU each (0: the driver steps the envs); the learner runs in the driver"""
    num_envs_per_env_runner: int = option(8, whole(1, 1024))
    """envs each runner steps together"""


@dataclass(eq=False)
class RLlibTrainingSection(BudgetSection):
    """How long the run trains (its steps are every seat's decisions)."""

    checkpoint_every: int = option(20_000, whole(1, MAX_STEPS))
    """env steps between checkpoints: RLlib's iterations are larger than SB3's rollouts"""


PPO_DEFAULTS = {"lr": 3e-4, "gamma": 1.0, "lambda_": 0.95, "entropy_coeff": 0.01, "clip_param": 0.2,
                "vf_loss_coeff": 0.5, "train_batch_size_per_learner": 4000, "minibatch_size": 500, "num_epochs": 4}


@dataclass(eq=False)
class RLlibConfig(RunSection):
    """An RLlib self-play run (``backend: rllib``)."""

    backend: str = option("rllib", one_of("rllib"))
    """``rllib``"""
    env: GameSection = section(GameSection)
    league: LeagueSection = section(LeagueSection)
    selfplay: RLlibSelfPlaySection = section(RLlibSelfPlaySection)
    ray: RaySection = section(RaySection)
    training: RLlibTrainingSection = section(RLlibTrainingSection)
    policy: NetworkSection = section(NetworkSection)
    ppo: dict[str, Any] = option(PPO_DEFAULTS)
    """keyword arguments of RLlib's ``PPOConfig.training`` (checked against its signature); these
    defaults, each replaced when given"""
    evaluation: EvaluationSection = section(EvaluationSection)


def ppo_arguments() -> set[str]:
    """The keyword arguments of ``PPOConfig.training`` (its own and AlgorithmConfig's)."""
    from ray.rllib.algorithms.algorithm_config import AlgorithmConfig
    from ray.rllib.algorithms.ppo import PPOConfig

    names = set(inspect.signature(PPOConfig.training).parameters)
    names |= set(inspect.signature(AlgorithmConfig.training).parameters)
    return names - set(PPO_RESERVED)


def validate(data: Any, source: str = "config") -> RLlibConfig:
    """The typed config of ``data``, every key and value checked."""
    ppo = data.get("ppo") if isinstance(data, dict) else None
    if ppo is not None and not isinstance(ppo, dict):
        raise ValueError(f"{source}: section 'ppo' must be a mapping, got {ppo!r}")
    if isinstance(data, dict):
        data = {**data, "ppo": {**PPO_DEFAULTS, **(ppo or {})}}
    config = parse(RLlibConfig, data, source)
    _check_ppo_keys(config.ppo, source)
    check_rules(config.env, source)
    league, sp, ray = config.league, config.selfplay, config.ray
    check_agent_names(list(league.heuristics), "league.heuristics", source)  # models too: no trust in spec text
    if not (sp.enabled or league.snapshots == 0):
        fail(source, "league.snapshots", league.snapshots, "0 unless selfplay.enabled is true")
    if ray.address is None and ray.num_env_runners > ray.num_cpus:
        fail(source, "ray.num_env_runners", ray.num_env_runners, f"at most ray.num_cpus ({ray.num_cpus}): each "
             "runner takes a CPU, and RLlib waits forever for one it cannot get")
    check_agent_names(config.evaluation.baselines, "evaluation.baselines", source)
    return config


def _check_ppo_keys(ppo: dict[str, Any], source: str) -> None:
    """Only ``PPOConfig.training``'s arguments (when Ray is installed: a run needs it anyway)."""
    try:
        allowed = ppo_arguments()
    except ImportError:  # checked again by PPOConfig when the run starts
        return
    for key in ppo:
        if key not in allowed:
            raise ValueError(f"{source}: unknown key 'ppo.{key}'; allowed: PPOConfig.training arguments")
