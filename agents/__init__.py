"""Policies that play Commerce through observations, and the arena that pits them."""

from .base import AGENTS, Agent, RandomAgent, make_agent

__all__ = ["AGENTS", "Agent", "RandomAgent", "make_agent"]
