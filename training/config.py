"""Training run configuration: one YAML file holds everything a run needs.

Sections (all optional except what has no default; see ``configs/train/``):

* ``name``, ``seed``, ``output`` (the run folder)
* ``env``: ``variant``, ``num_players``, ``rules`` (R-section options, or
  ``preset``), ``seat`` (``rotate``, ``random`` or a number), ``features``, ``end_when_out``
  (end the learner's episode once it is out for good: same returns, fewer simulated deals)
* ``opponents``: ``pool`` (agent names, ``model:<path>``, or ``{agent: greedy, quantile: 0.7}``
  for a built-in agent with arguments), ``weights`` (one per entry; default equal)
* ``selfplay``: ``enabled``, ``every_steps``, ``max_snapshots``, ``snapshot_share``
* ``training``: ``total_timesteps``, ``time_limit_minutes``, ``n_envs``,
  ``vec_env`` (``dummy``, ``subproc``, or ``batch``: all envs in one batched engine,
  :mod:`commerce_env.vector`, opponents random, greedy or models), ``checkpoint_every``, ``progress_bar``,
  ``torch_threads``, ``learning_rate_schedule`` (``constant``; or ``linear``: ``ppo.learning_rate``
  falls linearly to 0 over the budget that ends the run, the steps or the time limit, whichever is nearer),
  ``episode`` (``match``; or ``deal``: the learner's episode ends with each deal, :mod:`training.deal_episodes`)
* ``policy``: ``net_arch`` (hidden layer sizes), ``activation`` (``tanh``/``relu``), ``search`` (null; or
  ``{worlds, margin}``: the exported model plays with test-time search, recorded in model.json,
  :mod:`agents.learned`; training and its evaluations use the network alone)
* ``ppo``: keyword arguments of ``sb3_contrib.MaskablePPO`` (checked against its signature)
* ``evaluation``: ``every_steps``, ``deals``, ``baselines``, ``final_deals``, ``seed``, ``workers``
* ``pretrain``: ``teacher`` (null: none; an agent spec), ``decisions``, ``explore``, ``epochs``,
  ``batch_size``, ``learning_rate``, ``value_coef``, ``workers``, ``snapshot``, ``opponent_weight``: imitation of the
  teacher before PPO (:mod:`training.pretrain`), inside the time limit; ``anchor_batches`` (0: off),
  ``anchor_kind`` (null: every decision; or an action kind such as ``exchange``) and
  ``anchor_learning_rate``: imitation steps on the same demonstrations after every PPO update

An unknown key anywhere is a ``ValueError`` naming it (``ppo.lerning_rate``).
``backend: rllib`` makes it an RLlib run, configured and checked by :mod:`training.rllib_config`.
"""

from __future__ import annotations

import copy
import inspect
import math
from pathlib import Path
from typing import Any

from commerce_env.rules import make_rules

from .checks import merge_sections

DEFAULTS: dict[str, Any] = {
    "backend": "sb3",
    "name": "run",
    "seed": 0,
    "output": "runs/run",
    "env": {"variant": "trade_barter", "num_players": 4, "rules": {}, "seat": "rotate", "features": [],
            "end_when_out": False},
    "opponents": {"pool": ["random"], "weights": None},
    "selfplay": {"enabled": False, "every_steps": 50_000, "max_snapshots": 5, "snapshot_share": 0.5},
    "training": {"total_timesteps": 100_000, "time_limit_minutes": None, "n_envs": 2, "vec_env": "dummy",
                 "checkpoint_every": 10_000, "progress_bar": True, "torch_threads": 1,
                 "learning_rate_schedule": "constant", "episode": "match"},
    "policy": {"net_arch": [128, 128], "activation": "tanh", "search": None},
    "ppo": {"learning_rate": 3e-4, "n_steps": 1024, "batch_size": 256, "n_epochs": 5, "gamma": 1.0,
            "gae_lambda": 0.95, "ent_coef": 0.01, "clip_range": 0.2},
    "evaluation": {"every_steps": 50_000, "deals": 200, "baselines": ["random"], "final_deals": 1000,
                   "seed": 12345, "workers": 1},
    "pretrain": {"teacher": None, "decisions": 100_000, "explore": 0.0, "epochs": 10, "batch_size": 512,
                 "learning_rate": 1e-3, "value_coef": 0.5, "workers": 1, "snapshot": True,
                 "opponent_weight": 0.0, "anchor_batches": 0, "anchor_kind": None, "anchor_learning_rate": 1e-4},
}
BACKENDS = ("sb3", "rllib")
LR_SCHEDULES = ("constant", "linear")  # linear: to 0 over the run's budget (training.callbacks)
VEC_ENVS = ("dummy", "subproc", "batch")  # batch: commerce_env.vector (extra `vector`)
SECTIONS = tuple(k for k, v in DEFAULTS.items() if isinstance(v, dict))
# MaskablePPO arguments the run sets itself (from other sections), never from `ppo`.
PPO_RESERVED = ("policy", "env", "seed", "tensorboard_log", "policy_kwargs", "verbose", "device", "_init_setup_model")


def _ppo_arguments() -> set[str]:
    from sb3_contrib import MaskablePPO

    return set(inspect.signature(MaskablePPO.__init__).parameters) - {"self", *PPO_RESERVED}


def _allowed(section: str) -> set[str]:
    """The keys a section may hold."""
    return _ppo_arguments() if section == "ppo" else set(DEFAULTS[section])


# Limits beyond which a value is a typo, not a plan.
MAX_SEED = 2**31 - 1  # seeds are offset per env and per deal; numpy takes at most 2**32 - 1
MAX_STEPS = 10**10
MAX_MINUTES = 7 * 24 * 60
MAX_ENVS = 128
MAX_THREADS = 256
MAX_DEALS = 10**7
MAX_ROLLOUT = 2**20  # ppo.n_steps (per env)
MAX_EPOCHS = 1000
ANCHOR_KINDS = ("knock", "stand", "pass", "decline", "offer", "give", "exchange")  # pretrain.anchor_kind
MAX_SNAPSHOTS = 1000


class _Checker:
    """Checks one config's values; every failure is a ``ValueError`` naming the file and the key."""

    def __init__(self, source: str):
        self.source = source

    def fail(self, key: str, value: Any, expected: str) -> None:
        hint = ""
        if isinstance(value, str) and _looks_numeric(value):
            hint = " (YAML reads a number like 1e-3 as text: write 1.0e-3)"
        raise ValueError(f"{self.source}: bad value {value!r} for {key!r}; expected {expected}{hint}")

    def require(self, ok: bool, key: str, value: Any, expected: str) -> None:
        if not ok:
            self.fail(key, value, expected)

    def integer(self, key: str, value: Any, low: int, high: int) -> None:
        self.require(_is_int(value) and low <= value <= high, key, value, f"a whole number from {low} to {high:,}")

    def number(self, key: str, value: Any, low: float, high: float, low_open: bool = False,
               optional: bool = False) -> None:
        if optional and value is None:
            return
        ok = _is_number(value) and (value > low if low_open else value >= low) and value <= high
        bound = f"> {low:g}" if low_open else f">= {low:g}"
        self.require(ok, key, value, ("null or " if optional else "") + f"a number {bound} and <= {high:g}")

    def boolean(self, key: str, value: Any) -> None:
        self.require(isinstance(value, bool), key, value, "true or false")


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


# Options that were removed; a run folder's config.yaml written before still names them, with the
# value that is now the only behaviour.  Any other value is refused by name.
RETIRED = {("training", "shaping"): None, ("policy", "critic"): "observation", ("env", "exchange"): "any"}


def without_retired(data: Any, source: str) -> Any:
    """``data`` without the retired keys that hold their neutral value (:data:`RETIRED`)."""
    if not isinstance(data, dict):
        return data
    data = dict(data)
    for (section, key), neutral in RETIRED.items():
        values = data.get(section)
        if isinstance(values, dict) and key in values:
            if values[key] != neutral:
                raise ValueError(f"{source}: bad value {values[key]!r} for '{section}.{key}'; the option was "
                                 f"removed (only {neutral!r}, today's behaviour, is read)")
            data[section] = {k: v for k, v in values.items() if k != key}
    return data


def validate(data: Any, source: str = "config") -> dict[str, Any]:
    """The full config: ``data`` over :data:`DEFAULTS`, every key and value checked."""
    if isinstance(data, dict) and data.get("backend") == "rllib":
        from .rllib_config import validate as validate_rllib

        return validate_rllib(data, source)
    config = merge_sections(without_retired(data, source), DEFAULTS, source, _allowed, "MaskablePPO arguments")
    _check_values(config, _Checker(source))
    return config


def _check_values(c: dict[str, Any], check: _Checker) -> None:
    source = check.source
    check.require(c["backend"] in BACKENDS, "backend", c["backend"], " or ".join(BACKENDS))
    check.require(isinstance(c["name"], str) and c["name"].strip() != "", "name", c["name"], "a non-empty string")
    check.integer("seed", c["seed"], 0, MAX_SEED)
    check.require(isinstance(c["output"], str) and c["output"].strip() != "", "output", c["output"], "a folder path")
    env = c["env"]
    check.require(isinstance(env["rules"], dict), "env.rules", env["rules"], "a mapping of rule options")
    check.require(isinstance(env["variant"], str), "env.variant", env["variant"], "a variant name")
    check.require(_is_int(env["num_players"]), "env.num_players", env["num_players"], "a whole number of players")
    try:
        rules = make_rules(env["variant"], **env["rules"])
        rules.check_players(env["num_players"])
    except (TypeError, ValueError) as error:
        raise ValueError(f"{source}: env: {error}") from None
    features = env["features"]
    from commerce_env.features import FEATURES

    check.require(isinstance(features, list) and all(isinstance(f, str) and f in FEATURES for f in features),
                  "env.features", features, f"a list of feature names from: {', '.join(FEATURES)}")
    check.require(isinstance(env["end_when_out"], bool), "env.end_when_out", env["end_when_out"], "true or false")
    seat = env["seat"]
    check.require(seat in ("rotate", "random") or (_is_int(seat) and 0 <= seat < env["num_players"]), "env.seat",
                  seat, f"rotate, random or a seat number from 0 to {env['num_players'] - 1}")
    pool = c["opponents"]["pool"]
    check.require(isinstance(pool, list) and pool != [] and all(isinstance(p, (str, dict)) for p in pool),
                  "opponents.pool", pool, "a non-empty list of agent names, model:<path> or {agent: name, ...}")
    _check_agents(pool, "opponents.pool", rules, env["num_players"], check)
    if c["training"]["vec_env"] == "batch":
        _check_batched_opponents(pool, rules, env["num_players"], check)
    weights = c["opponents"]["weights"]
    check.require(weights is None or (isinstance(weights, list) and len(weights) == len(pool)
                                      and all(_is_number(w) and w >= 0 for w in weights) and sum(weights) > 0),
                  "opponents.weights", weights, "null or one non-negative weight per pool entry, not all zero")
    sp = c["selfplay"]
    check.boolean("selfplay.enabled", sp["enabled"])
    check.integer("selfplay.every_steps", sp["every_steps"], 1, MAX_STEPS)
    check.integer("selfplay.max_snapshots", sp["max_snapshots"], 1, MAX_SNAPSHOTS)
    check.number("selfplay.snapshot_share", sp["snapshot_share"], 0, 1)
    t = c["training"]
    check.integer("training.total_timesteps", t["total_timesteps"], 1, MAX_STEPS)
    check.number("training.time_limit_minutes", t["time_limit_minutes"], 0, MAX_MINUTES, low_open=True,
                 optional=True)
    check.integer("training.n_envs", t["n_envs"], 1, MAX_ENVS)
    check.require(t["vec_env"] in VEC_ENVS, "training.vec_env", t["vec_env"], "dummy, subproc or batch")
    check.integer("training.checkpoint_every", t["checkpoint_every"], 1, MAX_STEPS)
    check.boolean("training.progress_bar", t["progress_bar"])
    check.integer("training.torch_threads", t["torch_threads"], 1, MAX_THREADS)
    check.require(t["learning_rate_schedule"] in LR_SCHEDULES, "training.learning_rate_schedule",
                  t["learning_rate_schedule"], " or ".join(LR_SCHEDULES))
    from .deal_episodes import EPISODES

    check.require(t["episode"] in EPISODES, "training.episode", t["episode"], " or ".join(EPISODES))
    if t["episode"] == "deal":
        from commerce_env.engine import ENGINES

        pool_paid_at_end = ENGINES[env["variant"]].plays_for_money and rules.has_lives
        check.require(not pool_paid_at_end, "training.episode", t["episode"],
                      "match in pool commerce, where most of the money is paid at the match's end (R9.5)")
    p = c["policy"]
    from agents.learned import check_hidden

    problem = check_hidden(p["net_arch"])
    check.require(problem is None, "policy.net_arch", p["net_arch"],
                  f"{problem} (the limits of a saved model, agents.learned)")
    check.require(p["activation"] in ("tanh", "relu"), "policy.activation", p["activation"], "tanh or relu")
    if p["search"] is not None:
        from agents.model_files import check_search

        problem = check_search(p["search"])
        check.require(problem is None, "policy.search", p["search"],
                      f"null or a mapping {{worlds, margin}} for the model's test-time search: {problem}")
    _check_ppo(c["ppo"], check)
    e = c["evaluation"]
    check.integer("evaluation.every_steps", e["every_steps"], 1, MAX_STEPS)
    check.integer("evaluation.deals", e["deals"], 1, MAX_DEALS)
    check.integer("evaluation.final_deals", e["final_deals"], 0, MAX_DEALS)
    check.integer("evaluation.seed", e["seed"], 0, MAX_SEED)
    check.integer("evaluation.workers", e["workers"], 1, MAX_THREADS)
    baselines = e["baselines"]
    check.require(isinstance(baselines, list) and baselines != [] and all(isinstance(b, str) for b in baselines),
                  "evaluation.baselines", baselines, "a non-empty list of agent names")
    _check_agents(baselines, "evaluation.baselines", rules, env["num_players"], check)
    _check_pretrain(c["pretrain"], rules, env["num_players"], check)


def _check_pretrain(p: dict[str, Any], rules: Any, num_players: int, check: _Checker) -> None:
    if p["teacher"] is not None:
        check.require(isinstance(p["teacher"], (str, dict)), "pretrain.teacher", p["teacher"],
                      "null, an agent name, model:<path> or {agent: name, ...}")
        _check_agents([p["teacher"]], "pretrain.teacher", rules, num_players, check)
    check.integer("pretrain.decisions", p["decisions"], 1, MAX_STEPS)
    check.number("pretrain.explore", p["explore"], 0, 1)
    check.integer("pretrain.epochs", p["epochs"], 1, MAX_EPOCHS)
    check.integer("pretrain.batch_size", p["batch_size"], 1, MAX_ROLLOUT)
    check.number("pretrain.learning_rate", p["learning_rate"], 0, 1, low_open=True)
    check.number("pretrain.value_coef", p["value_coef"], 0, 10)
    check.integer("pretrain.workers", p["workers"], 1, MAX_THREADS)
    check.boolean("pretrain.snapshot", p["snapshot"])
    check.number("pretrain.opponent_weight", p["opponent_weight"], 0, 1e6)
    check.integer("pretrain.anchor_batches", p["anchor_batches"], 0, MAX_EPOCHS)
    check.require(p["anchor_kind"] is None or p["anchor_kind"] in ANCHOR_KINDS, "pretrain.anchor_kind",
                  p["anchor_kind"], f"null or one of {', '.join(ANCHOR_KINDS)}")
    check.number("pretrain.anchor_learning_rate", p["anchor_learning_rate"], 0, 1, low_open=True)
    check.require(p["anchor_batches"] == 0 or p["teacher"] is not None, "pretrain.anchor_batches",
                  p["anchor_batches"], "0 without a pretrain.teacher (the anchor uses its demonstrations)")


def _check_ppo(ppo: dict[str, Any], check: _Checker) -> None:
    """The MaskablePPO arguments a config may set, each with its range (others are refused by name)."""
    numbers = {"learning_rate": (0, 1, True), "gamma": (0, 1, False), "gae_lambda": (0, 1, False),
               "clip_range": (0, 10, True), "ent_coef": (0, 10, False), "vf_coef": (0, 10, False),
               "max_grad_norm": (0, 1e6, True)}
    optional = {"clip_range_vf": (0, 10, True), "target_kl": (0, 10, True)}
    for key, value in ppo.items():
        name = f"ppo.{key}"
        if key in numbers:
            check.number(name, value, *numbers[key])
        elif key in optional:
            check.number(name, value, *optional[key], optional=True)
        elif key == "n_steps":
            check.integer(name, value, 2, MAX_ROLLOUT)
        elif key == "batch_size":
            check.integer(name, value, 2, MAX_ROLLOUT * MAX_ENVS)
        elif key in ("n_epochs", "stats_window_size"):
            check.integer(name, value, 1, MAX_EPOCHS if key == "n_epochs" else 10**6)
        elif key == "normalize_advantage":
            check.boolean(name, value)
        else:
            check.fail(name, value, "not to be set from a config (the run chooses it)")


def _check_batched_opponents(entries: list, rules: Any, num_players: int, check: _Checker) -> None:
    """With ``vec_env: batch`` every opponent must have a batched form (random, greedy, a network):
    refused here, naming it, rather than when the env is built, after the run folder is made."""
    try:
        from agents.batched import batched_agent
    except ImportError:  # the extra `vector` (numba) is absent: the env's build says so
        return
    for i, entry in enumerate(entries):
        try:
            batched_agent(entry, rules, num_players)
        except ValueError as error:
            raise ValueError(f"{check.source}: opponents.pool[{i}]: {error}") from None


def _check_agents(entries: list, key: str, rules: Any, num_players: int, check: _Checker) -> None:
    """Each entry builds the agent it names, as the env will build it: names, arguments and model files."""
    from agents.specs import check_spec, make_agent  # the one parser of agent specs

    for i, entry in enumerate(entries):
        where = f"{key}[{i}]"
        name = entry.get("agent") if isinstance(entry, dict) else entry
        try:
            check_spec(entry)
        except ValueError as error:
            raise ValueError(f"{check.source}: {where}: {error}") from None
        try:
            make_agent(entry, variant=rules.variant, num_players=num_players)
        except Exception as error:  # an agent's own check of its arguments, whatever its type
            raise ValueError(f"{check.source}: {where} ({name}): {error}") from None


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
