"""The named rule sets in configs/rules load and play (R12 options)."""

from pathlib import Path

import pytest

import commerce_env
from commerce_env.rules import load_rules, make_rules

RULE_FILES = sorted((Path(__file__).resolve().parents[2] / "configs" / "rules").glob("*.yaml"))
EXPECTED = {
    "foster_trade_barter", "peel_modern", "peel_limited", "peel_dealer_penalties",
    "foster_widow_whiskey", "widow_freeze_out", "my_ship_sails", "old_game", "pool_commerce",
}


def test_every_named_rule_set_is_there():
    assert EXPECTED <= {path.stem for path in RULE_FILES}


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.stem)
def test_rule_file_loads_and_plays(path):  # R12
    rules, extra = load_rules(path)
    env = commerce_env.env(config=str(path))
    env.reset(seed=1)
    assert env.unwrapped.rules == rules
    assert env.unwrapped.num_players == extra["num_players"]
    for _agent in env.agent_iter(max_iter=200):
        observation, _, termination, truncation, _ = env.last()
        env.step(None if termination or truncation else int(observation["action_mask"].argmax()))


def test_foster_file_matches_the_preset():  # R5.9
    rules, _ = load_rules(RULE_FILES[0].parent / "foster_trade_barter.yaml")
    assert rules == make_rules("trade_barter", preset="foster")


def test_peel_limited_restricts_combinations():  # R10.1, R2.7
    rules, _ = load_rules(RULE_FILES[0].parent / "peel_limited.yaml")
    assert rules.combinations == {"tricon", "sequence", "flush", "point"}
    assert rules.discard == "bottom" and rules.stand_after_trade  # the rest of Peel's preset


@pytest.mark.parametrize("text, bad", [
    ("variant: widow\nbogus_key: 3\n", "bogus_key"),
    ("variant: trade_barter\nallow_pass: true\n", "allow_pass"),
    ("variant: pool\nentry: -3\n", "-3"),
    ("variant: nonsense\n", "nonsense"),
    ("variant: widow\nnum_players: 13\n", "13"),
    ("variant: widow\ncombinations:\n", "combinations"),
    ("- just\n- a list\n", "mapping"),
    ("variant: [unclosed\n", "YAML"),
])
def test_malformed_rule_file_names_file_and_key(tmp_path, text, bad):  # R12
    path = tmp_path / "bad_rules.yaml"
    path.write_text(text)
    with pytest.raises(ValueError) as error:
        load_rules(path)
    assert "bad_rules.yaml" in str(error.value) and bad in str(error.value)
    with pytest.raises(ValueError):
        commerce_env.env(config=str(path))


def test_explicit_options_override_the_file():  # R12: options given explicitly override
    path = RULE_FILES[0].parent / "peel_modern.yaml"
    env = commerce_env.env(config=str(path), dealer_pays="peel_each")
    assert env.unwrapped.rules.dealer_pays == "peel_each"
    assert env.unwrapped.rules.discard == "bottom"


def test_config_and_contradicting_variant_refused():
    with pytest.raises(ValueError, match="widow"):
        commerce_env.env(variant="widow", config=str(RULE_FILES[0].parent / "old_game.yaml"))
