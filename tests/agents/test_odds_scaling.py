"""The pool's life shares (R9.3, R9.5) stay polynomial in the number of players.

``life_shares`` is the chance of each player to be the last one with lives.
Reckoned over every tuple of lives it grew about five times per player (4**n
tuples; minutes and gigabytes at 12 players, which R1.4 allows); reckoned over
how many of the others hold each number of lives it needs at most
``(L + 1) * C(n - 1 + L, L)`` states for lives up to ``L``.  These tests count
the states kept, check that every cache is bounded, and compare with the
reckoning over tuples, kept here as the reference, where that one is small.
"""

from __future__ import annotations

import itertools
import math
import tracemalloc
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents import odds
from commerce_env.engine import new_game
from commerce_env.rules import make_rules
from commerce_env.view import seat_view


@cache
def reference_life_shares(lives: tuple[int, ...]) -> tuple[float, ...]:
    """The reckoning over every tuple of lives: each deal one player still in, chosen uniformly, loses a life."""
    alive = [s for s, n in enumerate(lives) if n > 0]
    if len(alive) <= 1:
        return tuple(1.0 if n > 0 else 0.0 for n in lives)
    shares = np.zeros(len(lives))
    for loser in alive:
        fewer = list(lives)
        fewer[loser] -= 1
        shares += np.array(reference_life_shares(tuple(fewer)))
    return tuple(shares / len(alive))


def _life_caches() -> list:
    """The caches of odds that hold life shares (whatever the functions are called)."""
    return [getattr(odds, name) for name in dir(odds)
            if ("life" in name or "share" in name) and hasattr(getattr(odds, name), "cache_info")]


def _clear() -> None:
    for function in _life_caches():
        function.cache_clear()


def _states_kept() -> int:
    return sum(function.cache_info().currsize for function in _life_caches())


def _polynomial_bound(players: int, most_lives: int = 3) -> int:
    """States of (own lives, how many others hold 1..L lives), plus one entry per tuple asked."""
    return (most_lives + 1) * math.comb(players - 1 + most_lives, most_lives) + 2 * players


def test_every_life_share_cache_is_bounded():
    # R9.5: no cache of odds grows without limit.
    assert _life_caches()
    for function in _life_caches():
        assert function.cache_info().maxsize is not None, function.__name__


@pytest.mark.parametrize("players", [6, 8])
def test_the_states_kept_are_polynomial_in_the_players(players):
    # R9.5: three lives each (R9.2), as at the start of a pool match.
    _clear()
    shares = odds.life_shares((3,) * players)
    assert sum(shares) == pytest.approx(1.0)
    assert _states_kept() <= _polynomial_bound(players)


def test_life_shares_equal_the_reckoning_over_tuples_on_every_small_case():
    # R9.3, R9.5: every tuple of 0-3 lives for 2 to 5 players with someone in.
    for players in range(2, 6):
        for lives in itertools.product(range(4), repeat=players):
            if any(lives):
                assert odds.life_shares(lives) == pytest.approx(reference_life_shares(lives), rel=1e-12, abs=1e-15)


@settings(max_examples=60, deadline=None)
@given(lives=st.lists(st.integers(0, 5), min_size=2, max_size=6).filter(any), pool=st.integers(0, 200))
def test_life_value_is_unchanged(lives, pool):
    # R9.3, R9.5: what losing a life costs, from the shares (the horse adds a life, so more than 3 occur).
    def reference_value(seat):
        alive = [s for s, n in enumerate(lives) if n > 0 and s != seat]
        if lives[seat] <= 0 or not alive:
            return 0.0

        def share(loser):
            fewer = list(lives)
            fewer[loser] -= 1
            return reference_life_shares(tuple(fewer))[seat]

        return pool * (sum(share(s) for s in alive) / len(alive) - share(seat))

    for seat in range(len(lives)):
        assert odds.life_value(lives, seat, pool) == pytest.approx(reference_value(seat), rel=1e-12, abs=1e-9)


def test_a_twelve_player_pool_decision_by_expected_value_is_bounded():
    # R1.4, R9: twelve players may play pool commerce; the first decision keeps a polynomial number
    # of states and modest memory (the reckoning over tuples kept 4**12 of them: gigabytes).
    from agents.heuristics import ExpectedValueAgent

    game = new_game(make_rules("pool"), 12, seed=4)
    view = seat_view(game, game.current_player)
    _clear()
    tracemalloc.start()
    try:
        action = ExpectedValueAgent().act(view)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert action in view.legal_actions
    assert _states_kept() <= _polynomial_bound(12)
    assert peak < 200 * 2**20
