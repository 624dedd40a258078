"""What an arena run plays, as one typed record checked once (as the training config's sections are).

:func:`agents.arena.run_arena` takes its settings as keywords and builds this record, so
a script can also build one, keep it and pass it (``run_arena(lineup, settings)``).  Every
value is checked on construction with the project's checking vocabulary
(:mod:`commerce_env.checks`), each error naming the setting and the bad value, before any
game is played or any process started.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from commerce_env.checks import flag, one_of, whole_number
from commerce_env.rules import DEFAULT_PLAYERS, DEFAULT_VARIANT, Rules, make_rules

from .isolated import check_time_limit

__all__ = ["BACKENDS", "DEFAULT_GAMES", "ArenaSettings"]

BACKENDS = ("local", "ray")
DEFAULT_GAMES = 1000
MAX_SEED = 2**63 - 1


@dataclass(frozen=True)
class ArenaSettings:
    """One arena run's settings (the arguments of :func:`agents.arena.run_arena`, which says what
    each does); :attr:`rules` is made from ``variant`` and ``options``."""

    variant: str = DEFAULT_VARIANT
    num_players: int = DEFAULT_PLAYERS
    options: Mapping[str, Any] | None = None
    games: int = DEFAULT_GAMES
    seed: int | None = None  # None: 0, or a fresh secret seed when isolated
    workers: int = 1
    duplicate: bool = True
    out_dir: str | Path | None = None
    overwrite: bool = False
    progress: bool = True
    backend: str = "local"
    address: str | None = None
    batched: bool | None = None  # None: wherever it applies (agents.arena_batched.applies)
    isolate: bool = False
    time_limit: float | None = None
    rules: Rules = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__  # a frozen record: each value is set once, checked
        rules = make_rules(self.variant, **dict(self.options or {}))
        rules.check_players(self.num_players)
        set_(self, "rules", rules)
        set_(self, "games", whole_number("games (deals)", self.games, 1))
        set_(self, "workers", whole_number("workers", self.workers, 1))
        seed = self.seed
        if seed is None:  # isolated: a secret seed, or an agent that knows the scheme could deal the packs itself
            seed = secrets.randbelow(2**63) if self.isolate is True else 0
        set_(self, "seed", whole_number("seed", seed, 0, MAX_SEED))
        for name in ("duplicate", "overwrite", "progress", "isolate"):
            flag(name, getattr(self, name))
        one_of("backend", self.backend, BACKENDS)
        one_of("batched (None: where it applies)", self.batched, (None, True, False))
        if self.isolate and (self.backend != "local" or self.workers != 1 or self.batched):
            raise ValueError(f"isolate=True plays on the local backend in one process (each agent in its own), "
                             f"not with backend={self.backend!r}, workers={self.workers!r}, batched={self.batched!r}")
        set_(self, "time_limit", check_time_limit(self.time_limit))
        if self.time_limit is not None and not self.isolate:
            raise ValueError(f"time_limit={self.time_limit!r} needs isolate=True: an agent in the arena's own "
                             "process cannot be stopped in the middle of a decision")
        if self.out_dir is not None and not isinstance(self.out_dir, (str, Path)):
            raise ValueError(f"bad value {self.out_dir!r} for out_dir; expected a folder's path or None")
