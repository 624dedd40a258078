"""Playing one game: each seat's agent is handed only its seat view (R11), never the engine."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from commerce_env.engine.actions import BadActionError, check_action
from commerce_env.engine.base import Game
from commerce_env.policies import listens
from commerce_env.view import public_text, seat_view

from .base import Agent


def play_game(game: Game, agents: Sequence[Agent], seeds: Sequence[int | None] | None = None) -> list[float]:
    """Play ``game`` (a fresh match) to its end with one agent per seat, each given only
    seat views (:func:`commerce_env.view.seat_view`, R11); the returns by seat."""
    n = game.num_players
    if len(agents) != n:
        raise ValueError(f"{n} seats need {n} agents, got {len(agents)}")
    for seat, agent in enumerate(agents):
        if hasattr(agent, "reset"):
            agent.reset(seat, n, copy.copy(game.rules), None if seeds is None else seeds[seat])  # its own
    watchers = [(s, agent) for s, agent in enumerate(agents) if listens(agent)]
    while not game.over:
        seat = game.current_player
        action = _checked_action(agents[seat], agents[seat].act(seat_view(game, seat)))
        entry = len(game.record)
        game.apply(action)
        for watcher_seat, agent in watchers:
            agent.observe(seat, public_text(game, entry, watcher_seat))
    return game.returns()


def _checked_action(agent: Agent, action: object) -> int:
    """An agent's action as an int; anything but an integer is the agent's bug, named."""
    try:
        return check_action(action)
    except BadActionError as error:
        name = getattr(agent, "name", type(agent).__name__)
        raise BadActionError(f"agent {name!r} returned {action!r}: {error}") from None


def play_env_episode(env: Any, agents: Mapping[str, Agent], seed: int | None = None,
                     options: dict | None = None) -> dict[str, float]:
    """Any agents in any seats of a ``commerce_env.env``: one episode, returns by agent name."""
    env.reset(seed=seed, options=options)
    game = env.unwrapped.game
    seats = {name: seat for seat, name in enumerate(env.possible_agents)}
    for name, seat in seats.items():
        agents[name].reset(seat, len(seats), copy.copy(game.rules), seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for name in env.agent_iter():
        _, reward, termination, truncation, _ = env.last(observe=False)
        totals[name] += reward
        if termination or truncation:
            env.step(None)
            continue
        env.step(agents[name].act(env.unwrapped.seat_view(name)))
    return totals
