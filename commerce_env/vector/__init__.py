"""Batched simulation: :class:`BatchEngine` (numba) and the Gymnasium vector env over it,
:class:`CommerceVectorEnv` (``gymnasium.make_vec("commerce/Commerce-v0", num_envs=N, ...)``).

Needs the ``vector`` extra (numba); ``import commerce_env`` does not import
this package.  See DESIGN.md, "Batched engine", and docs/performance.md.
"""

from __future__ import annotations

from typing import Any

from .engine import BatchEngine
from .gym_vector import CommerceVectorEnv, action_numbers

BATCH_RESOLVER_ENTRY_POINTS = "commerce_rl.batch_resolvers"


def make_vec_env(variant: str, num_players: int, num_envs: int, opponents: Any = ("greedy",), seed: int = 0,
                 resolver: Any = None, **options: Any):
    """An SB3 ``VecEnv`` of ``num_envs`` single-agent games over one :class:`BatchEngine`
    (see :mod:`commerce_env.vector.vec_env`).

    ``opponents`` are objects with ``act_batch``, or specs (``"greedy"``, ``{"agent": "greedy",
    "quantile": 0.7}``, ``"model:<path>"``) turned into them by ``resolver``; by default
    :func:`agents.batched.batched_agent`, found through the ``commerce_rl.batch_resolvers``
    entry point (as the single-agent env finds :func:`agents.make_agent`).
    """
    from .vec_env import BatchVecEnv

    if resolver is None:  # the batched agents' resolver, found as a plugin: commerce_env imports no agent
        from ..policies import entry_point_resolver

        resolver = entry_point_resolver(BATCH_RESOLVER_ENTRY_POINTS)
    return BatchVecEnv(variant, num_players, num_envs, opponents=opponents, seed=seed, resolver=resolver,
                       **options)


__all__ = ["BatchEngine", "CommerceVectorEnv", "action_numbers", "make_vec_env"]
