"""Policies that play Commerce through seat views, and the arena that pits them.

Importing ``agents`` registers :func:`agents.make_agent` as the resolver of
opponent specs (``"greedy"``, ``"model:<path>"``) for the single-agent env, and
:func:`agents.batched.batched_agent` for the batched one.
"""

from commerce_env.policies import register_batched_resolver, register_resolver

from .base import Agent, RandomAgent
from .specs import AGENTS, make_agent


def _batched_agent(spec, *args, **kwargs):
    """:func:`agents.batched.batched_agent`, imported when first used (it needs numba)."""
    from .batched import batched_agent

    return batched_agent(spec, *args, **kwargs)


register_resolver(make_agent)
register_batched_resolver(_batched_agent)

__all__ = ["AGENTS", "Agent", "RandomAgent", "make_agent"]
