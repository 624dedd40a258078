"""The SB3 ``VecEnv`` of the batched games: a thin adapter over
:class:`commerce_env.vector.CommerceVectorEnv` (the Gymnasium vector env).

SB3 and sb3-contrib's MaskablePPO want flat observations, a 4-tuple ``step``, one info
dict per env with ``terminal_observation`` where an episode ended, and ``action_masks()``;
the game, the opponents and the autoreset are the Gymnasium env's.  Each info also says
the learner's ``seat``, and where the episode goes on whether its next decision is in a
later deal (``"deal_ended"``, :mod:`training.deal_episodes`); where it ended, the match's
``returns`` for the learner.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from commerce_env.env_arguments import checked_seed
from commerce_env.vector_env import CommerceVectorEnv


class BatchVecEnv(VecEnv):
    """``num_envs`` single-agent games stepped together (SB3's API over :class:`CommerceVectorEnv`)."""

    def __init__(self, variant: str, num_players: int, num_envs: int, opponents: Sequence[Any] = ("random",),
                 seed: int = 0, resolver: Callable[..., Any] | None = None, **kwargs: Any):
        for name in ("action_mask", "autoreset_mode"):  # SB3's API fixes both: action_masks(), its own reset
            if name in kwargs:
                raise ValueError(f"{name}: the SB3 VecEnv takes none (masks come from action_masks()), "
                                 f"got {kwargs[name]!r}")
        self.env = CommerceVectorEnv(num_envs, variant, num_players, opponents=opponents, seed=seed,
                                     resolver=resolver, **kwargs)
        self.render_mode = None
        self._all = np.arange(num_envs)
        self._actions: Any = None
        super().__init__(num_envs, self.env.single_observation_space["observation"], self.env.single_action_space)

    def __getattr__(self, name: str) -> Any:  # rules, engine, seats, features, add_snapshot, ...
        if name == "env":
            raise AttributeError(name)
        return getattr(self.env, name)

    def reset(self) -> np.ndarray:
        observations, _ = self.env.reset()
        self.reset_infos = [{"seat": int(s)} for s in self.env.seats]
        return observations["observation"]

    def step_async(self, actions: np.ndarray) -> None:
        """One action number per game (checked when stepped: :func:`commerce_env.vector.action_numbers`)."""
        self._actions = actions

    def step_wait(self):
        rewards, dones, deal_ended, finished, final, returns, seats = self.env.play(self._actions)
        infos: list[dict[str, Any]] = [{"seat": int(s)} if done else {"seat": int(s), "deal_ended": e}
                                       for s, done, e in zip(self.env.seats.tolist(), dones.tolist(),
                                                             deal_ended.tolist(), strict=True)]
        for k, g in enumerate(finished.tolist()):
            infos[g]["seat"] = int(seats[k])
            infos[g]["terminal_observation"] = final[k]
            infos[g]["returns"] = float(returns[k])
        return self.env.observation_vectors(), rewards.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        """``(num_envs, 27)`` bool: the learner's legal actions in each game (MaskablePPO)."""
        return self.env.action_masks()

    def close(self) -> None:
        self.env.close()

    def seed(self, seed: int | None = None) -> list[int | None]:
        seed = checked_seed(seed)
        self.env._rng = np.random.default_rng(seed)
        return [seed] * self.num_envs

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        if attr_name == "action_masks":  # sb3-contrib asks each env for its mask method
            masks = self.action_masks()
            return [(lambda m=m: m) for m in masks[self._indices(indices)]]
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self.env if hasattr(self.env, attr_name) else self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        if method_name == "action_masks":
            return list(self.action_masks()[self._indices(indices)])
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


def first_compile_notice(folder: Path | None = None) -> str | None:
    """A line to print before the batched engine's first use after an install or an edit, when numba
    compiles it (the kernels are cached on disk: later processes load them in a second); ``folder``:
    where the engine's step kernel is cached (default: the folder :mod:`commerce_env.vector.compiled`
    gave it)."""
    from commerce_env.vector import kernels

    folder = Path(kernels.step_games._cache._cache_path) if folder is None else folder
    if any(folder.glob("kernels.step_games-*.nbi")):
        return None
    return "Compiling the batched engine with numba (once per install; later runs load it from the cache):"


def make_vec_env(variant: str, num_players: int, num_envs: int, opponents: Any = ("greedy",), seed: int = 0,
                 resolver: Any = None, **options: Any) -> BatchVecEnv:
    """An SB3 ``VecEnv`` of ``num_envs`` single-agent games over one batched engine.

    ``opponents`` are objects with ``act_batch``, or specs (``"greedy"``, ``{"agent": "greedy",
    "quantile": 0.7}``, ``"model:<path>"``) turned into them by ``resolver``; by default
    :func:`agents.batched.batched_agent`, found through the ``commerce_rl.batch_resolvers`` entry point.
    """
    return BatchVecEnv(variant, num_players, num_envs, opponents=opponents, seed=seed, resolver=resolver,
                       **options)
