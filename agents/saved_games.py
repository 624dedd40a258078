"""``commerce arena --save-games N FILE``: the arena's first games as replays (commerce_env.replay).

The arena's games are reproducible from its seed: group ``g`` draws its packs
and its agents' seeds from ``(seed, g)`` alone (see :mod:`agents.arena`).  So
the first ``N`` games are played again here, with the same packs, seatings and
agent seeds, and written as JSON lines; an agent that keeps no state across
games (every built-in one re-seeds in ``reset``) plays them exactly as it did.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from commerce_env.checks import whole_number
from commerce_env.engine import new_game
from commerce_env.replay import record_game, write_records
from commerce_env.rules import DEFAULT_PLAYERS, DEFAULT_VARIANT, make_rules

from . import arena


def arena_games(lineup: Sequence[Any], count: int, *, variant: str = DEFAULT_VARIANT,
                num_players: int = DEFAULT_PLAYERS, options: dict[str, Any] | None = None, seed: int = 0,
                duplicate: bool = True) -> list[dict]:
    """Records of the arena's first ``count`` games, in the arena's order (group by group)."""
    count = whole_number("the number of games to save", count, 1)
    rules = make_rules(variant, **(options or {}))
    rules.check_players(num_players)
    names = arena.agent_names(lineup)
    unique = list(dict.fromkeys(names))
    table = [unique.index(names[i]) for i in arena.base_table(lineup, num_players)]
    spec_of = {unique.index(name): spec for name, spec in zip(names, lineup, strict=True)}
    agents = {a: [arena.build_agent(spec_of[a]) for _ in range(table.count(a))] for a in set(table)}
    plan = arena.seatings(table)
    records: list[dict] = []
    group = 0
    while len(records) < count:
        packs, game_seed, agent_seeds = arena.group_deal(rules, num_players, seed, group, len(plan))
        for index, seating in enumerate(plan):
            if len(records) == count:
                break
            if not duplicate:
                packs, game_seed, _ = arena.group_deal(rules, num_players, seed, f"{group}/{index}")
            copies = {a: iter(objects) for a, objects in agents.items()}
            seats = [next(copies[a]) for a in seating]
            game = new_game(rules, num_players, decks=packs, dealer=0, rng=random.Random(game_seed))
            arena.play_game(game, seats, agent_seeds[index * num_players:(index + 1) * num_players])
            records.append(record_game(game, [unique[a] for a in seating]))
        group += 1
    return records


def save_arena_games(path: str | Path, count: int, lineup: Sequence[Any], **kwargs: Any) -> int:
    """Write :func:`arena_games` to a new JSON-lines file; returns how many were written."""
    if Path(path).exists():
        raise ValueError(f"--save-games: {path} exists; give a new file name")
    records = arena_games(lineup, count, **kwargs)
    write_records(path, records)
    return len(records)


def check_save_games(count: str, path: str) -> None:
    """``--save-games N FILE``: N a whole number >= 1, FILE new (nothing is overwritten)."""
    if not count.isdigit() or int(count) < 1:
        raise ValueError(f"--save-games: N must be a whole number >= 1, got {count!r}")
    if Path(path).exists():
        raise ValueError(f"--save-games: {path} exists; give a new file name")


def save_games_command(args: Any, lineup: list[str], options: dict[str, Any]) -> int:
    """The ``--save-games N FILE`` of ``commerce arena``, after the arena has run."""
    import sys

    count, path = args.save_games
    try:
        check_save_games(count, path)
        written = save_arena_games(path, int(count), lineup, variant=args.variant, num_players=args.players,
                                   options=options, seed=args.seed or 0, duplicate=not args.no_duplicate)
    except (ValueError, TypeError, OSError) as error:
        print(f"commerce arena: {error}", file=sys.stderr)
        return 2
    picture = Path(path).with_name(f"{Path(path).stem}_1.gif")  # beside the replays, never the current folder
    print(f"wrote {written} game(s) to {path}; draw one with: commerce replay {path} --game 1 --out {picture}")
    return 0
