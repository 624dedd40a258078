"""What a seat knows (docs/rules.md R11), as OpenSpiel observations and information states.

The observation tensor is the AEC env's vector (:func:`commerce_env.observation.encode`),
cut into its named sections (:func:`commerce_env.observation.layout`).  The
information-state tensor adds the current deal's actions as this seat saw
them (earlier deals are summed up by the balances); the information-state
string is perfect recall: every deal of the match as this seat saw it.

A card appears only where the seat saw it: its own hand (the widow dealer's
only after his choice, R6.2), face-up cards, the cards of its own face-down
actions, the card it draws (R5.3) and the card it receives in a barter (R5.4,
R7.2), and every hand at a showdown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import pyspiel

from .. import observation as obs
from ..cards import CARDS, format_cards
from ..engine.actions import KIND_INDEX, KINDS, TEXT_CARDS
from ..engine.base import PHASES, SHOW, Game

if TYPE_CHECKING:
    from .game import CommerceState

CARD_FEATURES = obs.CARD_FEATURES  # 13 ranks + 4 suits
_KIND_INDEX = KIND_INDEX


class Event(NamedTuple):
    """One action of the current deal as one seat saw it."""

    actor: int
    kind: str
    cards: tuple[int, ...]  # the cards named, if the seat saw them, else ()
    drawn: int | None = None  # the card the seat drew for ready money (R5.3)


def deal_events(game: Game, seat: int | None) -> list[Event]:
    """The current deal's actions as ``seat`` saw them (``None``: what everyone saw).

    Read from the engine's record, which says who saw each card (R11).
    """
    bit = 0 if seat is None else game.seat_bits[seat]
    everyone = game.everyone
    entries = [e for e in game.record[game.deal_start:] if e[1] != SHOW]
    events = []
    for i, (actor, kind, cards, seen) in enumerate(entries):
        count = TEXT_CARDS.get(kind, 0)
        visible = all(s & bit or s == everyone for s in seen[:count])
        if kind == "offer" and not visible and i + 1 < len(entries) and entries[i + 1][1] == "give":
            visible = bool(entries[i + 1][3][1] & bit)  # R5.4 / R7.2: the neighbour took the offered card
        drawn = cards[1] if kind == "ready_money" and seen[1] & bit else None  # R5.3: he sees what he draws
        events.append(Event(actor, kind, tuple(cards[:count]) if visible else (), drawn))
    return events


def dealt_hand(game: Game, seat: int) -> tuple[int, ...] | None:
    """The three cards dealt to ``seat`` this deal (R1.5), ``None`` if he is not in it."""
    position = game.position.get(seat)
    if position is None:
        return None
    m = len(game.order)
    return tuple(sorted(game.deal_pack[position:3 * m:m]))


def deal_text(game: Game, seat: int | None) -> str:
    """The current deal as ``seat`` saw it so far, one line (``None``: the public view)."""
    parts = [f"deal {game.deals_dealt} dealer {game.dealer}"]
    if seat is not None:
        hand = dealt_hand(game, seat)
        blind = hand is not None and not _saw_dealt_hand(game, seat)
        parts.append("dealt -" if hand is None else "dealt ?" if blind else f"dealt {format_cards(hand)}")
    if game.has_table:
        m = len(game.order)
        parts.append(f"table {format_cards(game.deal_pack[3 * m:3 * m + 3])}")
    for event in deal_events(game, seat):
        text = f"{event.actor} {event.kind}" + (f" {format_cards(event.cards)}" if event.cards else "")
        if event.drawn is not None:
            text += f" draws {CARDS[event.drawn]}"
        if event.kind == "keep_hand" and event.actor == seat:
            text += f" sees {format_cards(dealt_hand(game, seat))}"  # R6.2: now he looks at his cards
        elif event.kind == "take_widow":  # R6.2: his unseen hand becomes the face-up widow
            text += f" widow {format_cards(dealt_hand(game, event.actor))}"
        parts.append(text)
    if game.shown:  # R11: at the showdown all hands are shown
        parts.append("shown " + " | ".join(format_cards(game.hands[s]) if game.hands[s] else "-"
                                           for s in range(game.num_players)))
        parts.append("balances " + " ".join(str(b) for b in game.balances()))
    return ", ".join(parts) + ";"


def _saw_dealt_hand(game: Game, seat: int) -> bool:
    """Whether ``seat`` looked at his cards when they were dealt: not the widow dealer,
    whose first decision is made blind (R6.2; he looks only if he keeps them)."""
    entries = game.record[game.deal_start:]
    if not entries:
        return game.sees_own_hand(seat)
    return not (entries[0][0] == seat and entries[0][1] in ("take_widow", "keep_hand"))


def now_text(game: Game, seat: int) -> str:
    """Where the deal stands now: the seat's hand, the table, who is to act."""
    hand = format_cards(game.hands[seat]) if game.hands[seat] and game.sees_own_hand(seat) else "?"
    table = f" table {format_cards(game.table)}" if game.table else ""
    to_act = "-" if game.current_player is None else game.current_player
    return f" now: hand {hand}{table}, phase {game.phase}, to act {to_act}"


# ------------------------------------------------------------------ observer
PRIVATE_PIECES = frozenset({"hand", "hand_slots", "gave_left", "gave_right", "discarded"})
"""Sections of the observation that only the seat itself knows (R11); the rest is public."""


def _pieces(num_players: int, deal_steps: int, public: bool, private: bool,
            perfect_recall: bool) -> list[tuple[str, int, tuple[int, ...]]]:
    """``(name, start in the AEC vector or -1, shape)`` of each piece of one observation type."""
    shapes = {"hand_slots": (3, CARD_FEATURES), "table_slots": (3, CARD_FEATURES),
              "players": (num_players, obs.PLAYER_FEATURES)}
    pieces = [(name, start, shapes.get(name, (length,))) for name, start, length in obs.layout(num_players)
              if (private if name in PRIVATE_PIECES else public)]
    if perfect_recall:
        pieces.append(("deal_history", -1, (deal_steps, event_features(num_players))))
    return pieces


def event_features(num_players: int) -> int:
    """One row of ``deal_history``: the actor (relative seat), the kind, up to two cards
    (an exchange's two, a barter's one, a ready-money trader's discard and draw)."""
    return num_players + len(KINDS) + 2 * CARD_FEATURES


class CommerceObserver:
    """OpenSpiel's observer interface (``set_from``, ``string_from``, ``tensor``, ``dict``).

    ``perfect_recall`` gives the information state (public and the seat's private
    information together), else the observation; ``public_info`` and ``private_info``
    (NONE or SINGLE_PLAYER) choose the public and the private sections (R11).
    """

    def __init__(self, iig_obs_type: pyspiel.IIGObservationType | None, num_players: int, deal_steps: int,
                 params: dict | None = None):
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        kind = iig_obs_type.private_info
        private = kind == pyspiel.PrivateInfoType.SINGLE_PLAYER
        public = iig_obs_type.public_info
        if kind == pyspiel.PrivateInfoType.ALL_PLAYERS or (iig_obs_type.perfect_recall and not (public and private)):
            raise ValueError(f"unsupported observation type (perfect_recall={iig_obs_type.perfect_recall}, "
                             f"public_info={public}, private_info={kind}): Commerce observes what one seat "
                             "knows (R11): its private information, the public one, or both; perfect recall "
                             "only with both")
        self.perfect_recall = iig_obs_type.perfect_recall
        self.num_players = num_players
        self.deal_steps = deal_steps
        pieces = _pieces(num_players, deal_steps, public, private, self.perfect_recall)
        sizes = [int(np.prod(shape)) for _, _, shape in pieces]
        self.tensor = np.zeros(sum(sizes), np.float32)
        self.dict: dict[str, np.ndarray] = {}
        self._copies: list[tuple[slice, slice]] = []  # AEC vector slice -> tensor slice
        offset = 0
        for (name, start, shape), size in zip(pieces, sizes, strict=True):
            self.dict[name] = self.tensor[offset:offset + size].reshape(shape)
            if start >= 0:
                self._copies.append((slice(start, start + size), slice(offset, offset + size)))
            offset += size
        size = obs.observation_size(num_players)
        self._whole = len(self._copies) == len(obs.layout(num_players))  # every section, in order
        self._vector = self.tensor[:size] if self._whole else np.zeros(size, np.float32)

    def set_from(self, state: CommerceState, player: int) -> None:
        self.tensor.fill(0.0)
        game = state.engine
        if game is None:  # before the first deal: nothing is known yet
            return
        obs.encode(game, player, out=self._vector)
        if not self._whole:
            for source, target in self._copies:
                self.tensor[target] = self._vector[source]
        if self.perfect_recall and not game.awaiting_pack:
            self._write_events(game, player)

    def _write_events(self, game: Game, seat: int) -> None:
        rows = self.dict["deal_history"]
        n = self.num_players
        kinds = n
        cards = kinds + len(KINDS)
        for row, event in zip(rows, deal_events(game, seat), strict=False):  # deal_steps bounds a deal
            row[(event.actor - seat) % n] = 1.0
            row[kinds + _KIND_INDEX[event.kind]] = 1.0
            named = event.cards if event.drawn is None else (*event.cards, event.drawn)  # R5.3: what he drew
            for k, card in enumerate(named[:2]):
                row[cards + k * CARD_FEATURES + (card >> 2)] = 1.0
                row[cards + k * CARD_FEATURES + 13 + (card & 3)] = 1.0

    def string_from(self, state: CommerceState, player: int) -> str:
        if self.perfect_recall:
            return state.information_text(player)
        self.set_from(state, player)
        return observation_text(self.dict)


def _cards(one_hot: np.ndarray) -> str:
    return format_cards(np.flatnonzero(one_hot)) or "-"


def _slot_cards(slots: np.ndarray) -> str:
    cards = [int(np.argmax(s[:13])) * 4 + int(np.argmax(s[13:])) for s in slots if s.any()]
    return format_cards(cards) or "-"


def observation_text(pieces: dict[str, np.ndarray]) -> str:
    """The observation in words, read back from its tensor pieces (so it shows nothing more, R11)."""
    parts = []
    if "hand_slots" in pieces:
        parts.append(f"hand {_slot_cards(pieces['hand_slots'])}")
    if "table_slots" in pieces:
        parts.append(f"table {_slot_cards(pieces['table_slots'])}")
    if "phase" in pieces:
        phase = PHASES[int(np.argmax(pieces["phase"]))] if pieces["phase"].any() else "-"
        flags = pieces["flags"]
        parts += [f"phase {phase}", f"stock {round(float(flags[2]) * 52)}",
                  f"pool {round(float(flags[3]) / obs.SCALE)}"]
    for name in ("gave_left", "gave_right", "discarded"):
        if name in pieces and pieces[name].any():
            parts.append(f"{name} {_cards(pieces[name])}")
    for k, row in enumerate(pieces.get("players", ())):
        marks = "".join(mark for mark, i in (("D", 3), (">", 4), ("x", 2), ("s", 5), ("p", 6)) if row[i])
        last = KINDS[int(np.argmax(row[7:7 + len(KINDS)]))] if row[7:7 + len(KINDS)].any() else "-"
        balance = round(float(row[0]) / obs.SCALE)
        money = f"/{round(float(row[1]) / obs.SCALE)}" if row[1] else ""
        parts.append(f"+{k}{marks} {balance}{money} {last}")
    return ", ".join(parts)
