"""A single-agent Gymnasium view of Commerce: one learner, the other seats played by opponents.

``gymnasium.make("commerce/Commerce-v0", variant=..., num_players=..., opponents=[...])``
gives :class:`CommerceEnv`; ``import commerce_env`` registers the id.

* The learner sits in one seat per episode (``seat="rotate"``: the next seat
  each episode; ``"random"``; or a fixed seat number).  Every other seat is
  played by an opponent drawn per episode from a pool.  An opponent is a
  policy, any object with ``act(view) -> int`` that is given only its seat's
  view (:mod:`commerce_env.view`), or a spec (``"greedy"``, ``"model:<path>"``,
  ``{"agent": "greedy", "quantile": 0.7}``) that a resolver turns into one:
  ``resolver=`` or the default that ``import agents`` registers
  (:mod:`commerce_env.policies`).  Snapshots of the learner are added while
  training (:meth:`CommerceEnv.add_snapshot`, self-play).  Which entry or
  snapshot plays a seat is the env's :class:`commerce_env.opponents.OpponentPool`'s
  choice (``opponents`` may be one); the env turns it into a policy.  Each seat has its
  own instance of every pool entry given by spec (agents may keep state per
  seat); a policy object given directly is shared by the seats, and so
  are snapshots (stateless numpy policies).  Opponents that define
  ``observe`` hear every action's text as their seat knows it, as in the arena.
* The observation is the AEC env's vector (:func:`commerce_env.observation.encode`,
  layout version ``LAYOUT_VERSION``) of the learner's seat; ``action_masks()``
  gives the legal actions for sb3-contrib's MaskablePPO.
* The reward of a step is the learner's own change of counters (or its
  outcome reward, per the rules' ``reward`` option) between two of its
  decisions, including what the opponents' moves and the settlement pay it;
  never another seat's reward.
* An illegal action (the checkers sample unmasked actions) ends the episode
  with reward -1 (PettingZoo's ``TerminateIllegalWrapper`` convention; the
  mask is then empty and the observation shows the match over), or raises
  with ``illegal_action="raise"``.  A masked policy never takes one.
* An episode is one match (R4.5).  With ``end_when_out=True`` it ends sooner
  when the learner is out for good (``Game.finished_for``: with counter
  rewards, out of lives and not being offered the horse, R4.6, R6.5, R7.5,
  R9.4): it gets no decision and no payment after that, so its return is the
  same, and the deals the others play without it are not simulated (in
  freeze-out matches, most of them).  A match that ends before the learner has a
  decision (e.g. the players before him knock at once, or dealt flushes settle
  it, R7.3) gives no decision to learn from: reset deals a new match in that
  case (see :meth:`CommerceEnv.reset`), and what the skipped match paid the
  learner is added to the first reward of the new episode (reset's
  ``info["carried"]`` says how much), so no transfer is ever lost.  Evaluate
  agents in the arena, which counts every deal.
* Actions are integers (Python or numpy integer types); anything else (a
  float, a string, ``None``) is refused with a ``ValueError`` naming it in
  both illegal-action modes, and changes nothing.
* ``info["deal_ended"]`` (on a step that does not end the episode): whether the
  learner's next decision is in a later deal than the one it just took, so
  that training may end its episodes at each deal (``training.episode: deal``).

This module imports neither torch nor stable-baselines3.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from . import GYM_ENV_ID
from . import observation as obs
from .checks import flag, whole_number
from .engine import new_game
from .engine.actions import NUM_ACTIONS, check_action
from .engine.base import Game
from .env_arguments import (
    ILLEGAL_REWARD,
    check_config,
    checked_illegal_action,
    checked_seed,
    reset_decks,
    reset_options,
)
from .features import FEATURES, HandStrength, append_features, feature_builders, feature_names  # noqa: F401
from .opponents import OpponentPool
from .policies import RandomPolicy, Resolver, is_policy, listens, resolve
from .rules import DEFAULT_PLAYERS, resolve_rules
from .view import public_text, seat_view

ENV_ID = GYM_ENV_ID
SEAT_MODES = ("rotate", "random")
RESET_OPTIONS = ("deck", "decks", "dealer", "seat")
MAX_REDEALS = 1000  # reset gives up if the learner never gets a decision


class CommerceEnv(gymnasium.Env):
    """One learner against a pool of opponents; see the module docstring."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(self, variant: str | None = None, num_players: int | None = None,
                 opponents: Sequence[Any] | OpponentPool | None = None,
                 opponent_weights: Sequence[float] | None = None,
                 seat: int | str = "rotate", snapshot_share: float = 0.5, max_snapshots: int = 5,
                 features: Sequence[str] = (), illegal_action: str = "terminate", render_mode: str | None = None,
                 config: Any = None, resolver: Resolver | None = None, end_when_out: bool = False,
                 **options: Any):
        rules, extra = resolve_rules(variant, check_config(config), options)
        num_players = extra.get("num_players", DEFAULT_PLAYERS) if num_players is None else num_players
        rules.check_players(num_players)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"bad render_mode {render_mode!r}; choose from ansi, human, rgb_array or None")
        self._check_seat(seat, num_players)
        checked_illegal_action(illegal_action)
        flag("end_when_out", end_when_out)
        default = opponents is None  # uniform random players, one per seat: no resolver needed
        if isinstance(opponents, OpponentPool):
            pool = opponents
        else:
            pool = OpponentPool([RandomPolicy()] if default else opponents, opponent_weights,
                                snapshot_share, max_snapshots)
        opponents = pool.entries
        self.rules = rules
        self.num_players = num_players
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.end_when_out = end_when_out
        self.seat_mode = seat
        self.resolver = resolver
        self.opponent_pool = pool
        first = [self._resolve(spec) for spec in opponents]  # bad specs fail here, once
        self.seat_pools = [first] + [[RandomPolicy()] if default else
                                     [o if is_policy(spec) else self._resolve(spec)
                                      for spec, o in zip(opponents, first, strict=True)]
                                     for _ in range(num_players - 1)]
        self.features = feature_names(features)
        self.feature_builders = feature_builders(self.features, rules, num_players)
        size = obs.observation_size(num_players) + sum(f.size for f in self.feature_builders)
        self.observation_space = spaces.Box(low=-np.inf, high=np.inf, shape=(size,), dtype=np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._rng = random.Random()
        self._episode = 0
        self.game: Game | None = None
        self.seat = 0
        self.seat_agents: list[Any] = []
        self._watchers: list[Any] = []
        self._carry = 0.0

    @staticmethod
    def _check_seat(seat: int | str, num_players: int) -> None:
        if isinstance(seat, str):
            if seat not in SEAT_MODES:
                raise ValueError(f"bad seat {seat!r}; choose rotate, random or a seat number")
        else:
            whole_number("seat (rotate, random or a seat)", seat, 0, num_players - 1)

    # ------------------------------------------------------------ opponents
    def _resolve(self, spec: Any) -> Any:
        return resolve(spec, self.resolver, variant=self.rules.variant, num_players=self.num_players)

    def add_snapshot(self, path: str) -> int:
        """Add a saved learner snapshot to the opponent pool (self-play); returns the number of snapshots."""
        return self.opponent_pool.add_snapshot(self._resolve(f"model:{path}"), str(path))

    def _draw_opponent(self, seat: int) -> Any:
        """The pool's choice for ``seat`` this episode: this seat's instance of an entry, or a snapshot."""
        index = self.opponent_pool.draw(self._rng)
        entries = self.seat_pools[seat]
        return entries[index] if index < len(entries) else self.opponent_pool.snapshots[index - len(entries)]

    # ----------------------------------------------------------------- API
    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner now (sb3-contrib's MaskablePPO reads this)."""
        return obs.action_mask(self._require_game(), self.seat).astype(bool)

    def reset(self, *, seed: int | None = None, options: Mapping[str, Any] | None = None):
        """A new match with the learner's seat and opponents drawn anew.

        ``seed``: an integer (numpy's too) or None.  ``options``: a mapping with
        ``deck``/``decks`` and ``dealer`` as in the AEC env, and ``seat`` to place the
        learner.  If the match ends before the learner has a decision, another
        match is dealt (the given packs are then used up and the rest are
        shuffled), and what it paid the learner is carried into the first step's
        reward.  Everything is checked before anything changes: a bad option
        raises and leaves the env as it was.
        """
        seed = checked_seed(seed)
        options = reset_options(options)
        unknown = [key for key in options if key not in RESET_OPTIONS]
        if unknown:
            raise ValueError(f"unknown reset options {unknown}; known: {', '.join(RESET_OPTIONS)}")
        decks = reset_decks(options)
        seat_option = options.get("seat", self.seat_mode)
        self._check_seat(seat_option, self.num_players)
        # Draw from a copy of the RNG: it replaces the env's only once the new game is valid.
        rng = random.Random(seed) if seed is not None else _copy_rng(self._rng)
        episode = 0 if seed is not None else self._episode
        dealer = options["dealer"] if "dealer" in options else rng.randrange(self.num_players)
        if seat_option == "rotate":
            seat = episode % self.num_players
        elif seat_option == "random":
            seat = rng.randrange(self.num_players)
        else:
            seat = seat_option
        game = new_game(self.rules, self.num_players, decks=decks, dealer=dealer,
                        rng=random.Random(rng.getrandbits(64)))  # raises on a bad pack or dealer
        super().reset(seed=seed)
        self._rng = rng
        self._episode = episode + 1
        self.seat = seat
        carried = 0.0  # what matches skipped here paid the learner
        for _ in range(MAX_REDEALS):
            self.game = game
            self._seat_opponents()
            before_decision = self._play_opponents()
            if not self._finished():
                break
            carried += before_decision
            game = new_game(self.rules, self.num_players, dealer=self._rng.randrange(self.num_players),
                            rng=random.Random(self._rng.getrandbits(64)))
        else:
            raise RuntimeError(f"the learner got no decision in {MAX_REDEALS} matches")
        self._carry = carried + before_decision
        if self.render_mode == "human":
            self.render()
        return self._observe(), {"seat": seat, "carried": carried}

    def step(self, action: Any):
        game = self._require_game()
        if self._finished():
            raise RuntimeError("the episode is over: call reset()")
        if game.current_player != self.seat:  # cannot happen through reset/step; guards misuse
            raise RuntimeError("it is not the learner's turn")
        action = check_action(action)  # a float, a string or None is refused in every mode
        if action not in game.legal_actions() and self.illegal_action == "terminate":
            game.abandon()  # the match ends: the mask is empty and the observation says so
            return self._observe(), ILLEGAL_REWARD, True, False, {
                "seat": self.seat, "illegal_action": True}
        deal = game.deals_dealt
        self._apply(self.seat, action)
        reward = self._carry + self._play_opponents()
        self._carry = 0.0
        terminated = self._finished()
        info: dict[str, Any] = {"seat": self.seat}
        if terminated:
            info["returns"] = game.returns()[self.seat]
        else:
            info["deal_ended"] = game.deals_dealt != deal
        if self.render_mode == "human":
            self.render()
        return self._observe(), float(reward), terminated, False, info

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        from .aec_env import render_text

        names = [("learner" if s == self.seat else f"player_{s}") for s in range(self.num_players)]
        if self.render_mode == "rgb_array":  # the table as the learner sees it (R11)
            from .frames import render_frame

            return render_frame(self._require_game(), self.seat, names)
        text = render_text(self._require_game(), names)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    # ------------------------------------------------------------- helpers
    def _observe(self) -> np.ndarray:
        game = self._require_game()
        vector = obs.encode(game, self.seat)
        return append_features(vector, self.feature_builders)

    def _seat_opponents(self) -> None:
        self.seat_agents = [None] * self.num_players
        for s in range(self.num_players):
            if s == self.seat:
                continue
            agent = self._draw_opponent(s)
            seed = self._rng.getrandbits(32)
            if hasattr(agent, "reset"):
                agent.reset(s, self.num_players, self.rules, seed)
            self.seat_agents[s] = agent
        self._watchers = [(s, a) for s, a in enumerate(self.seat_agents)
                          if a is not None and listens(a)]

    def _finished(self) -> bool:
        """The episode's end: the match's, or with ``end_when_out`` the learner's (``Game.finished_for``)."""
        game = self._require_game()
        return game.finished_for(self.seat) if self.end_when_out else game.over

    def _play_opponents(self) -> float:
        """Opponents move until the learner decides or the episode ends; the learner's rewards meanwhile."""
        game = self._require_game()
        while not self._finished() and game.current_player != self.seat:
            seat = game.current_player
            self._apply(seat, self.seat_agents[seat].act(seat_view(game, seat)))  # R11: its view only
        return float(game.take_rewards()[self.seat])

    def _apply(self, seat: int, action: int) -> None:
        """Take an action, and tell the opponents that listen (``Agent.observe``) its text."""
        game = self._require_game()
        entry = len(game.record)
        game.apply(action)
        for watcher_seat, agent in self._watchers:
            agent.observe(seat, public_text(game, entry, watcher_seat))  # R11: face-down cards stay hidden

    def _require_game(self) -> Game:
        if self.game is None:
            raise RuntimeError("call reset() before using the env")
        return self.game


def _copy_rng(rng: random.Random) -> random.Random:
    copy = random.Random.__new__(random.Random)  # no seeding from urandom: setstate fills it
    copy.setstate(rng.getstate())
    return copy

