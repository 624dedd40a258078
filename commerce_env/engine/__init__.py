"""One engine per variant over shared pieces; see :mod:`.base`."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..rules import Rules
from .base import Game, IllegalActionError
from .my_ship_sails import MyShipSails
from .old_game import OldGame
from .pool import PoolCommerce
from .trade_barter import TradeBarter
from .widow import Widow

ENGINES: dict[str, type[Game]] = {
    "trade_barter": TradeBarter,
    "widow": Widow,
    "my_ship_sails": MyShipSails,
    "old_game": OldGame,
    "pool": PoolCommerce,
}


def new_game(rules: Rules, num_players: int, seed: int | None = None,
             decks: Sequence[str | Sequence[int]] | None = None, dealer: int = 0,
             rng: random.Random | None = None, wait_for_packs: bool = False) -> Game:
    """A new match of ``rules.variant`` (R4.5), its first deal dealt.

    With ``wait_for_packs`` the deals after the packs given in ``decks`` are not
    shuffled: the game waits (``awaiting_pack``) until ``supply_pack`` deals each.
    """
    return ENGINES[rules.variant](rules, num_players, seed=seed, decks=decks, dealer=dealer, rng=rng,
                                  wait_for_packs=wait_for_packs)


__all__ = ["Game", "IllegalActionError", "new_game", "ENGINES"]
