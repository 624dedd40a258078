"""Training run configuration: one YAML file holds everything a run needs.

Sections (all optional except what has no default; see ``configs/train/``):

* ``name``, ``seed``, ``output`` (the run folder)
* ``env``: ``variant``, ``num_players``, ``rules`` (R-section options, or
  ``preset``), ``seat`` (``rotate``, ``random`` or a number)
* ``opponents``: ``pool`` (agent names, ``model:<path>``, or ``{agent: greedy, quantile: 0.7}``
  for a built-in agent with arguments), ``weights`` (one per entry; default equal)
* ``selfplay``: ``enabled``, ``every_steps``, ``max_snapshots``, ``snapshot_share``
* ``training``: ``total_timesteps``, ``time_limit_minutes``, ``n_envs``,
  ``vec_env`` (``dummy`` or ``subproc``), ``checkpoint_every``, ``progress_bar``,
  ``torch_threads``
* ``policy``: ``net_arch`` (hidden layer sizes), ``activation`` (``tanh``/``relu``)
* ``ppo``: keyword arguments of ``sb3_contrib.MaskablePPO`` (checked against its signature)
* ``evaluation``: ``every_steps``, ``deals``, ``baselines``, ``final_deals``, ``seed``, ``workers``

An unknown key anywhere is a ``ValueError`` naming it (``ppo.lerning_rate``).
"""

from __future__ import annotations

import copy
import inspect
from pathlib import Path
from typing import Any

from commerce_env.rules import make_rules

DEFAULTS: dict[str, Any] = {
    "name": "run",
    "seed": 0,
    "output": "runs/run",
    "env": {"variant": "trade_barter", "num_players": 4, "rules": {}, "seat": "rotate", "features": []},
    "opponents": {"pool": ["random"], "weights": None},
    "selfplay": {"enabled": False, "every_steps": 50_000, "max_snapshots": 5, "snapshot_share": 0.5},
    "training": {"total_timesteps": 100_000, "time_limit_minutes": None, "n_envs": 2, "vec_env": "dummy",
                 "checkpoint_every": 10_000, "progress_bar": True, "torch_threads": 1},
    "policy": {"net_arch": [128, 128], "activation": "tanh"},
    "ppo": {"learning_rate": 3e-4, "n_steps": 1024, "batch_size": 256, "n_epochs": 5, "gamma": 1.0,
            "gae_lambda": 0.95, "ent_coef": 0.01, "clip_range": 0.2},
    "evaluation": {"every_steps": 50_000, "deals": 200, "baselines": ["random"], "final_deals": 1000,
                   "seed": 12345, "workers": 1},
}
SECTIONS = tuple(k for k, v in DEFAULTS.items() if isinstance(v, dict))
# MaskablePPO arguments the run sets itself (from other sections), never from `ppo`.
PPO_RESERVED = ("policy", "env", "seed", "tensorboard_log", "policy_kwargs", "verbose", "device", "_init_setup_model")


def _ppo_arguments() -> set[str]:
    from sb3_contrib import MaskablePPO

    return set(inspect.signature(MaskablePPO.__init__).parameters) - {"self", *PPO_RESERVED}


def _require(ok: bool, key: str, value: Any, expected: str, source: str) -> None:
    if not ok:
        raise ValueError(f"{source}: bad value {value!r} for {key!r}; expected {expected}")


def _is_int(value: Any, minimum: int = 0) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum


def validate(data: Any, source: str = "config") -> dict[str, Any]:
    """The full config: ``data`` over :data:`DEFAULTS`, every key and value checked."""
    if not isinstance(data, dict):
        raise ValueError(f"{source}: a training config must be a mapping of sections, got {type(data).__name__}")
    config = copy.deepcopy(DEFAULTS)
    for key, value in data.items():
        if key not in DEFAULTS:
            raise ValueError(f"{source}: unknown key {key!r}; keys are {', '.join(DEFAULTS)}")
        if key in SECTIONS:
            if value is None:
                continue
            if not isinstance(value, dict):
                raise ValueError(f"{source}: section {key!r} must be a mapping, got {value!r}")
            allowed = _ppo_arguments() if key == "ppo" else set(DEFAULTS[key])
            for sub in value:
                if sub not in allowed:
                    hint = "MaskablePPO arguments" if key == "ppo" else ", ".join(DEFAULTS[key])
                    raise ValueError(f"{source}: unknown key '{key}.{sub}'; allowed: {hint}")
            config[key].update(value)
        else:
            config[key] = value
    _check_values(config, source)
    return config


def _check_values(c: dict[str, Any], source: str) -> None:
    _require(isinstance(c["name"], str) and c["name"], "name", c["name"], "a non-empty string", source)
    _require(_is_int(c["seed"]), "seed", c["seed"], "a whole number >= 0", source)
    _require(isinstance(c["output"], str) and c["output"], "output", c["output"], "a folder path", source)
    env = c["env"]
    _require(isinstance(env["rules"], dict), "env.rules", env["rules"], "a mapping of rule options", source)
    try:
        rules = make_rules(env["variant"], **env["rules"])
        rules.check_players(env["num_players"])
    except (TypeError, ValueError) as error:
        raise ValueError(f"{source}: env: {error}") from None
    features = env["features"]
    from commerce_env.single_agent import FEATURES

    _require(isinstance(features, list) and all(f in FEATURES for f in features), "env.features", features,
             f"a list of feature names from: {', '.join(FEATURES)}", source)
    seat = env["seat"]
    _require(seat in ("rotate", "random") or (_is_int(seat) and seat < env["num_players"]), "env.seat", seat,
             "rotate, random or a seat number", source)
    pool = c["opponents"]["pool"]
    _require(isinstance(pool, list) and pool and all(isinstance(p, (str, dict)) for p in pool), "opponents.pool",
             pool, "a non-empty list of agent names, model:<path> or {agent: name, ...arguments}", source)
    _check_agent_names(pool, "opponents.pool", source)
    weights = c["opponents"]["weights"]
    _require(weights is None or (isinstance(weights, list) and len(weights) == len(pool)
                                 and all(isinstance(w, (int, float)) and w >= 0 for w in weights)
                                 and sum(weights) > 0),
             "opponents.weights", weights, "null or one non-negative weight per pool entry", source)
    sp = c["selfplay"]
    _require(isinstance(sp["enabled"], bool), "selfplay.enabled", sp["enabled"], "true or false", source)
    _require(_is_int(sp["every_steps"], 1), "selfplay.every_steps", sp["every_steps"], "a whole number >= 1", source)
    _require(_is_int(sp["max_snapshots"], 1), "selfplay.max_snapshots", sp["max_snapshots"], "a number >= 1", source)
    share = sp["snapshot_share"]
    _require(isinstance(share, (int, float)) and 0 <= share <= 1, "selfplay.snapshot_share", share,
             "a fraction from 0 to 1", source)
    t = c["training"]
    _require(_is_int(t["total_timesteps"], 1), "training.total_timesteps", t["total_timesteps"], "a number >= 1",
             source)
    limit = t["time_limit_minutes"]
    _require(limit is None or (isinstance(limit, (int, float)) and limit > 0), "training.time_limit_minutes",
             limit, "null or minutes > 0", source)
    _require(_is_int(t["n_envs"], 1), "training.n_envs", t["n_envs"], "a whole number >= 1", source)
    _require(t["vec_env"] in ("dummy", "subproc"), "training.vec_env", t["vec_env"], "dummy or subproc", source)
    _require(_is_int(t["checkpoint_every"], 1), "training.checkpoint_every", t["checkpoint_every"],
             "a whole number >= 1", source)
    _require(isinstance(t["progress_bar"], bool), "training.progress_bar", t["progress_bar"], "true or false", source)
    _require(_is_int(t["torch_threads"], 1), "training.torch_threads", t["torch_threads"], "a number >= 1", source)
    p = c["policy"]
    _require(isinstance(p["net_arch"], list) and p["net_arch"] and all(_is_int(h, 1) for h in p["net_arch"]),
             "policy.net_arch", p["net_arch"], "a list of hidden layer sizes", source)
    _require(p["activation"] in ("tanh", "relu"), "policy.activation", p["activation"], "tanh or relu", source)
    e = c["evaluation"]
    _require(_is_int(e["every_steps"], 1), "evaluation.every_steps", e["every_steps"], "a whole number >= 1", source)
    _require(_is_int(e["deals"], 1), "evaluation.deals", e["deals"], "a whole number >= 1", source)
    _require(_is_int(e["final_deals"], 0), "evaluation.final_deals", e["final_deals"], "a whole number >= 0", source)
    _require(_is_int(e["seed"]), "evaluation.seed", e["seed"], "a whole number >= 0", source)
    _require(_is_int(e["workers"], 1), "evaluation.workers", e["workers"], "a whole number >= 1", source)
    baselines = e["baselines"]
    _require(isinstance(baselines, list) and baselines and all(isinstance(b, str) for b in baselines),
             "evaluation.baselines", baselines, "a non-empty list of agent names", source)
    _check_agent_names(baselines, "evaluation.baselines", source)


def _check_agent_names(names: list, key: str, source: str) -> None:
    from agents.specs import check_spec  # the one parser of agent specs

    for entry in names:
        try:
            check_spec(entry)
        except ValueError as error:
            raise ValueError(f"{source}: {key}: {error}") from None


def load_config(path: str | Path, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """A validated training config from a YAML file (``overrides`` as nested dicts on top)."""
    import yaml

    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as error:
        raise ValueError(f"{path}: cannot read training config ({error})") from None
    except yaml.YAMLError as error:
        raise ValueError(f"{path}: not valid YAML ({error})") from None
    data = {} if data is None else data
    if overrides:
        if not isinstance(data, dict):
            raise ValueError(f"{path}: a training config must be a mapping of sections")
        data = merge(data, overrides)
    return validate(data, str(path))


def merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    """``top`` over ``base``, section by section."""
    out = copy.deepcopy(base)
    for key, value in top.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = {**out[key], **value}
        else:
            out[key] = value
    return out
