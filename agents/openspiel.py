"""OpenSpiel bots as our agents, and our agents as OpenSpiel bots (extra ``openspiel``).

* :class:`OpenSpielAgent` seats any pyspiel bot (IS-MCTS, a policy such as
  MCCFR's average) in the arena and in ``commerce play``: agent specs
  ``openspiel:ismcts``, ``openspiel:random``, ``openspiel:policy:<file.json>``,
  with options as ``:name=value`` (``openspiel:ismcts:simulations=200``).
  Each decision is made on an OpenSpiel state built from a world the seat
  cannot tell from the true one (R11): the current deal's hidden cards re-dealt.
* :class:`AgentBot` wraps one of our agents as a ``pyspiel.Bot`` for
  ``open_spiel.python.algorithms.evaluate_bots``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

import commerce_env.openspiel as cos
from commerce_env.engine.base import Game
from commerce_env.files import atomic_write, writing_to
from commerce_env.policies import listens, resolve
from commerce_env.rules import Rules
from commerce_env.view import SeatView, pending_text, seat_view

from .base import Agent

BotFactory = Callable[[pyspiel.Game, int, int], pyspiel.Bot]  # (game, seat, seed) -> bot
POLICY_FORMAT = "commerce-openspiel-policy"
POLICY_VERSION = 1


def load_game(rules: Rules, num_players: int) -> cos.CommerceGame:
    """The ``python_commerce_<variant>`` game of ``rules``."""
    return pyspiel.load_game(cos.game_name(rules.variant), cos.parameters_from_rules(rules, num_players))


# ------------------------------------------------------- OpenSpiel bots as agents
class OpenSpielAgent(Agent):
    """A pyspiel bot playing one seat; ``make_bot(game, seat, seed)`` builds it per match."""

    def __init__(self, make_bot: BotFactory, name: str = "openspiel", seed: int | None = None):
        self.make_bot = make_bot
        self.name = name
        self.rng = random.Random(seed)
        self.seat: int | None = None
        self.bot: pyspiel.Bot | None = None
        self._games: dict[tuple[Rules, int], cos.CommerceGame] = {}

    def reset(self, seat: int, num_players: int, rules: Rules, seed: int | None = None) -> None:
        if seed is not None:
            self.rng.seed(seed)
        key = (rules, num_players)
        if key not in self._games:
            self._games[key] = load_game(rules, num_players)
        self.game = self._games[key]
        self.seat = seat
        self.bot = self.make_bot(self.game, seat, self.rng.getrandbits(31))

    def act(self, view: SeatView) -> int:
        if self.bot is None or self.seat != view.seat or self.game.rules != view.rules:
            self.reset(view.seat, view.num_players, view.rules)
        world = view.sample_world(self.rng)  # R11: hidden cards re-dealt
        return self.decide(world)

    def decide(self, world: Game) -> int:
        """The bot's action at ``world`` (an engine state the seat cannot tell from the true one)."""
        state = cos.state_from_engine(self.game, world)
        return int(self.bot.step(state))


def ismcts_bot(game: pyspiel.Game, seat: int, seed: int, simulations: int = 100, uct_c: float = 2.0,
               rollouts: int = 1, max_world_samples: int = -1) -> pyspiel.Bot:
    """OpenSpiel's information-set MCTS with random roll-outs (``resample_from_infostate``)."""
    from open_spiel.python.algorithms import ismcts, mcts

    class Bot(ismcts.ISMCTSBot):
        def restart_at(self, state: pyspiel.State) -> None:  # evaluate_bots calls it; 2.0.2's bot lacks it
            self.reset()

    random_state = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=rollouts, random_state=random_state)
    return Bot(game, evaluator, uct_c, max_simulations=simulations, max_world_samples=max_world_samples,
               random_state=random_state, final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT)


def random_bot(game: pyspiel.Game, seat: int, seed: int) -> pyspiel.Bot:
    """OpenSpiel's uniform random bot."""
    from open_spiel.python.bots.uniform_random import UniformRandomBot

    return UniformRandomBot(seat, np.random.RandomState(seed))


# ------------------------------------------------------------ tabular policies
class TablePolicy:
    """A tabular policy by information-state string, uniform where the table has no entry
    (as MCCFR's average policy); ``probabilities[key]`` lists the legal actions' weights."""

    def __init__(self, probabilities: dict[str, list[float]]):
        self.probabilities = probabilities

    def action_probabilities(self, state: pyspiel.State, player_id: int | None = None) -> dict[int, float]:
        player = state.current_player() if player_id is None else player_id
        legal = state.legal_actions()
        weights = self.probabilities.get(state.information_state_string(player))
        if weights is None or len(weights) != len(legal) or not sum(weights) > 0:
            return {a: 1.0 / len(legal) for a in legal}
        total = float(sum(weights))
        return {a: w / total for a, w in zip(legal, weights, strict=True)}


def mccfr_table(solver: Any) -> dict[str, list[float]]:
    """The average policy of an OpenSpiel MCCFR solver, as a table.

    Reads the solver's table of information states (``_infostates``, an internal of
    OpenSpiel 2.0.2's ``mccfr.MCCFRSolverBase``): its public average policy gives
    no way to list the states it knows.
    """
    from open_spiel.python.algorithms import mccfr

    return {key: [float(x) for x in entry[mccfr.AVG_POLICY_INDEX]] for key, entry in solver._infostates.items()}


def save_policy(probabilities: dict[str, list[float]], game: pyspiel.Game, path: str | Path) -> None:
    """Write a tabular policy as JSON (never a pickle), with the game it was made for.

    An existing file is replaced only if it is such a policy file itself.
    """
    path = Path(path)
    if path.exists():
        try:
            load_policy(path)
        except ValueError:
            raise ValueError(f"{path} exists and is not a {POLICY_FORMAT} file: not overwritten") from None
    data = {"format": POLICY_FORMAT, "version": POLICY_VERSION, "game": str(game), "policy": probabilities}
    with writing_to(path.parent):
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(data))


def load_policy(path: str | Path) -> tuple[TablePolicy, str]:
    """A policy written by :func:`save_policy`, and the game string it was made for."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: cannot read an OpenSpiel policy file ({error})") from None
    if not isinstance(data, dict) or data.get("format") != POLICY_FORMAT or data.get("version") != POLICY_VERSION:
        raise ValueError(f"{path}: not a {POLICY_FORMAT} file of version {POLICY_VERSION}")
    table = data.get("policy")
    if not isinstance(table, dict) or not all(
            isinstance(k, str) and isinstance(v, list) and all(isinstance(x, (int, float)) for x in v)
            for k, v in table.items()):
        raise ValueError(f"{path}: 'policy' must map information-state strings to lists of numbers")
    return TablePolicy(table), str(data.get("game", ""))


def policy_bot_factory(policy: Any, expected_game: str | None = None) -> BotFactory:
    """Bots that sample ``policy`` (anything with ``action_probabilities(state, player)``)."""
    from open_spiel.python.bots.policy import PolicyBot

    def make(game: pyspiel.Game, seat: int, seed: int) -> pyspiel.Bot:
        if expected_game and str(game) != expected_game:
            raise ValueError(f"the policy was made for {expected_game}, not {game}")
        return PolicyBot(seat, np.random.RandomState(seed), policy)

    return make


# ------------------------------------------------------------------- specs
BOTS: dict[str, BotFactory] = {"ismcts": ismcts_bot, "random": random_bot}
_INT_OPTIONS = {"simulations", "rollouts", "max_world_samples", "seed"}


def make_openspiel_agent(spec: str, **kwargs: Any) -> OpenSpielAgent:
    """An agent from a spec after ``openspiel:``: ``ismcts``, ``random``, ``policy:<path>``,
    each maybe followed by ``:name=value`` options (``ismcts:simulations=200:uct_c=1.5``)."""
    name, _, rest = spec.partition(":")
    if name == "policy":
        if not rest:
            raise ValueError("openspiel:policy needs a file: openspiel:policy:<path.json>")
        policy, game = load_policy(rest)
        return OpenSpielAgent(policy_bot_factory(policy, game or None), name=f"openspiel:policy:{rest}",
                              seed=kwargs.get("seed"))
    if name not in BOTS:
        raise ValueError(f"unknown OpenSpiel bot {name!r}; choose from {', '.join(sorted(BOTS))} "
                         "or policy:<path.json>")
    options: dict[str, Any] = {}
    for item in rest.split(":") if rest else []:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"bad option {item!r} in openspiel:{spec}: expected name=value")
        try:
            options[key] = int(value) if key in _INT_OPTIONS else float(value)
        except ValueError:
            raise ValueError(f"bad value {value!r} for option {key!r} in openspiel:{spec}") from None
    options.update(kwargs)
    seed = options.pop("seed", None)
    factory = BOTS[name]
    try:  # fail now, not at the first decision, on an option the bot does not take
        factory(pyspiel.load_game("python_commerce_old_game", {"players": 2, "deals": 1}), 0, 0, **options)
    except TypeError as error:
        raise ValueError(f"bad options for openspiel:{name}: {error}") from None

    def make(game: pyspiel.Game, seat: int, bot_seed: int) -> pyspiel.Bot:
        return factory(game, seat, bot_seed, **options)

    return OpenSpielAgent(make, name=f"openspiel:{spec}", seed=seed)


# ------------------------------------------------------- agents as OpenSpiel bots
class AgentBot(pyspiel.Bot):
    """One of our agents (or an agent spec) playing ``player_id`` of a ``python_commerce`` game."""

    def __init__(self, agent: Agent | str, player_id: int, seed: int | None = None):
        pyspiel.Bot.__init__(self)
        # A spec goes through the resolver that `import agents` registered (agents.make_agent).
        self.agent = resolve(agent, None, variant=None, num_players=None)
        self.seat = player_id
        self.seed = seed

    def player_id(self) -> int:
        return self.seat

    def restart_at(self, state: pyspiel.State) -> None:
        game = state.get_game()
        self.agent.reset(self.seat, game.num_players(), game.rules, self.seed)

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        if player_id >= 0 and listens(self.agent):  # before the action is applied, as OpenSpiel calls it
            self.agent.observe(player_id, pending_text(state.engine, action, self.seat))

    def step(self, state: pyspiel.State) -> int:
        game = state.engine
        action = agent_action(self.agent, game, self.seat)
        if listens(self.agent):
            self.agent.observe(self.seat, pending_text(game, action, self.seat))
        return action


def agent_action(agent: Agent, game: Game, seat: int) -> int:
    """The one place that asks one of our agents for an action (the Agent API's boundary)."""
    return int(agent.act(seat_view(game, seat)))
