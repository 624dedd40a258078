"""The names a game's state uses: the phases of a decision and the record's kinds that are not actions."""

from __future__ import annotations

# Phases of a decision.
ACT = "act"  # a player's own turn
REPLY = "reply"  # the left neighbour answers an offer (R5.4, R7.2)
STAND_CHOICE = "stand_choice"  # stand or continue after a trade (R5.6)
WIDOW_CHOICE = "widow_choice"  # the widow dealer's blind choice (R6.2)
LAST_EXCHANGE = "last_exchange"  # the old game's last exchanges (R8.3)
HORSE = "horse"  # pool commerce: buy a horse or not (R9.4)
OVER = "over"
PHASES = (ACT, REPLY, STAND_CHOICE, WIDOW_CHOICE, LAST_EXCHANGE, HORSE, OVER)

# Record kinds that are not actions.
DEAL = "deal"  # cards: the pack, top first; seen: each card's holder (R1.5), the face-up table by all
SHOW = "show"  # one per hand at the showdown: shown to all (R11)

STARTING_LIVES = 3  # R6.1, R7.1, R9.2
