"""The agent interface: an observation (with its action mask) in, an action out.

Every agent can sit in any seat of ``commerce_env.env``.  ``act`` receives the
observation dict of the AEC env and, optionally, the live engine state
(``env.unwrapped.game``).  Agents must not read hidden cards from that state:
it is there for agents that need the public facts in a convenient form, and
for search agents, which may only clone it and re-deal what they cannot see.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from commerce_env.engine.base import Game
from commerce_env.rules import Rules

FACE_DOWN_VERBS = ("ready_money", "offer", "give")


def public_text(text: str, actor: int, observer: int) -> str:
    """What ``observer`` learns of ``actor``'s action ``text`` (R11).

    A discard and a bartered card are face down: others learn only the kind
    of action (``offer``), the actor his own card.  Everything else is public.
    """
    verb = text.split(" ", 1)[0]
    return text if observer == actor or verb not in FACE_DOWN_VERBS else verb


class Agent:
    """Base class: override :meth:`act`; :meth:`reset` and :meth:`observe` are optional hooks."""

    name = "agent"

    def reset(self, seat: int, num_players: int, rules: Rules, seed: int | None = None) -> None:
        """A new match begins; the agent sits in ``seat``."""

    def observe(self, seat: int, text: str) -> None:
        """The player in ``seat`` (maybe this one) took an action; ``text`` is
        what this agent may know of it (:func:`public_text`, R11)."""

    def act(self, observation: Mapping[str, np.ndarray], game: Game | None = None) -> int:
        raise NotImplementedError


class RandomAgent(Agent):
    """Uniform over the legal actions: the floor every other agent must clear."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def reset(self, seat: int, num_players: int, rules: Rules, seed: int | None = None) -> None:
        if seed is not None:
            self.rng.seed(seed)

    def act(self, observation: Mapping[str, np.ndarray], game: Game | None = None) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("no legal action in the mask")
        return int(legal[self.rng.randrange(legal.size)])


def _greedy(**kwargs: Any) -> Agent:
    from .heuristics import GreedyAgent

    return GreedyAgent(**kwargs)


def _expected_value(**kwargs: Any) -> Agent:
    from .heuristics import ExpectedValueAgent

    return ExpectedValueAgent(**kwargs)


def _search(**kwargs: Any) -> Agent:
    from .search import SearchAgent

    return SearchAgent(**kwargs)


AGENTS: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "greedy": _greedy,
    "expected_value": _expected_value,
    "search": _search,
}


def is_model_spec(spec: str) -> bool:
    """A learned model: ``model:<path>`` or a path ending in ``.json``."""
    return spec.startswith("model:") or spec.endswith(".json")


def make_agent(name: str, **kwargs: Any) -> Agent:
    """A built-in agent by name (``random``, ``greedy``, ``expected_value``,
    ``search``), a learned one from ``model:<path>`` or ``<path>.json``, or an
    OpenSpiel bot from ``openspiel:<bot>`` (``openspiel:ismcts``)."""
    if not isinstance(name, str):
        raise TypeError(f"an agent spec is a name or a model path, got {name!r}")
    if name.startswith("openspiel:"):  # an OpenSpiel bot (extra openspiel), see agents/openspiel.py
        from .openspiel import make_openspiel_agent

        return make_openspiel_agent(name[len("openspiel:"):], **kwargs)
    if is_model_spec(name):
        path = name[len("model:"):] if name.startswith("model:") else name
        try:
            from .learned import load_agent
        except ImportError as error:
            raise ValueError(f"cannot load learned model {path!r}: agents.learned is not available "
                             f"({error})") from None
        return load_agent(path, **kwargs)
    try:
        factory = AGENTS[name]
    except KeyError:
        raise ValueError(f"unknown agent {name!r}; choose from {', '.join(sorted(AGENTS))}, "
                         "a model as model:<path> or <path>.json, or openspiel:<bot>") from None
    return factory(**kwargs)
