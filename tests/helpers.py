"""Shared test helpers: a pack built from the hands a scenario wants, and a driver
that plays canonical action texts through the AEC env while checking each is legal."""

from __future__ import annotations

import base64
import json
import pickle
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

import commerce_env
from commerce_env.cards import format_cards, make_pack, parse_cards


def deal_order(num_players: int, dealer: int, out: Sequence[int] = ()) -> list[int]:
    """Seats in the deal from the eldest hand to the dealer, the out skipped (R3.1, R3.2)."""
    seats = ((dealer + k) % num_players for k in range(1, num_players + 1))
    return [s for s in seats if s not in out]


def make_deck(hands: Sequence[str], dealer: int, table: str = "", stock: str = "",
              out: Sequence[int] = (), deck_size: int = 52) -> str:
    """A whole pack, top first, that deals ``hands[seat]`` to each seat (R1.5).

    ``table`` is the widow or the table cards (dealt next), ``stock`` the top of
    the stock, top card first; the unnamed cards follow in pack order.  Seats in
    ``out`` are dealt nothing (give them an empty hand).
    """
    order = deal_order(len(hands), dealer, out)
    parsed = [parse_cards(h) for h in hands]
    for seat in order:
        if len(parsed[seat]) != 3:
            raise ValueError(f"seat {seat} needs three cards, got {hands[seat]!r}")
    pack = [parsed[seat][r] for r in range(3) for seat in order]
    pack += parse_cards(table) + parse_cards(stock)
    if len(set(pack)) != len(pack):
        raise ValueError("a card is named twice")
    pack += [c for c in make_pack(deck_size) if c not in pack]
    return format_cards(pack)


def deck_stock_last(hands: Sequence[str], dealer: int, last: str, stock: str = "") -> str:
    """A pack whose bottom cards are ``last`` (given top first): where bottom discards go (R5.3)."""
    deck = parse_cards(make_deck(hands, dealer, stock=stock))
    tail = parse_cards(last)
    return format_cards([c for c in deck if c not in tail] + list(tail))


class Driver:
    """An env with a fixed pack, played by canonical texts (R12).

    Every move names the seat that must be to act; its text must be among the
    decoded legal actions.  ``totals`` sums each seat's rewards over the steps.
    """

    def __init__(self, variant: str, num_players: int, *, deck: str | None = None,
                 decks: Sequence[str] | None = None, dealer: int = 0, seed: int = 0, **options):
        self.env = commerce_env.env(variant=variant, num_players=num_players, **options)
        reset_options: dict = {"dealer": dealer}
        if deck is not None:
            reset_options["deck"] = deck
        if decks is not None:
            reset_options["decks"] = list(decks)
        self.env.reset(seed=seed, options=reset_options)
        self.raw = self.env.unwrapped
        self.num_players = num_players
        self.totals = [0.0] * num_players
        self.reward_steps: list[list[float]] = []

    @property
    def game(self):
        return self.raw.game

    @property
    def current_player(self) -> int:
        return int(self.env.agent_selection.split("_")[1])

    def legal(self) -> list[str]:
        """Every masked action of the agent to act, decoded."""
        mask = self.env.observe(self.env.agent_selection)["action_mask"]
        return [self.raw.decode_action(int(a)) for a in np.flatnonzero(mask)]

    def play(self, *moves: str) -> None:
        """Moves such as ``"1: offer AS"``: seat 1 must be to act and the move legal."""
        for move in moves:
            seat_text, text = move.split(":", 1)
            seat, text = int(seat_text), text.strip()
            assert not self.game.over, f"{move!r}: the match is over"
            assert self.current_player == seat, f"{move!r}: player_{self.current_player} is to act"
            legal = self.legal()
            assert text in legal, f"{move!r} is not legal; legal: {legal}"
            self.env.step(self.raw.encode_action(text))
            step = [float(self.env.rewards[f"player_{s}"]) for s in range(self.num_players)]
            self.reward_steps.append(step)
            for s in range(self.num_players):
                self.totals[s] += step[s]

    def history(self) -> list[str]:
        """The match's history as ``"seat: text"``, the form moves are given in."""
        return [f"{agent.split('_')[1]}: {text}" for agent, text in self.raw.history]

    def hand(self, seat: int) -> str:
        return format_cards(self.game.hands[seat])

    def finish(self) -> None:
        """Step ``None`` for every terminated agent, as PettingZoo requires."""
        assert self.game.over
        while self.env.agents:
            self.env.step(None)


def views_through_a_game(variant: str, seed: int, steps: int = 150, tag: str = "limit"):
    """Views of the player to act through a 4-player game of mostly expected_value's moves (70%)
    and random ones, reproducible from ``tag``, ``variant`` and ``seed``."""
    import random

    from agents.heuristics import ExpectedValueAgent
    from commerce_env.engine import new_game
    from commerce_env.rules import make_rules
    from commerce_env.view import seat_view

    rng = random.Random(f"{tag}-{variant}-{seed}")
    game = new_game(make_rules(variant), 4, dealer=rng.randrange(4), rng=random.Random(seed))
    agent = ExpectedValueAgent()
    for _ in range(steps):
        if game.over:
            return
        view = seat_view(game, game.current_player)
        yield view
        game.apply(agent.act(view) if rng.random() < 0.7 else rng.choice(game.legal_actions()))


def evil_sb3_zip(path: Path, marker: Path) -> Path:
    """A stable-baselines3-style zip whose loading runs code: unpickling it writes ``marker``."""
    payload = base64.b64encode(pickle.dumps(_WritesMarker(str(marker)))).decode()
    data = {"policy_class": {":type:": "<class 'type'>", ":serialized:": payload}}
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps(data))
    return path


class _WritesMarker:
    """Pickles as a call of ``Path(marker).write_text``: proof that something unpickled it."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (Path(self.marker).write_text, ("the zip's code ran",))
