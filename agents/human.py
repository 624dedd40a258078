"""A human at the terminal: sees what his seat may see (R11), types an action.

The text shown is made from the seat's view (:mod:`commerce_env.view`): the
hand (unless he is the widow dealer before his blind choice, R6.2), the
face-up cards, every player's counters, and what the others did since his
last turn, with face-down cards hidden, all in the guide's words
(:mod:`commerce_env.guide`).  An action is chosen by its number, its words as
listed (``trade 10H for ready money``) or its canonical text (R12,
``ready_money 10H``); anything else is refused with a message saying why, and
the question is asked again.
"""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Callable, Sequence

from commerce_env import guide
from commerce_env.cards import CARDS
from commerce_env.engine.actions import action_cards, action_kind
from commerce_env.engine.base import SHOW, WIDOW_CHOICE
from commerce_env.view import SeatView

from .base import Agent

HELP_WORDS = ("help", "?", "h")


def fit(text: str, width: int | None = None, indent: str = "    ") -> str:
    """``text`` wrapped to the terminal's width at word boundaries (long lines only)."""
    width = width or shutil.get_terminal_size((100, 24)).columns
    return "\n".join(textwrap.fill(line, width=max(40, width - 1), subsequent_indent=indent,
                                   break_long_words=False, break_on_hyphens=False) if len(line) >= width else line
                     for line in text.split("\n"))


def help_text(view: SeatView) -> str:
    """In-game help: the variant's rules in a few lines and what each of the choices now means."""
    lines = [guide.variant_help(view.variant), "Your choices now:"]
    for kind in dict.fromkeys(action_kind(a) for a in view.legal_actions):
        lines.append(f"  {guide.ACTION_NAMES[kind]}: {guide.ACTIONS[kind]}")
    words = [choice_words(view, a) for a in view.legal_actions]  # examples of this variant's own choices, now
    examples = [next((w for w in words if " " not in w), None), next((w for w in words if " " in w), None)]
    lines.append(f"Type the number of a choice, or its words (e.g. {', '.join(w for w in examples if w)}); "
                 "help or ? shows this again.")
    return "\n".join(lines)


def choice_words(view: SeatView, action: int) -> str:
    """One of the seat's choices in the guide's words: ``trade 10H for ready money``."""
    return guide.choice_text(action_kind(action), action_cards(action, view.hand, view.table),
                             view.engine.table_name)


def public_action_text(history: Sequence[tuple], index: int, viewer: int, name: str = "",
                       table_name: str = "table") -> str:
    """Entry ``index`` of a view's history as ``viewer`` saw it (R11), in words: ``offered a card, face down``
    (``name``: the actor's, to start the sentence with)."""
    return guide.seen_move(history, index, viewer, name, table_name).lstrip()


class HumanAgent(Agent):
    """Asks a person for each action; ``read`` and ``write`` default to the terminal."""

    name = "human"

    def __init__(self, read: Callable[[str], str] = input, write: Callable[[str], None] = print,
                 names: list[str] | None = None, seed: int | None = None, news: bool = True):
        self.read, self.write = read, write
        self.names = names
        self.news = news  # show what happened since the last turn (off where each move is printed live)
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
        deal = max((i + 1 for i, entry in enumerate(history) if entry[1] == SHOW), default=0)  # this deal
        table_name = view.engine.table_name
        news = [f"  {public_action_text(history, i, seat, self._name(s), table_name)}"
                for i, (s, kind, _) in enumerate(history) if i >= max(self.seen, deal) and s != seat]
        if news and self.news:
            lines += ["Since your last turn:", *news]
        lines.append(f"--- {guide.variant_title(view.variant)}: deal {view.deals_dealt}, "
                     f"round {view.rounds_done + 1}; pool {view.pool}; dealer: {self._name(view.dealer)} ---")
        if view.hand:
            lines.append(f"Your hand ({self._name(seat)}): {cards(view.hand)}")
        elif view.phase == WIDOW_CHOICE:
            lines.append(f"Your hand ({self._name(seat)}): face down. You deal: take the widow or keep "
                         "your hand before you look at it")
        else:
            lines.append(f"Your hand ({self._name(seat)}): no cards (you are out of the deal)")
        if view.table:
            lines.append(f"The {table_name}, face up: {cards(view.table)}")
        if view.engine.has_stock:
            lines.append(f"Stock: {view.stock_size} cards")
        money = view.engine.plays_for_money
        unit = "lives" if view.rules.has_lives else "counters"
        lines.append("Players:")  # one line each: a list that wraps mid-name is hard to read
        for s in range(view.num_players):
            count = f"{view.counters[s]} {'life' if unit == 'lives' and view.counters[s] == 1 else unit}"
            lines.append(f"  {self._name(s)}: {count}" + (f", money {view.money[s]}" if money else "")
                         + (" (out)" if view.out[s] else "") + (" (dealer)" if s == view.dealer else ""))
        lines.append("Your choices (type help or ? for the rules):")
        for action in view.legal_actions:
            lines.append(f"  {action:>2}  {choice_words(view, action)}")
        return fit("\n".join(lines))

    def parse(self, view: SeatView, answer: str) -> int:
        """The legal action meant by ``answer`` (a number or a text); ``ValueError`` says why not."""
        legal = view.legal_actions
        text = answer.strip()
        if not text:
            raise ValueError("please type the number of one of your choices")
        if text.lstrip("-").isdigit():
            action = int(text)
            if action not in legal:
                raise ValueError(f"{action} is not one of your choices now: {', '.join(map(str, legal))}")
            return action
        by_words = {" ".join(choice_words(view, a).lower().split()): a for a in legal}
        if " ".join(text.lower().split()) in by_words:
            return by_words[" ".join(text.lower().split())]
        try:
            action = view.action_from_text(text)
        except (ValueError, TypeError) as error:
            raise ValueError(f"{error}; type the number of one of your choices") from None
        if action not in legal:
            raise ValueError(f"{text!r} is not allowed now; type the number of one of the listed choices")
        return action

    def act(self, view: SeatView) -> int:
        self.write(self.view(view))
        while True:
            try:
                answer = self.read("Your action (number or text): ")
            except EOFError:
                raise SystemExit("input ended: leaving the game") from None
            if answer.strip().lower() in HELP_WORDS:
                self.write(fit(help_text(view)))
                continue
            try:
                action = self.parse(view, answer)
            except ValueError as error:
                self.write(f"Not accepted: {error}. Try again.")
                continue
            self.seen = len(view.history) + 1
            return action
