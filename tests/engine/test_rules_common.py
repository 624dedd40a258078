"""Rules shared by every variant: seats and ties (R3), counters and matches (R4),
limited commerce (R10.1), options, presets and defaults (R12), outcome rewards (R12)."""

import random

import numpy as np
import pytest
from helpers import Driver, make_deck
from reference import Reference

import commerce_env
from commerce_env.cards import format_cards, make_pack
from commerce_env.rules import ALL_COMBINATIONS, FOSTER_COMBINATIONS, VARIANTS, make_rules
from commerce_env.view import seat_view

# Four players, seat 1 deals: the order of play is 2, 3, 0, 1.
# Seats 0, 3 and the dealer (1) hold 21 pips on two cards; seat 2 has no point.
TIED_WITH_DEALER = ["AS KS 2D", "AD KD 4H", "5C 6D 7H", "AH KH 3C"]
TIED_WITHOUT_DEALER = ["AS KS 2D", "5C 6D 7H", "AD KD 4H", "AH KH 3C"]


@pytest.mark.parametrize(("hands", "tie_break", "pool_to"), [
    (TIED_WITH_DEALER, "dealer", {1: 4}),  # R3.3 `dealer`: the dealer wins a tie
    (TIED_WITHOUT_DEALER, "dealer", {2: 4}),  # else the tied player nearest the dealer's left
    (TIED_WITH_DEALER, "eldest", {3: 4}),  # R3.3 `eldest`: nearest the dealer's left, dealer last
    (TIED_WITH_DEALER, "split", {3: 2, 0: 1, 1: 1}),  # R3.3 `split`, R3.5: remainder to seat 3
    (TIED_WITHOUT_DEALER, "split", {2: 2, 3: 1, 0: 1}),
])
def test_tie_breaks(hands, tie_break, pool_to):
    d = Driver("trade_barter", 4, deck=make_deck(hands, 1), dealer=1, tie_break=tie_break,
               dealer_pays="none")
    d.play("2: knock")
    assert d.game.counters == [-1 + pool_to.get(s, 0) for s in range(4)]


def test_split_remainder_goes_to_the_winners_nearest_the_dealers_left():
    # R3.5: five players, seat 3 deals (order 4, 0, 1, 2, 3); seats 2 and 4 tie for a pool of 5:
    # 2 each, and the odd counter to seat 4, who sits nearer the dealer's left.
    hands = ["2C 5D 9H", "3C 6D JS", "AS KS 2D", "7C 8D QH", "AH KH 4C"]
    d = Driver("trade_barter", 5, deck=make_deck(hands, 3), dealer=3, tie_break="split", dealer_pays="none")
    d.play("4: knock")
    assert d.game.counters == [-1, -1, 1, -1, 2]


def test_seats_and_the_deal_passing_left():
    # R3.1: the eldest (dealer's left) acts first; R3.2 / R4.5: the deal passes left every deal.
    d = Driver("old_game", 4, dealer=2, deals=3, seed=5)
    dealers = []
    for _ in range(3):
        dealers.append(d.game.dealer)
        assert d.game.order == [(d.game.dealer + k) % 4 for k in (1, 2, 3, 4)]
        assert d.current_player == (d.game.dealer + 1) % 4
        for seat in list(d.game.order):
            d.play(f"{seat}: pass")
    assert dealers == [2, 3, 0] and d.game.over and d.game.deals_played == 3


@pytest.mark.parametrize("variant", VARIANTS)
def test_counters_are_conserved_in_random_play(variant):
    # R4.1, R4.3: whole numbers; nothing created or lost: players plus pool is constant, every
    # deal of every variant, and counter rewards add up to each player's net change.
    rng = random.Random(variant)
    for n in (2, 5):
        d = Driver(variant, n, seed=rng.randrange(10**6), deals=4)
        start = d.game.total_value()
        lives = 3 if variant in ("widow", "my_ship_sails") else 0  # before the first ante (R6.1, R7.1)
        while not d.game.over:
            d.play(f"{d.current_player}: {rng.choice(d.legal())}")
            assert d.game.total_value() == start
            assert all(isinstance(c, int) for c in d.game.counters + d.game.money + [d.game.pool])
        # Rewards are the net change from the match's start (R9.5: the pool entry included).
        assert d.totals == [float(d.game.balance(s) - lives) for s in range(n)]


@pytest.mark.parametrize("variant", VARIANTS)
def test_lives_are_named_where_the_variant_keeps_them(variant):
    # R6.1, R7.1, R9.2: three lives each where the variant keeps lives; none in R5 or R8.
    rng = random.Random(variant)
    d = Driver(variant, 3, seed=5, deals=3)
    keeps = variant in ("widow", "my_ship_sails", "pool")
    assert d.game.rules.has_lives == keeps
    while not d.game.over:
        if keeps:
            assert d.game.lives is d.game.counters and seat_view(d.game, 0).lives == tuple(d.game.counters)
            assert all(d.game.lives[s] <= 0 for s in range(3) if d.game.out[s])  # R4.6
        else:
            with pytest.raises(AttributeError, match="keeps no lives"):
                d.game.lives  # noqa: B018
            with pytest.raises(AttributeError, match="keeps no lives"):
                seat_view(d.game, 0).lives  # noqa: B018
        d.play(f"{d.current_player}: {rng.choice(d.legal())}")


@pytest.mark.parametrize("variant", VARIANTS)
def test_deals_option(variant):
    # R4.5: `deals` = a number of deals (R7.3's deals settled at once not counted); each deal is
    # dealt by the next player to the left.
    d = Driver(variant, 3, seed=11, deals=2)
    rng = random.Random(3)
    dealers = {d.game.deals_dealt: d.game.dealer}
    while not d.game.over:
        d.play(f"{d.current_player}: {rng.choice(d.legal())}")
        dealers.setdefault(d.game.deals_dealt, d.game.dealer)
    assert d.game.deals_played == 2 and d.game.deals_dealt >= 2
    # Deal k is dealt by seat k - 1 (dealer 0 first); nobody can be out before three deals are
    # settled (three lives, R4.6). A deal settled inside a step (R7.3) is not seen here.
    assert all(dealer == (k - 1) % 3 for k, dealer in dealers.items() if k <= 3)
    assert len(dealers) >= 2


def test_match_ends_by_deals_before_anyone_is_out():
    # R4.5: a match with lives ends at whichever comes first: here `deals`, with lives left.
    decks = [make_deck(["AC AD AH", "2C 7D 9S", "3C 8D 10S"], dealer, table="2S 3S 5S") for dealer in (0, 1)]
    d = Driver("widow", 3, decks=decks, dealer=0, deals=2, reward="outcome")
    d.play("0: keep_hand", "1: knock", "1: keep_hand", "2: knock")
    assert d.game.over and d.game.counters == [7, 1, 1] and not any(d.game.out)
    # The `outcome` reward: the losers are those with the fewest counters; they share -1.
    assert d.game.match_losers == [1, 2] and d.totals == [1.0, -0.5, -0.5]


def test_outcome_when_everyone_is_equal():
    # The `outcome` reward: if everyone is equal, nobody gets anything.
    decks = [make_deck(["AC AD AH", "2C 7D 9S"], 0, table="2S 3S 5S"),
             make_deck(["2C 7D 9S", "AC AD AH"], 1, table="2S 3S 5S")]
    d = Driver("widow", 2, decks=decks, dealer=0, deals=2, reward="outcome")
    d.play("0: keep_hand", "1: knock", "1: keep_hand", "0: knock")
    assert d.game.over and d.game.counters == [3, 3]
    assert d.game.match_losers == [] and d.totals == [0.0, 0.0]


def test_outcome_in_trade_barter():
    # The `outcome` reward with one deal: those with the fewest counters share -1, the rest +1.
    d = Driver("trade_barter", 4, deck=make_deck(["9H 10H JH", "AS KS 4D", "5C 5D 9S", "7C 8C 2D"], 3),
               dealer=3, reward="outcome")
    d.play("0: knock")
    assert d.game.counters == [4, -1, -1, -2]  # R5.8: the dealer pays the winner
    assert d.totals == pytest.approx([1 / 3, 1 / 3, 1 / 3, -1.0])
    d = Driver("trade_barter", 4, deck=make_deck(["9H 10H JH", "AS KS 4D", "5C 5D 9S", "QC KC AC"], 3),
               dealer=3, reward="outcome")
    d.play("0: knock")
    assert d.totals == pytest.approx([-1 / 3, -1 / 3, -1 / 3, 1.0])


# R10.1 limited commerce: the same hands ranked under each `combinations` set, in every variant
# that takes the option. Seat 0's pair of fives and seat 1's 2-3-5 flush count only when allowed;
# otherwise seat 2's ace-king point (21) is best.
LIMITED_HANDS = ["5C 5D 9D", "2H 3H 5H", "AS KS 4C", "6C 7D 8S"]
LIMITED = [
    (ALL_COMBINATIONS, 1),
    (("tricon", "sequence", "pair", "point"), 0),
    (("tricon", "sequence", "flush", "point"), 1),
    (FOSTER_COMBINATIONS, 2),
]


def finish_by_the_first_decision(d):
    """End the deal as soon as possible: knock, or everybody passes."""
    while not d.game.over and d.game.deals_played == 0:
        legal = d.legal()
        for move in ("keep_hand", "knock", "pass"):
            if move in legal:
                d.play(f"{d.current_player}: {move}")
                break


@pytest.mark.parametrize("variant", ["trade_barter", "widow", "old_game", "pool"])
@pytest.mark.parametrize(("combinations", "winner"), LIMITED)
def test_limited_commerce(variant, combinations, winner):
    # R10.1, R2.7: a restricted `combinations` set changes who wins, in every such variant.
    table = "2S 3S 6S" if variant in ("widow", "old_game", "pool") else ""
    deck = make_deck(LIMITED_HANDS, 3, table=table)
    options = {"dealer_pays": "none"} if variant == "trade_barter" else {}
    d = Driver(variant, 4, deck=deck, dealer=3, combinations=list(combinations), deals=1, **options)
    finish_by_the_first_decision(d)
    gains = [d.game.balance(s) for s in range(4)]
    assert gains.index(max(gains)) == winner and gains.count(max(gains)) == 1


def test_defaults():
    # R12: every option's default per variant.
    table = {
        "trade_barter": dict(combinations=FOSTER_COMBINATIONS, tie_break="dealer", discard="table",
                             stand_after_trade=False, dealer_pays="foster", deals=1, max_rounds=10),
        "widow": dict(combinations=FOSTER_COMBINATIONS, tie_break="dealer", allow_pass=True,
                      match_end="whiskey", deals="until_out", max_rounds=10),
        "my_ship_sails": dict(tie_break="eldest", match_end="freeze_out", deals="until_out", max_rounds=2),
        "old_game": dict(combinations=ALL_COMBINATIONS, tie_break="split", deals=1, max_rounds=10),
        "pool": dict(combinations=ALL_COMBINATIONS, tie_break="split", deals="until_out", max_rounds=10,
                     entry=12, payout=1, horse_price=4),
    }
    for variant, expected in table.items():
        rules = make_rules(variant)
        assert rules.deck_size == 52 and rules.reward == "counters"
        for name, value in expected.items():
            assert getattr(rules, name) == value, (variant, name)
        assert set(rules.options()) - {"variant"} == set(expected) | {"deck_size", "reward"}


def test_horse_price_default_is_a_third_of_the_entry():
    # R12: horse_price defaults to entry // 3; Peel also allows one half, given explicitly.
    assert make_rules("pool", entry=20).horse_price == 6
    assert make_rules("pool", entry=20, horse_price=10).horse_price == 10


def test_presets():
    # R5.9 / R12: `preset` sets the source's combinations, and for trade and barter R5.9's options;
    # explicit options override a preset.
    foster = make_rules("trade_barter", preset="foster")
    assert (foster.combinations, foster.tie_break, foster.discard, foster.stand_after_trade,
            foster.dealer_pays) == (FOSTER_COMBINATIONS, "dealer", "table", False, "foster")
    peel = make_rules("trade_barter", preset="peel")
    assert (peel.combinations, peel.discard, peel.stand_after_trade, peel.dealer_pays) == (
        ALL_COMBINATIONS, "bottom", True, "none")
    assert make_rules("trade_barter", preset="peel", discard="table").discard == "table"
    assert make_rules("trade_barter", preset="peel", dealer_pays="peel_better").dealer_pays == "peel_better"
    assert make_rules("widow", preset="peel").combinations == ALL_COMBINATIONS
    assert make_rules("old_game", preset="foster").combinations == FOSTER_COMBINATIONS
    assert make_rules("pool", preset="foster", combinations=["pair"]).combinations == FOSTER_COMBINATIONS | {"pair"}


@pytest.mark.parametrize(("variant", "options", "named"), [
    ("trade_barter", {"colour": "red"}, "colour"),  # unknown option
    ("widow", {"discard": "table"}, "discard"),  # R12: an option of another variant
    ("old_game", {"match_end": "whiskey"}, "match_end"),
    ("trade_barter", {"entry": 12}, "entry"),
    ("my_ship_sails", {"combinations": ["pair"]}, "combinations"),
    ("my_ship_sails", {"preset": "foster"}, "preset"),
    ("pool", {"allow_pass": True}, "allow_pass"),
    ("trade_barter", {"tie_break": "coin"}, "coin"),  # bad values
    ("trade_barter", {"dealer_pays": "always"}, "always"),
    ("trade_barter", {"discard": "burn"}, "burn"),
    ("trade_barter", {"stand_after_trade": "maybe"}, "maybe"),
    ("trade_barter", {"max_rounds": 0}, "max_rounds"),
    ("trade_barter", {"deals": "until_out"}, "until_out"),  # no lives in trade and barter
    ("old_game", {"deals": 0}, "deals"),
    ("pool", {"entry": -1}, "entry"),
    ("pool", {"horse_price": 2.5}, "horse_price"),
    ("widow", {"deck_size": 40}, "40"),
    ("widow", {"reward": "money"}, "money"),
    ("widow", {"match_end": "sudden_death"}, "sudden_death"),
    ("widow", {"combinations": ["tricon", "triple"]}, "triple"),
    ("trade_barter", {"preset": "hoyle"}, "hoyle"),
    ("nap", {}, "nap"),
])
def test_bad_options_are_named(variant, options, named):
    # R12: an unknown option, one that does not apply, or a bad value is an error naming it.
    with pytest.raises(ValueError, match=named):
        make_rules(variant, **options)


# ------------------------------------------------- against an independent reading of the rules


def random_options(rng: random.Random, variant: str, num_players: int) -> dict:
    """A random choice among the options that apply to ``variant`` (R12)."""
    options = {"tie_break": rng.choice(["dealer", "eldest", "split"]), "max_rounds": rng.randint(1, 4),
               "reward": rng.choice(["counters", "outcome"])}
    if variant != "my_ship_sails":
        options["combinations"] = ["tricon", *rng.sample(["flush", "pair"], rng.randint(0, 2))]
    if num_players <= 7 and rng.random() < 0.3:
        options["deck_size"] = 32
    if variant == "trade_barter":
        options.update(discard=rng.choice(["table", "bottom"]), stand_after_trade=rng.random() < 0.5,
                       dealer_pays=rng.choice(["foster", "peel_each", "peel_better", "none"]))
    if variant == "widow":
        options["allow_pass"] = rng.random() < 0.7
    if variant in ("widow", "my_ship_sails"):
        options["match_end"] = rng.choice(["whiskey", "freeze_out"])
    options["deals"] = rng.choice([1, 2, 3] + (["until_out"] * 2 if make_rules(variant).has_lives else []))
    if variant == "pool":
        options.update(entry=rng.choice([0, 1, 3, 12]), payout=rng.choice([0, 1, 2, 5]))
        if rng.random() < 0.5:
            options["horse_price"] = rng.randint(0, 6)
    return options


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seed", range(12))
def test_random_matches_agree_with_the_reference(variant, seed):
    # R1-R12: random matches (random options, packs, dealer and legal moves) played through the env
    # and through tests/reference.py, a plain reading of docs/rules.md: the same player to act, the same
    # legal texts at every decision, the same rewards, balances and pool after every step, and the
    # same history.
    rng = random.Random(f"{variant}-{seed}")
    n = rng.choice([2, 3, 4, 5, 7, 12])
    options = random_options(rng, variant, n)
    rules = make_rules(variant, **options)
    pack = list(make_pack(rules.deck_size))
    decks = []
    for _ in range(150):
        rng.shuffle(pack)
        decks.append(format_cards(pack))
    dealer = rng.randrange(n)
    env = commerce_env.env(variant=variant, num_players=n, **options)
    env.reset(seed=seed, options={"decks": decks, "dealer": dealer})
    raw = env.unwrapped
    reference = Reference(rules, n, decks, dealer)
    while not reference.over and reference.dealt < len(decks) - 5:  # a long freeze-out: stop
        game = raw.game
        assert game.current_player == reference.to_act, raw.history[-4:]
        mask = env.observe(env.agent_selection)["action_mask"]
        legal = {raw.decode_action(int(a)) for a in np.flatnonzero(mask)}
        assert legal == reference.legal(), raw.history[-4:]
        action = rng.choice(sorted(legal))
        env.step(raw.encode_action(action))
        reference.apply(action)
        assert [env.rewards[a] for a in env.possible_agents] == pytest.approx(reference.take_rewards())
        assert [game.balance(s) for s in range(n)] == [reference.balance(s) for s in range(n)]
        assert game.pool == reference.pool
    assert raw.game.over == reference.over
    assert raw.history == [(f"player_{seat}", text) for seat, text in reference.history]
