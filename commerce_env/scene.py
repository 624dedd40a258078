"""What a picture of the table shows, as plain data: a :class:`Scene`.

A scene is built from one point of view: a seat (exactly what that seat
knows, R11) or ``None`` for everything (replays, debugging).  It holds no
card the point of view has not seen, so anything drawn from it (the
``rgb_array`` frames of :mod:`commerce_env.frames`, the web app's JSON)
cannot leak one.  Cards are card texts (``"10H"``); a hidden card is
``None`` (drawn as a back).

This module needs nothing beyond the engine; drawing needs Pillow.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from .cards import CARDS
from .engine import actions as A
from .engine.base import ACT, HORSE, LAST_EXCHANGE, OVER, REPLY, STAND_CHOICE, WIDOW_CHOICE, Game
from .engine.settlement import Showdown

FACE_DOWN_KINDS = ("ready_money", "offer", "give")  # R11: the card of these moves is not public
KIND_TEXTS = {"ready_money": "traded for ready money", "offer": "offered a card", "give": "gave a card",
              "take_widow": "took the widow", "keep_hand": "kept his hand", "buy_horse": "bought a horse",
              "no_horse": "bought no horse", "knock": "knocked", "stand": "stood", "continue": "continued",
              "pass": "passed", "decline": "declined", "exchange": "exchanged"}
PHASE_TEXTS = {ACT: "to play", REPLY: "to answer the offer (give a card, blind)",
               STAND_CHOICE: "to stand or continue", WIDOW_CHOICE: "to take the widow or keep his hand, unseen",
               LAST_EXCHANGE: "to make a last exchange", HORSE: "to buy a horse or not", OVER: ""}


@dataclass(frozen=True)
class SeatScene:
    """One seat as the point of view sees it."""

    seat: int
    name: str
    cards: tuple[str | None, ...]  # None: face down
    counters: int  # counters, or lives
    money: int | None  # pool commerce only
    out: bool
    dealer: bool
    to_act: bool
    status: str  # "stood", "passed" or ""
    last: str  # the kind of this seat's last action in the deal
    category: str = ""  # at a showdown
    winner: bool = False
    change: int = 0  # balance change at a showdown


@dataclass(frozen=True)
class Scene:
    """The table from one point of view (``viewer`` a seat, or ``None`` for everything)."""

    variant: str
    viewer: int | None
    deal: int
    round: int
    phase: str
    seats: tuple[SeatScene, ...]
    table: tuple[str, ...]  # face-up table / widow cards
    table_name: str  # "table" or "widow"
    stock: int | None  # cards in the stock, where one is used (R5.3)
    pool: int
    counters_label: str  # "counters" or "lives"
    to_act: int | None
    prompt: str  # who is to do what
    last_action: str  # the last action, as the viewer knows it
    showdown: bool  # the seats show the hands of the deal just ended
    result: str  # the showdown's outcome, one line
    match_result: str  # the match's outcome, once it is over
    over: bool

    def to_dict(self) -> dict:
        return asdict(self)


def card_text(card: int) -> str:
    return str(CARDS[card])


def action_text(history: list[tuple[int, str, tuple[int, ...]]], index: int, viewer: int | None) -> str:
    """The action ``history[index]`` as ``viewer`` knows it (R11), without the actor's name.

    A face-down card is named only to its actor, and a given card also to the
    trader who receives it; ``None`` sees everything.
    """
    actor, kind, cards = history[index]
    if not cards:
        return kind
    named = viewer is None or viewer == actor
    if kind == "give" and index > 0 and history[index - 1][0] == viewer:
        named = True  # R11: the trader takes the given card into his hand
    if kind in FACE_DOWN_KINDS and (not named or None in cards):  # None: unknown in a sampled world
        return f"{kind} (face down)"
    return " ".join([kind, *(card_text(c) for c in cards)])


def plays_for_money(game: Game) -> bool:
    """Pool commerce counts money apart from lives (R9)."""
    return type(game).balances is not Game.balances


def showdown_is_current(game: Game) -> bool:
    """Whether the latest showdown happened after the match's last action."""
    shown = game.last_showdown
    return shown is not None and shown.actions == len(game.history)


def build_scene(game: Game, viewer: int | None = None, names: list[str] | None = None,
                showdown: bool = True) -> Scene:
    """The scene of ``game`` from ``viewer``'s point of view (``None``: everything).

    Just after a showdown the seats show the hands of the deal that ended
    (and that deal's table and dealer); ``showdown=False`` shows the next deal instead.
    """
    return _scene(game, viewer, names, game.last_showdown if showdown and showdown_is_current(game) else None)


def showdown_scene(game: Game, shown: Showdown, viewer: int | None = None, names: list[str] | None = None) -> Scene:
    """The scene of one of ``game``'s showdowns (R11: public), as it was when the hands were shown."""
    return _scene(game, viewer, names, shown)


def _scene(game: Game, viewer: int | None, names: list[str] | None, shown: Showdown | None) -> Scene:
    n = game.num_players
    if viewer is not None and not (isinstance(viewer, int) and 0 <= viewer < n):
        raise ValueError(f"viewer must be None or a seat from 0 to {n - 1}, got {viewer!r}")
    names = names or [f"player_{s}" for s in range(n)]
    money = plays_for_money(game)
    stood, passed = getattr(game, "stood", ()), getattr(game, "passed", ())
    seats = []
    counters = shown.counters_after if shown else game.counters
    moneys = shown.money_after if shown else game.money
    dealer = shown.dealer if shown else game.dealer
    for s in range(n):
        if shown is not None:
            cards = tuple(card_text(c) for c in shown.hands[s])
        elif not game.hands[s]:
            cards = ()
        elif viewer is None or (s == viewer and game.sees_own_hand(s)):
            cards = tuple(card_text(c) for c in game.hands[s])
        else:
            cards = (None,) * len(game.hands[s])
        kind = game.last_kind[s]
        seats.append(SeatScene(
            seat=s, name=names[s], cards=cards, counters=counters[s], money=moneys[s] if money else None,
            out=game.out[s], dealer=s == dealer,
            to_act=s == game.current_player,
            status="stood" if s in stood else "passed" if s in passed else "",
            last="" if kind < 0 or shown is not None else A.KINDS[kind],
            **(_shown_seat(shown, s, money) if shown is not None else {})))
    last = ""
    count = shown.actions if shown is not None else len(game.history)  # the actions taken by then
    if count:
        actor = game.history[count - 1][0]
        last = f"{names[actor]}: {action_text(game.history, count - 1, viewer)}"
    to_act = game.current_player
    prompt = "" if to_act is None else f"{names[to_act]} {PHASE_TEXTS[game.phase]}"
    return Scene(
        variant=game.rules.variant, viewer=viewer, deal=shown.deal if shown else game.deals_dealt,
        round=game.rounds_done + 1, phase=game.phase, seats=tuple(seats),
        table=tuple(card_text(c) for c in (shown.table if shown else game.table)),
        table_name=game.table_name, stock=len(game.stock) if "discard" in game.rules.options() else None,
        pool=shown.pool if shown else game.pool, counters_label="lives" if game.rules.has_lives else "counters",
        to_act=to_act, prompt=prompt, last_action=last, showdown=shown is not None,
        result=_deal_result(shown, names), match_result=_match_result(game, names), over=game.over)


def _shown_seat(shown: Showdown, seat: int, money: bool) -> dict:
    before = shown.money_before if money else shown.counters_before
    after = shown.money_after if money else shown.counters_after
    return {"category": shown.categories[seat], "winner": seat in shown.winners,
            "change": after[seat] - before[seat]}


def _deal_result(shown: Showdown | None, names: list[str]) -> str:
    if shown is None:
        return ""
    who = " and ".join(names[w] for w in shown.winners)
    verb = "win" if len(shown.winners) > 1 else "wins"
    return f"Deal {shown.deal}: {who} {verb} with {_article(shown.categories[shown.winners[0]])}."


def _match_result(game: Game, names: list[str]) -> str:
    if not game.over:
        return ""
    text = "Match over."
    if game.match_losers:
        text += " Lost: " + ", ".join(names[s] for s in game.match_losers) + "."
    return text + " Returns: " + ", ".join(f"{names[s]} {r:+g}" for s, r in enumerate(game.returns()))


def _article(category: str) -> str:
    if category == "none":
        return "no combination"
    return f"an {category}" if category[0] in "aeiou" else f"a {category}"


def history_lines(history: list[tuple[int, str, tuple[int, ...]]], viewer: int | None, names: list[str],
                  start: int = 0) -> list[str]:
    """``"name: text"`` of ``history[start:]`` as ``viewer`` knows it."""
    return [f"{names[history[i][0]]}: {action_text(history, i, viewer)}" for i in range(start, len(history))]
