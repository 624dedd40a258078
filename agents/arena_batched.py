"""The arena's batched path: every seating of many duplicate groups played at once in one
:class:`commerce_env.vector.BatchEngine`, for lineups of deterministic batchable agents.

It is used only where it gives exactly the local path's result (:func:`applies`): single
deals (``deals=1``) of a variant whose deals cannot settle before a decision (no dealt
flush, R7.3, so each game uses only its given pack), with agents that decide without
randomness and have a batched form (``greedy``, learned models).  The packs, the seatings
and the order of the records are the local path's (:mod:`agents.seating`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from commerce_env.engine import ENGINES
from commerce_env.rules import Rules

from .seating import group_deal

GROUPS_PER_BATCH = 64


def _deterministic_batchable(spec: Any) -> bool:
    from .heuristics import GreedyAgent
    from .learned import LearnedAgent
    from .specs import is_model_spec

    if isinstance(spec, str):
        return spec == "greedy" or is_model_spec(spec)
    if isinstance(spec, LearnedAgent):
        return spec.deterministic
    return type(spec) is GreedyAgent


def applies(lineup: Sequence[Any], rules: Rules) -> bool:
    """Whether the batched path gives this arena exactly the local path's result."""
    if rules.deals != 1 or ENGINES[rules.variant].flush_ends_deal:
        return False
    if not all(_deterministic_batchable(spec) for spec in lineup):
        return False
    try:
        import commerce_env.vector  # noqa: F401 - the extra `vector` (numba) may be absent
    except ImportError:
        return False
    return True


def play_groups(agents: dict[int, Any], plan: list[list[int]], rules: Rules, num_players: int, seed: int,
                groups: int, duplicate: bool) -> Iterator[tuple[int, list[tuple[list[int], list[float], int]]]]:
    """``(group, games)`` as :func:`agents.arena._play_group` gives them, ``GROUPS_PER_BATCH`` groups a batch.

    ``agents`` maps each agent index of the seatings to its agent (or spec)."""
    from commerce_env.vector import BatchEngine

    from .batched import batched_agent

    batched = {a: batched_agent(spec, rules, num_players) for a, spec in agents.items()}
    for first in range(0, groups, GROUPS_PER_BATCH):
        chunk = list(range(first, min(groups, first + GROUPS_PER_BATCH)))
        decks, seats_of = [], []
        for group in chunk:
            packs = group_deal(rules, num_players, seed, group, len(plan))[0]
            for index, seating in enumerate(plan):
                if not duplicate:
                    packs = group_deal(rules, num_players, seed, f"{group}/{index}")[0]
                decks.append(packs)
                seats_of.append(seating)
        holder = np.asarray(seats_of, dtype=np.int64)  # agent index by (game, seat)
        engine = BatchEngine(rules.variant, num_players, len(decks), rules=rules)
        engine.reset(decks=decks, dealer=0)
        while not engine.over.all():
            to_act = engine.current_player
            live = np.flatnonzero(to_act >= 0)
            actions = np.zeros(len(decks), dtype=np.int64)
            who = holder[live, to_act[live]]
            for a, agent in batched.items():
                games = live[who == a]
                if len(games):
                    actions[games] = agent.act_batch(engine, games, to_act[games])
            engine.step(actions, where=to_act >= 0)
        returns = engine.returns()
        for offset, group in enumerate(chunk):
            rows = range(offset * len(plan), (offset + 1) * len(plan))
            yield group, [(list(seats_of[r]), [float(x) for x in returns[r]], 1) for r in rows]
