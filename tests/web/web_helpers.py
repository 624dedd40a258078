"""Shared by the web app's tests: which cards the human has seen (R11), read from the engine."""

from __future__ import annotations

import json
import re

from commerce_env.replay import record_game, replay

CARD = re.compile(r"\b(?:10|[2-9JQKA])[CDHS]\b")


def cards_in(payload) -> set[str]:
    """Every card text in a JSON payload (a JSON string or the parsed value).  The match id
    is left out: it is random text (``secrets.token_urlsafe``) and can hold a card-like piece
    such as ``-9H``."""
    data = json.loads(payload) if isinstance(payload, str) else payload
    return set(CARD.findall(json.dumps(_without_ids(data))))


def _without_ids(data):
    if isinstance(data, dict):
        return {key: _without_ids(value) for key, value in data.items() if key != "id"}
    if isinstance(data, list):
        return [_without_ids(value) for value in data]
    return data


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


# What a player must never read (commerce_env.guide): the engine's action tokens, rule numbers, a
# learner's terms, "none" for a hand, a seat by its program name, the prompt's old "Your turn: to play".
JARGON = re.compile(
    r"\b(?:ready_money|take_widow|keep_hand|buy_horse|no_horse|player_\d+)\b"
    r"|\bexchange (?:10|[2-9JQKA])[CDHS] (?:10|[2-9JQKA])[CDHS]\b"
    r"|\bR\d{1,2}(?:\.\d+)?\b"
    r"|\b(?:returns?|rewards?|episodes?|observations?|polic(?:y|ies)|agents?)\b"
    r"|\bnone\b|Your turn: to\b", re.IGNORECASE)


def jargon(text: str) -> list[str]:
    """The pieces of ``text`` a player should not have to read (:data:`JARGON`)."""
    return [found.group() for found in JARGON.finditer(text)]
