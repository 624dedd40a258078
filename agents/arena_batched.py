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
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from commerce_env.cards import make_pack
from commerce_env.engine.shuffle import shuffled
from commerce_env.rules import Rules

from .seating import group_deal

GAMES_PER_BATCH = 1024  # games played at once: big enough that the per-call cost is small


def _deterministic_batchable(spec: Any) -> bool:
    from .heuristics import GreedyAgent
    from .learned import LearnedAgent
    from .specs import is_model_spec

    if isinstance(spec, Mapping) or (isinstance(spec, str) and is_model_spec(spec)):
        from .specs import make_agent

        try:  # a bad path or argument is reported by the arena's own check, with its reason
            spec = make_agent(spec)
        except ValueError:
            return False
    if isinstance(spec, str):
        return spec == "greedy"
    if isinstance(spec, LearnedAgent):  # a model with test-time search rolls out on the readable engine
        return spec.deterministic and spec.search is None
    return type(spec) is GreedyAgent


def refusal(lineup: Sequence[Any], rules: Rules) -> str | None:
    """Why the batched path cannot give this arena exactly the local path's result, or None
    where it can: every agent deterministic with a batched form, and the extra ``vector``
    (numba) installed.  Every variant and option set of ``rules`` is covered."""
    from .specs import spec_name

    others = [spec_name(spec) for spec in lineup if not _deterministic_batchable(spec)]
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
        self.seed = game_seed
        self.rng: random.Random | None = None  # made when first needed: most single deals never are
        self.fresh = make_pack(rules.deck_size)
        self.packs: list[list[int]] = []

    def pack(self, k: int) -> list[int]:
        """The ``k``-th shuffled pack (0: the first deal past the given packs)."""
        if self.rng is None:
            self.rng = random.Random(self.seed)
        while len(self.packs) <= k:
            self.packs.append(shuffled(self.fresh, self.rng))
        return self.packs[k]


def _games(plan: list[list[int]], rules: Rules, num_players: int, seed: int, groups: int,
           duplicate: bool) -> Iterator[tuple[int, int, list[list[int]], _LaterPacks]]:
    """``(group, seating index, given packs, later packs)`` of every game, as the local path deals them."""
    for group in range(groups):
        packs, game_seed, _ = group_deal(rules, num_players, seed, group, len(plan))
        shared = _LaterPacks(rules, game_seed)  # duplicates: every seating gets the same later packs
        for index in range(len(plan)):
            if not duplicate:
                packs, game_seed, _ = group_deal(rules, num_players, seed, f"{group}/{index}")
                shared = _LaterPacks(rules, game_seed)
            yield group, index, packs, shared


def play_groups(agents: dict[int, Any], plan: list[list[int]], rules: Rules, num_players: int, seed: int,
                groups: int, duplicate: bool) -> Iterator[tuple[int, list[tuple[list[int], list[float], int]]]]:
    """``(group, games)`` as :func:`agents.arena._play_group` gives them, each group as soon as all its
    games are over (so not in order).  Up to ``GAMES_PER_BATCH`` games are played at once; a
    finished game's place takes the next game at once (matches differ in length).

    ``agents`` maps each agent index of the seatings to its agent (or spec)."""
    from commerce_env.vector import BatchEngine

    from .batched import batched_agent

    batched = {a: batched_agent(spec, rules, num_players) for a, spec in agents.items()}
    pending = _games(plan, rules, num_players, seed, groups, duplicate)
    size = min(GAMES_PER_BATCH, groups * len(plan))
    engine = BatchEngine(rules.variant, num_players, size, rules=rules, wait_for_packs=True)
    holder = np.zeros((size, num_players), dtype=np.int64)  # agent index by (place, seat)
    given = np.zeros(size, dtype=np.int64)
    game_at: list[tuple[int, int] | None] = [None] * size  # (group, seating index) of each place
    later: list[_LaterPacks | None] = [None] * size
    records: dict[int, list] = {}

    def start(places: np.ndarray) -> None:
        """The next games into ``places`` (as many as are left)."""
        filled, decks = [], []
        for place in places:
            game = next(pending, None)
            if game is None:
                break
            group, index, packs, later[place] = game
            game_at[place] = (group, index)
            holder[place] = plan[index]
            given[place] = len(packs)
            filled.append(place)
            decks.append(packs)
        if filled:
            engine.reset_games(filled, decks=decks, dealer=0)

    start(np.arange(size))
    playing = np.asarray([game is not None for game in game_at])
    while playing.any():
        waiting = np.flatnonzero(engine.awaiting_pack)
        if waiting.size:
            dealt = engine.deals_dealt
            engine.supply_packs(waiting, [later[g].pack(int(dealt[g] - given[g])) for g in waiting])
            continue
        finished = np.flatnonzero(engine.over & playing)
        if finished.size:
            returns, counted = engine.returns(), np.maximum(engine.deals_played, 1)
            for place in finished:
                group, index = game_at[place]
                game_at[place] = None
                games = records.setdefault(group, [None] * len(plan))
                games[index] = (list(plan[index]), [float(x) for x in returns[place]], int(counted[place]))
                if all(g is not None for g in games):
                    yield group, records.pop(group)
            start(finished)
            playing = np.asarray([game is not None for game in game_at])
            continue
        to_act = engine.current_player
        live = np.flatnonzero(to_act >= 0)
        actions = np.zeros(size, dtype=np.int64)
        who = holder[live, to_act[live]]
        for a, agent in batched.items():
            games = live[who == a]
            if len(games):
                actions[games] = agent.act_batch(engine, games, to_act[games])
        engine.step(actions, where=to_act >= 0)
