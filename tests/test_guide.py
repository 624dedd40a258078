"""How to play (commerce_env.guide): a few lines per variant and a meaning for every action."""

import pytest

from commerce_env import guide
from commerce_env.engine.actions import KINDS
from commerce_env.rules import VARIANTS


def test_every_variant_and_every_action_kind_is_explained():
    sections = {"trade_barter": "R5", "widow": "R6", "my_ship_sails": "R7", "old_game": "R8", "pool": "R9"}
    for variant in VARIANTS:
        assert f"({sections[variant]})" in guide.variant_help(variant)
    assert set(guide.ACTIONS) == set(KINDS)  # R12's action kinds


def test_my_ship_sails_help_has_no_poker_hands():
    assert "tricon" not in guide.variant_help("my_ship_sails")  # R7.4: ships and pips only
    assert "tricon" in guide.variant_help("widow")


def test_an_unknown_variant_is_named():
    with pytest.raises(ValueError, match="unknown variant 'poker'"):
        guide.variant_help("poker")
