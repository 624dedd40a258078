"""Trade and barter (docs/rules.md R5, R10.2): scenarios from fixed packs through the AEC env.

Most scenarios seat four players with seat 3 dealing, so the order of play
(R3.1) is seats 0, 1, 2, 3 and seat 0 is the eldest hand.
"""

import random

import numpy as np
import pytest
from helpers import Driver, deck_stock_last, make_deck

from commerce_env.cards import format_cards, make_pack
from commerce_env.knowledge import deal_memory

# R5.8, Foster's worked example: no tricon; a jack-high sequence wins.
FOSTER_EXAMPLE = ["9H 10H JH", "AS KS 4D", "5C 5D 9S", "7C 8C 9C"]


def four(hands, dealer=3, stock="", **options):
    return Driver("trade_barter", 4, deck=make_deck(hands, dealer, stock=stock), dealer=dealer, **options)


def test_ante_and_first_choices():
    # R5.1, R4.2: each player antes one; three cards each. R5.2: the eldest trades, barters or knocks.
    d = four(FOSTER_EXAMPLE)
    assert d.game.counters == [-1, -1, -1, -1] and d.game.pool == 4
    assert [d.hand(s) for s in range(4)] == ["9H 10H JH", "4D KS AS", "5C 5D 9S", "7C 8C 9C"]
    assert d.current_player == 0
    assert d.legal() == ["knock", "ready_money 9H", "ready_money 10H", "ready_money JH",
                         "offer 9H", "offer 10H", "offer JH"]


def test_foster_worked_example_dealer_pays_every_other_player():
    # R5.8 `foster`: a J-high sequence wins; the dealer's 9-high sequence is the same
    # combination, so he pays one counter to every other player.
    d = four(FOSTER_EXAMPLE)
    d.play("0: knock")  # R5.5: all trading stops, the hands are shown
    assert d.game.over
    assert d.game.counters == [-1 + 4 + 1, -1 + 1, -1 + 1, -1 - 3]
    assert d.totals == [4.0, 0.0, 0.0, -4.0]
    assert d.history() == ["0: knock"]


def test_foster_worked_example_dealer_without_sequence_pays_winner_only():
    # R5.8 `foster`: had the dealer no sequence, he would pay the winner of the pool only.
    d = four(["9H 10H JH", "AS KS 4D", "5C 5D 9S", "7C 8C 2D"])
    d.play("0: knock")
    assert d.game.counters == [4, -1, -1, -2]
    assert d.totals == [4.0, -1.0, -1.0, -2.0]


def test_foster_dealer_winning_pays_nothing():
    # R5.8 `foster`: the dealer among the winners pays nobody.
    d = four(["7C 8C 9C", "AS KS 4D", "5C 5D 9S", "9H 10H JH"])
    d.play("0: knock")
    assert d.game.counters == [-1, -1, -1, 3]


def test_foster_two_points_are_the_same_combination():
    # R5.8 `foster`: point is a combination (R2); a dealer's point against a winning point pays all.
    d = four(["AS KS 4D", "2C 3D 9H", "5C 7D 9S", "7H 8H 2D"])
    d.play("0: knock")
    assert d.game.counters == [-1 + 4 + 1, 0, 0, -1 - 3]


def test_foster_none_is_no_combination():
    # R5.8 `foster`: every hand of three suits ("none"); with `eldest` ties the eldest wins,
    # and the dealer's "none" is no combination, so he pays the winner only.
    d = four(["2C 3D 4H", "5C 6D 7H", "8C 9D 10H", "JC QD KH"], tie_break="eldest")
    d.play("0: knock")
    assert d.game.counters == [4, -1, -1, -2]


@pytest.mark.parametrize(("dealer_pays", "expected"), [
    ("peel_each", [-1 + 4 + 1, -1 + 1, -1 + 1, -1 - 3]),  # R5.8: one to every other player
    ("peel_better", [-1 + 4 + 1, -1 + 1, -1, -1 - 2]),  # R5.8: only to the strictly better hands
    ("none", [3, -1, -1, -1]),
    ("foster", [-1 + 4 + 1, -1, -1, -1 - 1]),  # pair is not the winner's sequence: winner only
])
def test_dealer_pays_forms_with_a_pair(dealer_pays, expected):
    # R5.8, R10.2 dealer penalties; all five combinations: the dealer's pair is beaten by a
    # sequence (seat 0) and a flush (seat 1), not by seat 2's "none".
    d = four(["9H 10H JH", "2S 7S KS", "AC KD 3H", "5C 5D 9S"],
             combinations=["tricon", "sequence", "flush", "pair", "point"], dealer_pays=dealer_pays)
    d.play("0: knock")
    assert d.game.counters == expected
    assert d.totals == [float(c) for c in expected]


@pytest.mark.parametrize("dealer_pays", ["peel_each", "peel_better"])
def test_dealer_penalty_needs_a_combination(dealer_pays):
    # R5.8, R10.1: with pairs not counted (limited commerce) the dealer's 5 5 9 of three suits
    # is no pair, so he pays no penalty; nor does a dealer who holds only a point.
    d = four(["9H 10H JH", "2S 7S KS", "AC KD 3H", "5C 5D 9S"],
             combinations=["tricon", "sequence", "flush", "point"], dealer_pays=dealer_pays)
    d.play("0: knock")
    assert d.game.counters == [3, -1, -1, -1]
    d = four(["9H 10H JH", "2S 7S KS", "AC KD 3H", "5C 6C 9S"],
             combinations=["tricon", "sequence", "flush", "pair", "point"], dealer_pays=dealer_pays)
    d.play("0: knock")
    assert d.game.counters == [3, -1, -1, -1]


def test_dealer_penalty_not_paid_when_no_hand_is_strictly_better():
    # R5.8 `peel_each`: the dealer's tricon beaten by nobody pays nothing; he wins the pool.
    d = four(["9H 10H JH", "2S 7S KS", "AC KD 3H", "5C 5D 5S"], preset="peel", dealer_pays="peel_each")
    d.play("0: knock")
    assert d.game.counters == [-1, -1, -1, 3]


def test_ready_money_pays_the_dealer_and_takes_the_top_card():
    # R5.3: discard face down, pay one counter to the dealer, take the top of the stock;
    # the dealer trading pays nobody; `discard: table` keeps discards out of play.
    d = four(FOSTER_EXAMPLE, stock="4C 6C 2H KH")
    d.play("0: ready_money 9H")
    assert d.hand(0) == "4C 10H JH" and d.game.discards == deal_memory(d.game, 0)[1]
    assert format_cards(d.game.discards) == "9H"
    assert d.game.counters == [-2, -1, -1, 0]
    d.play("1: ready_money 4D", "2: ready_money 9S", "3: ready_money 7C")
    assert [d.hand(s) for s in range(4)] == ["4C 10H JH", "6C KS AS", "2H 5C 5D", "8C 9C KH"]
    assert d.game.counters == [-2, -2, -2, 2]  # the dealer's own trade pays nobody
    assert format_cards(d.game.discards) == "9H 4D 9S 7C"
    assert d.current_player == 0  # R5.2: round and round
    d.play("0: knock")
    # AS KS (21) is seat 1's best point; the dealer 8C 9C (17) is a point too: he pays all.
    assert d.game.counters == [-2 + 1, -2 + 4 + 1, -2 + 1, 2 - 3]
    assert d.history() == ["0: ready_money 9H", "1: ready_money 4D", "2: ready_money 9S",
                           "3: ready_money 7C", "0: knock"]
    assert sum(d.game.counters) + d.game.pool == 0  # R4.3


def shuffled_deck(seed: int) -> str:
    pack = list(make_pack())
    random.Random(seed).shuffle(pack)
    return format_cards(pack)


@pytest.mark.parametrize("discard", ["table", "bottom"])
def test_empty_stock_and_bottom_discards(discard):
    # R5.3: 12 players leave a stock of 16 cards. With `table` discards, once 16 cards are
    # bought nobody may trade for ready money; with `bottom` the 17th buyer takes the first
    # discard back from under the stock.
    d = Driver("trade_barter", 12, deck=shuffled_deck(7), dealer=11, discard=discard)
    bought = []
    for _ in range(16):
        seat = d.current_player
        text = next(t for t in d.legal() if t.startswith("ready_money"))
        bought.append(text.split()[1])
        d.play(f"{seat}: {text}")
    assert len(d.game.stock) == (0 if discard == "table" else 16)
    seat = d.current_player
    if discard == "table":
        assert not any(t.startswith("ready_money") for t in d.legal())
        assert "knock" in d.legal() and sum(t.startswith("offer") for t in d.legal()) == 3
    else:
        assert format_cards(d.game.stock[:1]) == bought[-1]  # the latest discard is the bottom card
        text = next(t for t in d.legal() if t.startswith("ready_money"))
        d.play(f"{seat}: {text}")
        assert bought[0] in d.hand(seat).split()
    assert sum(d.game.counters) + d.game.pool == 0


def test_bottom_discard_goes_under_the_stock():
    # R5.3 `discard: bottom`: the discard is the stock's bottom card, not on the table.
    hands = ["9H 10H JH", "AS KS 4D", "5C 5D 9S", "7C 8C 9C"]
    d = Driver("trade_barter", 4, deck=deck_stock_last(hands, 3, "2D"), dealer=3, discard="bottom")
    d.play("0: ready_money 9H")
    assert d.game.discards == [] and format_cards(d.game.stock[:2]) == "9H 2D"


def test_barter_offer_and_blind_give():
    # R5.4: offer a card face down to the left neighbour, who gives one of his own or knocks;
    # after the exchange the turn is the neighbour's (he now trades or knocks).
    d = four(FOSTER_EXAMPLE)
    d.play("0: offer JH")
    assert d.current_player == 1
    assert d.legal() == ["knock", "give 4D", "give KS", "give AS"]
    d.play("1: give AS")
    assert d.hand(0) == "9H 10H AS" and d.hand(1) == "4D JH KS"
    assert d.game.counters == [-1, -1, -1, -1]  # a barter pays nobody
    assert d.current_player == 1
    assert d.legal() == ["knock", "ready_money 4D", "ready_money JH", "ready_money KS",
                         "offer 4D", "offer JH", "offer KS"]
    d.play("1: offer 4D", "2: give 9S", "2: knock")
    assert d.history() == ["0: offer JH", "1: give AS", "1: offer 4D", "2: give 9S", "2: knock"]
    # 9C 8C 7C sequence (dealer) wins; seat 2 holds 4D 5C 5D.
    assert d.game.counters == [-1, -1, -1, 3]


def test_barter_answered_by_a_knock():
    # R5.4: the neighbour may knock instead of giving: no exchange, the hands are shown (R5.5).
    d = four(FOSTER_EXAMPLE)
    d.play("0: offer 9H", "1: knock")
    assert d.hand(0) == "9H 10H JH" and d.hand(1) == "4D KS AS"
    assert d.game.over and d.game.counters == [4, 0, 0, -4]


def test_offered_card_is_hidden_from_the_neighbour():
    # R11, R5.4: the neighbour chooses his card before seeing the offered one.
    seen = []
    for card in ("9H", "JH"):
        d = four(FOSTER_EXAMPLE)
        d.play(f"0: offer {card}")
        seen.append(d.env.observe("player_1")["observation"])
    assert np.array_equal(seen[0], seen[1])


def test_stand_after_trade_on():
    # R5.6 on: after his own trade the trader chooses stand or continue; for a barter the
    # trader (not the neighbour) chooses once the neighbour has given his card.
    d = four(FOSTER_EXAMPLE, stock="4C 6C", stand_after_trade=True)
    d.play("0: ready_money 9H")
    assert d.current_player == 0 and d.legal() == ["stand", "continue"]
    d.play("0: continue", "1: offer 4D", "2: give 9S")
    assert d.current_player == 1 and d.legal() == ["stand", "continue"]
    d.play("1: stand")
    assert d.game.over
    assert d.history() == ["0: ready_money 9H", "0: continue", "1: offer 4D", "2: give 9S", "1: stand"]
    # Hands: 4C 10H JH (20), 9S KS AS (a three-card point), 4D 5C 5D, 7C 8C 9C (the dealer's sequence).
    assert d.game.counters == [-2, -1, -1, 4]


def test_stand_after_trade_off_passes_play_on():
    # R5.6 off (Foster): no stand-or-continue choice; play passes left at once.
    d = four(FOSTER_EXAMPLE, stock="4C")
    d.play("0: ready_money 9H")
    assert d.current_player == 1 and "stand" not in d.legal() and "continue" not in d.legal()


def test_peel_preset_plays_peel_rules():
    # R5.9 Peel: all five combinations, discards under the stock, stand after a trade, no penalties.
    hands = ["2C 2D 9S", "AS KD 4H", "3C 8D JH", "7C 8C 2H"]
    d = Driver("trade_barter", 4, deck=deck_stock_last(hands, 3, "6D", stock="3S"), dealer=3, preset="peel")
    d.play("0: ready_money 9S")
    assert d.legal() == ["stand", "continue"]
    assert format_cards(d.game.stock[:2]) == "9S 6D"
    d.play("0: stand")
    # 2C 2D 3S: the pair of twos beats the dealer's point (R2.4; Foster would count it as
    # no point at all); no dealer payment.
    assert d.game.counters == [-2 + 4, -1, -1, 0]


@pytest.mark.parametrize("stand_after_trade", [False, True])
def test_round_cap(stand_after_trade):
    # R4.4: after `max_rounds` rounds (one turn for each player, eldest to dealer) the hands are
    # shown as if someone had knocked; a barter's reply and a stand-or-continue choice belong to
    # the trader's turn. Three players, seat 2 deals: one round is seats 0, 1, 2.
    hands = ["9H 10H JH", "AS KS 4D", "7C 8C 9C"]
    d = Driver("trade_barter", 3, deck=make_deck(hands, 2, stock="2D 3D 4S"), dealer=2,
               max_rounds=2, stand_after_trade=stand_after_trade)

    def turn(*moves):
        trader = moves[0].split(":")[0]
        d.play(*moves)
        if stand_after_trade:
            assert d.legal() == ["stand", "continue"]
            d.play(f"{trader}: continue")

    turn("0: ready_money 9H")
    turn("1: offer 4D", "2: give 7C")
    turn("2: ready_money 4D")  # the dealer's turn ends round 1; he pays nobody
    assert d.game.rounds_done == 1 and not d.game.over
    turn("0: offer 2D", "1: give 7C")
    turn("1: ready_money 2D")
    turn("2: offer 8C", "0: give 7C")
    assert d.game.over and d.game.rounds_done == 2
    # 4S KS AS (a three-card point) wins; the dealer's 7C 9C is a point too: he pays all (R5.8).
    assert [d.hand(s) for s in range(3)] == ["8C 10H JH", "4S KS AS", "3D 7C 9C"]
    assert d.game.counters == [-1 - 1 + 1, -1 - 1 + 3 + 1, -1 + 2 - 2]


def test_dealer_barter_with_the_eldest_ends_the_round():
    # R4.4 with R5.4: the dealer's barter with the eldest is the dealer's turn; with
    # max_rounds=1 the hands are shown before the eldest acts again.
    d = Driver("trade_barter", 3, deck=make_deck(["9H 10H JH", "AS KS 4D", "7C 8C 9C"], 2), dealer=2,
               max_rounds=1)
    d.play("0: offer 9H", "1: give 4D", "1: offer 9H", "2: give 7C", "2: offer 9H", "0: give 10H")
    assert d.game.over
    assert d.history()[-1] == "0: give 10H"
