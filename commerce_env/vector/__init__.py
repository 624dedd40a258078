"""Batched simulation: :class:`BatchEngine` (numba) and the Gymnasium vector env over it,
:class:`CommerceVectorEnv` (``gymnasium.make_vec("commerce/Commerce-v0", num_envs=N, ...)``).

Needs the ``vector`` extra (numba); ``import commerce_env`` does not import
this package.  See docs/architecture.md, and docs/performance.md.
"""

from __future__ import annotations

from .engine import BatchEngine
from .gym_vector import CommerceVectorEnv, UniformRandom, action_numbers

__all__ = ["BatchEngine", "CommerceVectorEnv", "UniformRandom", "action_numbers"]
