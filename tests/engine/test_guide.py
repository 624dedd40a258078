"""How to play (commerce_env.guide): a few lines per variant and a meaning for every action."""

import random
import re

import pytest

from commerce_env import guide
from commerce_env.engine import new_game
from commerce_env.engine.actions import KINDS
from commerce_env.rules import VARIANTS, make_rules


def test_every_variant_and_every_action_kind_is_explained():
    for variant in VARIANTS:
        assert guide.variant_help(variant) and guide.variant_title(variant)
    assert set(guide.ACTIONS) == set(guide.ACTION_NAMES) == set(guide.DONE) == set(KINDS)  # R12's action kinds


def test_the_guide_speaks_the_tables_language():
    # A player reads no rule number and no action token ("ready_money 10H" is "trade 10H for ready money").
    texts = [*guide.ACTIONS.values(), *guide.ACTION_NAMES.values(), *guide.DONE.values(),
             *(guide.variant_help(v) for v in VARIANTS)]
    for text in texts:
        assert not re.search(r"\bR\d", text), text
        assert not re.search(r"\b[a-z]+_[a-z_]+\b|<card>", text), text


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_start_of_a_match_says_what_everyone_has_and_what_the_ante_or_entry_took(variant):
    game = next(g for g in (new_game(make_rules(variant), 4, rng=random.Random(seed)) for seed in range(50))
                if not g.showdowns)  # no ship dealt (R7.3): the first balance is the one after the ante
    text = guide.intro(game)
    assert str(game.balance(0)) in text  # the first balance shown, explained (2 lives, money -12)
    if game.antes:
        assert "ante" in text
    if game.plays_for_money:
        assert str(game.rules.entry) in text


def test_my_ship_sails_help_has_no_poker_hands():
    assert "tricon" not in guide.variant_help("my_ship_sails")  # R7.4: ships and pips only
    assert "tricon" in guide.variant_help("widow")


def test_an_unknown_variant_is_named():
    with pytest.raises(ValueError, match="unknown variant 'poker'"):
        guide.variant_help("poker")


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_phase_a_variant_reaches_has_its_prompt_in_its_engine(variant):
    # R6.2, R5.6, R8.3, R9.4: the phases of a variant's own are said in its engine's words
    rules, rng, seen = make_rules(variant, deals=3 if variant in ("trade_barter", "old_game") else "until_out"), \
        random.Random(3), set()
    for seed in range(40):
        game = new_game(rules, 4, seed=seed)
        while not game.over:
            seen.add(game.phase)
            you = guide.prompt_text(variant, game.phase, "you", True, ["knock"])
            other = guide.prompt_text(variant, game.phase, "greedy (1)", False)
            assert you.endswith(".") and other.startswith("greedy (1) ") and you != other
            game.apply(rng.choice(game.legal_actions()))
    assert seen <= set(game.prompts)
    assert guide.prompt_text(variant, "over", "you", True) == ""
