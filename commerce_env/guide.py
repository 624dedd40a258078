"""How to play, in a few lines: each variant's rules and what each action means.

For people at a table (the terminal player's ``help``, the web app's "How to
play"); the rules themselves are docs/rules.md, whose R-numbers are cited.
"""

from __future__ import annotations

from .rules import OPTIONS

HANDS = ("Hands, best first (R2): tricon (three of a rank), sequence (three in a row of one suit), "
         "flush and pair where the rules count them, then point (the pips of your longest suit group: "
         "ace 11, pictures 10).")

VARIANTS = {
    "trade_barter": (
        "Trade and barter (R5): everyone antes one to the pool. In turn, trade a card for ready money "
        "(discard it face down, pay the dealer one, draw from the stock), barter (offer a card face down "
        "to your left neighbour, who gives you one of his, unseen, or knocks), or knock. A knock shows the "
        "hands: the best takes the pool, and a dealer who did not win may pay the winners (R5.8)."),
    "widow": (
        "Commerce with a widow (R6): three lives each, one ante per deal. Three cards lie face up (the "
        "widow). The dealer may first take the widow instead of his unseen hand. Then in turn exchange one "
        "card with the widow, pass, or knock: the best hand takes the pool. With no lives left you are out; "
        "the first out pays for the whiskey (the match ends)."),
    "my_ship_sails": (
        "My Ship Sails (R7): three counters each, one ante per deal. In turn offer a card face down to "
        "your left neighbour, who must give one of his in exchange, chosen unseen; or decline to offer. "
        "The moment a hand is a flush (three of one suit) its ship sails and the hands are shown; after "
        "two rounds the most pips in two cards of a suit wins. The winner takes the pool."),
    "old_game": (
        "The old game (R8): three cards face up on the table, no ante. In turn exchange one card with the "
        "table, stand, or pass (no more exchanges for you). When a second player stands, everyone still in "
        "gets one last turn. The best hand receives one stake from each other player."),
    "pool": (
        "Pool commerce (R9): the old game played for a pool: everyone pays the entry once and has three "
        "lives. After each deal the winner takes the payout from the pool and the worst hand loses a life. "
        "The first player out may buy a horse (one more life). The last player with lives takes the pool."),
}

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
    """The rules of ``variant`` in a few lines, and the order of hands."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; choose from {', '.join(VARIANTS)}")
    text = VARIANTS[variant]
    if "combinations" not in OPTIONS[variant]:  # R7.4: ships and pips, not R2's hands (R12)
        return text
    return f"{text}\n{HANDS}"
