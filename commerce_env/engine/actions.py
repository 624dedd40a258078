"""The action table shared by every variant (RULES.md R12's action texts).

Actions that name a card name it by its *slot*: a player's hand is always kept
sorted, and face-up table cards keep their places (R6.3, R8.2), so slot ``i``
of the observation is the card an action ``offer 0`` means.  27 actions in
all, the same numbers in every variant; a mask says which are legal now.
"""

from __future__ import annotations

import numbers

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


# The kinds as numbers, for observations of what each player did last.
KINDS = SIMPLE_TEXTS + ("ready_money", "offer", "give", "exchange")
KIND_INDEX = {kind: i for i, kind in enumerate(KINDS)}
# Per action number: its kind and the kind's index (speed: looked up on every decision).
ACTION_KINDS = tuple(action_kind(a) for a in range(NUM_ACTIONS))
ACTION_KIND_INDEX = tuple(KIND_INDEX[kind] for kind in ACTION_KINDS)


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
    elif isinstance(action, numbers.Integral) and not isinstance(action, bool):
        value = int(action)
    else:
        raise BadActionError(f"an action is an integer from 0 to {NUM_ACTIONS - 1}, got {action!r} "
                             f"({type(action).__name__})")
    if not 0 <= value < NUM_ACTIONS:
        raise BadActionError(f"action {action!r} is out of range: actions are 0 to {NUM_ACTIONS - 1}")
    return value
