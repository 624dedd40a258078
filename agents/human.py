"""A human at the terminal: sees what his seat may see (R11), types an action.

The view shows the hand (unless he is the widow dealer before his blind
choice, R6.2), the face-up cards, every player's counters, and what the others
did since his last turn, with face-down cards hidden.  An action is chosen by
its number or its canonical text (R12, e.g. ``ready_money 10H``); anything else
is refused with a message saying why, and the question is asked again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from commerce_env.cards import CARDS, format_cards
from commerce_env.engine.base import Game

from .base import Agent


def public_action_text(game: Game, index: int, viewer: int) -> str:
    """History entry ``index`` as ``viewer`` saw it: face-down cards hidden (R11)."""
    seat, kind, cards = game.history[index]
    if not cards or kind == "exchange" or seat == viewer:
        return kind if not cards else f"{kind} {format_cards(cards)}"
    if kind == "give" and index > 0 and game.history[index - 1][0] == viewer:
        return f"give {format_cards(cards)} (to you)"  # the card came to the viewer's hand
    return f"{kind} (a card face down)"


class HumanAgent(Agent):
    """Asks a person for each action; ``read`` and ``write`` default to the terminal."""

    name = "human"

    def __init__(self, read: Callable[[str], str] = input, write: Callable[[str], None] = print,
                 names: list[str] | None = None, seed: int | None = None):
        self.read, self.write = read, write
        self.names = names
        self.seen = 0  # history entries already shown

    def reset(self, seat, num_players, rules, seed=None) -> None:
        self.seen = 0

    def _name(self, seat: int) -> str:
        return self.names[seat] if self.names else f"player_{seat}"

    def view(self, game: Game, seat: int) -> str:
        """The text shown before a decision."""
        def cards(seq) -> str:
            return " ".join(CARDS[c].symbol() + f"({CARDS[c]})" for c in seq) or "-"

        lines = []
        if self.seen > len(game.history):  # a new match
            self.seen = 0
        news = [f"  {self._name(s)}: {public_action_text(game, i, seat)}"
                for i, (s, _, _) in enumerate(game.history) if i >= self.seen and s != seat]
        if news:
            lines += ["Since your last turn:", *news]
        lines.append(f"--- {game.rules.variant}: deal {game.deals_dealt}, round {game.rounds_done + 1}, "
                     f"pool {game.pool}, dealer {self._name(game.dealer)} ---")
        if game.sees_own_hand(seat):
            lines.append(f"Your hand ({self._name(seat)}): {cards(game.hands[seat])}")
        else:
            lines.append(f"Your hand ({self._name(seat)}): face down, unseen (R6.2)")
        if game.table:
            lines.append(f"Face up on the table: {cards(game.table)}")
        if game.rules.variant == "trade_barter":
            lines.append(f"Stock: {len(game.stock)} cards")
        money = game.rules.variant == "pool"
        unit = "lives" if game.rules.has_lives else "counters"
        lines.append("Players: " + "; ".join(
            f"{self._name(s)} {game.counters[s]} {unit}" + (f", money {game.money[s]}" if money else "")
            + (" (out)" if game.out[s] else "") for s in range(game.num_players)))
        lines.append("Your choices:")
        for action in game.legal_actions():
            lines.append(f"  {action:>2}  {game.action_text(action, seat)}")
        return "\n".join(lines)

    def parse(self, game: Game, seat: int, answer: str) -> int:
        """The legal action meant by ``answer`` (a number or a text); ``ValueError`` says why not."""
        legal = game.legal_actions()
        text = answer.strip()
        if not text:
            raise ValueError("please type an action number or its text")
        if text.lstrip("-").isdigit():
            action = int(text)
            if action not in legal:
                raise ValueError(f"{action} is not one of your choices now: {', '.join(map(str, legal))}")
            return action
        try:
            action = game.action_from_text(text, seat)
        except (ValueError, TypeError) as error:
            raise ValueError(str(error)) from None
        if action not in legal:
            raise ValueError(f"{text!r} is not allowed now; choose one of the listed actions")
        return action

    def act(self, observation: Mapping[str, np.ndarray], game: Game | None = None) -> int:
        if game is None:
            raise ValueError("the human agent needs the engine state to show the table")
        seat = game.current_player
        self.write(self.view(game, seat))
        while True:
            try:
                answer = self.read("Your action (number or text): ")
            except EOFError:
                raise SystemExit("input ended: leaving the game") from None
            try:
                action = self.parse(game, seat, answer)
            except ValueError as error:
                self.write(f"Not accepted: {error}. Try again.")
                continue
            self.seen = len(game.history) + 1
            return action
