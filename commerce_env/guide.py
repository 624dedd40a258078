"""How to play, in the words of a card table: the one place the texts a player reads are made.

For people at a table: the terminal player (``commerce play``), the web app and the pictures'
captions.  Every text here names actions as a player would say them ("trade 10H for ready
money", "kept their hand"), never as the engine's action texts (``ready_money 10H``), and cites
no rule numbers; the rules themselves are docs/rules.md, which the code cites.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from .cards import CARDS
from .engine.actions import TEXT_CARDS
from .engine.phases import OVER, STARTING_LIVES
from .rules import UNTIL_OUT, Rules, variant_info

HANDS = ("Hands, best first: tricon (three of a rank), sequence (three in a row of one suit), "
         "flush and pair where the rules count them, then point (the pips of your longest suit group: "
         "ace 11, pictures 10).")

ACTION_NAMES = {  # what a player chooses, as a button or a menu says it
    "knock": "knock", "stand": "stand", "continue": "continue", "pass": "pass", "decline": "make no offer",
    "take_widow": "take the widow", "keep_hand": "keep my hand", "buy_horse": "buy a horse", "no_horse": "no horse",
    "ready_money": "trade for ready money", "offer": "offer (barter)", "give": "give", "exchange": "exchange",
}

ACTIONS = {  # what each choice does
    "knock": "stop all trading: the hands are shown now",
    "stand": "you are done: in trade and barter the hands are shown; in the old game you take no more turns",
    "continue": "after your trade, let play pass left instead of standing",
    "pass": "let this turn go (in the old game: no more exchanges this deal)",
    "decline": "make no offer this turn",
    "take_widow": "take the face-up widow as your hand; your unseen hand becomes the widow",
    "keep_hand": "keep your own hand",
    "buy_horse": "pay the horse price into the pool for one more life",
    "no_horse": "buy no horse: you stay out",
    "ready_money": "discard one of your cards face down, pay the dealer one and draw the top card of the stock",
    "offer": "offer one of your cards face down to your left neighbour, who gives you one of theirs, unseen",
    "give": "give one of your cards to the player who offered you one (you see theirs only after)",
    "exchange": "swap one of your cards with a face-up card: yours goes face up in its place",
}

DONE = {  # a seat's last move, in a word or two
    "ready_money": "traded for ready money", "offer": "offered a card", "give": "gave a card",
    "take_widow": "took the widow", "keep_hand": "kept the hand", "buy_horse": "bought a horse",
    "no_horse": "bought no horse", "knock": "knocked", "stand": "stood", "continue": "continued",
    "pass": "passed", "decline": "made no offer", "exchange": "exchanged",
}

CATEGORIES = {"tricon": "tricon", "sequence": "sequence", "flush": "flush", "pair": "pair", "point": "point",
              "ship": "ship", "none": "nothing"}

_RULE_NUMBER = re.compile(r"\s*\(R\d+(?:\.\d+)?\)")


def variant_title(variant: str) -> str:
    """What a table calls ``variant`` ("Commerce with a widow")."""
    return variant_info(variant).title


def variant_help(variant: str) -> str:
    """The rules of ``variant`` in a few lines (as its engine module declares them, without the
    rule numbers), and the order of hands where they count."""
    info = variant_info(variant)  # a ValueError naming an unknown variant
    text = _RULE_NUMBER.sub("", info.guide)
    if "combinations" not in info.options:  # R7.4: ships and pips, not R2's hands (R12)
        return text
    return f"{text}\n{HANDS}"


def _card(card: Any) -> str:
    return str(CARDS[card]) if isinstance(card, int) else str(card)


def choice_text(kind: str, cards: Sequence[Any] = (), table_name: str = "table") -> str:
    """A choice as a player says it: ``trade 10H for ready money``, ``exchange 2C for AS``."""
    named = [_card(c) for c in cards]
    if kind == "ready_money":
        return f"trade {named[0]} for ready money"
    if kind == "offer":
        return f"offer {named[0]} (barter)"
    if kind == "give":
        return f"give {named[0]}"
    if kind == "exchange":
        return f"exchange {named[0]} for the {table_name}'s {named[1]}"
    return {"keep_hand": "keep your hand", "decline": "make no offer"}.get(kind, ACTION_NAMES[kind])


def move_text(name: str, kind: str, cards: Sequence[Any] = (), *, you: bool = False, to_you: bool = False,
              table_name: str = "table") -> str:
    """A move as a player at the table knows it (``cards``: the move's cards as recorded, ``None``
    where the player did not see them; only those its text names are said, not a card drawn):
    ``greedy (1) traded a card for ready money, face down``, ``you kept your hand``,
    ``search (2) gave you 9H``."""
    known = [_card(c) for c in cards[:TEXT_CARDS.get(kind, 0)] if c is not None]
    if kind == "ready_money":
        what = f"traded {known[0]} for ready money" if known else "traded a card for ready money, face down"
    elif kind == "offer":
        what = f"offered {known[0]}" if known else "offered a card, face down"
    elif kind == "give":
        target = "you " if to_you else ""
        what = f"gave {target}{known[0]}" if known else f"gave {target}a card, face down"
    elif kind == "exchange":
        what = (f"exchanged {known[0]} for the {table_name}'s {known[1]}" if len(known) == 2
                else f"exchanged a card with the {table_name}")
    elif kind == "keep_hand":
        what = f"kept {'your' if you else 'their'} hand"
    else:
        what = DONE[kind]
    return f"{name} {what}"


def seen_move(history: Sequence[tuple], index: int, viewer: int, name: str, table_name: str = "table") -> str:
    """Entry ``index`` of a seat view's history (``(seat, kind, cards)``) in words, as ``viewer``
    saw it (:func:`move_text`): a card given right after the viewer's offer was given to them."""
    actor, kind, cards = history[index]
    to_you = kind == "give" and actor != viewer and index > 0 and history[index - 1][0] == viewer
    return move_text(name, kind, cards, you=actor == viewer, to_you=to_you, table_name=table_name)


def category_text(category: str, cards: Iterable[Any] = (), rules: Rules | None = None) -> str:
    """A hand's category in words; a hand that counts for nothing says why (three suits; a pair
    where the rules do not count pairs)."""
    if category != "none":
        return CATEGORIES.get(category, category)
    why = ["three suits"]
    ranks = [_card(c)[:-1] for c in cards]
    counts_pairs = rules is not None and "combinations" in variant_info(rules.variant).options
    if counts_pairs and "pair" not in rules.combinations and len(set(ranks)) < len(ranks):
        why.append("pairs do not count here")
    return f"nothing: {'; '.join(why)}" if ranks else "nothing"


def with_category(category: str) -> str:
    """``with a pair``, ``with nothing``: a winner's hand."""
    word = CATEGORIES.get(category, category)
    if category == "none":
        return "with nothing that counts"
    return f"with an {word}" if word[0] in "aeiou" else f"with a {word}"


def prompt_text(variant: str, phase: str, name: str, you: bool, kinds: Iterable[str] = ()) -> str:
    """Who is to do what: ``Your turn: knock, trade for ready money or offer (barter).``,
    ``greedy (2) is to play.``, in the words of the variant's engine (its ``prompts``); ``kinds``:
    the viewer's choices when it is their turn."""
    if phase == OVER:
        return ""
    turn, waiting = variant_info(variant).engine.prompts[phase]
    if not you:
        return f"{name} {waiting}."
    names = [ACTION_NAMES[k] for k in dict.fromkeys(kinds)]
    return f"{turn}: {join_or(names)}." if names else f"{turn}."


def who_does(names: Sequence[str], verb: str) -> str:
    """``names`` doing ``verb`` (given in its plural form): ``greedy (1) wins``, ``you win``,
    ``greedy (1) and you win``."""
    who = " and ".join(names)
    return f"{who} {verb if len(names) > 1 or who == 'you' else verb + 's'}"


def join_or(words: Sequence[str], last: str = "or") -> str:
    """``a, b or c``."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} {last} {words[-1]}" if words else ""


def unit(game: Any, amount: int | None = None) -> str:
    """What a balance counts in ``game``: lives, counters or money (``amount`` 1: singular)."""
    if game.plays_for_money:
        return "money"
    word = "lives" if game.rules.has_lives else "counters"
    return {"lives": "life", "counters": "counter"}[word] if amount in (1, -1) else word


def starting_balance(game: Any) -> int:
    """A player's balance before the match's first payment: lives, or zero counters or money."""
    return STARTING_LIVES if game.rules.has_lives and not game.plays_for_money else 0


def intro(game: Any) -> str:
    """Lives and money at the start of a match: what everyone starts with, what the ante or the
    entry took (so that a first balance of 2 lives or of money -12 is no surprise), and how the
    match ends."""
    rules = game.rules
    lives, money = rules.has_lives, game.plays_for_money
    words = [f"Everyone starts with {STARTING_LIVES} lives" if lives else "Everyone starts with 0 counters"]
    if money:
        words[0] += (f" and pays the entry, {rules.entry}, into the pool, so everyone's money starts at "
                     f"{-rules.entry}. After each deal the winner takes {rules.payout} from the pool and the worst "
                     "hand loses a life.")
    elif game.antes:
        one = "life" if lives else "counter"
        words[0] += (f". Each deal, everyone in it puts one {one} into the pool (the ante), so you have "
                     f"{starting_balance(game) - 1} {unit(game, starting_balance(game) - 1)} once the first "
                     "deal is dealt; the best hand takes the pool.")
    else:
        words[0] += ". There is no ante and no pool: the winner of a deal takes one counter from each other player."
    if not lives:
        words.append("Counters may go below zero.")
    if lives:
        end = ("the last player with lives takes the pool" if money
               else "the first player out ends the match and pays for the whiskey"
               if rules.options().get("match_end") == "whiskey" else "the last player with lives wins")
        words.append(f"With no lives left a player is out; {end}.")
    if rules.deals != UNTIL_OUT:
        words.append(f"The match is {rules.deals} deal{'s' if rules.deals != 1 else ''}"
                     + (" at most." if lives else "."))
    return " ".join(words)


def deal_line(deal: int, dealer: str, game: Any) -> str:
    """A new deal: who deals, and the ante it took."""
    if not game.antes:
        return f"Deal {deal}, dealt by {dealer}."
    return f"Deal {deal}, dealt by {dealer}: everyone in it puts one {'life' if game.rules.has_lives else 'counter'} " \
           "into the pool."


def match_result(game: Any, names: Sequence[str]) -> str:
    """The match's end: who loses it, and what each player won or lost over it (lives, counters,
    or money with the entry counted)."""
    if not game.over:
        return ""
    losers = [names[s] for s in game.match_losers]
    text = "Match over."
    if losers:
        who = who_does(losers, "lose")
        text += f" {'You' + who[3:] if who.startswith('you') else who} the match."
    start = starting_balance(game)
    kind = unit(game)
    entry = ", the entry included" if game.plays_for_money else ""
    changes = ", ".join(f"{names[s]} {balance - start:+d}" for s, balance in enumerate(game.balances()))
    return f"{text} Won or lost over the match ({kind}{entry}): {changes}."
