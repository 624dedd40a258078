"""Checks of what callers give the envs' constructors and ``reset``: a wrong type is a
``TypeError`` (or ``ValueError``) naming the value, raised before anything changes."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .checks import is_whole, whole_number

ILLEGAL_ACTION_MODES = ("raise", "terminate")
ILLEGAL_REWARD = -1.0  # PettingZoo's convention for an illegal move (TerminateIllegalWrapper)
MAX_GAMES = 2**20
"""The most games one batched engine (or vector env) holds: about a million, some 7 GB of rows
at 12 players; beyond it a bound, not a memory error of terabytes."""


def checked_illegal_action(mode: Any) -> str:
    """An env's ``illegal_action``: ``"raise"``, or ``"terminate"`` (the episode ends, reward
    :data:`ILLEGAL_REWARD`); anything else is a ``ValueError`` naming it."""
    if mode not in ILLEGAL_ACTION_MODES:
        raise ValueError(f"bad illegal_action {mode!r}; choose from {', '.join(ILLEGAL_ACTION_MODES)}")
    return mode


def check_game_count(name: str, count: Any) -> None:
    """Refuse, naming ``name``, a count of games that is not a whole number from 1 to :data:`MAX_GAMES`."""
    whole_number(name, count, 1, MAX_GAMES)


def checked_seed(seed: Any) -> int | None:
    """A reset's ``seed`` as a Python int: integers, numpy's included (as Gymnasium takes them);
    anything else is a ``TypeError`` naming it."""
    if seed is None or is_whole(seed):
        return None if seed is None else int(seed)
    raise TypeError(f"seed must be an integer or None, got {seed!r}")


def reset_options(options: Any) -> dict[str, Any]:
    """A copy of a reset's ``options`` mapping (None: none); anything else is a ``TypeError`` naming it."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise TypeError(f"reset options must be a mapping such as {{'deck': <pack>}}, got {options!r}")
    return dict(options)


def reset_decks(options: Mapping[str, Any]) -> list[Any] | None:
    """The packs of the reset options: ``deck`` (one pack) or ``decks`` (a list of packs), each
    a text or a list of cards; the cards themselves are checked by the engine (R1.5)."""
    if "deck" in options and "decks" in options:
        raise ValueError("give either 'deck' or 'decks' in reset options, not both")
    if "deck" in options:
        deck = options["deck"]
        if not isinstance(deck, (str, Sequence, np.ndarray)) or isinstance(deck, bytes):
            raise TypeError(f"reset option 'deck' must be a pack (a text or a list of cards), got {deck!r}")
        return [deck]
    decks = options.get("decks")
    if decks is not None and (isinstance(decks, str) or not isinstance(decks, (list, tuple))):
        raise ValueError(f"reset option 'decks' must be a list of packs, got {decks!r}")
    return decks


def check_config(config: Any) -> str | os.PathLike | None:
    """An env's ``config``: the path of a rules file (YAML), or None; anything else is a
    ``TypeError`` naming it."""
    if config is not None and not isinstance(config, (str, os.PathLike)):
        raise TypeError(f"config must be the path of a rules file (YAML), got {config!r}")
    return config
