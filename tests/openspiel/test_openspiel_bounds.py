"""OpenSpiel parameters beyond a C int are refused as the engines refuse them (docs/openspiel.md, R12).

pyspiel converts every parameter to a C int before a Python game sees it: a number from 2**31 on
failed there with pybind11's "Unable to cast Python instance ... to C++ type '?'", where the
engines (``make_rules``, ``new_game``) name the option and its bounds.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pyspiel = pytest.importorskip("pyspiel")

import commerce_env.openspiel as cos  # noqa: E402, F401 - registers the games and checks their parameters
from commerce_env.engine import new_game  # noqa: E402
from commerce_env.options import OPTION_BOUNDS  # noqa: E402
from commerce_env.rules import OPTIONS, VARIANTS, make_rules  # noqa: E402

BEYOND = [2**31, 2**32 + 7, 2**63, 2**80, -2**31 - 1, -2**64]  # none fits pyspiel's C int
NUMERIC = [(variant, name) for variant in VARIANTS for name in sorted(OPTIONS[variant]) if name in OPTION_BOUNDS]


def engine_message(variant: str, **options) -> str:
    with pytest.raises(ValueError) as caught:
        make_rules(variant, **options)
    return str(caught.value)


@pytest.mark.parametrize("variant, name", NUMERIC)
@pytest.mark.parametrize("value", BEYOND)
def test_a_number_beyond_a_c_int_gets_the_engines_message(variant, name, value):
    # R12: "bad value ... for option 'max_rounds'; expected a whole number from 1 to 1000".
    with pytest.raises(ValueError) as caught:
        pyspiel.load_game(cos.game_name(variant), {"players": 3, name: value})
    assert str(caught.value) == engine_message(variant, **{name: value})


@pytest.mark.parametrize("value", BEYOND)
def test_players_and_dealer_beyond_a_c_int_are_named(value):
    # R1.4: as new_game says it; the dealer is a seat of the game.
    with pytest.raises(ValueError) as caught:
        pyspiel.load_game("python_commerce_trade_barter", {"players": value})
    with pytest.raises(ValueError) as engine:
        new_game(make_rules("trade_barter"), value)
    assert str(caught.value) == str(engine.value)
    with pytest.raises(ValueError, match="dealer"):
        pyspiel.load_game("python_commerce_trade_barter", {"players": 3, "dealer": value})


def test_a_game_string_beyond_a_c_int_gets_the_engines_message():
    # pyspiel's own parse of the string failed with a bare SpielError.
    with pytest.raises(ValueError) as caught:
        pyspiel.load_game("python_commerce_widow(players=3,max_rounds=2147483648)")
    assert str(caught.value) == engine_message("widow", max_rounds=2**31)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(NUMERIC), st.one_of(st.integers(min_value=2**31), st.integers(max_value=-2**31 - 1)))
def test_no_number_beyond_a_c_int_reaches_pyspiel(option, value):
    variant, name = option
    with pytest.raises(ValueError, match=name):
        pyspiel.load_game(cos.game_name(variant), {name: value})


def test_games_within_bounds_and_other_games_load_as_before():
    game = pyspiel.load_game("python_commerce_trade_barter", {"players": 3, "max_rounds": 1000})
    assert game.rules.max_rounds == 1000 and game.num_players() == 3
    assert pyspiel.load_game("python_commerce_pool(players=3,entry=1000000000)").rules.entry == 10**9
    assert pyspiel.load_game("kuhn_poker", {"players": 3}).num_players() == 3
