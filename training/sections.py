"""The sections every training config shares (an SB3 run's, :mod:`training.config`, and an RLlib
run's, :mod:`training.rllib_config`): the game, the network, the evaluation, and the limits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from commerce_env.features import FEATURES
from commerce_env.rules import DEFAULT_PLAYERS, DEFAULT_VARIANT, Rules, make_rules

from .checks import Section, flag, integer, kind, number, one_of, option, text, whole

# Limits beyond which a value is a typo, not a plan.
MAX_SEED = 2**31 - 1  # seeds are offset per env and per deal; numpy takes at most 2**32 - 1
MAX_STEPS = 10**10
MAX_MINUTES = 7 * 24 * 60
MAX_ENVS = 128
MAX_THREADS = 256
MAX_DEALS = 10**7
MAX_ROLLOUT = 2**20  # ppo.n_steps (per env)
MAX_EPOCHS = 1000
MAX_SNAPSHOTS = 1000


def _features(value: Any) -> str | None:
    ok = isinstance(value, list) and all(isinstance(f, str) and f in FEATURES for f in value)
    return None if ok else f"a list of feature names from: {', '.join(FEATURES)}"


def _names(value: Any) -> str | None:
    ok = isinstance(value, list) and value != [] and all(isinstance(b, str) for b in value)
    return None if ok else "a non-empty list of agent names"


def check_net_arch(value: Any) -> str | None:
    """Why ``value`` is no network a model file may hold: checked now, not when the export fails after the run."""
    from agents.model_files import check_hidden

    problem = check_hidden(value)
    return None if problem is None else f"{problem} (the limits of a saved model, agents.learned)"


@dataclass(eq=False)
class GameSection(Section):
    """The game: what every run's ``env`` section names."""

    variant: str = option(DEFAULT_VARIANT, kind(str, "a variant name"))
    """the variant's name (R1), one of ``commerce_env.rules.VARIANTS``"""
    num_players: int = option(DEFAULT_PLAYERS, integer("a whole number of players"))
    """players at the table, the learner's seat included (the variant's limits, R12)"""
    rules: dict[str, Any] = option({}, kind(dict, "a mapping of rule options"))
    """the variant's R12 options, or ``{preset: foster}``; the rest keep their defaults"""
    features: list[str] = option([], _features)
    """extra observation features the network reads (``hand_strength``, docs/training.md)"""

    def make_rules(self) -> Rules:
        """The rules these options make (checked when the config is read)."""
        return make_rules(self.variant, **self.rules)


@dataclass(eq=False)
class NetworkSection(Section):
    """The network (the exported model's)."""

    net_arch: list[int] = option([128, 128], check_net_arch)
    """hidden layer sizes, the same for the policy and the value network"""
    activation: str = option("tanh", one_of("tanh", "relu"))
    """the hidden layers' activation"""


@dataclass(eq=False)
class EvaluationSection(Section):
    """The learner against baselines on duplicate deals (the arena's scoring)."""

    every_steps: int = option(50_000, whole(1, MAX_STEPS))
    """env steps between evaluations (TensorBoard and ``eval_history.jsonl``)"""
    deals: int = option(200, whole(1, MAX_DEALS))
    """deals of each periodic evaluation"""
    baselines: list[str] = option(["random"], _names)
    """the agents it is measured against"""
    final_deals: int = option(1000, whole(0, MAX_DEALS))
    """deals of the final evaluation, ``report.json`` (0: none)"""
    seed: int = option(12345, whole(0, MAX_SEED))
    """the deals' seed: every evaluation plays the same deals"""
    workers: int = option(1, whole(1, MAX_THREADS))
    """processes the evaluations use"""


@dataclass(eq=False)
class BudgetSection(Section):
    """How long a run trains and how it keeps its place: what the ``training`` section of every
    backend holds (SB3's :class:`training.config.TrainingSection` and RLlib's add their own keys)."""

    total_timesteps: int = option(100_000, whole(1, MAX_STEPS))
    """the step budget: env steps (SB3's runs count the learner's decisions, RLlib's every seat's)"""
    time_limit_minutes: float | None = option(None, number(0, MAX_MINUTES, low_open=True, optional=True))
    """the time budget (null: none); pretraining counts in it"""
    checkpoint_every: int = option(10_000, whole(1, MAX_STEPS))
    """env steps between checkpoints (``--resume`` starts from the last)"""
    progress_bar: bool = option(True, flag)
    """progress as the run goes (SB3: a bar over the budget that ends it; RLlib: a line per iteration)"""
    torch_threads: int = option(1, whole(1, MAX_THREADS))
    """torch and BLAS threads (RLlib: of the driver and of each runner): two runs side by side must not
    spin against each other"""


@dataclass(eq=False)
class SnapshotSection(Section):
    """Snapshots of the learner join its opponents: what the ``selfplay`` section of every backend
    holds (SB3's :class:`training.config.SelfPlaySection` and RLlib's add their own keys)."""

    enabled: bool = option(False, flag)
    """whether snapshots are taken"""
    every_steps: int = option(50_000, whole(1, MAX_STEPS))
    """env steps between two snapshots"""
    max_snapshots: int = option(5, whole(1, MAX_SNAPSHOTS))
    """snapshots kept (the oldest leaves)"""


@dataclass(eq=False)
class RunSection(Section):
    """What every run's config begins with, whichever backend trains it: its name, seed and folder."""

    name: str = option("run", text("a non-empty string"))
    """the run's name (in its report and model.json)"""
    seed: int = option(0, whole(0, MAX_SEED))
    """the seed of the envs, the network and the draws: one config, several training seeds"""
    output: str = option("runs/run", text("a folder path"))
    """the run folder (:mod:`training.train` lists what it holds)"""


def check_rules(game: GameSection, source: str) -> Rules:
    """The rules of ``game``; a ValueError naming ``env`` when its options or player count do not fit."""
    try:
        rules = game.make_rules()
        rules.check_players(game.num_players)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{source}: env: {error}") from None
    return rules
