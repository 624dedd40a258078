"""Training run configuration: one YAML file holds everything a run needs (``configs/train/``).

Each section is a dataclass below, a field per key with its default and what it does;
:func:`load_config` reads the YAML into a :class:`TrainConfig`, checking every value before
anything runs, and an error names the key and the bad value (``ppo.lerning_rate``).
``backend: rllib`` makes it an RLlib run (:class:`training.rllib_config.RLlibConfig`).
"""

from __future__ import annotations

import copy
import os
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from commerce_env.rules import Rules

from .checks import (
    Section,
    check_agents,
    fail,
    flag,
    is_number,
    is_whole,
    model_folder_or_null,
    number,
    one_of,
    option,
    parse,
    section,
    whole,
)
from .expert_config import ExpertIterationSection, check_expert_iteration, check_warm_start
from .sections import (
    MAX_ENVS,
    MAX_EPOCHS,
    MAX_ROLLOUT,
    MAX_STEPS,
    MAX_THREADS,
    BudgetSection,  # noqa: F401 - the limits, re-exported
    EvaluationSection,
    GameSection,
    NetworkSection,
    RunSection,
    SnapshotSection,
    check_rules,
)

VEC_ENVS = ("dummy", "subproc", "batch")  # batch: commerce_env.vector (extra `vector`)
LR_SCHEDULES = ("constant", "linear")  # linear: to 0 over the run's budget (training.callbacks)
EPISODES = ("match", "deal")  # deal: training.deal_episodes
ANCHOR_KINDS = ("knock", "stand", "pass", "decline", "offer", "give", "exchange")  # pretrain.anchor_kind


def _agents(value: Any) -> str | None:
    ok = isinstance(value, list) and value != [] and all(isinstance(p, (str, dict)) for p in value)
    return None if ok else "a non-empty list of agent names, model:<path> or {agent: name, ...}"


def _search(value: Any) -> str | None:
    from agents.model_files import check_search

    problem = None if value is None else check_search(value)
    return None if problem is None else f"null or a mapping {{worlds, margin}} for the model's test-time search: " \
        f"{problem}"


def _teacher(value: Any) -> str | None:
    return None if value is None or isinstance(value, (str, dict)) else \
        "null, an agent name, model:<path> or {agent: name, ...}"


@dataclass(eq=False)
class EnvSection(GameSection):
    """The learner's game: the single-agent env (:mod:`commerce_env.single_agent`)."""

    seat: int | str = "rotate"
    """the learner's seat: ``rotate`` (the next one every episode), ``random``, or a seat number"""
    end_when_out: bool = option(False, flag)
    """end the learner's episode once it is out for good: the same returns, fewer simulated deals"""


@dataclass(eq=False)
class OpponentsSection(Section):
    """Who plays the other seats, drawn per seat and per episode."""

    pool: list[Any] = option(["random"], _agents)
    """agent names, ``model:<path>``, or ``{agent: greedy, quantile: 0.7}`` for an agent with arguments"""
    weights: list[float] | None = None
    """one weight per pool entry (null: equal)"""


@dataclass(eq=False)
class SelfPlaySection(SnapshotSection):
    """A league: snapshots of the learner join its opponents."""

    snapshot_share: float = option(0.5, number(0, 1))
    """the share of opponent seats that snapshots play, once there are any"""


@dataclass(eq=False)
class TrainingSection(BudgetSection):
    """How long and on what the learner trains."""

    n_envs: int = option(2, whole(1, MAX_ENVS))
    """envs stepped together"""
    vec_env: str = option("dummy", one_of(*VEC_ENVS))
    """``dummy`` (one process), ``subproc`` (a process each) or ``batch``: every env in one batched engine
    (:mod:`commerce_env.vector`; opponents random, greedy or models)"""
    learning_rate_schedule: str = option("constant", one_of(*LR_SCHEDULES))
    """``constant``, or ``linear``: ``ppo.learning_rate`` falls to 0 over the nearer of the two budgets"""
    episode: str = option("match", one_of(*EPISODES))
    """``match``, or ``deal``: the learner's episode ends with each deal (:mod:`training.deal_episodes`)"""


@dataclass(eq=False)
class PolicySection(NetworkSection):
    """The network, and how the exported model plays."""

    search: dict[str, Any] | None = option(None, _search)
    """null, or ``{worlds, margin}``: the exported model plays with test-time search (:mod:`agents.learned`);
    training and its evaluations use the network alone"""
    warm_start: str | None = option(None, model_folder_or_null)
    """null, or a safe model folder whose network (of this shape and features) a new run's policy starts
    from; its value head starts fresh (``pretrain`` with the model as teacher fits it)"""


@dataclass(eq=False)
class PPOSection(Section):
    """Keyword arguments of ``sb3_contrib.MaskablePPO``; the others the run sets itself."""

    learning_rate: float = option(3e-4, number(0, 1, low_open=True))
    """Adam's step size"""
    n_steps: int = option(1024, whole(2, MAX_ROLLOUT))
    """steps per env in each rollout"""
    batch_size: int = option(256, whole(2, MAX_ROLLOUT * MAX_ENVS))
    """the minibatch size"""
    n_epochs: int = option(5, whole(1, MAX_EPOCHS))
    """passes over each rollout"""
    gamma: float = option(1.0, number(0, 1))
    """the discount (1: a match's counters count the same at any step)"""
    gae_lambda: float = option(0.95, number(0, 1))
    """the advantage estimator's bias-variance trade-off"""
    clip_range: float = option(0.2, number(0, 10, low_open=True))
    """how far one update may move the policy"""
    clip_range_vf: float | None = option(None, number(0, 10, low_open=True, optional=True))
    """the value function's clip (null: none)"""
    normalize_advantage: bool = option(True, flag)
    """advantages scaled per minibatch"""
    ent_coef: float = option(0.01, number(0, 10))
    """the entropy bonus: exploration"""
    vf_coef: float = option(0.5, number(0, 10))
    """the value loss's weight"""
    max_grad_norm: float = option(0.5, number(0, 1e6, low_open=True))
    """gradients clipped to this norm"""
    target_kl: float | None = option(None, number(0, 10, low_open=True, optional=True))
    """stop an update's epochs past this divergence (null: never)"""
    stats_window_size: int = option(100, whole(1, 10**6))
    """episodes averaged in the logged rollout statistics"""


@dataclass(eq=False)
class PretrainSection(Section):
    """Imitation of a teacher before PPO (:mod:`training.pretrain`), inside the time limit."""

    teacher: Any = option(None, _teacher)
    """null (no imitation), or the agent to imitate (a name, ``model:<path>`` or ``{agent: ...}``)"""
    decisions: int = option(100_000, whole(1, MAX_STEPS))
    """the teacher's decisions collected"""
    explore: float = option(0.0, number(0, 1))
    """the chance that a seat plays a random legal move instead (the label stays the teacher's)"""
    epochs: int = option(10, whole(1, MAX_EPOCHS))
    """passes over the decisions"""
    batch_size: int = option(512, whole(1, MAX_ROLLOUT))
    """the minibatch size, of imitation and of the anchor"""
    learning_rate: float = option(1e-3, number(0, 1, low_open=True))
    """imitation's step size"""
    value_coef: float = option(0.5, number(0, 10))
    """the weight of the value head's loss on the teacher's returns"""
    workers: int = option(1, whole(1, MAX_THREADS))
    """processes collecting decisions"""
    snapshot: bool = option(True, flag)
    """the clone is the league's first snapshot (with ``selfplay.enabled``)"""
    opponent_weight: float = option(0.0, number(0, 1e6))
    """the clone's weight in the opponent pool for the whole run (0: not in it)"""
    anchor_batches: int = option(0, whole(0, MAX_EPOCHS))
    """minibatches of imitation after every PPO update (0: no anchor)"""
    anchor_kind: str | None = option(None, one_of(None, *ANCHOR_KINDS))
    """null (every decision), or the action kind whose choice the anchor keeps (``exchange``)"""
    anchor_learning_rate: float = option(1e-4, number(0, 1, low_open=True))
    """the anchor's step size"""


@dataclass(eq=False)
class TrainConfig(RunSection):
    """A MaskablePPO run (``backend: sb3``): what a YAML file of ``configs/train/`` holds."""

    backend: str = option("sb3", one_of("sb3", "rllib"))
    """``sb3``; ``rllib`` is read as :class:`training.rllib_config.RLlibConfig`"""
    env: EnvSection = section(EnvSection)
    opponents: OpponentsSection = section(OpponentsSection)
    selfplay: SelfPlaySection = section(SelfPlaySection)
    training: TrainingSection = section(TrainingSection)
    policy: PolicySection = section(PolicySection)
    ppo: PPOSection = section(PPOSection)
    evaluation: EvaluationSection = section(EvaluationSection)
    pretrain: PretrainSection = section(PretrainSection)
    expert_iteration: ExpertIterationSection = section(ExpertIterationSection)


# Options that were removed; a run folder's config.yaml written before still names them, with the
# value that is now the only behaviour.  Any other value is refused by name.
RETIRED = {("training", "shaping"): None, ("policy", "critic"): "observation", ("env", "exchange"): "any"}


def without_retired(data: Any, source: str) -> Any:
    """``data`` without the retired keys that hold their neutral value (:data:`RETIRED`)."""
    if not isinstance(data, Mapping):
        return data
    data = dict(data)
    for (name, key), neutral in RETIRED.items():
        values = data.get(name)
        if isinstance(values, Mapping) and key in values:
            if values[key] != neutral:
                raise ValueError(f"{source}: bad value {values[key]!r} for '{name}.{key}'; the option was "
                                 f"removed (only {neutral!r}, today's behaviour, is read)")
            data[name] = {k: v for k, v in values.items() if k != key}
    return data


def validate(data: Any, source: str = "config", allow_modules: Collection[str] = ()) -> Any:
    """The typed config of ``data`` (a :class:`TrainConfig`, or an RLlib run's config), every value checked.
    ``allow_modules``: the Python modules whose agents (``my_agents:MyAgent``) the config may name, as
    the command line allows them (``--allow-module``); a config alone imports none."""
    data = copy.deepcopy(data)  # the config shares no list or mapping with the caller's data
    if isinstance(data, Mapping) and data.get("backend") == "rllib":
        if allow_modules:
            raise ValueError(f"{source}: --allow-module is for MaskablePPO runs; an RLlib run's agents are "
                             "built-ins and models")
        from .rllib_config import validate as validate_rllib

        return validate_rllib(data, source)
    config = parse(TrainConfig, without_retired(data, source), source)
    allow_agents(config, allow_modules, source)
    check_relations(config, source)
    return config


def allow_agents(c: TrainConfig, modules: Collection[str], source: str) -> None:
    """Each ``module:attribute`` of the pool, the baselines and the teacher made a spec that may import
    its module when ``modules`` allows it (:func:`agents.module_agents.allow_modules`), else refused.
    The module is imported from the current folder (or ``PYTHONPATH``) by the process that builds it."""
    from agents.module_agents import allow_modules

    def allow(entry: Any, key: str) -> Any:
        try:
            return allow_modules(entry, modules, os.getcwd())
        except ValueError as error:
            raise ValueError(f"{source}: {key}: {error}") from None

    c.opponents.pool = [allow(e, f"opponents.pool[{i}]") for i, e in enumerate(c.opponents.pool)]
    c.evaluation.baselines = [allow(e, f"evaluation.baselines[{i}]") for i, e in enumerate(c.evaluation.baselines)]
    c.pretrain.teacher = allow(c.pretrain.teacher, "pretrain.teacher")


def check_relations(c: TrainConfig, source: str) -> None:
    """What one key's own check cannot see: values against each other, and agents built as the run will."""
    rules = check_rules(c.env, source)
    n, seat = c.env.num_players, c.env.seat
    if not (seat in ("rotate", "random") or (is_whole(seat) and 0 <= seat < n)):
        fail(source, "env.seat", seat, f"rotate, random or a seat number from 0 to {n - 1}")
    pool, weights = c.opponents.pool, c.opponents.weights
    check_agents(pool, "opponents.pool", rules, n, source)
    if c.training.vec_env == "batch":
        _check_batched_opponents(pool, rules, n, source)
    if not (weights is None or (isinstance(weights, list) and len(weights) == len(pool)
                                and all(is_number(w) and w >= 0 for w in weights) and sum(weights) > 0)):
        fail(source, "opponents.weights", weights, "null or one non-negative weight per pool entry, not all zero")
    if c.training.episode == "deal":
        from commerce_env.engine import ENGINES

        if ENGINES[c.env.variant].plays_for_money and rules.has_lives:
            fail(source, "training.episode", "deal",
                 "match in pool commerce, where most of the money is paid at the match's end (R9.5)")
    check_agents(c.evaluation.baselines, "evaluation.baselines", rules, n, source)
    p = c.pretrain
    if p.teacher is not None:
        check_agents([p.teacher], "pretrain.teacher", rules, n, source)
    if p.anchor_batches != 0 and p.teacher is None:
        fail(source, "pretrain.anchor_batches", p.anchor_batches,
             "0 without a pretrain.teacher (the anchor uses its demonstrations)")
    if c.policy.warm_start is not None:
        check_warm_start(c.policy.warm_start, c, "policy.warm_start", source)
    check_expert_iteration(c, source)


def _check_batched_opponents(entries: list, rules: Rules, num_players: int, source: str) -> None:
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
            raise ValueError(f"{source}: opponents.pool[{i}]: {error}") from None



def load_config(path: str | Path, overrides: dict[str, Any] | None = None,
                allow_modules: Collection[str] = ()) -> Any:
    """A checked training config from a YAML file (``overrides`` as nested dicts on top; ``allow_modules``:
    as :func:`validate`)."""
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
    return validate(data, str(path), allow_modules)


def merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    """``top`` over ``base``, section by section."""
    out = copy.deepcopy(base)
    for key, value in top.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = {**out[key], **value}
        else:
            out[key] = value
    return out
