"""Configuration of an RLlib run (``backend: rllib``): one YAML file, checked before anything runs.

Sections (see ``configs/train/rllib_*.yaml`` and docs/distributed.md):

* ``backend: rllib``, ``name``, ``seed``, ``output`` (the run folder)
* ``env``: ``variant``, ``num_players``, ``rules`` (R-section options, or ``preset``), ``features``
* ``league``: who plays a seat, drawn per seat and per episode by these shares:
  ``shared`` (the learning policy), ``snapshots`` (frozen copies of it, split
  evenly over the ``selfplay.max_snapshots`` slots) and ``heuristics`` (a
  mapping of built-in agent names to shares); every episode has at least one
  ``shared`` seat
* ``selfplay``: ``enabled``, ``every_steps`` (env steps between snapshots), ``max_snapshots``
* ``ray``: ``address`` (null: ``RAY_ADDRESS`` or a local instance), ``num_cpus`` (local instance),
  ``num_env_runners``, ``num_envs_per_env_runner``
* ``training``: ``total_timesteps`` (env steps: decisions of every seat), ``time_limit_minutes``,
  ``checkpoint_every``, ``progress_bar``, ``torch_threads``
* ``policy``: ``net_arch`` (hidden layer sizes), ``activation`` (``tanh``/``relu``)
* ``ppo``: keyword arguments of RLlib's ``PPOConfig.training`` (checked against its signature)
* ``evaluation``: as in SB3 runs (``every_steps``, ``deals``, ``baselines``, ``final_deals``, ``seed``,
  ``workers``)

An unknown key anywhere is a ``ValueError`` naming it.
"""

from __future__ import annotations

import inspect
from typing import Any

from .checks import check_agent_names as _check_agent_names
from .checks import is_int as _is_int
from .checks import merge_sections
from .checks import require as _require

DEFAULTS: dict[str, Any] = {
    "backend": "rllib",
    "name": "rllib_run",
    "seed": 0,
    "output": "runs/rllib_run",
    "env": {"variant": "trade_barter", "num_players": 4, "rules": {}, "features": []},
    "league": {"shared": 1.0, "snapshots": 0.0, "heuristics": {}},
    "selfplay": {"enabled": False, "every_steps": 50_000, "max_snapshots": 4},
    "ray": {"address": None, "num_cpus": 2, "num_env_runners": 1, "num_envs_per_env_runner": 8},
    "training": {"total_timesteps": 100_000, "time_limit_minutes": None, "checkpoint_every": 20_000,
                 "progress_bar": True, "torch_threads": 1},
    "policy": {"net_arch": [128, 128], "activation": "tanh"},
    "ppo": {"lr": 3e-4, "gamma": 1.0, "lambda_": 0.95, "entropy_coeff": 0.01, "clip_param": 0.2,
            "vf_loss_coeff": 0.5, "train_batch_size_per_learner": 4000, "minibatch_size": 500, "num_epochs": 4},
    "evaluation": {"every_steps": 50_000, "deals": 200, "baselines": ["random"], "final_deals": 1000,
                   "seed": 12345, "workers": 1},
}
SECTIONS = tuple(k for k, v in DEFAULTS.items() if isinstance(v, dict))
# PPOConfig.training arguments the run sets itself, or that would break the export or the masking.
PPO_RESERVED = ("self", "kwargs", "model", "learner_class", "learner_connector",
                "add_default_connectors_to_learner_pipeline", "vf_share_layers")


def ppo_arguments() -> set[str]:
    """The keyword arguments of ``PPOConfig.training`` (its own and AlgorithmConfig's)."""
    from ray.rllib.algorithms.algorithm_config import AlgorithmConfig
    from ray.rllib.algorithms.ppo import PPOConfig

    names = set(inspect.signature(PPOConfig.training).parameters)
    names |= set(inspect.signature(AlgorithmConfig.training).parameters)
    return names - set(PPO_RESERVED)


def _allowed(section: str) -> set[str] | None:
    """The keys a section may hold (None: not checkable here, ``ppo`` without Ray installed)."""
    if section != "ppo":
        return set(DEFAULTS[section])
    try:
        return ppo_arguments()
    except ImportError:  # checked again by PPOConfig when the run starts, which needs Ray anyway
        return None


def validate(data: Any, source: str = "config") -> dict[str, Any]:
    """The full config: ``data`` over :data:`DEFAULTS`, every key and value checked."""
    config = merge_sections(data, DEFAULTS, source, _allowed, "PPOConfig.training arguments",
                            keys_are="keys of an RLlib config are")
    _check_values(config, source)
    return config


def _share(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


def _check_values(c: dict[str, Any], source: str) -> None:
    from commerce_env.features import FEATURES
    from commerce_env.rules import make_rules

    _require(c["backend"] == "rllib", "backend", c["backend"], "rllib", source)
    _require(isinstance(c["name"], str) and c["name"], "name", c["name"], "a non-empty string", source)
    _require(_is_int(c["seed"]), "seed", c["seed"], "a whole number >= 0", source)
    _require(isinstance(c["output"], str) and c["output"], "output", c["output"], "a folder path", source)
    env = c["env"]
    _require(isinstance(env["rules"], dict), "env.rules", env["rules"], "a mapping of rule options", source)
    try:
        make_rules(env["variant"], **env["rules"]).check_players(env["num_players"])
    except (TypeError, ValueError) as error:
        raise ValueError(f"{source}: env: {error}") from None
    _require(isinstance(env["features"], list) and all(f in FEATURES for f in env["features"]), "env.features",
             env["features"], f"a list of feature names from: {', '.join(FEATURES)}", source)
    league, sp = c["league"], c["selfplay"]
    _require(_share(league["shared"]) and league["shared"] > 0, "league.shared", league["shared"],
             "a share > 0 (the learning policy must play)", source)
    _require(_share(league["snapshots"]), "league.snapshots", league["snapshots"], "a share >= 0", source)
    heuristics = league["heuristics"]
    _require(isinstance(heuristics, dict) and all(isinstance(k, str) and _share(v) for k, v in heuristics.items()),
             "league.heuristics", heuristics, "a mapping of built-in agent names to shares", source)
    _check_agent_names(list(heuristics), "league.heuristics", source)  # models too: no trust in spec text
    _require(isinstance(sp["enabled"], bool), "selfplay.enabled", sp["enabled"], "true or false", source)
    _require(_is_int(sp["every_steps"], 1), "selfplay.every_steps", sp["every_steps"], "a whole number >= 1", source)
    _require(_is_int(sp["max_snapshots"], 1), "selfplay.max_snapshots", sp["max_snapshots"], "a number >= 1", source)
    _require(sp["enabled"] or league["snapshots"] == 0, "league.snapshots", league["snapshots"],
             "0 unless selfplay.enabled is true", source)
    ray = c["ray"]
    _require(ray["address"] is None or (isinstance(ray["address"], str) and ray["address"]), "ray.address",
             ray["address"], "null or a cluster address (host:port, ray://host:port)", source)
    _require(_is_int(ray["num_cpus"], 1), "ray.num_cpus", ray["num_cpus"], "a whole number >= 1", source)
    _require(_is_int(ray["num_env_runners"], 0), "ray.num_env_runners", ray["num_env_runners"],
             "a whole number >= 0", source)
    _require(ray["address"] is not None or ray["num_env_runners"] <= ray["num_cpus"], "ray.num_env_runners",
             ray["num_env_runners"], f"at most ray.num_cpus ({ray['num_cpus']}): each runner takes a CPU, and "
             "RLlib waits forever for one it cannot get", source)
    _require(_is_int(ray["num_envs_per_env_runner"], 1), "ray.num_envs_per_env_runner",
             ray["num_envs_per_env_runner"], "a whole number >= 1", source)
    t = c["training"]
    _require(_is_int(t["total_timesteps"], 1), "training.total_timesteps", t["total_timesteps"], "a number >= 1",
             source)
    limit = t["time_limit_minutes"]
    _require(limit is None or (_share(limit) and limit > 0), "training.time_limit_minutes", limit,
             "null or minutes > 0", source)
    _require(_is_int(t["checkpoint_every"], 1), "training.checkpoint_every", t["checkpoint_every"],
             "a whole number >= 1", source)
    _require(isinstance(t["progress_bar"], bool), "training.progress_bar", t["progress_bar"], "true or false", source)
    _require(_is_int(t["torch_threads"], 1), "training.torch_threads", t["torch_threads"], "a number >= 1", source)
    p = c["policy"]
    from agents.learned import check_hidden

    problem = check_hidden(p["net_arch"])  # checked now, not when the export fails after the run
    _require(problem is None, "policy.net_arch", p["net_arch"], f"{problem} (the limits of a saved model, "
             "agents.learned)", source)
    _require(p["activation"] in ("tanh", "relu"), "policy.activation", p["activation"], "tanh or relu", source)
    e = c["evaluation"]
    for key, minimum in (("every_steps", 1), ("deals", 1), ("final_deals", 0), ("seed", 0), ("workers", 1)):
        _require(_is_int(e[key], minimum), f"evaluation.{key}", e[key], f"a whole number >= {minimum}", source)
    baselines = e["baselines"]
    _require(isinstance(baselines, list) and baselines and all(isinstance(b, str) for b in baselines),
             "evaluation.baselines", baselines, "a non-empty list of agent names", source)
    _check_agent_names(baselines, "evaluation.baselines", source)
