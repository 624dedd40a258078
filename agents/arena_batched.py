"""The arena's batched path: every seating of many duplicate groups played at once in one
:class:`commerce_env.vector.BatchEngine`, for lineups of deterministic batchable agents.

It gives exactly the local path's result (:func:`applies`: agents that decide without
randomness and have a batched form, ``greedy`` and learned models), for every variant,
single deals and matches alike.  The packs, the seatings and the order of the records
are the local path's (:mod:`agents.seating`).  The packs of a match do not depend on
its play: the readable engine deals deal ``k`` (every deal dealt, a dealt flush's
re-deal too, R7.3) from the group's ``k``-th given pack, and past those from the
``k - given``-th shuffle of a fresh pack by ``random.Random(game seed)``, which
nothing else draws from.  So the batched games take the given packs at reset and
wait (``wait_for_packs``) for each later one, which :class:`_LaterPacks` shuffles
exactly as the readable engine would.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from commerce_env.cards import make_pack
from commerce_env.engine.shuffle import shuffled
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


def refusal(lineup: Sequence[Any], rules: Rules) -> str | None:
    """Why the batched path cannot give this arena exactly the local path's result, or None
    where it can: every agent deterministic with a batched form, and the extra ``vector``
    (numba) installed.  Every variant and option set of ``rules`` is covered."""
    others = [spec if isinstance(spec, str) else getattr(spec, "name", type(spec).__name__)
              for spec in lineup if not _deterministic_batchable(spec)]
    if others:
        return f"{', '.join(map(repr, others))} {'has' if len(others) == 1 else 'have'} no deterministic batched form"
    try:
        import commerce_env.vector  # noqa: F401 - the extra `vector` (numba) may be absent
    except ImportError:
        return "the extra `vector` (numba) is not installed"
    return None


def applies(lineup: Sequence[Any], rules: Rules) -> bool:
    """Whether the batched path gives this arena exactly the local path's result (:func:`refusal`)."""
    return refusal(lineup, rules) is None


class _LaterPacks:
    """The packs a readable game seeded ``game_seed`` shuffles past its given ones, made as asked."""

    def __init__(self, rules: Rules, game_seed: int):
        self.rng = random.Random(game_seed)
        self.fresh = make_pack(rules.deck_size)
        self.packs: list[list[int]] = []

    def pack(self, k: int) -> list[int]:
        """The ``k``-th shuffled pack (0: the first deal past the given packs)."""
        while len(self.packs) <= k:
            self.packs.append(shuffled(self.fresh, self.rng))
        return self.packs[k]


def play_groups(agents: dict[int, Any], plan: list[list[int]], rules: Rules, num_players: int, seed: int,
                groups: int, duplicate: bool) -> Iterator[tuple[int, list[tuple[list[int], list[float], int]]]]:
    """``(group, games)`` as :func:`agents.arena._play_group` gives them, ``GROUPS_PER_BATCH`` groups a batch.

    ``agents`` maps each agent index of the seatings to its agent (or spec)."""
    from commerce_env.vector import BatchEngine

    from .batched import batched_agent

    batched = {a: batched_agent(spec, rules, num_players) for a, spec in agents.items()}
    for first in range(0, groups, GROUPS_PER_BATCH):
        chunk = list(range(first, min(groups, first + GROUPS_PER_BATCH)))
        decks, seats_of, later = [], [], []
        for group in chunk:
            packs, game_seed, _ = group_deal(rules, num_players, seed, group, len(plan))
            shared = _LaterPacks(rules, game_seed)  # duplicates: every seating gets the same later packs
            for index, seating in enumerate(plan):
                if not duplicate:
                    packs, game_seed, _ = group_deal(rules, num_players, seed, f"{group}/{index}")
                    shared = _LaterPacks(rules, game_seed)
                decks.append(packs)
                seats_of.append(seating)
                later.append(shared)
        given = np.asarray([len(packs) for packs in decks])
        holder = np.asarray(seats_of, dtype=np.int64)  # agent index by (game, seat)
        engine = BatchEngine(rules.variant, num_players, len(decks), rules=rules, wait_for_packs=True)
        engine.reset(decks=decks, dealer=0)
        while True:
            waiting = np.flatnonzero(engine.awaiting_pack)
            if waiting.size:
                dealt = engine.deals_dealt
                engine.supply_packs(waiting, [later[g].pack(int(dealt[g] - given[g])) for g in waiting])
                continue
            to_act = engine.current_player
            live = np.flatnonzero(to_act >= 0)
            if not live.size:
                break
            actions = np.zeros(len(decks), dtype=np.int64)
            who = holder[live, to_act[live]]
            for a, agent in batched.items():
                games = live[who == a]
                if len(games):
                    actions[games] = agent.act_batch(engine, games, to_act[games])
            engine.step(actions, where=to_act >= 0)
        returns, counted = engine.returns(), np.maximum(engine.deals_played, 1)
        for offset, group in enumerate(chunk):
            rows = range(offset * len(plan), (offset + 1) * len(plan))
            yield group, [(list(seats_of[r]), [float(x) for x in returns[r]], int(counted[r])) for r in rows]
