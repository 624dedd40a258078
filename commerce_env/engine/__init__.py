"""One engine per variant over shared pieces; see :mod:`.base`.  Each variant's module declares
the variant (:func:`commerce_env.options.register`) when it is imported here."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..options import Rules, registered
from . import my_ship_sails, old_game, pool, trade_barter, widow  # noqa: F401 - each registers its variant
from .base import Game, IllegalActionError

ENGINES: dict[str, type[Game]] = {name: variant.engine for name, variant in registered().items()}


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
