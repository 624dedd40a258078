"""The ``expert_iteration`` section of a training config (:mod:`training.expert_iteration`).

Expert iteration makes ``search`` the teacher and the network its prior, round after round:
each round's teacher is the search around the last round's network, so the target moves
past what imitation of a fixed teacher reaches (docs/training.md, "Expert iteration").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .checks import Section, check_agents, fail, model_folder_or_null, number, one_of, option, whole
from .sections import MAX_DEALS, MAX_EPOCHS, MAX_ROLLOUT, MAX_SEED, MAX_STEPS

MAX_ROUNDS = 1000
MAX_WORLDS = 10_000  # agents.search.MAX_WORLDS
MAX_GAMES = 1024  # readable games played at once during collection
ROLLOUT_POLICIES = ("greedy", "network")
TARGETS = ("visit", "value")
IMPROVE_BY = ("mean", "interval")
IMPROVE_AGAINST = ("start", "opponent", "both")


def _agents_or_null(value: Any) -> str | None:
    ok = value is None or (isinstance(value, list) and value != []
                           and all(isinstance(p, (str, dict)) for p in value))
    return None if ok else "null (every seat is the learner's) or a non-empty list of agent specs"


@dataclass(eq=False)
class ExpertIterationSection(Section):
    """Rounds of search with the network as its prior, and the network trained on its choices."""

    rounds: int = option(0, whole(0, MAX_ROUNDS))
    """rounds of expert iteration (0: none, the run is PPO alone)"""
    decisions_per_round: int = option(20_000, whole(1, MAX_STEPS))
    """the search's decisions recorded per round (the learner's seats, more than one legal action)"""
    worlds: int = option(48, whole(1, MAX_WORLDS))
    """worlds the teacher's search samples per decision"""
    margin: float = option(1.0, number(0, 1e6))
    """standard errors by which the search must beat the network's choice to overrule it"""
    rollout_policy: str = option("greedy", one_of(*ROLLOUT_POLICIES))
    """who plays the rollouts: ``greedy``, or ``network``: the current network for every player,
    one forward pass per rollout step for all rows (the rows carry no seat memories, R11)"""
    target: str = option("visit", one_of(*TARGETS))
    """``visit``: cross-entropy to the search's choice; ``value``: to a softmax of its action values"""
    temperature: float = option(0.05, number(0, 1e6, low_open=True))
    """the softmax's temperature (``target: value``), in reward units per deal"""
    explore: float = option(0.0, number(0, 1))
    """the chance that a seat plays a random legal action instead (the label stays the search's)"""
    opponents: list[Any] | None = option(None, _agents_or_null)
    """null: every seat is the learner's (the search with the network); else the learner in one seat,
    turn by turn, and these agents in the others (drawn per match)"""
    games: int = option(16, whole(1, MAX_GAMES))
    """readable games played at once; their decisions' rollouts run together on the batched engine"""
    parts: int = option(4, whole(1, 1000))
    """each round's collection is saved in this many parts (a stopped run loses at most one)"""
    window: int = option(2, whole(1, MAX_ROUNDS))
    """rounds of decisions the network trains on (this round's and the ones before)"""
    epochs: int = option(4, whole(1, MAX_EPOCHS))
    """passes over the decisions each round"""
    batch_size: int = option(512, whole(1, MAX_ROLLOUT))
    """the minibatch size"""
    learning_rate: float = option(3e-4, number(0, 1, low_open=True))
    """the fit's step size"""
    value_coef: float = option(0.5, number(0, 10))
    """the weight of the value head's loss on the outcomes (the seat's return from the decision on)"""
    ppo_steps: int = option(0, whole(0, MAX_STEPS))
    """MaskablePPO steps after each round's fit (0: none), on the config's env and opponents"""
    warm_start: str | None = option(None, model_folder_or_null)
    """null, or a safe model folder whose network the first round starts from (``models/widow``)"""
    measure_deals: int = option(400, whole(0, MAX_DEALS))
    """duplicate deals of each round's measure (0: none, and no stop rule)"""
    measure_opponent: Any = option("search", lambda v: None if isinstance(v, (str, dict)) else
                                   "an agent name, model:<path> or {agent: ...}")
    """the agent every round's network alone is measured against (one seat against three)"""
    measure_seed: int = option(2027, whole(0, MAX_SEED))
    """the arena seed of the measures: every round plays the same deals"""
    measure_workers: int = option(1, whole(1, 256))
    """processes of the measures"""
    improve_by: str = option("mean", one_of(*IMPROVE_BY))
    """when a round improves: its margin over the network it started from is above 0 (``mean``),
    or its 95% interval is (``interval``)"""
    improve_against: str = option("start", one_of(*IMPROVE_AGAINST))
    """what a round must beat to be kept: the network it started from head to head (``start``), that
    network's margin against ``measure_opponent`` on the same deals (``opponent``), or ``both``"""
    patience: int = option(2, whole(1, MAX_ROUNDS))
    """rounds in a row that do not improve before the run stops; a round that does not improve is
    set aside, and the next starts again from the last one that did"""


def check_expert_iteration(config: Any, source: str) -> None:
    """What the section's own checks cannot see: the warm start's network against the config's."""
    section = config.expert_iteration
    if section.rounds == 0:
        return
    rules, n = config.env.make_rules(), config.env.num_players
    if section.opponents is not None:
        check_agents(section.opponents, "expert_iteration.opponents", rules, n, source)
    check_agents([section.measure_opponent], "expert_iteration.measure_opponent", rules, n, source)
    if section.warm_start is not None:
        check_warm_start(section.warm_start, config, "expert_iteration.warm_start", source)


def check_warm_start(folder: str, config: Any, key: str, source: str) -> None:
    """A warm start (``key``) must be a safe model of the config's game, network, features and observation
    layout: its actor is copied into the config's policy."""
    from agents.model_files import read_model
    from commerce_env import observation as obs

    try:
        _, meta = read_model(folder, config.env.variant, config.env.num_players)
    except ValueError as error:
        raise ValueError(f"{source}: {key}: {error}") from None
    network = meta["network"]
    ours = {"hidden": list(config.policy.net_arch), "activation": config.policy.activation,
            "features": list(config.env.features)}
    theirs = {"hidden": list(network["hidden"]), "activation": network["activation"],
              "features": list(meta.get("features", []))}
    if ours != theirs:
        fail(source, key, folder, f"a model of this config's network and features {ours}, not {theirs}")
    if meta.get("observation_layout_version") != obs.LAYOUT_VERSION:
        fail(source, key, folder, f"a model of observation layout {obs.LAYOUT_VERSION}, not "
                                  f"{meta.get('observation_layout_version')}")
