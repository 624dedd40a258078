"""Commerce as an RLlib ``MultiAgentEnv`` for turn-based self-play (the 'distributed' extra).

RLlib's ``PettingZooEnv`` assumes every agent may be rewarded at every step;
this adapter follows the engine directly and speaks RLlib's turn-based
protocol (``ray.rllib.env.multi_agent_env``):

* only the agent to act gets an observation; its reward arrives later, with
  RLlib caching what is paid between two of its turns (a deal's settlement,
  R4.5, is usually paid after someone else's action);
* at the end every agent that acted gets its final observation and reward,
  and ``terminated``; an agent that never acted (the deal ended first) is
  left out, as RLlib cannot credit a reward to no action;
* the observation is ``{"observations": the AEC vector plus the run's extra
  features, "action_mask": float32 of the 27 actions}`` (what RLlib's
  action-masking module reads), plus ``"heuristic_actions"``: the action each
  of the run's built-in agents would take in this seat, so that a heuristic
  can sit in a seat as a non-learning RLModule
  (:class:`training.rllib_modules.HeuristicRLModule`).  The heuristics read
  the engine state only as the arena's agents do (R11), and only for the
  seat to act.

An illegal action raises (``IllegalActionError``): masking makes one a bug.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from agents.base import Agent
from agents.model_files import FEATURE_SIZES
from agents.specs import make_agent
from commerce_env import observation as obs
from commerce_env.engine import new_game
from commerce_env.engine.actions import NUM_ACTIONS
from commerce_env.features import append_features, feature_builders
from commerce_env.rules import DEFAULT_PLAYERS, DEFAULT_VARIANT, make_rules
from commerce_env.view import public_text, seat_view

ENV_NAME = "commerce_turns"
MAX_REDEALS = 1000  # a match settled before anyone acts (dealt ships, R7.3) is dealt again


def agent_id(seat: int) -> str:
    return f"player_{seat}"


def seat_of(agent: str) -> int:
    return int(agent.rsplit("_", 1)[1])


class TurnBasedCommerceEnv(MultiAgentEnv):
    """All seats of one Commerce match, one agent id per seat; see the module docstring.

    ``config``: ``variant``, ``num_players``, ``rules`` (R-section options),
    ``features`` (extra observation features, e.g. ``hand_strength``),
    ``heuristics`` (built-in agent specs whose actions fill ``heuristic_actions``),
    ``seed``.
    """

    def __init__(self, config: dict[str, Any] | None = None):
        super().__init__()
        config = dict(config or {})
        self.rules = make_rules(config.get("variant", DEFAULT_VARIANT), **dict(config.get("rules") or {}))
        self.num_players = int(config.get("num_players", DEFAULT_PLAYERS))
        self.rules.check_players(self.num_players)
        self.features = list(config.get("features") or [])
        self._feature_builders = feature_builders(self.features, self.rules, self.num_players)
        self.heuristics = list(config.get("heuristics") or [])
        # One agent object per heuristic and seat: agents may keep per-seat state.
        self._agents: list[list[Agent]] = [[make_agent(spec) for _ in range(self.num_players)]
                                           for spec in self.heuristics]
        self._watchers = [(k, agents) for k, agents in enumerate(self._agents)
                          if type(agents[0]).observe is not Agent.observe]
        self.possible_agents = [agent_id(s) for s in range(self.num_players)]
        self.agents = list(self.possible_agents)
        size = obs.observation_size(self.num_players) + sum(FEATURE_SIZES[f] for f in self.features)
        parts = {"observations": spaces.Box(-np.inf, np.inf, (size,), np.float32),
                 "action_mask": spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32)}
        if self.heuristics:
            parts["heuristic_actions"] = spaces.Box(0.0, NUM_ACTIONS - 1, (len(self.heuristics),), np.float32)
        observation_space = spaces.Dict(parts)
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, spaces.Discrete(NUM_ACTIONS))
        self._rng = random.Random(config.get("seed"))
        self.game = None
        self._acted: set[int] = set()

    # ------------------------------------------------------------ protocol
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None:
            self._rng.seed(seed)
        options = dict(options or {})
        for _ in range(MAX_REDEALS):
            game = new_game(self.rules, self.num_players, decks=options.get("decks"),
                            dealer=options.get("dealer", 0), rng=self._rng)
            if not game.over:
                break
            if options.get("decks") is not None:
                raise ValueError("the given packs settle the match before anyone acts; nothing to learn")
        else:
            raise RuntimeError(f"{MAX_REDEALS} deals in a row ended before anyone acted")
        self.game, self._acted = game, set()
        game.take_rewards()  # paid before anyone acted: no action to credit (see the module docstring)
        for agents in self._agents:
            for seat, agent in enumerate(agents):
                agent.reset(seat, self.num_players, self.rules, self._rng.getrandbits(31))
        seat = game.current_player
        return {agent_id(seat): self._observe(seat)}, {}

    def step(self, action_dict: dict[str, Any]):
        game = self.game
        if game is None or game.over:
            raise RuntimeError("reset() the env before stepping it")
        seat = game.current_player
        action = int(action_dict[agent_id(seat)])
        entry = len(game.record)
        game.apply(action)
        self._acted.add(seat)
        for _, agents in self._watchers:
            for watcher, agent in enumerate(agents):
                agent.observe(seat, public_text(game, entry, watcher))
        paid = game.take_rewards()
        rewards = {agent_id(s): float(paid[s]) for s in self._acted if paid[s] or s == seat}
        if game.over:
            done = {agent_id(s): True for s in self._acted}
            observations = {agent_id(s): self._observe(s) for s in self._acted}
            rewards = {agent_id(s): float(paid[s]) for s in self._acted}
            return observations, rewards, {**done, "__all__": True}, {"__all__": False}, {}
        nxt = game.current_player
        return {agent_id(nxt): self._observe(nxt)}, rewards, {"__all__": False}, {"__all__": False}, {}

    # ------------------------------------------------------------- helpers
    def _observe(self, seat: int) -> dict[str, np.ndarray]:
        game = self.game
        vector = obs.encode(game, seat)
        vector = append_features(vector, self._feature_builders)
        out = {"observations": vector, "action_mask": obs.action_mask(game, seat).astype(np.float32)}
        if self.heuristics:
            acting = game.current_player == seat and not game.over
            out["heuristic_actions"] = np.array(
                [agents[seat].act(seat_view(game, seat)) if acting else 0 for agents in self._agents],
                dtype=np.float32)
        return out


def register() -> None:
    """Register the env with Ray Tune's registry as :data:`ENV_NAME` (each process that builds one)."""
    from ray.tune.registry import register_env

    register_env(ENV_NAME, TurnBasedCommerceEnv)
