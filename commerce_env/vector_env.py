"""A Gymnasium ``VectorEnv`` of single-agent Commerce games over one :class:`BatchEngine`.

``gymnasium.make_vec("commerce/Commerce-v0", num_envs=N, variant=..., num_players=...,
opponents=[...], **options)`` returns it (the env id's ``vector_entry_point``).  Each of
the ``num_envs`` games is what :class:`commerce_env.single_agent.CommerceEnv` is for one:
a learner in one seat (``seat="rotate"``: the next seat every episode; ``"random"``; or
a number), the other seats played by opponents drawn per episode from a pool (and from
self-play snapshots), the learner's own reward between two of its decisions (opponents'
moves and settlements included), the AEC observation vector plus the optional
``features``.  Opponents act for all games at once through the ``act_batch(engine, games,
seats)`` protocol (:mod:`agents.batched`, found through the ``commerce_rl.batch_resolvers``
entry point, so that this package imports nothing of ``agents``).

Observations are ``{"observation": float32 (N, size), "action_mask": int8 (N, 27)}``, the
AEC env's layout batched: the mask travels with the observation, so a rollout buffer that
stores observations stores the masks a masked policy needs at update time, and after an
autoreset the mask is the new episode's.  ``action_masks()`` gives the same masks as bool.
With ``action_mask="info"`` the observation is the float32 array alone and the masks go
to ``infos["action_mask"]`` (bool, ``(N, 27)``): the shape that libraries built around
Box observations read, such as TorchRL's ``GymWrapper`` (whose reader of final
observations takes arrays, not dicts) with its ``ActionMask`` transform (docs/libraries.md).

Autoreset is Gymnasium's ``SAME_STEP`` mode by default (``metadata["autoreset_mode"]``):
when a game's match ends, ``step`` returns the first observation of its next episode, with
the final one in ``infos["final_obs"]`` and the learner's match return in
``infos["final_info"]["returns"]`` (each with its ``_`` mask).  This is the contract a
CleanRL-style loop assumes (``next_done`` marks the boundary; no step to skip).  With
``autoreset_mode="next_step"`` (Gymnasium's own default, which its vector observation
wrappers and TorchRL expect) ``step`` returns the final observation itself, the return in
``infos["returns"]``, and the next ``step`` restarts that game, ignoring its action (reward 0).

A learner action that is not legal raises ``ValueError`` naming the game (a masked
policy never takes one); with ``illegal_action="terminate"`` it ends that game's episode
instead, with reward -1, as the single-agent env does by default (PettingZoo's convention,
for tools that probe an env with unmasked random actions).  Actions are integers, or floats
that are whole action numbers (:func:`action_numbers`).  No stable_baselines3 or torch is needed: the SB3 ``VecEnv``
is an adapter over this class in :mod:`training.vec_env`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .checks import flag, whole_number
from .engine.actions import NUM_ACTIONS
from .env_arguments import ILLEGAL_REWARD, check_game_count, checked_illegal_action, checked_seed
from .features import feature_names
from .opponents import OpponentPool
from .options import DEFAULT_PLAYERS, DEFAULT_VARIANT
from .policies import RandomPolicy, entry_point_resolver
from .rules import make_rules
from .vector.engine import BatchEngine
from .vector.features import batch_feature_builders, with_features

BATCH_RESOLVER_ENTRY_POINTS = "commerce_rl.batch_resolvers"
MAX_REDEALS = 1000


def checked_vector_seed(seed: Any) -> int | None:
    """A ``seed`` as :func:`commerce_env.env_arguments.checked_seed` takes it, and from 0: the batched
    engine's generators (numpy's) take no negative seed, so one is a ``ValueError`` naming ``seed``
    (where the AEC env, seeding Python's generator, takes -1 as it takes 1)."""
    seed = checked_seed(seed)
    if seed is not None and seed < 0:
        raise ValueError(f"seed must be an integer from 0 or None (numpy's generators take no negative seed), "
                         f"got {seed!r}")
    return seed


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


class Played(NamedTuple):
    """What one :meth:`CommerceVectorEnv.play` did, per game, and for the games whose episode ended."""

    rewards: np.ndarray
    """the learner's reward in each game"""
    dones: np.ndarray
    """where its episode ended"""
    deal_ended: np.ndarray
    """where a deal ended with the step"""
    finished: np.ndarray
    """the indices of the ended games"""
    final_observations: np.ndarray
    """their final observation vectors, one row each"""
    final_returns: np.ndarray
    """the learner's return of each ended match"""
    final_seats: np.ndarray
    """the learner's seat in each ended match"""


UniformRandom = RandomPolicy
"""The uniform random policy (:class:`commerce_env.policies.RandomPolicy`): the one opponent known
without a resolver; this name is kept for code that imports it from :mod:`commerce_env.vector`."""


def default_batch_resolver() -> Callable[..., Any] | None:
    """The batched agents' resolver an installed package offers (commerce-rl: ``agents.batched``)."""
    return entry_point_resolver(BATCH_RESOLVER_ENTRY_POINTS)


class CommerceVectorEnv(VectorEnv):
    """``num_envs`` single-agent games stepped together; see the module docstring."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 8, variant: str = DEFAULT_VARIANT, num_players: int = DEFAULT_PLAYERS,
                 opponents: Sequence[Any] | OpponentPool = ("random",), seed: int | None = None,
                 opponent_weights: Sequence[float] | None = None, seat: int | str = "rotate",
                 features: Sequence[str] = (), snapshot_share: float = 0.5, max_snapshots: int = 5,
                 resolver: Callable[..., Any] | None = None, end_when_out: bool = False,
                 illegal_action: str = "raise", autoreset_mode: str | AutoresetMode = "same_step",
                 action_mask: str = "observation", **options: Any):
        try:
            mode = AutoresetMode(autoreset_mode) if isinstance(autoreset_mode, AutoresetMode) else {
                "same_step": AutoresetMode.SAME_STEP, "next_step": AutoresetMode.NEXT_STEP}[autoreset_mode]
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"bad autoreset_mode {autoreset_mode!r}; choose same_step or next_step") from None
        if mode not in (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP):
            raise ValueError(f"bad autoreset_mode {autoreset_mode!r}; choose same_step or next_step")
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        checked_illegal_action(illegal_action)
        if not isinstance(action_mask, str) or action_mask not in ("observation", "info"):
            raise ValueError(f"bad action_mask {action_mask!r}; choose observation (in the observation dict) or "
                             f"info (in infos['action_mask'])")
        flag("end_when_out", end_when_out)
        rules = make_rules(variant, **options)
        rules.check_players(num_players)
        if seat not in ("rotate", "random"):
            whole_number("seat (rotate, random or a seat)", seat, 0, num_players - 1)
        check_game_count("num_envs", num_envs)
        seed = checked_vector_seed(seed)
        specs = opponents if isinstance(opponents, OpponentPool) else OpponentPool(
            opponents, opponent_weights, snapshot_share, max_snapshots)
        if resolver is None:  # the batched agents, found as a plugin: commerce_env imports no agent
            resolver = default_batch_resolver()
        self.rules = rules
        self.variant = variant
        self.num_players = num_players
        self.num_envs = num_envs
        self.engine = BatchEngine(variant, num_players, num_envs, seed=seed or 0, rules=rules)
        self.resolver = resolver
        self.illegal_action = illegal_action
        # The pool's entries resolved to batched policies, once; the pool chooses among them.
        self.opponent_pool = OpponentPool([self._resolve(spec) for spec in specs.entries], specs.weights,
                                          specs.snapshot_share, specs.max_snapshots)
        for policy, path in zip(specs.snapshots, specs.snapshot_paths, strict=True):
            self.opponent_pool.add_snapshot(self._resolve(policy), path)
        self.features = feature_names(features)
        self.feature_builders = batch_feature_builders(self.features, rules, num_players)
        self.observation_size = self.engine.obs_size + sum(f.size for f in self.feature_builders)
        self.mask_in_info = action_mask == "info"
        vectors = spaces.Box(low=-np.inf, high=np.inf, shape=(self.observation_size,), dtype=np.float32)
        self.single_observation_space = vectors if self.mask_in_info else spaces.Dict({
            "observation": vectors, "action_mask": spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8)})
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.render_mode = None
        self.autoreset_mode = self.metadata["autoreset_mode"]  # as SyncVectorEnv says it (TorchRL reads it)
        self.seat_mode = seat
        self.end_when_out = end_when_out
        self._seed = seed
        self._rng = np.random.default_rng(seed)
        self._all = np.arange(num_envs)
        self._episodes = np.zeros(num_envs, dtype=np.int64)
        self.seats = np.zeros(num_envs, dtype=np.int64)
        self._assigned = np.zeros((num_envs, num_players), dtype=np.int64)  # index into opponents()
        self._carry = np.zeros(num_envs, dtype=np.float64)
        self._fresh = np.zeros(num_envs, dtype=np.bool_)  # the learner has not decided yet in this match
        self._started = False
        self._pending = np.zeros(num_envs, dtype=np.bool_)  # next_step: episodes ended, restarted by the next step

    def _resolve(self, spec: Any) -> Any:
        if hasattr(spec, "act_batch"):
            return spec
        if self.resolver is not None:
            return self.resolver(spec, self.rules, self.num_players)
        if spec == "random":
            return RandomPolicy()
        raise ValueError(f"opponent {spec!r}: give objects with act_batch(engine, games, seats), or install "
                         f"commerce-rl's agents (resolver agents.batched.batched_agent) for names such as 'greedy'")

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
            self._assigned[pending] = self.opponent_pool.draw_many(self._rng, (len(pending), self.num_players))
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
            who = self._assigned[games, players[games]]
            actions = np.zeros(self.num_envs, dtype=np.int64)
            for k in np.unique(who):
                chosen = games[who == k]
                actions[chosen] = opponents[k].act_batch(engine, chosen, players[chosen])
            engine.step(actions, where=waiting)
            earned += engine.rewards[self._all, self.seats]

    def observation_vectors(self, games: np.ndarray | None = None) -> np.ndarray:
        """The learner's observation vectors (features included) in ``games``."""
        games = self._all if games is None else games
        seats = self.seats[games]
        return with_features(self.engine.observe(seats, games), self.feature_builders)

    def action_masks(self) -> np.ndarray:
        """``(num_envs, 27)`` bool: the learner's legal actions in each game."""
        return self.engine.action_mask.astype(bool)

    def _observations(self, infos: dict[str, Any], ended: np.ndarray | None = None) -> Any:
        """The observations, with each game's mask in them or in ``infos`` (:attr:`mask_in_info`);
        the ``ended`` games' masks are all zero (nobody acts at an episode's end)."""
        masks = self.engine.action_mask.copy()
        if ended is not None:
            masks[ended] = 0
        if not self.mask_in_info:
            return {"observation": self.observation_vectors(), "action_mask": masks}
        infos["action_mask"], infos["_action_mask"] = masks.astype(bool), np.ones(self.num_envs, bool)
        return self.observation_vectors()

    def _final_observation(self, vector: np.ndarray, nobody_acts: np.ndarray) -> Any:
        return vector if self.mask_in_info else {"observation": vector, "action_mask": nobody_acts}

    # ----------------------------------------------------------------- the core step, shared with SB3's adapter
    def play(self, actions: Any, restart: bool = True, waiting: np.ndarray | None = None) -> Played:
        """The learner's ``actions`` in every game (but the ``waiting`` ones, whose episode ended
        and which have not restarted yet), then the opponents up to its next decision: see
        :class:`Played`.  With ``restart`` the ended games are restarted at once.  Raises
        ``ValueError`` for a bad or illegal action, changing nothing."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        chosen = action_numbers(actions, self.num_envs)
        engine = self.engine
        deals = engine.deals_dealt
        skip = np.zeros(self.num_envs, dtype=np.bool_) if waiting is None else waiting
        illegal = np.zeros(self.num_envs, dtype=np.bool_)
        if self.illegal_action == "terminate":  # those games' episodes end unplayed, paying -1
            inside = (chosen >= 0) & (chosen < NUM_ACTIONS)
            illegal = ~inside
            illegal[inside] = ~self.action_masks()[inside, chosen[inside]]
            illegal &= ~skip
        idle = illegal | skip
        engine.step(np.where(idle, 0, chosen), where=~idle if idle.any() else None)
        self._fresh[:] = False
        rewards = engine.rewards[self._all, self.seats] + self._carry
        self._carry[:] = 0.0
        rewards += self._play_opponents()[0]
        rewards[illegal] = ILLEGAL_REWARD
        rewards[skip] = 0.0
        dones = (self._finished() | illegal) & ~skip
        deal_ended = engine.deals_dealt != deals
        finished = np.flatnonzero(dones)
        final = (self.observation_vectors(finished) if finished.size
                 else np.zeros((0, self.observation_size), np.float32))
        returns = engine.returns()[finished, self.seats[finished]] if finished.size else np.zeros(0)
        returns[illegal[finished]] = ILLEGAL_REWARD  # a match given up by an illegal action
        played = Played(rewards, dones, deal_ended, finished, final, returns, self.seats[finished].copy())
        if finished.size and restart:
            self._start(finished)
        return played

    # ----------------------------------------------------------------- Gymnasium's API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start every game afresh: ``(observations, infos)``; a ``seed`` makes the deals and draws exact."""
        seed = checked_vector_seed(seed)
        if options is not None and options != {}:
            raise ValueError(f"options: the vector env takes none, got {options!r} (rule options go to make_vec)")
        if seed is not None:
            self.engine = BatchEngine(self.variant, self.num_players, self.num_envs, seed=seed, rules=self.rules)
            self._rng = np.random.default_rng(seed)
        self._episodes[:] = 0
        self._carry[:] = 0.0
        self._pending[:] = False
        self._started = True
        self._start(self._all)
        infos = {"seat": self.seats.copy(), "_seat": np.ones(self.num_envs, bool)}
        return self._observations(infos), infos

    def step(self, actions: Any):
        """``(observations, rewards, terminations, truncations, infos)``, arrays of length ``num_envs``."""
        if self.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP:
            return self._step_next(actions)
        rewards, dones, deal_ended, finished, final, final_returns, final_seats = self.play(actions)
        seat_after = self.seats.copy()
        infos: dict[str, Any] = {"seat": seat_after, "_seat": np.ones(self.num_envs, bool),
                                 "deal_ended": deal_ended & ~dones, "_deal_ended": ~dones}
        if finished.size:
            final_obs = np.full(self.num_envs, None, dtype=object)
            nobody_acts = np.zeros(NUM_ACTIONS, np.int8)  # the mask at a match's end; shared, read-only
            nobody_acts.flags.writeable = False
            for k, g in enumerate(finished.tolist()):
                final_obs[g] = self._final_observation(final[k], nobody_acts)
            returns = np.zeros(self.num_envs)
            returns[finished] = final_returns
            seats = np.zeros(self.num_envs, dtype=np.int64)
            seats[finished] = final_seats
            infos["final_obs"], infos["_final_obs"] = final_obs, dones.copy()
            infos["final_info"] = {"returns": returns, "_returns": dones.copy(), "seat": seats, "_seat": dones.copy()}
            infos["_final_info"] = dones.copy()
        truncations = np.zeros(self.num_envs, dtype=np.bool_)
        return self._observations(infos), rewards, dones, truncations, infos

    def _step_next(self, actions: Any):
        """Gymnasium's ``NEXT_STEP`` autoreset: an episode's last observation now, its restart next step."""
        waiting = self._pending.copy()
        rewards, dones, deal_ended, finished, _, final_returns, _ = self.play(actions, restart=False, waiting=waiting)
        if waiting.any():  # restarted now: their first observation, reward 0 (what a reset paid comes later)
            self._start(np.flatnonzero(waiting))
        self._pending = dones.copy()
        returns = np.zeros(self.num_envs)
        returns[finished] = final_returns
        infos: dict[str, Any] = {"seat": self.seats.copy(), "_seat": np.ones(self.num_envs, bool),
                                 "deal_ended": deal_ended & ~dones & ~waiting, "_deal_ended": ~dones & ~waiting,
                                 "returns": returns, "_returns": dones.copy()}
        observations = self._observations(infos, ended=dones)
        return observations, rewards, dones, np.zeros(self.num_envs, dtype=np.bool_), infos

    def close_extras(self, **kwargs: Any) -> None:
        pass
