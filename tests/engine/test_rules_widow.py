"""Commerce with a widow (docs/rules.md R6): scenarios from fixed packs through the AEC env.

Three players; in a single deal seat 2 deals, so the order of play is 0, 1, 2.
"""

import numpy as np
import pytest
from helpers import Driver, make_deck

HANDS = ["2C 5D 9H", "3C 6D JS", "7C 8D KH"]
WIDOW = "AS KS 4S"
WINNER = "AC AD AH"


def three(hands=HANDS, table=WIDOW, **options):
    return Driver("widow", 3, deck=make_deck(hands, 2, table=table), dealer=2, **options)


def exchanges(hand, table):
    return [f"exchange {h} {t}" for h in hand.split() for t in table.split()]


def test_lives_ante_and_face_up_widow():
    # R6.1: three lives each, one anted per deal; three cards each and a face-up widow.
    d = three()
    assert d.game.counters == [2, 2, 2] and d.game.pool == 3
    assert d.hand(0) == "2C 5D 9H" and " ".join(map(str, d.game.table)) == WIDOW
    # The widow is face up: every player's observation shows it (R11).
    other = three(table="AH QH 4H")
    assert not np.array_equal(d.env.observe("player_0")["observation"],
                              other.env.observe("player_0")["observation"])


def test_dealer_decides_first_without_seeing_his_hand():
    # R6.2: the dealer's blind choice comes first; his observation hides his hand (R11).
    d = three()
    assert d.current_player == 2 and d.legal() == ["take_widow", "keep_hand"]
    other = three(hands=["2C 5D 9H", "3C 6D JS", "QC QD 2S"])
    before = [x.env.observe("player_2")["observation"] for x in (d, other)]
    assert np.array_equal(before[0], before[1])
    for x in (d, other):
        x.play("2: keep_hand")
    after = [x.env.observe("player_2")["observation"] for x in (d, other)]
    assert not np.array_equal(after[0], after[1])
    assert d.current_player == 0  # R6.2: whether he takes the widow or not, the eldest acts first


def test_take_widow():
    # R6.2: his unseen hand becomes the new face-up widow; the eldest acts first.
    d = three()
    d.play("2: take_widow")
    assert d.hand(2) == "4S KS AS"
    assert sorted(map(str, d.game.table)) == sorted("7C 8D KH".split())
    assert d.current_player == 0
    table = " ".join(map(str, d.game.table))
    assert d.legal() == ["knock", "pass", *exchanges("2C 5D 9H", table)]
    assert d.history() == ["2: take_widow"]


def test_exchange_puts_the_card_in_the_taken_cards_place():
    # R6.3: one card of the hand for one widow card, face up in the taken card's place.
    d = three(deals=1)
    d.play("2: keep_hand", "0: exchange 2C KS")
    assert d.hand(0) == "5D 9H KS" and " ".join(map(str, d.game.table)) == "AS 2C 4S"
    assert d.current_player == 1
    assert d.legal() == ["knock", "pass", *exchanges("3C 6D JS", "AS 2C 4S")]
    d.play("1: exchange 3C AS", "2: pass", "0: exchange 5D 4S")
    # R6.4: a knock stops all drawing; the best hand takes the pool, no dealer payments.
    d.play("1: knock")
    assert d.hand(0) == "4S 9H KS" and d.hand(1) == "6D JS AS"
    assert d.history() == ["2: keep_hand", "0: exchange 2C KS", "1: exchange 3C AS", "2: pass",
                           "0: exchange 5D 4S", "1: knock"]
    # Points: seat 0 4S KS (14), seat 1 JS AS (21); the dealer's 7C 8D KH has none.
    assert d.game.counters == [2, 5, 2]
    assert d.totals == [-1.0, 2.0, -1.0]


def test_no_dealer_payment_in_the_widow_game():
    # R6.4: the dealer's hand of the winner's combination pays nothing (contrast R5.8).
    d = three(hands=["2C 5D 9H", "10S JS QS", "7C 8C 9C"], deals=1)
    d.play("2: keep_hand", "0: knock")
    assert d.game.counters == [2, 5, 2]
    assert d.totals == [-1.0, 2.0, -1.0]


def test_allow_pass_off():
    # R6.3 `allow_pass` off: knock or exchange, no pass.
    d = three(allow_pass=False)
    d.play("2: keep_hand")
    assert d.legal() == ["knock", *exchanges("2C 5D 9H", WIDOW)]


@pytest.mark.parametrize("max_rounds", [1, 2])
def test_round_cap(max_rounds):
    # R4.4: the dealer's first decision is no turn; after `max_rounds` rounds the hands are shown.
    d = three(max_rounds=max_rounds, deals=1)
    d.play("2: take_widow", "0: pass", "1: pass", "2: pass")
    assert d.game.over == (max_rounds == 1)
    if max_rounds == 2:
        d.play("0: pass", "1: pass", "2: exchange 4S 7C")
        assert d.game.over
    assert d.game.rounds_done == max_rounds


def whiskey_match(last_hands, tie_break="dealer", **options):
    """Seat 0 wins three deals; seats 1 and 2 ante their last counters in deal 3 (R4.6)."""
    first = [WINNER, "2D 7H 9C", "3D 8H 10C"]
    decks = [make_deck(hands, dealer, table="2S 3S 5S")
             for dealer, hands in enumerate([first, first, [WINNER, *last_hands]])]
    d = Driver("widow", 3, decks=decks, dealer=0, tie_break=tie_break, **options)
    d.play("0: keep_hand", "1: knock", "1: keep_hand", "2: knock", "2: keep_hand")
    assert d.game.counters == [6, 0, 0]  # R4.6: anted their last counters, still in the deal
    assert d.current_player == 0 and d.hand(1) and d.hand(2)
    d.play("0: pass", "1: pass", "2: pass", "0: knock")
    return d


@pytest.mark.parametrize(("last_hands", "tie_break", "payer"), [
    (["2C 5D 9H", "3C 6D 10H"], "dealer", 1),  # R3.4: equal worst hands, the one at the dealer's right
    (["2C 5D 9H", "3C 6D 10H"], "eldest", 2),  # R3.4: with `eldest`, the dealer
    (["2C 5D 9D", "3C 6D 10H"], "dealer", 2),  # a point beats no point: seat 2 holds the worst
])
def test_whiskey_several_out_at_once(last_hands, tie_break, payer):
    # R6.5 `whiskey`: the match ends when the first player is out; of several out in the same
    # deal, the worst hand (R3.4) pays for the whiskey; he alone loses the outcome (R12, `reward`).
    d = whiskey_match(last_hands, tie_break=tie_break, reward="outcome")
    assert d.game.over and d.game.out == [False, True, True]
    assert d.game.match_losers == [payer]
    expected = [0.5, 0.5, 0.5]
    expected[payer] = -1.0
    assert d.totals == expected
    assert d.reward_steps[:-1] == [[0.0] * 3] * (len(d.reward_steps) - 1)  # outcome: only at the end


def test_whiskey_counters_reward():
    # R6.5 with `reward: counters`: each deal pays the net change of lives.
    d = whiskey_match(["2C 5D 9H", "3C 6D 10H"])
    assert d.totals == [6.0, -3.0, -3.0]
    assert d.game.returns() == d.totals
    d.finish()


def test_whiskey_decides_when_deals_end_with_the_same_deal():
    # R4.5: `deals` and the variant's own end come with the same deal: the payer alone loses.
    d = whiskey_match(["2C 5D 9H", "3C 6D 10H"], deals=3, reward="outcome")
    assert d.game.match_losers == [1]


def test_freeze_out():
    # R6.5 `freeze_out`: players out retire; the deal passes left to players still in (R4.5),
    # skipping the out player, who is dealt nothing (R3.2); the last holder has every counter.
    winner_by_deal = [0, 1, 0, 0, 0, 0]
    dealers = [0, 1, 2, 0, 1, 0]
    outs = [(), (), (), (2,), (2,), (2,)]
    decks = []
    for win, dealer, out in zip(winner_by_deal, dealers, outs, strict=True):
        hands = ["2D 7H 9C", "3D 8H 10C", "4D 9H JC"]
        hands[win] = WINNER
        for seat in out:
            hands[seat] = ""
        decks.append(make_deck(hands, dealer, table="2S 3S 5S", out=out))
    d = Driver("widow", 3, decks=decks, dealer=0, match_end="freeze_out", reward="outcome")
    seen_dealers, eldest = [], []
    for deal in range(6):
        seen_dealers.append(d.game.dealer)
        eldest.append(d.game.order[0])
        d.play(f"{d.game.dealer}: keep_hand")
        if deal == 2:  # R4.6: seat 2 antes his last counter and still plays
            assert d.game.counters[2] == 0 and d.hand(2)
            d.play("0: pass", "1: pass", "2: pass")
        d.play(f"{d.current_player}: knock")
        if deal == 2:
            assert d.game.out == [False, False, True] and not d.game.over
        if deal >= 3:
            assert d.game.hands[2] == [] and 2 not in d.game.order
    assert seen_dealers == dealers
    assert eldest == [1, 2, 0, 1, 0, 1]
    assert d.game.over and d.game.counters == [9, 0, 0]
    assert d.game.match_losers == [1, 2]
    assert d.totals == [1.0, -0.5, -0.5]  # R6.5 freeze-out: everyone but the last holder loses
    assert d.game.deals_played == 6
