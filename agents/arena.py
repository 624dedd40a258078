"""The arena: agents against each other on duplicate deals, with honest error bars.

Seating convention (also in docs/arena.md):

* The lineup is repeated to fill the seats: with ``n`` seats, seat ``k`` of
  the base table holds ``lineup[k % len(lineup)]`` (so ``[learner, greedy]``
  at four seats is learner, greedy, learner, greedy).  A lineup longer than
  the table is an error.  Agents with the same name are one agent: their
  statistics are pooled over every seat they hold.
* A *duplicate group* is one pack (and, for matches, the packs of the later
  deals) played once per *seating*: every distinct arrangement of the
  table's agents over the seats (24 for four different agents, 4 for a
  learner against three copies of one opponent), or, when there are more
  than 24 arrangements, the ``n`` rotations of the base table.  Every agent
  thus holds every seat against the same cards, and with all arrangements
  also every neighbour on its left and right, which matters here: a barter
  (R5.4, R7.2) is always with the left neighbour, so plain rotations would
  leave "who sits next to whom" fixed and bias the comparison.  The first
  dealer is seat 0 in every game; card luck cancels out of comparisons.
* ``games`` (older name ``deals``) is the number of games (episodes) asked
  for, rounded up to whole groups.  A game is one deal when the rules play single deals (``deals=1``,
  the default of trade and barter and of the old game), and a whole match
  otherwise; rewards are then reported per counted deal of the matches.
  An agent's ``deals`` count is its seat-deals (one per seat per deal).

Everything is reproducible from ``seed``: group ``g`` draws its packs and its
agents' seeds from ``(seed, g)`` alone, whatever the number of workers.

Every agent sits behind :class:`agents.boundary.Seat`: a bad action is refused
naming the agent, its seat and the action, and agents given as objects are
watched for changes to the engine.  When an agent fails (an error, a bad
action) the run stops, and the duplicate groups finished before are kept:
returned and saved with a ``crash`` entry (which agent, seat and group, the
error's type and message).  ``isolate=True`` plays each agent in a process of
its own (:mod:`agents.isolated`), for agents one does not trust.
"""

from __future__ import annotations

import math
import multiprocessing
import pickle
import random
import time
import traceback
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from commerce_env.engine import new_game
from commerce_env.rules import Rules

from .arena_settings import BACKENDS, ArenaSettings
from .base import Agent
from .boundary import AgentError, EngineGuard, seat_agent
from .module_agents import holds_module_agent
from .play import play_env_episode, play_game
from .reports import OUTPUT_FILES, plot, ranking, report_markdown, write_outputs
from .seating import MAX_SEATINGS, PACKS_PER_GROUP, base_table, group_deal, rotation, seatings
from .specs import check_spec, make_agent, read_spec, spec_name
from .stats import summarise

AgentSpec = str | Mapping[str, Any] | Agent  # a name, a model path, {agent: name, **arguments}
# Re-exported: the arena's public names, defined in the modules that do each job.
__all__ = ["BACKENDS", "MAX_SEATINGS", "MIN_GROUPS", "OUTPUT_FILES", "PACKS_PER_GROUP", "ArenaSettings", "agent_names",
           "base_table", "build_agent", "group_deal", "play_env_episode", "play_game", "plot", "ranking",
           "report_markdown", "rotation", "run_arena", "sample_warnings", "seatings", "summarise", "write_outputs"]


# ------------------------------------------------------------------ workers
_WORKER: dict[str, Any] = {}


def _lineup_table(lineup: Sequence[AgentSpec], num_players: int) -> tuple[list[int], dict[int, AgentSpec]]:
    """The agent index of each base seat, and the spec of each agent index."""
    names = agent_names(lineup)
    unique = list(dict.fromkeys(names))
    table = [unique.index(names[i]) for i in base_table(lineup, num_players)]
    return table, {unique.index(name): spec for name, spec in zip(names, lineup, strict=True)}


def _init_worker(lineup: Sequence[AgentSpec], rules: Rules, num_players: int, seed: int,
                 duplicate: bool, isolate: bool = False, time_limit: float | None = None) -> None:
    table, spec_of = _lineup_table(lineup, num_players)
    names = {a: spec_name(spec) for a, spec in spec_of.items()}
    copies = {a: table.count(a) for a in set(table)}
    # One agent object per (agent, copy): agents may keep state, and a name may hold several seats.
    if isolate:
        from .isolated import AgentProcesses

        processes = _WORKER["processes"] = AgentProcesses({a: spec_of[a] for a in copies}, copies, names, time_limit)
        agents = {a: [seat_agent(remote, names[a]) for remote in processes.agents[a]] for a in copies}
    else:
        objects = [a for a in copies  # code from outside the project: watched
                   if isinstance(spec_of[a], Agent) or holds_module_agent(spec_of[a])]
        guard = _WORKER["guard"] = EngineGuard(rules.variant) if objects else None
        agents = {a: [seat_agent(build_agent(spec_of[a]), names[a], guard if a in objects else None)
                      for _ in range(copies[a])] for a in copies}
    _WORKER.update(rules=rules, num_players=num_players, seed=seed, seatings=seatings(table),
                   agents=agents, duplicate=duplicate)


def _close_worker() -> None:
    """Stop the agents' processes of an isolated run; put back whatever a watched agent changed."""
    processes = _WORKER.pop("processes", None)
    if processes is not None:
        processes.close()
    guard = _WORKER.pop("guard", None)
    if guard is not None:
        EngineGuard.restore(guard)  # the class's function: an agent may have replaced the instance's


def build_agent(spec: AgentSpec) -> Agent:
    return spec if isinstance(spec, Agent) else make_agent(spec)


def _play_group(group: int) -> tuple[int, list[tuple[list[int], list[float], int]] | Crash]:
    """Play every seating of one group: ``(agent index by seat, returns, counted deals)`` per game,
    or the :class:`Crash` that ended the group.

    With duplicates every seating gets the group's packs; without, each its own."""
    try:
        return group, _play_seatings(group)
    except Exception as error:
        return group, Crash.of(error, group)


def _play_seatings(group: int) -> list[tuple[list[int], list[float], int]]:
    rules, n, plan = _WORKER["rules"], _WORKER["num_players"], _WORKER["seatings"]
    packs, game_seed, agent_seeds = group_deal(rules, n, _WORKER["seed"], group, len(plan))
    games = []
    for index, seating in enumerate(plan):
        if not _WORKER["duplicate"]:
            packs, game_seed, _ = group_deal(rules, n, _WORKER["seed"], f"{group}/{index}")
        copies = {a: iter(objects) for a, objects in _WORKER["agents"].items()}
        seats = [next(copies[a]) for a in seating]
        game = new_game(rules, n, decks=packs, dealer=0, rng=random.Random(game_seed))
        returns = play_game(game, seats, agent_seeds[index * n:(index + 1) * n])
        games.append((list(seating), returns, max(game.deals_played, 1)))
    return games


class Crash:
    """What ended a duplicate group: the error, and a report of it (which agent, seat and group)."""

    def __init__(self, error: BaseException, report: dict[str, Any]):
        self.error, self.report = error, report

    @classmethod
    def of(cls, error: BaseException, group: int) -> Crash:
        """The crash of ``group`` by ``error``: an agent's (:class:`agents.boundary.AgentError`, or a bad
        action that :class:`agents.boundary.Seat` named), or any other."""
        kind, message = (error.error, error.message) if isinstance(error, AgentError) else \
            (type(error).__name__, str(error))
        report = {"agent": getattr(error, "agent", None), "seat": getattr(error, "seat", None), "group": group,
                  "error": kind, "message": message, "traceback": "".join(traceback.format_exception(error))}
        try:  # it travels back from a worker process
            pickle.dumps(error)
        except Exception:
            error = RuntimeError(f"{report['error']}: {report['message']}")
        return cls(error, report)


# -------------------------------------------------------------------- arena
def agent_names(lineup: Sequence[AgentSpec]) -> list[str]:
    """Each spec's name at the table (:func:`agents.specs.spec_name`): ``search``, ``model:<path>``,
    an agent's ``name``, ``search(worlds=96)`` for ``{"agent": "search", "worlds": 96}``."""
    return [spec_name(spec) for spec in lineup]


def _check_names(lineup: Sequence[AgentSpec]) -> None:
    """Refuse an agent object named like another entry of the lineup: agents with the same name are
    one agent (the seats of the last spec), so it would play the other's seats, or they its seats."""
    names = agent_names(lineup)
    for k, spec in enumerate(lineup):
        if isinstance(spec, Agent):
            for j, other in enumerate(lineup):
                if j != k and names[j] == names[k] and other is not spec:
                    raise ValueError(f"the lineup's agent object {spec!r} is named {names[k]!r} like another of "
                                     "its agents; agents with the same name are one agent: give it a name of its own")


def run_arena(lineup: Sequence[AgentSpec], settings: ArenaSettings | None = None, *, deals: int | None = None,
              **keywords: Any) -> dict:
    """Play ``games`` games between the ``lineup`` and summarise them (see the module docstring).

    The settings are keywords (``variant``, ``num_players``, ``options``, ``games``, ``seed``,
    ``workers``, ``duplicate``, ``out_dir``, ``overwrite``, ``progress``, ``backend``, ``address``,
    ``batched``, ``isolate``, ``time_limit``), or one :class:`agents.arena_settings.ArenaSettings`
    made beforehand; either way they are checked together before anything is played.

    A *game* is one episode: a deal, or a whole match when the rules play
    matches; ``games`` is rounded up to whole *duplicate groups*.  ``deals`` is
    the older name of ``games`` (default 1000).  ``duplicate=False`` gives every
    game its own packs (plain random deals, for comparison).  ``backend="ray"``
    plays the groups as Ray tasks (:mod:`agents.arena_ray`, on the cluster at
    ``address`` or a local one), with the same result as ``workers=1``.  ``batched`` (default: wherever it
    applies, :func:`agents.arena_batched.applies`) plays the groups on the batched engine,
    with exactly the local result; ``False`` never, ``True`` insists.  Returns a JSON-able dict;
    with ``out_dir`` also writes ``result.json``, ``report.md`` and ``mean_reward.png`` there,
    refusing (before playing) to replace such files unless ``overwrite=True``.  ``isolate=True``
    plays each seat in a process of its own (:mod:`agents.isolated`; local backend, one worker),
    and ``time_limit`` (isolated only) gives each of its decisions that many seconds at most.
    ``seed`` (default 0) makes every deal; isolated, the default is a fresh secret seed, since the
    packs follow from the seed by a public scheme (the result records it after the run).
    An agent that fails stops the run: the groups finished before it are summarised, with a
    ``crash`` entry naming the agent, its seat, the group, the error's type and message (``crash``
    is ``None`` otherwise); if none had finished, its error is raised.
    """
    if "games" in keywords and keywords["games"] is None:  # None was the default's spelling: 1000 games
        del keywords["games"]
    if deals is not None:  # the older name of games
        if "games" in keywords:
            raise ValueError(f"give games ({keywords['games']!r}) or its older name deals ({deals!r}), not both")
        keywords["games"] = deals
    if settings is not None and keywords:
        raise ValueError(f"give the settings as an ArenaSettings or as keywords, not both (got {sorted(keywords)})")
    settings = ArenaSettings(**keywords) if settings is None else settings
    rules, num_players, variant, batched = settings.rules, settings.num_players, settings.variant, settings.batched
    backend, isolate, workers, seed = settings.backend, settings.isolate, settings.workers, settings.seed
    lineup = [read_spec(spec) for spec in lineup]  # "search(worlds=96)" as on the command line
    _check_names(lineup)
    from .arena_batched import refusal, searches

    why = f"backend {backend!r} is not local" if backend != "local" else "isolate=True" if isolate \
        else refusal(lineup, rules)
    if batched and why:
        raise ValueError(f"batched=True: {why}; the batched path plays greedy, search and learned (deterministic) "
                         "agents only, on the local backend, with the extra `vector` installed")
    fits = why is None and (workers == 1 or not searches(lineup))  # searching games: one process
    batched = fits if batched is None else batched
    names = agent_names(lineup)
    unique = list(dict.fromkeys(names))
    table = [unique.index(names[i]) for i in base_table(lineup, num_players)]
    for spec in lineup:  # fail early on a bad name or model, before any process starts
        if isolate and holds_module_agent(spec):
            check_spec(spec)  # a user's module is imported in its seats' processes only, never here
        elif not isinstance(spec, Agent):  # a model is checked against this game: variant and players
            make_agent(spec, variant=variant, num_players=num_players)
    per_group = len(seatings(table))
    groups = math.ceil(settings.games / per_group)
    out_dir = settings.out_dir
    if out_dir is not None:
        out = Path(out_dir)
        if out.exists() and not out.is_dir():
            raise ValueError(f"out_dir {str(out_dir)!r} exists and is not a folder")
        existing = [name for name in OUTPUT_FILES if (out / name).exists()]
        if existing and not settings.overwrite:
            raise ValueError(f"out_dir {str(out_dir)!r} already holds {', '.join(existing)}: give another folder, "
                             "or overwrite=True (commerce arena --force) to replace those files")

    started = time.perf_counter()
    results: dict[int, list] = {}
    crash = None
    runs = _run_groups(lineup, settings, groups, batched)
    stopped: KeyboardInterrupt | None = None
    try:
        for group, played in runs:
            if isinstance(played, Crash):
                crash = played
                break
            results[group] = played
    except KeyboardInterrupt as stop:  # Ctrl-C, SIGTERM: the groups finished so far are kept, as after a crash
        stopped = stop
        crash = Crash(stop, {"agent": None, "seat": None, "group": len(results), "error": "Interrupted",
                             "message": "the run was stopped (Ctrl-C or SIGTERM)", "traceback": ""})
    finally:
        runs.close()  # workers and the agents' processes stop now
    elapsed = time.perf_counter() - started
    if crash is not None and not results:  # nothing to keep
        crash.error.arena_crash = crash.report  # what stopped the run, for commerce arena's message
        raise crash.error
    if crash is not None:
        groups = len(results)

    records = [results[g] for g in sorted(results)]
    result = summarise(records, unique, seed=seed)
    games_played = groups * per_group
    counted = sum(d for group in records for _, _, d in group)
    result.update(
        variant=variant, num_players=num_players, rules=rules.options(), lineup=names, seed=seed,
        duplicate=settings.duplicate, groups=groups, games_per_group=per_group, games=games_played,
        deals_played=int(counted), seconds=elapsed,
        deals_per_second=counted / elapsed if elapsed > 0 else float("inf"),
        games_per_second=games_played / elapsed if elapsed > 0 else float("inf"), workers=workers,
        isolate=isolate, time_limit=settings.time_limit, crash=None if crash is None else crash.report,
    )
    result["warnings"] = sample_warnings(groups) + ([] if crash is None else [crash_warning(crash.report, groups)])
    if out_dir is not None:
        write_outputs(result, out_dir)
    if stopped is not None:  # said, with the results kept, by whoever catches it (commerce arena)
        stopped.arena_result = result
        raise stopped
    return result


MIN_GROUPS = 30  # below this, bootstrap intervals and paired p-values mean little


def sample_warnings(groups: int) -> list[str]:
    """What to say when a sample is too small for its statistics to mean anything."""
    if groups >= MIN_GROUPS:
        return []
    return [f"only {groups} duplicate group(s) (fewer than {MIN_GROUPS}): the confidence intervals "
            "and p-values below are not meaningful; play more games"]


def crash_warning(crash: dict[str, Any], finished: int) -> str:
    """The line that reports a crash with the results of the ``finished`` groups."""
    kept = (f"these results are of the {finished} group(s) finished before" if finished
            else "no group was finished before it")
    if crash["error"] == "Interrupted" and crash["agent"] is None:  # the run stopped, not an agent
        return f"the run was stopped (Ctrl-C or SIGTERM) in duplicate group {crash['group']}; {kept}"
    who = f"agent {crash['agent']!r} in seat {crash['seat']}" if crash["agent"] is not None else "the game"
    return (f"the run stopped in duplicate group {crash['group']}: {who} failed with {crash['error']}: "
            f"{crash['message']}; {kept}")


def _run_groups(lineup: list[AgentSpec], settings: ArenaSettings, groups: int, batched: bool):
    """Each group's ``(group, records)`` as it finishes (or a :class:`Crash`), on the path the settings ask."""
    rules, num_players, seed, duplicate = settings.rules, settings.num_players, settings.seed, settings.duplicate
    bar = _Progress(groups, settings.progress)
    try:
        if batched:  # one process: many groups per call of the batched engine
            from .arena_batched import play_groups as play_batched

            table, spec_of = _lineup_table(lineup, num_players)
            finished = set()
            try:
                for item in play_batched(spec_of, seatings(table), rules, num_players, seed, groups, duplicate):
                    finished.add(item[0])
                    yield item
                    bar.advance()
            except Exception as error:  # many groups play at once: the error's own, or the first unfinished
                group = getattr(error, "group", None)
                if not isinstance(group, int):
                    group = min(set(range(groups)) - finished, default=groups)
                yield group, Crash.of(error, group)
        elif settings.backend == "ray":
            from .arena_ray import play_groups

            for item in play_groups(lineup, rules, num_players, seed, groups, duplicate, settings.address,
                                    worker=(_init_worker, _play_group)):
                yield item
                bar.advance()
        elif settings.workers == 1:
            _init_worker(lineup, rules, num_players, seed, duplicate, settings.isolate, settings.time_limit)
            for group in range(groups):
                yield _play_group(group)
                bar.advance()
        else:
            context = multiprocessing.get_context("fork")
            with context.Pool(settings.workers, initializer=_init_worker,
                              initargs=(lineup, rules, num_players, seed, duplicate)) as pool:
                chunk = max(1, min(8, groups // (settings.workers * 8)))
                for item in pool.imap_unordered(_play_group, range(groups), chunksize=chunk):
                    yield item
                    bar.advance()
    finally:
        _close_worker()
        bar.close()


class _Progress:
    """A rich progress bar over groups, or nothing."""

    def __init__(self, total: int, enabled: bool):
        self.bar = None
        if enabled:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

            self.bar = Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                                TimeRemainingColumn(), transient=False)
            self.task = self.bar.add_task("duplicate groups", total=total)
            self.bar.start()

    def advance(self) -> None:
        if self.bar is not None:
            self.bar.advance(self.task)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
