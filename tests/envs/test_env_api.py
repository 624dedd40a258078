"""PettingZoo conformance of ``commerce_v0`` for every variant, player count and preset,
and bad input: a clear error naming the bad value, and nothing changed."""

import copy
import functools
import warnings

import numpy as np
import pytest
from helpers import Driver, make_deck
from pettingzoo.test import api_test, render_test, seed_test

import commerce_env
from commerce_env.rules import PRESET_VARIANTS as _PRESET_VARIANTS
from commerce_env.rules import VARIANTS

PRESET_VARIANTS = [v for v in VARIANTS if v in _PRESET_VARIANTS]  # R12: no preset for My Ship Sails
PLAYERS = (2, 3, 5, 12)  # R1.4: 12 is the most with 52 cards
CONFIGS = (
    [(variant, n, {}) for variant in VARIANTS for n in PLAYERS]
    + [(variant, n, {"preset": preset}) for variant in PRESET_VARIANTS for n in PLAYERS
       for preset in ("foster", "peel")]
    + [(variant, 7, {"deck_size": 32}) for variant in VARIANTS]  # R1.4: at most 7 with 32 cards
)


def config_id(config):
    variant, n, options = config
    return "-".join([variant, str(n), *map(str, options.values())])


@pytest.fixture(autouse=True)
def quiet_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_api(config):
    variant, n, options = config
    api_test(commerce_env.env(variant=variant, num_players=n, **options), num_cycles=100)


@pytest.mark.parametrize("config", [c for c in CONFIGS if "preset" not in c[2]], ids=config_id)
def test_seed(config):
    variant, n, options = config
    seed_test(functools.partial(commerce_env.env, variant=variant, num_players=n, **options), num_cycles=100)


@pytest.mark.parametrize("config", [c for c in CONFIGS if "preset" not in c[2]], ids=config_id)
def test_render(config, capsys):
    variant, n, options = config

    def make(render_mode=None):
        return commerce_env.env(variant=variant, num_players=n, render_mode=render_mode, **options)

    render_test(make, custom_tests={"ansi": lambda text: "player_0" in text and "to act" in text
                                    or "match over" in text})
    assert "player_0" in capsys.readouterr().out  # human mode prints the table


# ---------------------------------------------------------------- bad input


def snapshot(d):
    """Everything a bad call must leave alone: history, observations, engine fields."""
    game = d.game
    caches = ("rng", "_legal_cache", "lineage", "known_records")  # lineage: a slot its clones share (no state)
    fields = {k: copy.deepcopy(v) for k, v in vars(game).items() if k not in caches}
    fields["rng"] = game.rng.getstate()
    observations = {a: d.env.observe(a) for a in d.env.possible_agents}
    return d.raw.history, observations, fields, d.env.agent_selection, dict(d.env.rewards)


def assert_same(before, after):
    (h1, o1, f1, a1, r1), (h2, o2, f2, a2, r2) = before, after
    assert h1 == h2 and a1 == a2 and r1 == r2
    for agent in o1:
        assert np.array_equal(o1[agent]["observation"], o2[agent]["observation"])
        assert np.array_equal(o1[agent]["action_mask"], o2[agent]["action_mask"])
    assert f1.keys() == f2.keys()
    for key in f1:
        assert f1[key] == f2[key], key


def fresh(variant="trade_barter"):
    hands = {"trade_barter": ["9H 10H JH", "AS KS 4D", "5C 5D 9S"],
             "my_ship_sails": ["2H 5H KC", "3D 4S 9H", "7C 8D JS"]}.get(variant, ["9H 10H JH", "AS KS 4D", "5C 5D 9S"])
    table = "" if variant in ("trade_barter", "my_ship_sails") else "2S 3S 6S"
    return Driver(variant, 3, deck=make_deck(hands, 2, table=table), dealer=2)


@pytest.mark.parametrize("variant", VARIANTS)
def test_illegal_action_number_changes_nothing(variant):
    # The contract: an illegal action raises ValueError naming it and the legal ones; state unchanged.
    d = fresh(variant)
    legal = set(d.raw.legal_actions())
    illegal = next(a for a in range(27) if a not in legal)
    before = snapshot(d)
    with pytest.raises(ValueError, match=rf"illegal action {illegal}\b.*legal: "):
        d.env.step(illegal)
    assert_same(before, snapshot(d))
    for bad in (27, -1):
        with pytest.raises(ValueError, match=str(bad)):
            d.env.step(bad)
    with pytest.raises(TypeError, match="'knock'"):
        d.env.step("knock")
    assert_same(before, snapshot(d))
    d.play(f"{d.current_player}: {d.legal()[0]}")  # still playable afterwards


def test_illegal_action_text_changes_nothing():
    # R12 texts: a text for a card not held, or an action not legal now, changes nothing.
    d = fresh()
    before = snapshot(d)
    with pytest.raises(ValueError, match="AC is not in the hand of seat 0"):
        d.raw.encode_action("offer AC")
    with pytest.raises(ValueError, match="'fold'"):
        d.raw.encode_action("fold")
    with pytest.raises(ValueError, match="give"):
        d.env.step(d.raw.encode_action("give 9H"))  # a reply when nobody has offered
    with pytest.raises(ValueError, match="take_widow"):
        d.env.step(d.raw.encode_action("take_widow"))
    assert_same(before, snapshot(d))


def test_malformed_card_changes_nothing():
    # R1.3: a bad card token is named.
    d = fresh()
    before = snapshot(d)
    with pytest.raises(ValueError, match="'1H'"):
        d.raw.encode_action("ready_money 1H")
    with pytest.raises(ValueError, match="'XX'"):
        d.env.reset(options={"deck": make_deck(["9H 10H JH", "AS KS 4D", "5C 5D 9S"], 2).replace("2C", "XX")})
    assert_same(before, snapshot(d))


@pytest.mark.parametrize(("options", "named"), [
    ({"colour": "red"}, "colour"),  # unknown option
    ({"match_end": "whiskey"}, "match_end"),  # an option of another variant
    ({"tie_break": "coin"}, "coin"),  # bad value
    ({"max_rounds": -2}, "max_rounds"),
])
def test_bad_options_make_no_env(options, named):
    # The contract: unknown option, option of another variant, bad value: ValueError naming it.
    with pytest.raises(ValueError, match=named):
        commerce_env.env(variant="trade_barter", num_players=3, **options)


@pytest.mark.parametrize(("reset_options", "named"), [
    ({"deck": "AS KD"}, "lacks"),  # not a whole pack
    ({"deck": make_deck(["9H 10H JH", "AS KS 4D", "5C 5D 9S"], 2).replace("3C", "2C")}, "2C appears twice"),
    ({"decks": "AS KD"}, "decks"),  # one text instead of a list of packs
    ({"deck": make_deck(["9H 10H JH", "AS KS 4D", "5C 5D 9S"], 2), "decks": []}, "either"),
    ({"dealer": 3}, "3"),  # a dealer out of range (seats 0 to 2)
    ({"dealer": -1}, "-1"),
    ({"dealer": "0"}, "'0'"),
])
def test_bad_reset_options_change_nothing(reset_options, named):
    # The contract: a bad pack, both keys, or a dealer out of range: an error naming it, the
    # running match untouched.
    d = fresh()
    d.play("0: offer 9H")
    before = snapshot(d)
    with pytest.raises(ValueError, match=named):
        d.env.reset(seed=3, options=reset_options)
    assert_same(before, snapshot(d))
    d.play("1: give AS")


def test_piquet_pack_rejects_low_cards():
    # R1.1: a 32-card game's pack has no card below 7.
    d = Driver("widow", 3, deck_size=32)
    with pytest.raises(ValueError, match="5C is not in the 32-card pack"):  # its first card below 7
        d.env.reset(options={"deck": make_deck(["9H 10H JH", "AS KS 4D", "5C 5D 9S"], 2)})


@pytest.mark.parametrize("variant", VARIANTS)
def test_stepping_after_the_end(variant):
    # The contract: a finished match takes no more actions; the state stays as it was.
    d = Driver(variant, 2, seed=4, deals=1)
    rng = np.random.default_rng(0)
    while not d.game.over:
        d.play(f"{d.current_player}: {rng.choice(d.legal())}")
    before = snapshot(d)
    with pytest.raises(ValueError, match="only valid action is None"):  # PettingZoo's dead step
        d.env.step(0)
    with pytest.raises(ValueError, match="match is over"):
        d.game.apply(0)
    assert_same(before, snapshot(d))
    d.finish()
    assert d.env.agents == []
    after_finish = snapshot(d)
    with pytest.raises(ValueError, match="match is over"):
        d.raw.step(0)
    d.env.step(0)  # the wrapper only warns that every agent is done (PettingZoo's convention)
    assert_same(after_finish, snapshot(d))


def test_terminate_on_illegal_option():
    # PettingZoo's terminate-on-illegal convention as an option.
    api_test(commerce_env.env(variant="trade_barter", num_players=3, illegal_action="terminate"), num_cycles=20)
    env = commerce_env.env(variant="old_game", num_players=3, illegal_action="terminate")
    env.reset(seed=0, options={"deck": make_deck(["9H 10H JH", "AS KS 4D", "5C 5D 9S"], 2, table="2S 3S 6S"),
                               "dealer": 2})
    env.step(env.unwrapped.encode_action("knock"))  # no knock in the old game (R8.2)
    assert all(env.terminations.values())
    final = {}
    for agent in env.agent_iter():
        final[agent] = env.last()[1]
        env.step(None)
    assert final == {"player_0": -1.0, "player_1": 0.0, "player_2": 0.0}


def test_action_texts_round_trip():
    # R12 texts through encode_action / decode_action; R1.3: input case-insensitive, T for 10.
    d = fresh()
    for action in d.raw.legal_actions():
        assert d.raw.encode_action(d.raw.decode_action(action)) == action
    assert d.raw.encode_action("OFFER th") == d.raw.encode_action("offer 10H")
    assert d.raw.decode_action(d.raw.encode_action("ready_money th")) == "ready_money 10H"
    assert d.raw.decode_action(0, "player_1") == "knock"
    with pytest.raises(ValueError, match="player_9"):
        d.raw.decode_action(0, "player_9")
    with pytest.raises(ValueError, match="27"):
        d.raw.decode_action(27)
