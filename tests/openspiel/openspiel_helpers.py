"""Shared pieces of the OpenSpiel tests: loading a variant's game, packs, and playing to a decision."""

from __future__ import annotations

import random

import pyspiel

import commerce_env.openspiel as cos
from commerce_env.cards import make_pack

SMALL = {"trade_barter": {"max_rounds": 2}, "widow": {"max_rounds": 2}, "my_ship_sails": {},
         "old_game": {"max_rounds": 2}, "pool": {"max_rounds": 2, "entry": 3}}


def load(variant: str, **params) -> pyspiel.Game:
    return pyspiel.load_game(cos.game_name(variant), params)


def packs(seed: int, count: int, deck_size: int = 52) -> list[tuple[int, ...]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        pack = [int(c) for c in make_pack(deck_size)]
        rng.shuffle(pack)
        out.append(tuple(pack))
    return out


def play_to_decision(state: pyspiel.State, deck_iter) -> None:
    """Deal chance nodes from ``deck_iter`` (cards in pack order) until a decision or the end."""
    while state.is_chance_node():
        state.apply_action(next(deck_iter))


def random_play(state: pyspiel.State, rng: random.Random, max_steps: int = 100_000) -> pyspiel.State:
    for _ in range(max_steps):
        if state.is_terminal():
            return state
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    raise AssertionError("the match did not end")


def some_decision(variant: str, seed: int, steps: int, **params) -> pyspiel.State:
    """A state at a decision after a few random steps."""
    rng = random.Random(seed)
    state = load(variant, **params).new_initial_state()
    taken = 0
    while True:
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            continue
        if state.is_terminal():
            return some_decision(variant, seed + 1, steps, **params)
        if taken == steps:
            return state
        state.apply_action(rng.choice(state.legal_actions()))
        taken += 1
