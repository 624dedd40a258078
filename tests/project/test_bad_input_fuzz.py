"""Bad input everywhere: a clear ValueError or TypeError naming the bad value, nothing changed.

Random and malformed card strings (R1.3), packs (R1.5), option dicts (R12),
YAML rule files, action numbers and texts (R12) and reset options are thrown
at the library; the error must come from the library's own checks (naming the
bad token, key or value), never from deep inside, and must leave the state
(or the env) exactly as it was.
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies import option_values, seeds

import commerce_env
from commerce_env.cards import CARDS, format_cards, make_pack, parse_cards, parse_pack
from commerce_env.engine import IllegalActionError
from commerce_env.engine.actions import NUM_ACTIONS
from commerce_env.rules import ALL_OPTIONS, VARIANTS, load_rules, make_rules

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 60), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8), st.lists(st.text(max_size=4), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
TOKENS = st.one_of(
    st.sampled_from([str(c) for c in CARDS] + ["TH", "tc", "as", "1S", "11D", "AX", "A", "10", "", "♠A", "0C"]),
    st.text(max_size=4),
)


def _names_it(message: str, *candidates) -> bool:
    """Whether an error message names one of ``candidates`` (as text or repr)."""
    return any(str(c) in message or repr(c) in message for c in candidates)


# ------------------------------------------------------------------- cards
@SETTINGS
@given(st.lists(TOKENS, max_size=6))
def test_card_text_parses_or_names_the_bad_token(tokens):
    # R1.3: a card is rank + suit, case-insensitive, T for 10; anything else names the bad token.
    text = " ".join(tokens)
    try:
        cards = parse_cards(text)
    except ValueError as error:
        bad = text.replace(",", " ").split()
        assert _names_it(str(error), *bad)
    else:
        assert parse_cards(format_cards(cards)) == cards
        assert len(cards) == len(text.replace(",", " ").split())


@SETTINGS
@given(st.one_of(st.none(), st.booleans(), st.integers(), st.floats()))
def test_cards_of_a_wrong_type_are_a_type_error(value):
    with pytest.raises(TypeError) as error:
        parse_cards(value)
    assert _names_it(str(error.value), value)


@SETTINGS
@given(st.sampled_from([52, 32]), seeds, st.sampled_from(["drop", "repeat", "foreign"]))
def test_a_bad_pack_names_the_card(deck_size, seed, fault):
    # R1.5: a pack has every card of its size exactly once.
    pack = list(make_pack(deck_size))
    rng = random.Random(seed)
    rng.shuffle(pack)
    if fault == "drop":
        named = pack.pop(rng.randrange(len(pack)))
    elif fault == "repeat":
        named = pack[rng.randrange(len(pack))]
        pack[rng.randrange(len(pack))] = named
        assume(len(set(pack)) < len(pack))
        named = [c for c in pack if pack.count(c) > 1][0]
    else:
        assume(deck_size == 32)
        named = CARDS[rng.randrange(20)]  # a 2 to 6: not in the piquet pack
        pack[0] = named
    with pytest.raises(ValueError) as error:
        parse_pack(format_cards(pack), deck_size)
    message = str(error.value)
    if fault == "drop" and deck_size == 52 or fault != "repeat":
        assert str(named) in message
    else:  # a repeated card pushes another out; the first repeat or the missing card is named
        assert re.search(r"twice|lacks", message)


# ----------------------------------------------------------------- options
@st.composite
def option_dicts(draw):
    variant = draw(st.one_of(st.sampled_from(VARIANTS), JUNK.filter(lambda v: v is not None)))
    names = sorted(ALL_OPTIONS) + ["colour", "decks", "Tie_break", ""]
    good = option_values(variant) if variant in VARIANTS else {}
    options = {}
    for name in draw(st.lists(st.sampled_from(names), unique=True, max_size=4)):
        strategy = good.get(name, JUNK) if draw(st.booleans()) else JUNK
        if name == "preset":
            strategy = st.one_of(st.sampled_from(["foster", "peel"]), JUNK)
        options[name] = draw(strategy)
    return variant, options


@SETTINGS
@given(option_dicts())
def test_option_dicts_are_valid_or_name_the_bad_option(variant_options):
    # R12: an unknown option, one of another variant or a bad value is a ValueError naming it.
    variant, options = variant_options
    try:
        rules = make_rules(variant, **options)
    except (ValueError, TypeError) as error:
        assert _names_it(str(error), variant, *options, *options.values())
        with pytest.raises((ValueError, TypeError)):
            commerce_env.env(variant=variant, num_players=3, **options)
    else:
        assert rules.variant == variant
        assert type(rules.deck_size) is int and type(rules.max_rounds) is int
        again = make_rules(variant, **{k: v for k, v in rules.options().items() if k != "variant"})
        assert again == rules


@SETTINGS
@given(st.sampled_from(VARIANTS), st.one_of(st.integers(-3, 20), JUNK), st.sampled_from([52, 32]))
def test_player_counts_outside_the_pack_are_refused(variant, num_players, deck_size):
    # R1.4: 2 to 12 players with 52 cards, 2 to 7 with 32.
    limit = 12 if deck_size == 52 else 7
    if num_players is None or type(num_players) is int and 2 <= num_players <= limit:  # None: 4
        commerce_env.raw_env(variant=variant, num_players=num_players, deck_size=deck_size)
        return
    with pytest.raises((ValueError, TypeError)) as error:
        commerce_env.raw_env(variant=variant, num_players=num_players, deck_size=deck_size)
    assert _names_it(str(error.value), num_players)


# -------------------------------------------------------------- rule files
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(option_dicts(), st.one_of(st.none(), st.integers(-2, 14), JUNK))
def test_yaml_rule_files_load_or_name_the_file_and_key(tmp_path, variant_options, num_players):
    variant, options = variant_options
    data = dict(options, variant=variant)
    if num_players is not None:
        data["num_players"] = num_players
    path = tmp_path / "rules.yaml"
    path.write_text(yaml.safe_dump(data))
    try:
        rules, extra = load_rules(path)
    except ValueError as error:
        message = str(error)
        assert str(path) in message
        assert _names_it(message, *data, *data.values())
    else:
        assert rules.variant == variant


@pytest.mark.parametrize("content", [
    pytest.param(b"\xff\xfe\x00 not text", id="not-utf8"), pytest.param(b"variant: [unclosed", id="unclosed"),
    pytest.param(b"- a list\n- of things\n", id="list"), pytest.param(b"", id="empty"),
    pytest.param(b"just words", id="text"), pytest.param(b"1: 2\n", id="number-key"),
    pytest.param(b"!!python/object/apply:os.system ['echo hi']\n", id="python-tag"),
    pytest.param(b"[" * 3000, id="deep"), pytest.param(b"variant: widow\n\tbad: tab\n", id="tab"),
])
def test_malformed_rule_files_name_the_file(tmp_path, content):
    path = tmp_path / "broken.yaml"
    path.write_bytes(content)
    with pytest.raises(ValueError) as error:
        load_rules(path)
    assert str(path) in str(error.value)


def test_a_missing_rule_file_names_the_file(tmp_path):
    for path in (tmp_path / "none.yaml", tmp_path):
        with pytest.raises(ValueError, match=re.escape(str(path))):
            load_rules(path)


# ------------------------------------------------------ actions and texts
def _env_state(env):
    game = env.unwrapped.game
    return (env.unwrapped.history, env.agent_selection, dict(env.rewards), dict(env.terminations),
            [env.observe(a)["observation"].tobytes() for a in env.agents],
            [env.observe(a)["action_mask"].tobytes() for a in env.agents], game.rng.getstate())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(VARIANTS), st.integers(2, 7), seeds,
       st.lists(st.one_of(st.integers(), JUNK, st.just(np.int64(99)), st.just(np.float32(1.0))), max_size=5),
       st.lists(st.text(max_size=12), max_size=4))
def test_bad_actions_and_texts_change_nothing(variant, num_players, seed, actions, texts):
    # R12: an illegal action or text raises naming it and leaves the env as it was.
    env = commerce_env.env(variant=variant, num_players=num_players)
    env.reset(seed=seed)
    rng = random.Random(seed)
    for _ in range(rng.randrange(6)):  # somewhere into the match
        if all(env.unwrapped.terminations.values()):
            break
        env.step(rng.choice(env.unwrapped.legal_actions()))
    if all(env.unwrapped.terminations.values()):
        return
    raw = env.unwrapped
    before = _env_state(env)
    for action in actions:
        if type(action) is int and action in raw.legal_actions():
            continue
        with pytest.raises((ValueError, TypeError)) as error:
            env.step(action)
        assert isinstance(error.value, (IllegalActionError, TypeError))
        assert _names_it(str(error.value), action)
        assert _env_state(env) == before
        with pytest.raises((ValueError, TypeError)):
            raw.decode_action(action) if not (type(action) is int and 0 <= action < NUM_ACTIONS) else (
                _ for _ in ()).throw(ValueError())
    for text in texts:
        try:
            action = raw.encode_action(text)
        except (ValueError, TypeError) as error:
            assert text.strip() == "" or _names_it(str(error), text, *text.split())
        else:
            assert 0 <= action < NUM_ACTIONS
        assert _env_state(env) == before
    for agent in ("player_99", 3, "player_-1"):
        with pytest.raises(ValueError, match="agent"):
            raw.encode_action("knock", agent)


# ------------------------------------------------------------ reset options
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(VARIANTS), st.integers(2, 7), seeds, st.sampled_from(
    ["missing", "repeated", "dealer", "both", "decks_text", "decks_junk", "short_pack", "dealer_type"]))
def test_bad_reset_options_name_the_value_and_change_nothing(variant, num_players, seed, fault):
    # R1.5 / DESIGN reset options: a whole pack, a dealer seat, deck or decks (not both).
    env = commerce_env.env(variant=variant, num_players=num_players)
    env.reset(seed=seed)
    env.step(env.unwrapped.legal_actions()[0])
    raw = env.unwrapped
    game = raw.game
    before = _env_state(env)
    pack = list(make_pack(52))
    random.Random(seed).shuffle(pack)
    if fault == "missing":
        named = pack.pop()
        options = {"deck": format_cards(pack)}
    elif fault == "repeated":
        named = pack[0]
        options = {"deck": format_cards(pack + [named])}
    elif fault == "dealer":
        named = num_players + seed % 3
        options = {"dealer": named}
    elif fault == "dealer_type":
        named = "0"
        options = {"dealer": named}
    elif fault == "both":
        named = "decks"
        options = {"deck": format_cards(pack), "decks": [format_cards(pack)]}
    elif fault == "decks_text":
        named = "decks"
        options = {"decks": format_cards(pack)}
    elif fault == "decks_junk":
        named = 7
        options = {"decks": [format_cards(pack), named]}
    else:
        named = "32"
        options = {"deck": format_cards(make_pack(32))}
    with pytest.raises((ValueError, TypeError)) as error:
        env.reset(seed=seed + 1, options=options)
    assert _names_it(str(error.value), named) or "lacks" in str(error.value)
    assert raw.game is game
    assert _env_state(env) == before
