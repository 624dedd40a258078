"""A human at the terminal: sees what his seat may see (R11), types an action.

The text shown is made from the seat's view (:mod:`commerce_env.view`): the
hand (unless he is the widow dealer before his blind choice, R6.2), the
face-up cards, every player's counters, and what the others did since his
last turn, with face-down cards hidden.  An action is chosen by its number or
its canonical text (R12, e.g. ``ready_money 10H``); anything else is refused
with a message saying why, and the question is asked again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from commerce_env.cards import CARDS
from commerce_env.engine.base import SHOW
from commerce_env.view import SeatView, entry_text

from .base import Agent

FACE_DOWN = ("ready_money", "offer", "give")


def describe(kind: str, cards: tuple, to_you: bool = False) -> str:
    """An action as its viewer knows it: ``offer (a card face down)``, ``give 9H (to you)``."""
    text = entry_text(kind, cards)
    if kind in FACE_DOWN and text == kind:
        return f"{kind} (a card face down)"
    return text + " (to you)" if to_you else text


def public_action_text(history: Sequence[tuple], index: int, viewer: int) -> str:
    """Entry ``index`` of a view's history as ``viewer`` saw it (R11)."""
    seat, kind, cards = history[index]
    to_you = kind == "give" and seat != viewer and index > 0 and history[index - 1][0] == viewer
    return describe(kind, cards, to_you)


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

    def view(self, view: SeatView) -> str:
        """The text shown before a decision."""
        def cards(seq) -> str:
            return " ".join(CARDS[c].symbol() + f"({CARDS[c]})" for c in seq) or "-"

        seat, history = view.seat, view.history
        lines = []
        if self.seen > len(history):  # a new match
            self.seen = 0
        news = [f"  {self._name(s)}: {public_action_text(history, i, seat)}"
                for i, (s, kind, _) in enumerate(history) if i >= self.seen and s != seat and kind != SHOW]
        if news:
            lines += ["Since your last turn:", *news]
        lines.append(f"--- {view.variant}: deal {view.deals_dealt}, round {view.rounds_done + 1}, "
                     f"pool {view.pool}, dealer {self._name(view.dealer)} ---")
        if view.hand:
            lines.append(f"Your hand ({self._name(seat)}): {cards(view.hand)}")
        else:
            lines.append(f"Your hand ({self._name(seat)}): face down, unseen (R6.2)")
        if view.table:
            lines.append(f"Face up on the table: {cards(view.table)}")
        if view.engine.has_stock:
            lines.append(f"Stock: {view.stock_size} cards")
        money = view.engine.plays_for_money
        unit = "lives" if view.rules.has_lives else "counters"
        lines.append("Players: " + "; ".join(
            f"{self._name(s)} {view.counters[s]} {unit}" + (f", money {view.money[s]}" if money else "")
            + (" (out)" if view.out[s] else "") for s in range(view.num_players)))
        lines.append("Your choices:")
        for action in view.legal_actions:
            lines.append(f"  {action:>2}  {view.action_text(action)}")
        return "\n".join(lines)

    def parse(self, view: SeatView, answer: str) -> int:
        """The legal action meant by ``answer`` (a number or a text); ``ValueError`` says why not."""
        legal = view.legal_actions
        text = answer.strip()
        if not text:
            raise ValueError("please type an action number or its text")
        if text.lstrip("-").isdigit():
            action = int(text)
            if action not in legal:
                raise ValueError(f"{action} is not one of your choices now: {', '.join(map(str, legal))}")
            return action
        try:
            action = view.action_from_text(text)
        except (ValueError, TypeError) as error:
            raise ValueError(str(error)) from None
        if action not in legal:
            raise ValueError(f"{text!r} is not allowed now; choose one of the listed actions")
        return action

    def act(self, view: SeatView) -> int:
        self.write(self.view(view))
        while True:
            try:
                answer = self.read("Your action (number or text): ")
            except EOFError:
                raise SystemExit("input ended: leaving the game") from None
            try:
                action = self.parse(view, answer)
            except ValueError as error:
                self.write(f"Not accepted: {error}. Try again.")
                continue
            self.seen = len(view.history) + 1
            return action
