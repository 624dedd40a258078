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

from . import guide
from .cards import CARDS
from .checks import whole_number
from .engine.actions import KINDS, action_kind
from .engine.base import DEAL, SHOW, Game
from .engine.settlement import Showdown


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
    note: str = ""  # in words (commerce_env.guide): "out", the last move, or at a showdown the hand's category


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
    prompt: str  # who is to do what, in words (commerce_env.guide)
    last_action: str  # the last action, as the viewer knows it, in words
    showdown: bool  # the seats show the hands of the deal just ended
    result: str  # the showdown's outcome, one line
    match_result: str  # the match's outcome, once it is over
    over: bool
    intro: str = ""  # lives and money at the start of a match, in words

    def to_dict(self) -> dict:
        return asdict(self)


def card_text(card: int) -> str:
    return str(CARDS[card])


def action_text(history: list[tuple[int, str, tuple[int, ...]]], index: int) -> str:
    """The action ``history[index]`` with every card it names (full information), without the actor.

    What a seat knows of an action comes from its seat view instead (:class:`_Seat`, R11).
    """
    _, kind, cards = history[index]
    if None in cards:  # a card a sampled world's seat never saw (commerce_env.view.SeatView.sample_world)
        return kind
    return " ".join([kind, *(card_text(c) for c in cards)])


def showdown_is_current(game: Game) -> bool:
    """Whether the latest showdown happened after the match's last action."""
    shown = game.last_showdown
    return shown is not None and shown.actions == game.actions_taken


def build_scene(game: Game, viewer: int | None = None, names: list[str] | None = None,
                showdown: bool = True) -> Scene:
    """The scene of ``game`` from ``viewer``'s point of view (``None``: everything).

    A seat's scene is drawn from its seat view (:func:`commerce_env.view.seat_view`,
    R11) and the match's showdowns (public).  Just after a showdown the seats show
    the hands of the deal that ended (and that deal's table and dealer);
    ``showdown=False`` shows the next deal instead.
    """
    return _scene(game, viewer, names, game.last_showdown if showdown and showdown_is_current(game) else None)


def showdown_scene(game: Game, shown: Showdown, viewer: int | None = None, names: list[str] | None = None) -> Scene:
    """The scene of one of ``game``'s showdowns (R11: public), as it was when the hands were shown."""
    return _scene(game, viewer, names, shown)


class _Everything:
    """The facts a scene needs, read from the engine: every card (replays, debugging)."""

    def __init__(self, game: Game):
        self.game = game
        self.hand_of = [tuple(card_text(c) for c in h) for h in game.hands]
        kinds = game.last_kind
        self.last_kind = ["" if k < 0 else KINDS[k] for k in kinds]
        self.table, self.stock, self.pool, self.dealer = game.table, len(game.stock), game.pool, game.dealer
        self.counters, self.money, self.out = game.counters, game.money, game.out
        self.current_player, self.phase = game.current_player, game.phase
        self.rounds_done, self.deals_dealt = game.rounds_done, game.deals_dealt

    def last_action(self, back: int, names: list[str]) -> str:
        """The action ``back`` actions before the last (0: the last one), in words, read from the end
        of the record: a replay draws a scene per action, and rebuilding the whole history each time was
        quadratic."""
        for seat, kind, cards, _ in reversed(self.game.record):
            if kind == DEAL or kind == SHOW:
                continue
            if back == 0:
                return guide.move_text(names[seat], kind, cards, table_name=self.game.table_name)
            back -= 1
        return ""

    def choices(self) -> list[str]:
        """The kinds of the actions the player to act may take."""
        return [action_kind(a) for a in self.game.legal_actions()]


class _Seat:
    """The facts a scene needs, read from one seat's view only (R11)."""

    def __init__(self, game: Game, seat: int):
        from .view import seat_view

        view = seat_view(game, seat)
        self.view = view
        entries = [e for e in view.history]
        deal = entries
        for i in range(len(entries) - 1, -1, -1):  # this deal's entries: after the last showdown
            if entries[i][1] == SHOW:
                deal = entries[i + 1:]
                break
        self.actions = [e for e in entries if e[1] != SHOW]
        self.last_kind = [""] * view.num_players
        for actor, kind, _ in deal:
            self.last_kind[actor] = kind
        self.hand_of = []
        for s in range(view.num_players):
            if s not in view.order:
                self.hand_of.append(())
            elif s == seat:
                self.hand_of.append(tuple(card_text(c) for c in view.hand) if view.hand else (None,) * 3)
            else:  # the cards known to be in that hand (R6.2, R11), the others face down
                known = tuple(card_text(c) for c in view.public_hands[s])
                self.hand_of.append(known + (None,) * (3 - len(known)))
        self.table, self.stock, self.pool, self.dealer = view.table, view.stock_size, view.pool, view.dealer
        self.counters, self.money, self.out = view.counters, view.money, view.out
        self.current_player, self.phase = view.current_player, view.phase
        self.rounds_done, self.deals_dealt = view.rounds_done, view.deals_dealt
        self.seat = seat

    def last_action(self, back: int, names: list[str]) -> str:
        """The action ``back`` actions before the last (0: the last one), as this seat knows it, in words."""
        index = len(self.actions) - 1 - back
        if index < 0:
            return ""
        return guide.seen_move(self.actions, index, self.seat, names[self.actions[index][0]],
                               self.view.engine.table_name)

    def choices(self) -> list[str]:
        """The kinds of this seat's actions, when it is to act."""
        return [action_kind(a) for a in self.view.legal_actions] if self.current_player == self.seat else []


def _scene(game: Game, viewer: int | None, names: list[str] | None, shown: Showdown | None) -> Scene:
    n = game.num_players
    if viewer is not None:
        viewer = whole_number("viewer (None or a seat)", viewer, 0, n - 1)
    names = names or [f"player_{s}" for s in range(n)]
    facts = _Everything(game) if viewer is None else _Seat(game, viewer)
    money = game.plays_for_money  # R9: money apart from lives
    counters = shown.counters_after if shown else facts.counters
    moneys = shown.money_after if shown else facts.money
    dealer = shown.dealer if shown else facts.dealer
    seats = []
    for s in range(n):
        cards = tuple(card_text(c) for c in shown.hands[s]) if shown is not None else facts.hand_of[s]
        last = "" if shown is not None else facts.last_kind[s]
        note = " ".join(word for word in ("out" if facts.out[s] else "", guide.DONE.get(last, "")) if word)
        seats.append(SeatScene(
            seat=s, name=names[s], cards=cards, counters=counters[s], money=moneys[s] if money else None,
            out=bool(facts.out[s]), dealer=s == dealer, to_act=s == facts.current_player, status="",
            last=last, **(_shown_seat(shown, s, money) if shown is not None else {"note": note})))
    # The action that led here: the last one, or the one that ended the shown deal (the record of
    # a sampled world starts at its deal, so count back from the match's number of actions).
    last = facts.last_action(game.actions_taken - shown.actions if shown is not None else 0, names)
    to_act = facts.current_player
    prompt = "" if to_act is None else guide.prompt_text(game.rules.variant, facts.phase, names[to_act],
                                                         to_act == viewer, facts.choices() if to_act == viewer else ())
    return Scene(
        variant=game.rules.variant, viewer=viewer, deal=shown.deal if shown else facts.deals_dealt,
        round=facts.rounds_done + 1, phase=facts.phase, seats=tuple(seats),
        table=tuple(card_text(c) for c in (shown.table if shown else facts.table)),
        table_name=game.table_name, stock=facts.stock if "discard" in game.rules.options() else None,
        pool=shown.pool if shown else facts.pool, counters_label="lives" if game.rules.has_lives else "counters",
        to_act=to_act, prompt=prompt, last_action=last, showdown=shown is not None,
        result=_deal_result(shown, names), match_result=guide.match_result(game, names), over=game.over,
        intro=guide.intro(game))


def _shown_seat(shown: Showdown, seat: int, money: bool) -> dict:
    before = shown.money_before if money else shown.counters_before
    after = shown.money_after if money else shown.counters_after
    category = shown.categories[seat]
    return {"category": category, "winner": seat in shown.winners, "change": after[seat] - before[seat],
            "note": guide.CATEGORIES.get(category, category) if shown.hands[seat] else ""}


def _deal_result(shown: Showdown | None, names: list[str]) -> str:
    if shown is None:
        return ""
    who = guide.who_does([names[w] for w in shown.winners], "win")
    return f"Deal {shown.deal}: {who} {guide.with_category(shown.categories[shown.winners[0]])}."


def history_lines(history: list[tuple[int, str, tuple[int, ...]]], names: list[str], start: int = 0) -> list[str]:
    """``"name: text"`` of ``history[start:]``, every card named (finished games, replays)."""
    return [f"{names[history[i][0]]}: {action_text(history, i)}" for i in range(start, len(history))]
