"""Policies that play Commerce through seat views, and the arena that pits them.

Importing ``agents`` registers :func:`agents.make_agent` as the resolver of
opponent specs (``"greedy"``, ``"model:<path>"``) for the single-agent env.
``agents.evaluate_agent``, ``agents.run_arena`` and ``agents.save_policy`` are
imported when first used (docs/agents.md, "Write your own agent").
"""

from typing import Any

from commerce_env.policies import register_resolver

from .base import Agent, RandomAgent
from .specs import AGENTS, make_agent

register_resolver(make_agent)

__all__ = ["AGENTS", "Agent", "RandomAgent", "evaluate_agent", "make_agent", "run_arena", "save_policy"]
_LAZY = {"evaluate_agent": ".evaluate", "run_arena": ".arena", "save_policy": ".policy_export"}


def __getattr__(name: str) -> Any:
    """The arena's functions and :func:`~agents.policy_export.save_policy`, imported on first use:
    ``import agents`` stays light for the env's opponent resolver."""
    if name not in _LAZY:
        raise AttributeError(f"module 'agents' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(_LAZY[name], __name__), name)
