"""Cards and packs (docs/rules.md R1).

A card is a small int subclass (``rank * 4 + suit``) so that hands can be
compared, hashed and used as table indices at the speed of ints, while still
printing as ``10H``.  All 52 cards exist once, in :data:`CARDS`.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from .checks import is_whole

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("C", "D", "H", "S")
SUIT_SYMBOLS = ("♣", "♦", "♥", "♠")
RANK_INDEX = {name: i for i, name in enumerate(RANKS)}
RANK_INDEX["T"] = RANK_INDEX["10"]  # R1.3: T is accepted for 10 on input
SUIT_INDEX = {name: i for i, name in enumerate(SUITS)}
#: R1.2 pips: ace 11, court cards and ten 10, others face value.
RANK_PIPS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 11)
DECK_SIZES = (52, 32)
#: Research-size packs, by size: not R1's packs and no rule option (R12's ``deck_size`` is 52 or 32,
#: and text never names these), but cards of the 52-card pack, so R2 values their hands unchanged.
#: Made for the small games solved exactly (:mod:`commerce_env.small_game`), reachable from Python alone.
RESEARCH_PACKS: dict[int, tuple[str, ...]] = {
    9: tuple(r + s for r in ("2", "3", "4") for s in ("C", "D", "H")),  # 3 suits x 3 ranks
    10: tuple(r + s for r in ("2", "3", "4", "5", "6") for s in ("C", "D")),  # 2 suits x 5 ranks
}


class Card(int):
    """One card: ``rank * 4 + suit`` with rank 0 = deuce ... 12 = ace (R1.1)."""

    __slots__ = ()

    @property
    def rank(self) -> int:
        return self >> 2

    @property
    def suit(self) -> int:
        return self & 3

    @property
    def pips(self) -> int:
        return RANK_PIPS[self >> 2]

    def __str__(self) -> str:
        return RANKS[self >> 2] + SUITS[self & 3]

    def __repr__(self) -> str:
        return f"Card('{self}')"

    def symbol(self) -> str:
        """The card with its suit symbol, for rendering (``10♥``)."""
        return RANKS[self >> 2] + SUIT_SYMBOLS[self & 3]

    def __reduce__(self):
        return (_card, (int(self),))


def _card(index: int) -> Card:
    return CARDS[index]


CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(52))
_BY_NAME = {str(c): c for c in CARDS}


def make_pack(deck_size: int = 52) -> tuple[Card, ...]:
    """All cards of a pack in a fixed order: 52 cards, or 7 to ace for 32 (R1.1); a size of
    :data:`RESEARCH_PACKS` gives that research pack."""
    if deck_size == 52:
        return CARDS
    if deck_size == 32:
        return tuple(c for c in CARDS if c.rank >= RANK_INDEX["7"])
    if deck_size in RESEARCH_PACKS and type(deck_size) is int:
        return _research_pack(deck_size)
    raise ValueError(f"deck_size must be 52 or 32, got {deck_size!r}")


@cache
def _research_pack(deck_size: int) -> tuple[Card, ...]:
    return tuple(sorted(parse_card(text) for text in RESEARCH_PACKS[deck_size]))


def parse_card(token: str) -> Card:
    """Parse one card such as ``AS``, ``10h`` or ``TC`` (R1.3)."""
    if not isinstance(token, str):
        raise TypeError(f"a card must be given as text, got {token!r}")
    text = token.strip().upper()
    rank, suit = RANK_INDEX.get(text[:-1]), SUIT_INDEX.get(text[-1:])
    if rank is None or suit is None:
        raise ValueError(f"bad card {token!r}: expected a rank 2-10, J, Q, K, A (or T) and a suit C, D, H, S")
    return CARDS[rank * 4 + suit]


def _as_card(token: str | int) -> Card:
    """A card from its text, or from its index 0..51 (cards are ints)."""
    if isinstance(token, Card):
        return token
    if is_whole(token):
        if not 0 <= token < 52:
            raise ValueError(f"bad card index {token!r}: expected 0..51")
        return CARDS[token]
    return parse_card(token)


def parse_cards(text: str | Iterable[str | int]) -> tuple[Card, ...]:
    """Parse cards separated by spaces or commas: ``"AS 10H tc"`` (R1.3).

    A sequence of texts, :class:`Card` objects or card indices is accepted too.
    """
    if isinstance(text, str):
        tokens = text.replace(",", " ").split()
    elif isinstance(text, Iterable):
        tokens = list(text)
    else:
        raise TypeError(f"cards must be text or a sequence of texts, got {text!r}")
    return tuple(_as_card(t) for t in tokens)


def format_cards(cards: Iterable[int]) -> str:
    """Cards in canonical text, space separated (``10H``, never ``TH``)."""
    return " ".join(str(CARDS[c]) for c in cards)


def parse_pack(pack: str | Iterable[str], deck_size: int = 52) -> tuple[Card, ...]:
    """A whole pack, top card first (R1.5); every card exactly once or an error."""
    cards = parse_cards(pack)
    expected = set(make_pack(deck_size))
    seen: set[Card] = set()
    for card in cards:
        if card not in expected:
            raise ValueError(f"card {card} is not in the {deck_size}-card pack")
        if card in seen:
            raise ValueError(f"card {card} appears twice in the pack")
        seen.add(card)
    missing = expected - seen
    if missing:
        raise ValueError(f"the pack lacks {len(missing)} card(s): {format_cards(sorted(missing))}")
    return cards
