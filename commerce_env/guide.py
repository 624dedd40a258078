"""How to play, in a few lines: each variant's rules and what each action means.

For people at a table (the terminal player's ``help``, the web app's "How to
play"); the rules themselves are docs/rules.md, whose R-numbers are cited.
"""

from __future__ import annotations

from .rules import variant_info

HANDS = ("Hands, best first (R2): tricon (three of a rank), sequence (three in a row of one suit), "
         "flush and pair where the rules count them, then point (the pips of your longest suit group: "
         "ace 11, pictures 10).")

ACTIONS = {
    "knock": "stop all trading: the hands are shown now",
    "stand": "you are done: in trade and barter the hands are shown; in the old game you take no more turns",
    "continue": "after your trade, let play pass left instead of standing",
    "pass": "let this turn go (in the old game: no more exchanges this deal)",
    "decline": "make no offer this turn",
    "take_widow": "take the face-up widow as your hand; your unseen hand becomes the widow",
    "keep_hand": "keep your own hand",
    "buy_horse": "pay the horse price into the pool for one more life",
    "no_horse": "buy no horse: you stay out",
    "ready_money": "ready_money <card>: discard that card face down, pay the dealer one, draw the top of the stock",
    "offer": "offer <card>: offer that card face down to your left neighbour",
    "give": "give <card>: give that card to the player who offered you one (you cannot see his first)",
    "exchange": "exchange <your card> <table card>: swap them; your card goes face up in its place",
}


def variant_help(variant: str) -> str:
    """The rules of ``variant`` in a few lines (as its engine module declares them), and the order of hands."""
    info = variant_info(variant)  # a ValueError naming an unknown variant
    text = info.guide
    if "combinations" not in info.options:  # R7.4: ships and pips, not R2's hands (R12)
        return text
    return f"{text}\n{HANDS}"
