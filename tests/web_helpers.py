"""Shared by the web app's tests: which cards the human has seen (R11), read from the engine."""

from __future__ import annotations

import json
import re

from commerce_env.replay import record_game, replay

CARD = re.compile(r"\b(?:10|[2-9JQKA])[CDHS]\b")


def cards_in(payload) -> set[str]:
    """Every card text in a JSON payload."""
    return set(CARD.findall(payload if isinstance(payload, str) else json.dumps(payload)))


def seen_by_action_count(game, seat: int) -> list[set[str]]:
    """``seen[k]``: the cards ``seat`` has seen once ``k`` actions of the match were taken (R11):
    its hands and the face-up cards at every state so far, every hand shown at a showdown,
    the cards of its own actions and the card given to it in a barter.  Built by replaying
    the match through the engine, independently of what the web app sends."""
    states = replay(record_game(game)).states
    seen: set[str] = set()
    out = []
    for k, state in enumerate(states):
        if state.hands[seat] and state.sees_own_hand(seat):
            seen |= {str(c) for c in state.hands[seat]}
        seen |= {str(c) for c in state.table}
        for shown in state.showdowns:
            seen |= {str(c) for hand in shown.hands for c in hand} | {str(c) for c in shown.table}
        if k:
            actor, kind, cards = state.history[k - 1]
            received = kind == "give" and k >= 2 and state.history[k - 2][0] == seat
            if actor == seat or kind == "exchange" or received:
                seen |= {str(c) for c in cards}
        out.append(set(seen))
    return out
