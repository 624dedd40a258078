"""Batched simulation: :class:`BatchEngine` (numba); the Gymnasium vector env over it,
:class:`CommerceVectorEnv` (``gymnasium.make_vec("commerce/Commerce-v0", num_envs=N, ...)``), is
importable from here too.

Needs the ``vector`` extra (numba); ``import commerce_env`` does not import
this package.  See docs/architecture.md, and docs/performance.md.
"""

from __future__ import annotations

from typing import Any

from .engine import BatchEngine

__all__ = ["BatchEngine", "CommerceVectorEnv", "UniformRandom", "action_numbers"]
FRONT_END_NAMES = ("CommerceVectorEnv", "UniformRandom", "action_numbers")


def __getattr__(name: str) -> Any:
    """The vector env's names, from :mod:`commerce_env.vector_env` when first asked for: the front-end
    lives beside the other front-ends and imports this package, so importing it here would be a circle."""
    if name in FRONT_END_NAMES:
        from .. import vector_env

        return getattr(vector_env, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
