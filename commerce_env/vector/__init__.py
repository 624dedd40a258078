"""Batched simulation: :class:`BatchEngine` (numba) and an SB3 vector env over it.

Needs the ``vector`` extra (numba); ``import commerce_env`` does not import
this package.  See DESIGN.md, "Batched engine", and docs/performance.md.
"""

from __future__ import annotations

from typing import Any

from .engine import BatchEngine


def make_vec_env(variant: str, num_players: int, num_envs: int, opponents: Any = ("greedy",), seed: int = 0,
                 **options: Any):
    """An SB3 ``VecEnv`` of ``num_envs`` single-agent games over one :class:`BatchEngine`
    (see :mod:`commerce_env.vector.vec_env`)."""
    from .vec_env import BatchVecEnv

    return BatchVecEnv(variant, num_players, num_envs, opponents=opponents, seed=seed, **options)


__all__ = ["BatchEngine", "make_vec_env"]
