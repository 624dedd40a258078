"""The agent interface: a seat view in, an action out.

Every agent can sit in any seat.  ``act`` receives a
:class:`commerce_env.view.SeatView`: plain data holding exactly what its seat
knows (docs/rules.md R11), never the live engine.  ``view["observation"]`` and
``view["action_mask"]`` are the AEC env's observation; search agents deal
the cards they cannot see with ``view.sample_world(rng)``.
"""

from __future__ import annotations

import numpy as np

from commerce_env.engine.actions import NUM_ACTIONS
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

    def action_probabilities(self, view: SeatView) -> np.ndarray:
        """How likely this agent is to take each of the 27 actions in ``view``: what a best response
        weighs the hidden cards by (:mod:`agents.belief`).  By default one-hot on :meth:`act`: exact
        for an agent that decides without chance; for one that draws, an unbiased estimate (one
        draw).  An agent whose policy is a distribution says so by overriding this."""
        probabilities = np.zeros(NUM_ACTIONS)
        probabilities[self.act(view)] = 1.0
        return probabilities


class RandomAgent(RandomPolicy, Agent):
    """Uniform over the legal actions: the floor every other agent must clear."""

    name = "random"

    def action_probabilities(self, view: SeatView) -> np.ndarray:
        """Uniform over the legal actions."""
        mask = np.asarray(view["action_mask"], dtype=np.float64)
        return mask / mask.sum()
