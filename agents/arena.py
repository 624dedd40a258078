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
"""

from __future__ import annotations

import json
import math
import multiprocessing
import random
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import permutations
from pathlib import Path
from typing import Any

import numpy as np

from commerce_env.engine import new_game
from commerce_env.engine.actions import BadActionError, check_action
from commerce_env.engine.base import Game
from commerce_env.policies import listens
from commerce_env.rules import Rules, make_rules
from commerce_env.view import public_text, seat_view

from . import stats
from .base import Agent
from .specs import make_agent

AgentSpec = str | Agent
MAX_SEATINGS = 24  # all arrangements of up to 4 distinct agents; else rotations only
BACKENDS = ("local", "ray")
PACKS_PER_GROUP = 12  # packs given for the first deals of a match; later ones come from the group's seed


def play_game(game: Game, agents: Sequence[Agent], seeds: Sequence[int | None] | None = None) -> list[float]:
    """Play ``game`` (a fresh match) to its end with one agent per seat, each given only
    seat views (:func:`commerce_env.view.seat_view`, R11); the returns by seat."""
    n = game.num_players
    if len(agents) != n:
        raise ValueError(f"{n} seats need {n} agents, got {len(agents)}")
    for seat, agent in enumerate(agents):
        if hasattr(agent, "reset"):
            agent.reset(seat, n, game.rules, None if seeds is None else seeds[seat])
    watchers = [(s, agent) for s, agent in enumerate(agents) if listens(agent)]
    while not game.is_over():
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
        agents[name].reset(seat, len(seats), game.rules, seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for name in env.agent_iter():
        _, reward, termination, truncation, _ = env.last(observe=False)
        totals[name] += reward
        if termination or truncation:
            env.step(None)
            continue
        env.step(agents[name].act(env.unwrapped.seat_view(name)))
    return totals


def base_table(lineup: Sequence[Any], num_players: int) -> list[int]:
    """Lineup index of each seat of the base table: the lineup repeated to fill the seats."""
    if not lineup:
        raise ValueError("the lineup is empty: name at least one agent")
    if len(lineup) > num_players:
        raise ValueError(f"{len(lineup)} agents do not fit at a table of {num_players}; "
                         "give at most as many agents as seats")
    return [k % len(lineup) for k in range(num_players)]


def rotation(table: Sequence[int], r: int) -> list[int]:
    """Rotation ``r`` of a table: seat ``k`` holds what seat ``(k + r) % n`` held."""
    n = len(table)
    return [table[(k + r) % n] for k in range(n)]


def seatings(table: Sequence[int], limit: int = MAX_SEATINGS) -> list[list[int]]:
    """The seatings of one duplicate group: every distinct arrangement of the table's
    agents when there are at most ``limit`` of them, else the ``n`` rotations."""
    n = len(table)
    distinct = math.factorial(n)
    for count in Counter(table).values():
        distinct //= math.factorial(count)
    if distinct <= limit:
        return [list(p) for p in sorted(set(permutations(table)))]
    return [rotation(table, r) for r in range(n)]


def group_deal(rules: Rules, num_players: int, seed: int, group: int | str,
               games: int = 1) -> tuple[list[list[int]], int, list[int]]:
    """The packs, the game seed (for deals past the packs) and the agents' seeds of one group."""
    rng = random.Random(f"commerce-arena:{seed}:{group}")
    pack = list(_pack(rules))
    count = 1 if rules.deals == 1 else PACKS_PER_GROUP
    packs = []
    for _ in range(count):
        rng.shuffle(pack)
        packs.append(list(pack))
    game_seed = rng.getrandbits(63)
    agent_seeds = [rng.getrandbits(31) for _ in range(num_players * games)]
    return packs, game_seed, agent_seeds


def _pack(rules: Rules) -> tuple[int, ...]:
    from commerce_env.cards import make_pack

    return make_pack(rules.deck_size)


# ------------------------------------------------------------------ workers
_WORKER: dict[str, Any] = {}


def _init_worker(lineup: Sequence[AgentSpec], rules: Rules, num_players: int, seed: int,
                 duplicate: bool) -> None:
    names = _names(lineup)
    unique = list(dict.fromkeys(names))
    table = [unique.index(names[i]) for i in base_table(lineup, num_players)]  # agent index by base seat
    spec_of = {unique.index(name): spec for name, spec in zip(names, lineup, strict=True)}
    # One agent object per (agent, copy): agents may keep state, and a name may hold several seats.
    agents = {a: [_build(spec_of[a]) for _ in range(table.count(a))] for a in set(table)}
    _WORKER.update(rules=rules, num_players=num_players, seed=seed, seatings=seatings(table),
                   agents=agents, duplicate=duplicate)


def _build(spec: AgentSpec) -> Agent:
    return spec if isinstance(spec, Agent) else make_agent(spec)


def _play_group(group: int) -> tuple[int, list[tuple[list[int], list[float], int]]]:
    """Play every seating of one group: ``(agent index by seat, returns, counted deals)`` per game.

    With duplicates every seating gets the group's packs; without, each its own."""
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
    return group, games


# -------------------------------------------------------------------- arena
def _names(lineup: Sequence[AgentSpec]) -> list[str]:
    names = []
    for spec in lineup:
        if isinstance(spec, Agent):
            names.append(getattr(spec, "name", type(spec).__name__))
        elif isinstance(spec, str):
            names.append(spec)
        else:
            raise TypeError(f"an agent spec is a name, a model path or an Agent, got {spec!r}")
    return names


def run_arena(lineup: Sequence[AgentSpec], *, variant: str = "trade_barter", num_players: int = 4,
              options: dict[str, Any] | None = None, deals: int | None = None, seed: int = 0, workers: int = 1,
              duplicate: bool = True, out_dir: str | Path | None = None, progress: bool = True,
              games: int | None = None, backend: str = "local", address: str | None = None) -> dict:
    """Play ``games`` games between the ``lineup`` and summarise them (see the module docstring).

    A *game* is one episode: a deal, or a whole match when the rules play
    matches; ``games`` is rounded up to whole *duplicate groups*.  ``deals`` is
    the older name of ``games`` (default 1000).  ``duplicate=False`` gives every
    game its own packs (plain random deals, for comparison).  ``backend="ray"``
    plays the groups as Ray tasks (:mod:`agents.arena_ray`, on the cluster at
    ``address`` or a local one), with the same result as ``workers=1``.  Every
    argument is checked before anything is played.  Returns a JSON-able dict;
    with ``out_dir`` also writes ``result.json``, ``report.md`` and ``mean_reward.png`` there.
    """
    if deals is not None and games is not None:
        raise ValueError(f"give games ({games!r}) or its older name deals ({deals!r}), not both")
    games = 1000 if deals is None and games is None else (games if games is not None else deals)
    rules = make_rules(variant, **(options or {}))
    rules.check_players(num_players)
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games (deals) must be a whole number >= 1, got {games!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a whole number >= 1, got {workers!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise ValueError(f"seed must be a whole number from 0 to 2**63 - 1, got {seed!r}")
    if not isinstance(duplicate, bool):
        raise ValueError(f"duplicate must be True or False, got {duplicate!r}")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    names = _names(lineup)
    unique = list(dict.fromkeys(names))
    table = [unique.index(names[i]) for i in base_table(lineup, num_players)]
    for spec in lineup:  # fail early on a bad name or model, before any process starts
        _build(spec)
    per_group = len(seatings(table))
    groups = math.ceil(games / per_group)
    if out_dir is not None:
        out = Path(out_dir)
        if out.exists() and not out.is_dir():
            raise ValueError(f"out_dir {str(out_dir)!r} exists and is not a folder")

    started = time.perf_counter()
    results: dict[int, list] = {}
    for group, played in _run_groups(lineup, rules, num_players, seed, groups, workers, duplicate, progress,
                                    backend, address):
        results[group] = played
    elapsed = time.perf_counter() - started

    records = [results[g] for g in range(groups)]
    result = summarise(records, unique, seed=seed)
    games_played = groups * per_group
    counted = sum(d for group in records for _, _, d in group)
    result.update(
        variant=variant, num_players=num_players, rules=rules.options(), lineup=names, seed=seed,
        duplicate=duplicate, groups=groups, games_per_group=per_group, games=games_played,
        deals_played=int(counted), seconds=elapsed,
        deals_per_second=counted / elapsed if elapsed > 0 else float("inf"),
        games_per_second=games_played / elapsed if elapsed > 0 else float("inf"), workers=workers,
    )
    result["warnings"] = sample_warnings(groups)
    if out_dir is not None:
        write_outputs(result, out_dir)
    return result


MIN_GROUPS = 30  # below this, bootstrap intervals and paired p-values mean little


def sample_warnings(groups: int) -> list[str]:
    """What to say when a sample is too small for its statistics to mean anything."""
    if groups >= MIN_GROUPS:
        return []
    return [f"only {groups} duplicate group(s) (fewer than {MIN_GROUPS}): the confidence intervals "
            "and p-values below are not meaningful; play more games"]


def _run_groups(lineup, rules, num_players, seed, groups, workers, duplicate, progress, backend="local",
                address=None):
    bar = _Progress(groups, progress)
    try:
        if backend == "ray":
            from .arena_ray import play_groups

            for item in play_groups(lineup, rules, num_players, seed, groups, duplicate, address,
                                    worker=(_init_worker, _play_group)):
                yield item
                bar.advance()
        elif workers == 1:
            _init_worker(lineup, rules, num_players, seed, duplicate)
            for group in range(groups):
                yield _play_group(group)
                bar.advance()
        else:
            context = multiprocessing.get_context("fork")
            with context.Pool(workers, initializer=_init_worker,
                              initargs=(lineup, rules, num_players, seed, duplicate)) as pool:
                chunk = max(1, min(8, groups // (workers * 8)))
                for item in pool.imap_unordered(_play_group, range(groups), chunksize=chunk):
                    yield item
                    bar.advance()
    finally:
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


def summarise(records: list[list[tuple[list[int], list[float], int]]], unique: list[str], seed: int = 0) -> dict:
    """Per-agent means with bootstrap CIs, win rates, pairwise tests and ratings.

    ``records[g]`` lists the games of group ``g`` as (agent index by seat,
    returns by seat, counted deals); ``unique`` names the agents.
    """
    index = {name: i for i, name in enumerate(unique)}
    k, g_count = len(unique), len(records)
    reward = np.zeros((g_count, k))
    seat_deals = np.zeros((g_count, k))
    seat_games = np.zeros((g_count, k))
    wins = np.zeros((g_count, k))
    rated: list[tuple[list[str], list[float]]] = []
    for g, games in enumerate(records):
        for seating, returns, counted in games:
            best = max(returns)
            winners = [s for s, value in enumerate(returns) if value == best]
            for seat, a in enumerate(seating):
                reward[g, a] += returns[seat]
                seat_deals[g, a] += counted
                seat_games[g, a] += 1
                if seat in winners:
                    wins[g, a] += 1.0 / len(winners)
            rated.append(([unique[a] for a in seating], list(returns)))
    agents = {}
    for name, a in index.items():
        low, high = stats.bootstrap_ci(reward[:, a], seat_deals[:, a], seed=seed)
        agents[name] = {
            "mean": stats.ratio_mean(reward[:, a], seat_deals[:, a]), "ci95": [low, high],
            "win_rate": float(wins[:, a].sum() / seat_games[:, a].sum()),
            "deals": int(seat_deals[:, a].sum()), "games": int(seat_games[:, a].sum()),
            "mean_per_game": float(reward[:, a].sum() / seat_games[:, a].sum()),
        }
    per_deal = reward / seat_deals
    pairwise = []
    for i in range(k):
        for j in range(i + 1, k):
            diff = per_deal[:, i] - per_deal[:, j]
            low, high = stats.bootstrap_difference_ci(reward[:, i], seat_deals[:, i], reward[:, j],
                                                      seat_deals[:, j], seed=seed)
            low99, high99 = stats.bootstrap_difference_ci(reward[:, i], seat_deals[:, i], reward[:, j],
                                                          seat_deals[:, j], level=0.99, seed=seed)
            difference = stats.ratio_mean(reward[:, i], seat_deals[:, i]) - stats.ratio_mean(
                reward[:, j], seat_deals[:, j])
            pairwise.append({
                "a": unique[i], "b": unique[j], "mean_difference": difference, "ci95": [low, high],
                "ci99": [low99, high99],
                "a_beats_b": float(((diff > 0) + 0.5 * (diff == 0)).mean()), "p_value": stats.paired_test(diff),
            })
    return {"agents": agents, "pairwise": pairwise, "ratings": stats.openskill_ratings(rated)}


# ------------------------------------------------------------------ outputs
def ranking(result: dict) -> list[str]:
    """Agent names by mean reward per deal, best first."""
    return sorted(result["agents"], key=lambda n: -result["agents"][n]["mean"])


def report_markdown(result: dict) -> str:
    """The Markdown report: the table of agents, then the pairwise tests and ratings."""
    ratings = result["ratings"]
    lines = [
        f"# Arena: {result['variant']}, {result['num_players']} players",
        "",
        f"{result['games']} games in {result['groups']} duplicate groups of {result['games_per_group']} "
        f"seatings, {result['deals_played']} deals in all; seed {result['seed']}, "
        f"{'duplicate' if result['duplicate'] else 'plain'} deals; "
        f"{result['deals_per_second']:.1f} deals/s with {result['workers']} worker(s).",
        "",
        *(f"**Warning:** {w}." for w in result.get("warnings", ())),
        *([""] if result.get("warnings") else []),
        "| rank | agent | mean reward per deal | 95% CI | win rate | deals | OpenSkill ordinal |",
        "|---:|---|---:|---|---:|---:|---:|",
    ]
    for rank, name in enumerate(ranking(result), 1):
        a = result["agents"][name]
        ordinal = ratings.get(name, {}).get("ordinal", float("nan"))
        lines.append(f"| {rank} | {name} | {a['mean']:+.3f} | [{a['ci95'][0]:+.3f}, {a['ci95'][1]:+.3f}] | "
                     f"{a['win_rate']:.3f} | {a['deals']} | {ordinal:.2f} |")
    if result["pairwise"]:
        lines += ["", "| A | B | mean(A - B) per deal | 95% CI | A beats B (groups) | p-value |",
                  "|---|---|---:|---|---:|---:|"]
        for p in result["pairwise"]:
            lines.append(f"| {p['a']} | {p['b']} | {p['mean_difference']:+.3f} | "
                         f"[{p['ci95'][0]:+.3f}, {p['ci95'][1]:+.3f}] | {p['a_beats_b']:.3f} | "
                         f"{p['p_value']:.2g} |")
    lines += ["", "Rules: " + ", ".join(f"{k}={v}" for k, v in result["rules"].items() if k != "variant"), ""]
    return "\n".join(lines)


def plot(result: dict, path: str | Path) -> None:
    """Mean reward per deal with 95% intervals, one bar per agent, best first."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = ranking(result)
    means = [result["agents"][n]["mean"] for n in names]
    lows = [m - result["agents"][n]["ci95"][0] for n, m in zip(names, means, strict=True)]
    highs = [result["agents"][n]["ci95"][1] - m for n, m in zip(names, means, strict=True)]
    fig, ax = plt.subplots(figsize=(1.6 * len(names) + 2.5, 3.6))
    ax.bar(names, means, yerr=[lows, highs], capsize=6, color="#4C72B0")
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_ylabel("mean reward per deal (95% CI)")
    ax.set_title(f"{result['variant']}, {result['num_players']} players, {result['games']} games")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_outputs(result: dict, out_dir: str | Path) -> None:
    """``result.json``, ``report.md`` and ``mean_reward.png`` in ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "result.json").write_text(json.dumps(result, indent=2) + "\n")
    (out / "report.md").write_text(report_markdown(result))
    plot(result, out / "mean_reward.png")


# --------------------------------------------------------------- training
def evaluate_agent(agent_or_spec: AgentSpec, opponents: Sequence[str], *, variant: str = "trade_barter",
                   num_players: int = 4, options: dict[str, Any] | None = None, deals: int = 1000,
                   seed: int = 0, workers: int = 1, progress: bool = False) -> dict:
    """The learner in one seat against ``opponents`` (repeated to fill the others), on duplicate deals.

    Returns the learner's mean reward per deal and its 95% CI, and for each
    opponent the mean difference (learner - opponent) per deal, its 95% CI
    and p-value; ``result`` holds the full arena result.
    """
    if not opponents:
        raise ValueError("evaluate_agent needs at least one opponent")
    learner: AgentSpec = agent_or_spec
    learner_name = _names([learner])[0]
    if learner_name in opponents:
        raise ValueError(f"the learner {learner_name!r} is also among the opponents; give it another name")
    others = [opponents[k % len(opponents)] for k in range(num_players - 1)]
    result = run_arena([learner, *others], variant=variant, num_players=num_players, options=options,
                       deals=deals, seed=seed, workers=workers, progress=progress)
    mine = result["agents"][learner_name]
    versus = {}
    for p in result["pairwise"]:
        if learner_name in (p["a"], p["b"]):
            sign = 1.0 if p["a"] == learner_name else -1.0
            other = p["b"] if sign > 0 else p["a"]
            intervals = {level: list(p[level]) if sign > 0 else [-p[level][1], -p[level][0]]
                         for level in ("ci95", "ci99")}
            versus[other] = {"difference": sign * p["mean_difference"], **intervals, "p_value": p["p_value"]}
    return {"name": learner_name, "mean": mine["mean"], "ci95": mine["ci95"], "win_rate": mine["win_rate"],
            "vs": versus, "deals_per_second": result["deals_per_second"], "result": result}
