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

A lineup with a searching agent (``search`` with a number of worlds, a model with
test-time search) decides from seat views, so its games are readable ones, many played
at once (:func:`_play_with_views`): the rollouts of every search decision of a round are
played together on the batched engine (:class:`agents.batched_search.BatchedRollouts`),
each decision's worlds sampled by its own seat's generator, seeded as the local path
seeds it: again exactly the local path's result.
"""

from __future__ import annotations

import contextlib
import copy
import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from commerce_env.cards import make_pack
from commerce_env.engine.base import Game
from commerce_env.engine.determinize import NoConsistentDealError
from commerce_env.engine.shuffle import shuffled
from commerce_env.rules import Rules

from .base import Agent
from .boundary import AgentError
from .seating import group_deal

GAMES_PER_BATCH = 1024  # games played at once: big enough that the per-call cost is small


def _deterministic_batchable(spec: Any) -> bool:
    from .heuristics import GreedyAgent
    from .learned import LearnedAgent
    from .search import SearchAgent
    from .specs import is_model_spec

    if isinstance(spec, Mapping) or (isinstance(spec, str) and (is_model_spec(spec) or spec == "search")):
        from .specs import make_agent

        try:  # a bad path or argument is reported by the arena's own check, with its reason
            spec = make_agent(spec)
        except ValueError:
            return False
    if isinstance(spec, str):
        return spec == "greedy"
    if isinstance(spec, LearnedAgent):  # its test-time search, if any, decides as below
        return spec.deterministic and (spec.search is None or spec.search.ms is None)
    if type(spec) is SearchAgent:  # seeded per game; a time budget would make it depend on the clock
        return spec.ms is None
    return type(spec) is GreedyAgent


def searcher(agent: Any) -> Any:
    """The :class:`agents.search.SearchAgent` that decides for ``agent`` (itself, or a model's
    test-time search), or None for an agent that does not search."""
    from .search import SearchAgent

    if isinstance(agent, SearchAgent):
        return agent
    return getattr(agent, "search", None) if isinstance(getattr(agent, "search", None), SearchAgent) else None


def searches(lineup: Sequence[Any]) -> bool:
    """Whether an agent of the lineup searches (its games then play on the readable engine, one
    process: the local path on several processes may be the faster)."""
    from .specs import make_agent

    for spec in lineup:
        try:
            if searcher(make_agent(spec)) is not None:
                return True
        except ValueError:
            continue
    return False


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
    if any(searcher(build_agent(spec)) is not None for spec in agents.values()):
        yield from _play_with_views(agents, plan, rules, num_players, seed, groups, duplicate)
        return
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


# ------------------------------------------------------------ searching agents
GAMES_WITH_VIEWS = 16  # readable games at once when an agent searches (more: more worlds alive, no faster)


def build_agent(spec: Any) -> Any:
    from .specs import make_agent

    return spec if isinstance(spec, Agent) else make_agent(spec)


class _Table:
    """One game of :func:`_play_with_views`: the readable game, the agent index of each seat,
    and each seat's generator for its search's worlds (as its agent's ``reset`` seeds it)."""

    def __init__(self, group: int, index: int, game: Game, seats: list[int], rngs: list[random.Random]):
        self.group, self.index, self.game, self.seats, self.rngs = group, index, game, seats, rngs


@contextlib.contextmanager
def _named(table: _Table, seat: int | None = None, name: str | None = None) -> Iterator[None]:
    """An error raised inside names its duplicate group and, raised by an agent, the agent and its
    seat, for the arena's report of a crash (as the local path names them: :class:`agents.boundary.Seat`)."""
    try:
        yield
    except Exception as error:
        try:
            error.group = table.group
            if name is not None:
                error.agent, error.seat = name, seat
        except AttributeError:  # an exception that takes no attributes
            raise AgentError(name, seat, type(error).__name__, str(error)) from error
        who = f"agent {name!r} in seat {seat}, " if name is not None else ""
        error.add_note(f"(raised by {who}duplicate group {table.group})")
        raise


def fits(search: Any, view: Any, include: tuple[int, ...]) -> bool:
    """Whether one decision's rollouts fit in one run of the batched engine (else it is played
    alone, in parts: :meth:`agents.search.SearchAgent.evaluate`)."""
    from .batched_search import MAX_ROWS

    return search.worlds * len(search.rollout_actions(view, include)) <= MAX_ROWS


def _readable_games(plan: list[list[int]], rules: Rules, num_players: int, seed: int, groups: int,
                    duplicate: bool) -> Iterator[tuple[int, int, Game, list[int]]]:
    """``(group, seating index, game, agents' seeds)`` of every game, as the local path makes them."""
    from commerce_env.engine import new_game

    for group in range(groups):
        packs, game_seed, agent_seeds = group_deal(rules, num_players, seed, group, len(plan))
        for index in range(len(plan)):
            if not duplicate:
                packs, game_seed, _ = group_deal(rules, num_players, seed, f"{group}/{index}")
            game = new_game(rules, num_players, decks=packs, dealer=0, rng=random.Random(game_seed))
            yield group, index, game, agent_seeds[index * num_players:(index + 1) * num_players]


def _play_with_views(agents: dict[int, Any], plan: list[list[int]], rules: Rules, num_players: int, seed: int,
                     groups: int, duplicate: bool) -> Iterator[tuple[int, list[tuple[list[int], list[float], int]]]]:
    """:func:`play_groups` for a lineup with a searching agent: up to :data:`GAMES_WITH_VIEWS`
    readable games at once, each seat's agent given seat views as in :func:`agents.play.play_game`;
    the rollouts of all search decisions of a round are played together on the batched engine."""
    from commerce_env.view import seat_view

    from .batched_search import BatchedRollouts
    from .search import rolled_out
    from .specs import spec_name

    built = {a: build_agent(spec) for a, spec in agents.items()}
    names = {a: spec_name(spec) for a, spec in agents.items()}
    searchers = {a: searcher(agent) for a, agent in built.items()}
    rollouts = BatchedRollouts()
    pending = _readable_games(plan, rules, num_players, seed, groups, duplicate)
    tables: list[_Table] = []
    records: dict[int, list] = {}

    def start() -> None:
        while len(tables) < GAMES_WITH_VIEWS:
            item = next(pending, None)
            if item is None:
                return
            group, index, game, seeds = item
            for seat, a in enumerate(plan[index]):  # as play_game: each agent reset with its seed
                built[a].reset(seat, num_players, copy.copy(rules), seeds[seat])
            tables.append(_Table(group, index, game, list(plan[index]), [random.Random(s) for s in seeds]))

    start()
    while tables:
        playing = [table for table in tables if not table.game.over]  # a match may end as it is dealt (R7.3)
        actions: list[int | None] = []
        waiting: list[tuple[int, int, Any, int | None]] = []  # (table, seat, searcher, default) of each plan
        plans = []
        for k, table in enumerate(playing):
            seat = table.game.current_player
            agent, search = built[table.seats[seat]], searchers[table.seats[seat]]
            with _named(table, seat, names[table.seats[seat]]):
                view = seat_view(table.game, seat)
                action = agent.act(view) if search is None else search.immediate_action(view)
                if action is None:
                    default = search.default_action(view, deferred=True)
                    include = rolled_out(default)
                    try:
                        if search.batched_rollouts(view) is None or not fits(search, view, include):
                            action = search.choose(search.evaluate(view, include, table.rngs[seat]), default)
                        else:
                            plans.append(search.rollout_plan(view, include, rng=table.rngs[seat]))
                            waiting.append((k, seat, search, default))
                    except NoConsistentDealError:  # as SearchAgent.act: no world found in time
                        action = search.fallback_action(view)
            actions.append(action)
        for (k, seat, search, default), results in zip(waiting, rollouts.run(plans), strict=True):
            with _named(playing[k], seat, names[playing[k].seats[seat]]):
                actions[k] = search.choose(results, default)
        for table, action in zip(playing, actions, strict=True):
            with _named(table):
                table.game.apply(action)  # built-in agents; an illegal action is refused naming it
        for table in [table for table in tables if table.game.over]:
            tables.remove(table)
            games = records.setdefault(table.group, [None] * len(plan))
            games[table.index] = (table.seats, table.game.returns(), max(table.game.deals_played, 1))
            if all(g is not None for g in games):
                yield table.group, records.pop(table.group)
        start()
