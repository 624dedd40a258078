"""Who sits where, and which cards they get: the arena's seatings and duplicate deals.

See the docstring of :mod:`agents.arena` (and docs/arena.md) for the convention.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from itertools import permutations
from typing import Any

from commerce_env.engine.shuffle import shuffled
from commerce_env.rules import Rules

MAX_SEATINGS = 24  # all arrangements of up to 4 distinct agents; else rotations only
PACKS_PER_GROUP = 12  # packs given for the first deals of a match; later ones come from the group's seed


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
        pack = shuffled(pack, rng)  # rng.shuffle(pack), faster: the same packs
        packs.append(pack)
    game_seed = rng.getrandbits(63)
    agent_seeds = [rng.getrandbits(31) for _ in range(num_players * games)]
    return packs, game_seed, agent_seeds


def _pack(rules: Rules) -> tuple[int, ...]:
    from commerce_env.cards import make_pack

    return make_pack(rules.deck_size)
