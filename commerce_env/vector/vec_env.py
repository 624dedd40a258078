"""An SB3 ``VecEnv`` of single-agent Commerce games over one :class:`BatchEngine`.

Each of the ``num_envs`` games is what :class:`commerce_env.single_agent.CommerceEnv`
is for one: a learner in one seat (``seat="rotate"``: the next seat every
episode; ``"random"``; or a number), the other seats played by opponents
drawn per episode from a pool (and from self-play snapshots), the learner's
own reward (its change of counters, or its outcome reward, between two of its
decisions, opponents' moves and settlements included), the AEC observation
vector plus the optional ``features``, and ``action_masks()`` for
MaskablePPO.  The differences: opponents act for all games at once through
the ``act_batch(engine, games, seats)`` protocol (:mod:`agents.batched`),
and a learner action that is not legal raises ``ValueError`` (a masked
policy never takes one), as does one that is not an action number: actions
are integers, or floats that are whole action numbers (:func:`action_numbers`).
``exchange="expected_value"`` narrows the mask as ``CommerceEnv`` does (:mod:`commerce_env.exchange_limit`).

With ``end_when_out=True`` a learner's episode ends as soon as the match has
nothing left for it (``BatchEngine.finished_for``: with counter rewards, out
of lives and not offered the horse, R4.6, R9.4), as
:class:`commerce_env.single_agent.CommerceEnv` does with the same option: its
return is the same, and the deals the others would play without it are not
played (in freeze-out matches most of the opponents' moves).

With ``critic_state=True`` each observation ends with the opponents' hands
(:class:`commerce_env.critic_state.CriticState`), for a centralised critic in
training; the first ``actor_size`` columns are what the seat may see (R11),
and only those may reach a policy that plays.

Each step's info says, where the episode goes on, whether the learner's next
decision is in a later deal than the one it just took (``"deal_ended"``), as
``CommerceEnv`` does.

Auto-reset is done here, not by the engine: when a game's match ends, its
``terminal_observation`` and ``returns`` go into the info, and that game
alone is restarted (:meth:`BatchEngine.reset_games`); a restarted match
that ends before the learner has a decision is dealt again, as
``CommerceEnv.reset`` does.  The shuffles come from the engine's own
generators (seeded by ``seed``), not from the readable engine's.

Opponent specs: objects with ``act_batch``, or anything ``resolver(spec,
rules, num_players)`` turns into one (training passes
:func:`agents.batched.batched_agent`); ``commerce_env`` itself imports
nothing from ``agents``, so this class without a resolver knows only
``"random"``; :func:`commerce_env.vector.make_vec_env` passes
``agents.batched.batched_agent`` by default.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from ..critic_state import CriticState
from ..engine.actions import NUM_ACTIONS
from ..env_arguments import checked_seed
from ..exchange_limit import BatchExchangeLimit
from ..features import feature_names
from ..opponents import OpponentPool
from ..rules import make_rules
from .engine import BatchEngine
from .features import batch_feature_builders, with_features

MAX_REDEALS = 1000


def action_numbers(actions: Any, num_envs: int) -> np.ndarray:
    """``actions`` as int64 action numbers, one per game, or a ``ValueError`` naming the bad value.

    Taken: an array (or list) of shape ``(num_envs,)`` of integers, or of floats that are
    whole numbers from 0 to 26 (a policy that returns float actions).  Refused: any other
    shape, strings, booleans, objects, and floats with a fraction, NaN or infinity, which
    a cast would silently turn into some other action."""
    array = np.asarray(actions)
    if array.shape != (num_envs,):
        raise ValueError(f"actions must have shape ({num_envs},), one per game, got shape {array.shape}")
    kind = array.dtype.kind
    if kind in "iu":
        return array.astype(np.int64, copy=False)
    if kind == "f":
        whole = (array >= 0) & (array < NUM_ACTIONS) & (array == np.floor(array))  # False where NaN
        if whole.all():
            return array.astype(np.int64)
        bad = int(np.flatnonzero(~whole)[0])
        raise ValueError(f"actions[{bad}] = {array[bad].item()!r} is not an action number from 0 to "
                         f"{NUM_ACTIONS - 1}")
    first = array.tolist()[0]
    raise ValueError(f"actions must be integers, got {array.dtype} values: actions[0] = {first!r}")


class _UniformRandom:
    """The one opponent known without a resolver: uniform over the mask."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act_batch(self, engine: BatchEngine, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        masks = engine.action_mask[games]
        return (self.rng.random(masks.shape) * masks).argmax(axis=1)


class BatchVecEnv(VecEnv):
    """``num_envs`` single-agent games stepped together; see the module docstring."""

    def __init__(self, variant: str, num_players: int, num_envs: int,
                 opponents: Sequence[Any] | OpponentPool = ("random",),
                 seed: int = 0, opponent_weights: Sequence[float] | None = None, seat: int | str = "rotate",
                 features: Sequence[str] = (), snapshot_share: float = 0.5, max_snapshots: int = 5,
                 resolver: Callable[..., Any] | None = None, end_when_out: bool = False,
                 critic_state: bool = False, exchange: str = "any", **options: Any):
        if not isinstance(end_when_out, bool):
            raise ValueError(f"end_when_out must be True or False, got {end_when_out!r}")
        if not isinstance(critic_state, bool):
            raise ValueError(f"critic_state must be True or False, got {critic_state!r}")
        seed = checked_seed(seed)
        rules = make_rules(variant, **options)
        rules.check_players(num_players)
        if seat not in ("rotate", "random") and (isinstance(seat, bool) or not isinstance(seat, int)
                                                 or not 0 <= seat < num_players):
            raise ValueError(f"seat must be rotate, random or a seat from 0 to {num_players - 1}, got {seat!r}")
        specs = opponents if isinstance(opponents, OpponentPool) else OpponentPool(
            opponents, opponent_weights, snapshot_share, max_snapshots)
        self.rules = rules
        self.num_players = num_players
        self.engine = BatchEngine(variant, num_players, num_envs, seed=seed, rules=rules)
        # The pool's entries resolved to batched policies, once; the pool chooses among them.
        self.opponent_pool = OpponentPool([self._resolve(spec, resolver) for spec in specs.entries], specs.weights,
                                          specs.snapshot_share, specs.max_snapshots)
        for policy, path in zip(specs.snapshots, specs.snapshot_paths, strict=True):
            self.opponent_pool.add_snapshot(self._resolve(policy, resolver), path)
        self.resolver = resolver
        self.features = feature_names(features)
        self.feature_builders = batch_feature_builders(self.features, rules, num_players)
        self.exchange = exchange
        self.exchange_limit = BatchExchangeLimit(rules, num_players, exchange)
        self.actor_size = self.engine.obs_size + sum(f.size for f in self.feature_builders)
        self.critic_state = CriticState(rules, num_players) if critic_state else None
        size = self.actor_size + (self.critic_state.size if critic_state else 0)
        observation_space = spaces.Box(low=-np.inf, high=np.inf, shape=(size,), dtype=np.float32)
        self.render_mode = None
        self._all = np.arange(num_envs)
        super().__init__(num_envs, observation_space, spaces.Discrete(NUM_ACTIONS))
        self.seat_mode = seat
        self.end_when_out = end_when_out
        self._rng = np.random.default_rng(seed)
        self._episodes = np.zeros(num_envs, dtype=np.int64)
        self.seats = np.zeros(num_envs, dtype=np.int64)
        self._assigned = np.zeros((num_envs, num_players), dtype=np.int64)  # index into opponents()
        self._carry = np.zeros(num_envs, dtype=np.float64)
        self._fresh = np.zeros(num_envs, dtype=np.bool_)  # the learner has not decided yet in this match
        self._actions: np.ndarray | None = None

    def _resolve(self, spec: Any, resolver: Callable[..., Any] | None) -> Any:
        if hasattr(spec, "act_batch"):
            return spec
        if resolver is not None:
            return resolver(spec, self.rules, self.num_players)
        if spec == "random":
            return _UniformRandom()
        raise ValueError(f"opponent {spec!r}: give objects with act_batch(engine, games, seats), or "
                         f"resolver=agents.batched.batched_agent to resolve names such as 'greedy'")

    # ------------------------------------------------------------ opponents
    def add_snapshot(self, path: str) -> int:
        """A saved learner snapshot joins the opponents (self-play); returns the number of snapshots."""
        if self.resolver is None:
            raise ValueError("add_snapshot needs resolver= (agents.batched.batched_agent) to load models")
        return self.opponent_pool.add_snapshot(self.resolver(f"model:{path}", self.rules, self.num_players), path)

    def opponents(self) -> list[Any]:
        """The opponents that the indices of ``_assigned`` name: the pool's entries, then its snapshots."""
        return self.opponent_pool.choices()

    def _compiled(self) -> tuple[Any, np.ndarray] | None:
        """The compiled opponent loop and each opponent's ``(kind, threshold, barter)`` (kind -1: none),
        or None when no opponent runs compiled."""
        play, specs = None, []
        for opponent in self.opponents():
            spec = opponent.compiled_spec(self.rules) if hasattr(opponent, "compiled_spec") else None
            specs.append(spec if spec is not None else (-1, 0, 0))
            if spec is not None:
                play = play or opponent.play_compiled
        return None if play is None else (play, np.asarray(specs, dtype=np.int64))

    def _draw_opponents(self, games: np.ndarray) -> None:
        """Per game and seat, an index into :meth:`opponents` for this episode."""
        self._assigned[games] = self.opponent_pool.draw_many(self._rng, (len(games), self.num_players))

    # ------------------------------------------------------------ episodes
    def _start(self, games: np.ndarray) -> None:
        """New matches in ``games``: seats, opponents, dealers; opponents play up to the learner."""
        engine = self.engine
        pending = games
        for _ in range(MAX_REDEALS):
            if self.seat_mode == "rotate":
                self.seats[pending] = self._episodes[pending] % self.num_players
            elif self.seat_mode == "random":
                self.seats[pending] = self._rng.integers(0, self.num_players, size=len(pending))
            else:
                self.seats[pending] = self.seat_mode
            self._episodes[pending] += 1
            self._draw_opponents(pending)
            engine.reset_games(pending, dealer=self._rng.integers(0, self.num_players, size=len(pending)))
            self._fresh[pending] = True
            self._carry[pending] = engine.rewards[pending, self.seats[pending]]
            earned, redealt = self._play_opponents()
            self._carry = np.where(redealt, earned, self._carry + earned)
            over = self._finished()[pending]
            if not over.any():
                return
            pending = pending[over]  # the learner got no decision: deal that match again
            self._episodes[pending] -= 1  # the same seat again, as CommerceEnv.reset
        raise RuntimeError(f"the learner got no decision in {MAX_REDEALS} matches")

    def _finished(self) -> np.ndarray:
        """Where the learner's episode is over: the match's end, or with ``end_when_out`` its own."""
        if self.end_when_out:
            return self.engine.finished_for(self.seats)
        return self.engine.over.copy()

    def _play_opponents(self) -> tuple[np.ndarray, np.ndarray]:
        """Opponents move in every game until the learner decides or the match ends.  Returns the
        learner's rewards meanwhile, and which games the compiled loop dealt again (a fresh match
        over before the learner's decision: their rewards are the new match's)."""
        engine = self.engine
        earned = np.zeros(self.num_envs)
        redealt = np.zeros(self.num_envs, dtype=np.bool_)
        opponents = self.opponents()
        compiled = self._compiled()
        while True:
            if compiled is not None:  # random and greedy opponents move inside one compiled loop
                play, specs = compiled
                play(engine, self.seats, self._assigned, specs, earned, self._fresh, redealt, self.end_when_out)
            players = engine.current_player
            waiting = (players >= 0) & (players != self.seats)
            if self.end_when_out:
                waiting &= ~engine.finished_for(self.seats)
            if not waiting.any():
                return earned, redealt
            games = np.flatnonzero(waiting)
            seats = players[games]
            who = self._assigned[games, seats]
            actions = np.zeros(self.num_envs, dtype=np.int64)
            for k in np.unique(who):
                chosen = games[who == k]
                actions[chosen] = opponents[k].act_batch(engine, chosen, players[chosen])
            engine.step(actions, where=waiting)
            earned += engine.rewards[self._all, self.seats]

    def _observe(self, games: np.ndarray | None = None) -> np.ndarray:
        games = self._all if games is None else games
        seats = self.seats[games]
        vectors = with_features(self.engine.observe(seats, games), self.feature_builders, self.engine, games, seats)
        if self.critic_state is None:
            return vectors
        hidden = self.critic_state(self.engine.hands[games], self.seats[games])
        return np.concatenate([vectors, hidden], axis=1)

    # ----------------------------------------------------------------- API
    def reset(self) -> np.ndarray:
        self._episodes[:] = 0
        self._start(self._all)
        self.reset_infos = [{"seat": int(s)} for s in self.seats]
        return self._observe()

    def step_async(self, actions: np.ndarray) -> None:
        """One action number per game: see :func:`action_numbers`."""
        self._actions = action_numbers(actions, self.num_envs)

    def step_wait(self):
        engine = self.engine
        deals = engine.deals_dealt
        engine.step(self._actions)
        self._fresh[:] = False
        rewards = engine.rewards[self._all, self.seats] + self._carry
        self._carry[:] = 0.0
        rewards += self._play_opponents()[0]
        dones = self._finished()
        ended = (engine.deals_dealt != deals).tolist()
        infos: list[dict[str, Any]] = [{"seat": int(s)} if done else {"seat": int(s), "deal_ended": e}
                                       for s, done, e in zip(self.seats.tolist(), dones.tolist(), ended,
                                                             strict=True)]
        finished = np.flatnonzero(dones)
        if finished.size:
            terminal = self._observe(finished)
            returns = engine.returns()
            for k, g in enumerate(finished):
                infos[g]["terminal_observation"] = terminal[k]
                infos[g]["returns"] = float(returns[g, self.seats[g]])
            self._start(finished)
        return self._observe(), rewards.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        """``(num_envs, 27)`` bool: the learner's legal actions in each game (MaskablePPO); with
        ``exchange="expected_value"`` only that agent's exchange of the legal ones (commerce_env.exchange_limit)."""
        return self.exchange_limit(self.engine.action_mask, self.engine, self._all, self.seats)

    def close(self) -> None:
        pass

    def seed(self, seed: int | None = None) -> list[int | None]:
        seed = checked_seed(seed)
        self._rng = np.random.default_rng(seed)
        return [seed] * self.num_envs

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        if attr_name == "action_masks":  # sb3-contrib asks each env for its mask method
            masks = self.action_masks()
            return [(lambda m=m: m) for m in masks[self._indices(indices)]]
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        if method_name == "action_masks":
            return list(self.action_masks()[self._indices(indices)])
        if method_name == "add_snapshot":
            return [self.add_snapshot(*method_args, **method_kwargs)] * len(self._indices(indices))
        method = getattr(self, method_name)
        return [method(*method_args, **method_kwargs)] * len(self._indices(indices))

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def _indices(self, indices) -> np.ndarray:
        if indices is None:
            return self._all
        if isinstance(indices, int):
            return np.array([indices])
        return np.asarray(indices)
