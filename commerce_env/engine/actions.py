"""The action table shared by every variant (docs/rules.md R12's action texts).

Actions that name a card name it by its *slot*: a player's hand is always kept
sorted, and face-up table cards keep their places (R6.3, R8.2), so slot ``i``
of the observation is the card an action ``offer 0`` means.  27 actions in
all, the same numbers in every variant; a mask says which are legal now.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..cards import format_cards, parse_card
from ..checks import is_whole, whole_number

KNOCK, STAND, CONTINUE, PASS, DECLINE, TAKE_WIDOW, KEEP_HAND, BUY_HORSE, NO_HORSE = range(9)
READY_MONEY = 9  # + hand slot (0..2)
OFFER = 12  # + hand slot
GIVE = 15  # + hand slot
EXCHANGE = 18  # + own slot * 3 + table slot
NUM_ACTIONS = 27

SIMPLE_TEXTS = ("knock", "stand", "continue", "pass", "decline", "take_widow", "keep_hand",
                "buy_horse", "no_horse")
SIMPLE_ACTIONS = {text: i for i, text in enumerate(SIMPLE_TEXTS)}
CARD_VERBS = {"ready_money": READY_MONEY, "offer": OFFER, "give": GIVE}


def action_kind(action: int) -> str:
    """The verb of an action: ``knock``, ``offer``, ``exchange`` ..."""
    if action < READY_MONEY:
        return SIMPLE_TEXTS[action]
    if action < OFFER:
        return "ready_money"
    if action < GIVE:
        return "offer"
    if action < EXCHANGE:
        return "give"
    return "exchange"


def describe_action(action: int) -> str:
    """A state-free description of an action number, as in the README's table."""
    if action < READY_MONEY:
        return SIMPLE_TEXTS[action]
    if action < EXCHANGE:
        return f"{action_kind(action)} <hand card {(action - READY_MONEY) % 3}>"
    own, table = divmod(action - EXCHANGE, 3)
    return f"exchange <hand card {own}> <table card {table}>"


# How many cards each kind's canonical text names (the record may hold more: the card drawn).
TEXT_CARDS = {"ready_money": 1, "offer": 1, "give": 1, "exchange": 2}

# The kinds as numbers, for observations of what each player did last.
KINDS = SIMPLE_TEXTS + ("ready_money", "offer", "give", "exchange")
KIND_INDEX = {kind: i for i, kind in enumerate(KINDS)}
# Per action number: its kind and the kind's index (speed: looked up on every decision).
ACTION_KINDS = tuple(action_kind(a) for a in range(NUM_ACTIONS))
ACTION_KIND_INDEX = tuple(KIND_INDEX[kind] for kind in ACTION_KINDS)


def action_cards(action: int, hand: Sequence[int], table: Sequence[int]) -> tuple[int, ...]:
    """The cards an action names, for a player holding ``hand`` (sorted) at ``table``."""
    if action < READY_MONEY:
        return ()
    if action < EXCHANGE:
        return (hand[(action - READY_MONEY) % 3],)
    own, slot = divmod(action - EXCHANGE, 3)
    return (hand[own], table[slot])


def action_text(action: int, hand: Sequence[int], table: Sequence[int]) -> str:
    """The canonical text of an action (R12), ``offer 10H``; ``hand`` empty when unseen."""
    action = whole_number("action", action, 0, NUM_ACTIONS - 1)
    kind = ACTION_KINDS[action]
    if action < READY_MONEY:
        return kind
    if len(hand) < 3 or (kind == "exchange" and len(table) < 3):
        raise ValueError(f"action {action} ({describe_action(action)}) names no card now")
    return " ".join([kind, format_cards(action_cards(action, hand, table))])


def action_from_text(text: str, hand: Sequence[int], table: Sequence[int], whose: str = "the hand") -> int:
    """The action number of a canonical text (R12) for a player holding ``hand`` at ``table``."""
    if not isinstance(text, str):
        raise TypeError(f"an action text must be a string, got {text!r}")
    words = text.strip().split()
    if not words:
        raise ValueError("empty action text")
    verb = words[0].lower()
    if verb in SIMPLE_ACTIONS and len(words) == 1:
        return SIMPLE_ACTIONS[verb]

    def slot(cards: Sequence[int], token: str, where: str) -> int:
        card = parse_card(token)
        if card not in cards:
            raise ValueError(f"action {text!r}: {card} is not in {where}")
        return list(cards).index(card)

    if verb in CARD_VERBS and len(words) == 2:
        return CARD_VERBS[verb] + slot(hand, words[1], whose)
    if verb == "exchange" and len(words) == 3:
        return EXCHANGE + 3 * slot(hand, words[1], whose) + slot(table, words[2], "the table")
    raise ValueError(f"unknown action text {text!r}")
class IllegalActionError(ValueError):
    """An action that is not legal now; the state is unchanged."""


class BadActionError(IllegalActionError, TypeError):
    """An action that is not an action number at all (a float, a string, None, out of range).

    Also a ``TypeError``.  Envs refuse it the same way in every illegal-action
    mode (it is a caller's bug, not a move), before any rule is consulted.
    """


def check_action(action: object) -> int:
    """``action`` as a plain int if it is an integer (Python or numpy) from 0 to 26, else
    :class:`BadActionError` naming it.  Floats are refused, not truncated."""
    if type(action) is int:  # speed: the usual case
        value = action
    elif is_whole(action):
        value = int(action)
    else:
        raise BadActionError(f"an action is an integer from 0 to {NUM_ACTIONS - 1}, got {action!r} "
                             f"({type(action).__name__})")
    if not 0 <= value < NUM_ACTIONS:
        raise BadActionError(f"action {action!r} is out of range: actions are 0 to {NUM_ACTIONS - 1}")
    return value
