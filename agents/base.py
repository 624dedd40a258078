"""The agent interface: a seat view in, an action out.

Every agent can sit in any seat.  ``act`` receives a
:class:`commerce_env.view.SeatView`: plain data holding exactly what its seat
knows (docs/rules.md R11), never the live engine.  ``view["observation"]`` and
``view["action_mask"]`` are the AEC env's observation; search agents deal
the cards they cannot see with ``view.sample_world(rng)``.
"""

from __future__ import annotations

from commerce_env.policies import Policy, RandomPolicy
from commerce_env.rules import Rules
from commerce_env.view import SeatView


class Agent(Policy):
    """Base class: override :meth:`act`; :meth:`reset` and :meth:`observe` are optional hooks."""

    name = "agent"

    def reset(self, seat: int, num_players: int, rules: Rules, seed: int | None = None) -> None:
        """A new match begins; the agent sits in ``seat``."""

    def observe(self, seat: int, text: str) -> None:
        """The player in ``seat`` (maybe this one) took an action; ``text`` is what
        this agent may know of it (:func:`commerce_env.view.public_text`, R11)."""

    def act(self, view: SeatView) -> int:
        """The action to take, one of ``view.legal_actions``."""
        raise NotImplementedError


class RandomAgent(RandomPolicy, Agent):
    """Uniform over the legal actions: the floor every other agent must clear."""

    name = "random"
