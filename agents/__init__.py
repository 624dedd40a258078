"""Policies that play Commerce through seat views, and the arena that pits them.

Importing ``agents`` registers :func:`agents.make_agent` as the resolver of
opponent specs (``"greedy"``, ``"model:<path>"``) for the single-agent env.
"""

from commerce_env.policies import register_resolver

from .base import Agent, RandomAgent
from .specs import AGENTS, make_agent

register_resolver(make_agent)

__all__ = ["AGENTS", "Agent", "RandomAgent", "make_agent"]
