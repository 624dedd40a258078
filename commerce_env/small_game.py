"""Research-size Commerce: the smallest games that keep every decision of a variant, small enough
to solve exactly (docs/benchmark.md, "Exploitability: a small game solved exactly").

These are not rules of the game and no rule option names them: R12's ``deck_size`` is 52 or
32, and :func:`commerce_env.rules.make_rules` refuses any other size, so no config, web request
or other text reaches them.  Python code builds them here, on the readable engine (the batched
engine refuses a research pack).  Each keeps its variant's R12 defaults except the pack, the
players, the rounds and the deals:

* **Trade and barter**: 2 players (R1.4's fewest), one round (R4.4: each player's turn once,
  so knocking, ready money, a barter offer and the neighbour's give or knock all happen), one
  deal, and a 9-card pack of 2, 3 and 4 in three suits: three suits are the fewest with a
  tricon, three running ranks the fewest with a sequence, so every category Foster counts
  (tricon, sequence, point, none) can be dealt; the six cards dealt leave three in the stock,
  one more than the two draws a round can take, so every draw is a real chance.
* **Commerce with a widow**: 2 players, one round (the dealer's blind ``take_widow`` or
  ``keep_hand``, then one turn each: knock, pass or exchange), one deal (R12's ``until_out``
  would make the match unbounded), and a 10-card pack of 2 to 6 in two suits.  Nine cards
  are dealt (two hands and the widow); with a ninth-card pack each player would see six
  cards and know the other hand, so the tenth card, never seen, is what keeps the game one
  of imperfect information.  A third suit would triple the deals (no tree this side of
  10**8 nodes), so this pack has no tricon and every hand has a point.

R2 on these packs: their cards are cards of the 52-card pack, so a hand is valued exactly as it
would be in a full pack (:mod:`commerce_env.hands`, unchanged); the pack only limits which
hands occur.  In the 9-card pack: three tricons, one sequence per suit (2 3 4: three running
ranks, no ace, so R2.2's A 2 3 cannot arise), two-card points of 5 to 7 pips, and hands of three
suits with nothing.  In the 10-card pack: sequences 2 3 4, 3 4 5 and 4 5 6 of a suit, three
cards of a suit that run no sequence count as a three-card point (R2.5, flush off), and any
other hand holds a two-card point.

The first deal's chance outcome is the whole deal (each hand, the widow): :meth:`SmallGame.deals`
lists them, equally likely.  The widow's three cards lie in card order: which cards, not where,
is chance's (the slots' order only names them, R6.3), which keeps the tree six times smaller.  A
card drawn for ready money is chance's choice when it is drawn, among the stock cards nobody has
drawn yet (:mod:`commerce_env.game_tree`).  :meth:`SmallGame.random_deal` deals the same way.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import random
from collections.abc import Iterator

from .cards import RESEARCH_PACKS, make_pack
from .checks import whole_number
from .engine import ENGINES, Game, new_game
from .rules import Rules, make_rules

__all__ = ["SMALL_GAMES", "SmallGame", "small_game"]


@dataclasses.dataclass(frozen=True)
class SmallGame:
    """A research-size game: a variant on a research pack, with few players and rounds."""

    variant: str
    """The variant; its other options are R12's defaults."""
    deck_size: int
    """A size of :data:`commerce_env.cards.RESEARCH_PACKS`."""
    num_players: int = 2
    max_rounds: int = 1
    """R4.4's cap: one round is every player's turn once."""

    def __post_init__(self) -> None:
        if self.deck_size not in RESEARCH_PACKS:
            raise ValueError(f"deck_size must be a research pack's size ({', '.join(map(str, RESEARCH_PACKS))}), "
                             f"got {self.deck_size!r}")

    @property
    def name(self) -> str:
        return f"{self.variant}, {self.num_players} players, {self.deck_size} cards, {self.max_rounds} round(s)"

    def rules(self) -> Rules:
        """The variant's R12 rules, one deal of ``max_rounds``, on the research pack."""
        return self._rules

    @functools.cached_property
    def _rules(self) -> Rules:
        rules = make_rules(self.variant, deals=1, max_rounds=self.max_rounds)
        rules = dataclasses.replace(rules, deck_size=self.deck_size)  # past make_rules, which allows 52 or 32
        rules.check_players(self.num_players)
        return rules

    @property
    def pack(self) -> tuple[int, ...]:
        return tuple(int(c) for c in make_pack(self.deck_size))

    def deals(self, count: int | None = None) -> list[tuple[int, ...]]:
        """Every first deal as a pack (top first, R1.5), equally likely: each hand and the table
        as a set, in a fixed order, the stock sorted (its order is chance's at each draw).  With
        ``count``, that many of them spread evenly over the list: a smaller game, for tests."""
        every = list(_deals(self.pack, self.num_players, self.rules().info.engine.has_table))
        if count is None:
            return every
        count = whole_number("count", count, 1, len(every))
        return [every[k * len(every) // count] for k in range(count)]

    def random_deal(self, rng: random.Random) -> tuple[int, ...]:
        """A pack as this game's chance deals one: shuffled, the table's three cards in card order."""
        pack = list(self.pack)
        rng.shuffle(pack)
        if self.rules().info.engine.has_table:
            top = 3 * self.num_players
            pack[top:top + 3] = sorted(pack[top:top + 3])
        return tuple(pack)

    def new_game(self, pack: tuple[int, ...]) -> Game:
        """A game of these rules dealt from ``pack``, seat 0 the dealer."""
        return new_game(self.rules(), self.num_players, seed=0, decks=[pack], dealer=0)


def _deals(pack: tuple[int, ...], num_players: int, has_table: bool) -> Iterator[tuple[int, ...]]:
    """Packs that deal each split of ``pack`` into hands (eldest first) and table once."""
    parts = num_players + (1 if has_table else 0)

    def splits(left: tuple[int, ...], count: int) -> Iterator[tuple[tuple[int, ...], ...]]:
        if count == 0:
            yield ()
            return
        for part in itertools.combinations(left, 3):
            rest = tuple(c for c in left if c not in part)
            for later in splits(rest, count - 1):
                yield (part, *later)

    for split in splits(pack, parts):
        hands, table = split[:num_players], split[num_players:]
        dealt = [hand[k] for k in range(3) for hand in hands]  # R1.5: one at a time, eldest first
        used = set(dealt).union(*table)
        yield (*dealt, *(table[0] if table else ()), *(c for c in pack if c not in used))


# Each variant with a small game says its pack (``research_pack`` of its engine class).
SMALL_GAMES: dict[str, SmallGame] = {variant: SmallGame(variant, engine.research_pack)
                                     for variant, engine in ENGINES.items() if engine.research_pack}
"""The research-size game of each variant that has one."""


def small_game(variant: str) -> SmallGame:
    """The research-size game of ``variant``; a ``ValueError`` naming it if there is none."""
    try:
        return SMALL_GAMES[variant]
    except (KeyError, TypeError):
        raise ValueError(f"no small game for variant {variant!r}; there is one for {', '.join(SMALL_GAMES)}") from None
