"""Opponent policies for the single-agent env, and the resolver that makes them from specs.

A policy is any object with ``act(view) -> int`` (:mod:`commerce_env.view`);
``reset(seat, num_players, rules, seed)`` and ``observe(seat, text)`` are
optional hooks.  A spec such as ``"greedy"`` or ``"model:<path>"`` is turned
into a policy by a *resolver*, ``resolver(spec, variant=..., num_players=...)``:
the one given to the env, or the default that ``import agents`` registers
(:func:`agents.make_agent`, also found through the ``commerce_rl.resolvers``
entry point when nothing imported ``agents``).  ``commerce_env`` itself
imports no agent.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

Resolver = Callable[..., Any]
RESOLVER_ENTRY_POINTS = "commerce_rl.resolvers"
_default: Resolver | None = None


class Policy:
    """The base of policies (``agents.Agent`` derives from it): ``act`` to override,
    and the optional hooks as no-ops, so that callers can tell who listens."""

    def reset(self, seat: int, num_players: int, rules: Any, seed: int | None = None) -> None:
        """A new match begins; the policy sits in ``seat``."""

    def observe(self, seat: int, text: str) -> None:
        """The player in ``seat`` took an action; ``text`` is what this seat may know of it (R11)."""

    def act(self, view: Any) -> int:
        raise NotImplementedError


class RandomPolicy(Policy):
    """Uniform over the legal actions, of one game (``act``) or of many at once (``act_batch``, the
    vector env's opponent when none is named). ``agents.RandomAgent`` and ``agents.batched.BatchedRandom``
    are this policy."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)
        self.batch_rng = np.random.default_rng(seed)  # act_batch's draws: a row of floats per game

    def reset(self, seat: int, num_players: int, rules: Any, seed: int | None = None) -> None:
        if seed is not None:
            self.rng.seed(seed)

    def act(self, view: Any) -> int:
        legal = np.flatnonzero(view["action_mask"])
        if legal.size == 0:
            raise ValueError("no legal action in the mask")
        return int(legal[self.rng.randrange(legal.size)])

    def act_batch(self, engine: Any, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """One uniform legal action for each of ``games`` (``engine.action_mask`` rows)."""
        masks = engine.action_mask[games]
        return (self.batch_rng.random(masks.shape) * masks).argmax(axis=1)

    def action_probabilities_batch(self, engine: Any, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """Uniform over each game's legal actions."""
        masks = engine.action_mask[games].astype(np.float64)
        return masks / masks.sum(axis=1, keepdims=True)


def listens(policy: Any) -> bool:
    """Whether ``policy`` defines its own ``observe`` (not :class:`Policy`'s no-op)."""
    method = getattr(type(policy), "observe", None)
    return callable(method) and method is not Policy.observe


def register_resolver(resolver: Resolver) -> None:
    """Make ``resolver`` the default for specs given without one (``import agents`` does this)."""
    if not callable(resolver):
        raise TypeError(f"a resolver is a function spec -> policy, got {resolver!r}")
    global _default
    _default = resolver


def default_resolver() -> Resolver | None:
    """The registered resolver; failing that, one an installed package offers as an entry
    point in the group :data:`RESOLVER_ENTRY_POINTS` (commerce-rl offers ``agents.make_agent``),
    so ``gymnasium.make("commerce/Commerce-v0", opponents=["greedy"])`` works without an
    ``import agents``, while this package imports nothing of theirs (as Gymnasium's env plugins)."""
    if _default is None:
        found = entry_point_resolver(RESOLVER_ENTRY_POINTS)
        if found is not None:
            register_resolver(found)
    return _default


def entry_point_resolver(group: str) -> Resolver | None:
    """The first (by name) resolver an installed package offers in the entry-point ``group``."""
    from importlib.metadata import entry_points

    for entry in sorted(entry_points(group=group), key=lambda e: e.name):
        return entry.load()
    return None


def is_policy(obj: Any) -> bool:
    """An object that plays: it has a callable ``act``."""
    return callable(getattr(obj, "act", None)) and not isinstance(obj, (str, bytes, dict))


def resolve(spec: Any, resolver: Resolver | None, *, variant: str, num_players: int) -> Any:
    """The policy ``spec`` names: a policy object as it is, else what the resolver makes of it."""
    if is_policy(spec):
        return spec
    resolver = resolver if resolver is not None else default_resolver()
    if resolver is None:
        raise ValueError(f"opponent {spec!r} is a spec, and no resolver is registered: `import agents` "
                         "(which registers agents.make_agent), pass resolver=<function>, or give policy "
                         "objects with act(view)")
    policy = resolver(spec, variant=variant, num_players=num_players)
    if not is_policy(policy):
        raise TypeError(f"the resolver made {policy!r} of {spec!r}: not a policy with act(view)")
    return policy
