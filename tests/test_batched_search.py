"""``search`` on the batched engine against ``search(engine=readable)`` (DESIGN.md, "Search").

A readable game loaded into a :class:`commerce_env.vector.BatchEngine`
(``load_games``) plays on exactly as the readable engine; the batched search,
given the same sampled worlds (the same seed), picks the readable search's
action; it decides from the seat view only; its action is always legal.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_rules_common import random_options
from test_vector_engine import _check_same, _setup

pytest.importorskip("numba")

from commerce_env.engine import new_game  # noqa: E402
from commerce_env.rules import VARIANTS, make_rules  # noqa: E402
from commerce_env.vector import BatchEngine  # noqa: E402

PACKS = 8


def _random_state(variant: str, seed: int, steps: int, n: int | None = None):
    """A readable match of ``variant`` with random options and packs, after ``steps`` random legal actions."""
    rng = random.Random(f"load-{variant}-{seed}")
    n = n or rng.choice([2, 3, 4, 5, 7])
    options = random_options(rng, variant, n)
    rules = make_rules(variant, **options)
    (decks,), (dealer,) = _setup(rules, n, 1, rng, packs=PACKS)
    game = new_game(rules, n, decks=decks, dealer=dealer)
    for _ in range(steps):
        if game.over or game.deals_dealt >= PACKS - 2:
            break
        game.apply(rng.choice(game.legal_actions()))
    return game, options, rng


# ------------------------------------------------------------ load_games
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 10**6), steps=st.integers(0, 60))
def test_a_loaded_game_plays_on_as_the_readable_engine(variant, seed, steps):
    # R1-R12: any state of any variant (mid-deal, mid-match, over), loaded, then stepped with the
    # same random actions: the same player, mask, observations, known cards, rewards and balances.
    game, options, rng = _random_state(variant, seed, steps)
    n = game.num_players
    game.take_rewards()
    engine = BatchEngine(variant, n, 1, **options)
    engine.load_games([game])
    refs = [game]
    for step in range(200):
        _check_same(engine, refs, n, (options, step))
        if game.over or game.deals_dealt >= PACKS - 1:
            break
        action = rng.choice(game.legal_actions())
        game.apply(action)
        engine.step(np.array([action]))
        assert list(engine.rewards[0]) == game.take_rewards()
    assert np.array_equal(engine.returns()[0], game.returns())
