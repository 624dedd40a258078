"""My Ship Sails (docs/rules.md R7): scenarios from fixed packs through the AEC env.

Three players; in a single deal seat 2 deals, so the order of play is 0, 1, 2.
"""

import numpy as np
import pytest
from helpers import Driver, make_deck


def three(hands, **options):
    return Driver("my_ship_sails", 3, deck=make_deck(hands, 2), dealer=2, **options)


def test_lives_ante_and_first_choices():
    # R7.1: three counters each, one anted; three cards each, no widow. R7.2: offer or decline.
    d = three(["2H 5H KC", "3D 4S 9H", "7C 8D JS"])
    assert d.game.counters == [2, 2, 2] and d.game.pool == 3 and d.game.table == []
    assert d.current_player == 0
    assert d.legal() == ["decline", "offer 2H", "offer 5H", "offer KC"]


def test_exchange_that_makes_a_flush_sails_at_once():
    # R7.2: the neighbour must give one of his cards (no knock), chosen blind;
    # R7.3: the trader's new flush is declared at once and the hands are shown.
    d = three(["2H 5H KC", "3D 4S 9H", "7C 8D JS"], deals=1)
    d.play("0: offer KC")
    assert d.current_player == 1 and d.legal() == ["give 3D", "give 4S", "give 9H"]
    d.play("1: give 9H")
    assert d.game.over and d.hand(0) == "2H 5H 9H"
    assert d.game.counters == [5, 2, 2] and d.totals == [2.0, -1.0, -1.0]
    assert d.history() == ["0: offer KC", "1: give 9H"]


def test_the_neighbours_flush_sails_too():
    # R7.3: a flush made by the neighbour receiving the offered card is declared as well.
    d = three(["2H 5D KC", "3D 9C QC", "7C 8D JS"], deals=1)
    d.play("0: offer KC", "1: give 3D")
    assert d.game.over and d.hand(1) == "9C QC KC"
    assert d.game.counters == [2, 5, 2]


def test_flushes_win_by_pips_sequences_included():
    # R7.4: two flushes made by one exchange: the more pips wins.
    d = three(["2H 5H KC", "9C QC 9H", "7C 8D JS"], deals=1)
    d.play("0: offer KC", "1: give 9H")
    assert d.hand(0) == "2H 5H 9H" and d.hand(1) == "9C QC KC"
    assert d.game.counters == [2, 5, 2]  # 29 pips beat 16
    # R7.3: a sequence is just a flush here: two dealt flushes, 2S 3S 5S (10 pips) beats the
    # sequence 2H 3H 4H (9 pips); the deal is settled at reset (R4.5).
    dealt = make_deck(["2S 3S 5S", "2H 3H 4H", "7C 8D JS"], 2)
    calm = make_deck(["10C 2C 3D", "AH KH 3C", "AD KD 4S"], 0)
    d = Driver("my_ship_sails", 3, decks=[dealt, calm], dealer=2, deals=1)
    assert d.game.deals_played == 0 and d.game.deals_dealt == 2
    assert d.game.counters == [5 - 1, 2 - 1, 2 - 1]


def test_two_rounds_then_two_card_groups_by_pips():
    # R7.4, R4.4 (max_rounds 2): no flush after two rounds: the most pips in a two-card suit
    # group wins (three suits count zero); ties go to the eldest (R3.3).
    d = three(["10C 2C 3D", "AH KH 3C", "AD KD 4S"], deals=1)
    d.play("0: decline", "1: decline", "2: decline", "0: decline", "1: decline")
    assert not d.game.over and d.game.rounds_done == 1
    d.play("2: decline")
    assert d.game.over and d.game.rounds_done == 2
    assert d.game.counters == [2, 5, 2]  # 21 and 21: seat 1 is nearer the dealer's left


def test_three_suits_count_zero():
    # R7.4: a hand of three suits counts zero, below any two-card group.
    d = three(["2C 3C 4D", "AH KS QD", "AD KC 4S"], deals=1, max_rounds=1)
    d.play("0: decline", "1: decline", "2: decline")
    assert d.game.counters == [5, 2, 2]


def test_max_rounds_option():
    # R4.4: `max_rounds` is the cap of My Ship Sails' rounds too.
    d = three(["10C 2C 3D", "AH KH 3C", "AD KD 4S"], deals=1, max_rounds=1)
    d.play("0: offer 10C", "1: give 3C", "1: decline", "2: decline")
    assert d.game.over
    assert d.history() == ["0: offer 10C", "1: give 3C", "1: decline", "2: decline"]


def test_offered_card_is_hidden_from_the_neighbour():
    # R7.2, R11: the neighbour gives his card before seeing the offered one.
    seen = []
    for card in ("2H", "KC"):
        d = three(["2H 5H KC", "3D 4S 9H", "7C 8D JS"])
        d.play(f"0: offer {card}")
        seen.append(d.env.observe("player_1")["observation"])
    assert np.array_equal(*seen)


def test_dealt_flush_settles_at_reset():
    # R7.3: a dealt flush is declared before any decision; R4.5: that deal does not count toward
    # `deals`, its transfers stand, and they are paid with the first step's rewards (R12, `reward`).
    flush_deal = make_deck(["2D 7H 9C", "2H 5H 9H", "3D 8H 10C"], dealer=0)
    next_deal = make_deck(["10C 2C 3D", "AH KH 3C", "AD KD 4S"], dealer=1)
    d = Driver("my_ship_sails", 3, decks=[flush_deal, next_deal], dealer=0, deals=1)
    assert d.history() == [] and d.game.deals_played == 0 and d.game.deals_dealt == 2
    assert d.game.dealer == 1 and d.current_player == 2  # the second deal, dealt by seat 1
    assert d.game.counters == [2 - 1, 2 + 3 - 1, 2 - 1] and d.game.pool == 3
    assert all(r == 0 for r in d.env.rewards.values())
    d.play("2: decline")
    assert d.reward_steps[0] == [-1.0, 2.0, -1.0]
    d.play("0: decline", "1: decline", "2: decline", "0: decline", "1: decline")
    # Second deal: 10C 2C (12), AH KH (21), AD KD (21): of the tied seats 1 and 2, seat 2 is the
    # eldest of this deal (R3.3 `eldest`).
    assert d.game.over and d.game.deals_played == 1
    assert d.game.counters == [1, 4, 1 + 3]
    assert d.totals == [-2.0, 1.0, 1.0]


@pytest.mark.parametrize("match_end", ["freeze_out", "whiskey"])
def test_match_until_one_holds_every_counter(match_end):
    # R7.5: a player with no counters is out; `freeze_out` (the default) and `whiskey` both end
    # here, two players. The deal passes left each deal (R4.5).
    strong, weak = "AS KS 2D", "3C 4H 5D"
    decks = [make_deck([strong, weak], dealer) for dealer in (0, 1, 0)]
    d = Driver("my_ship_sails", 2, decks=decks, dealer=0, match_end=match_end, reward="outcome")
    for dealer in (0, 1, 0):
        assert d.game.dealer == dealer
        eldest = 1 - dealer
        d.play(f"{eldest}: decline", f"{dealer}: decline", f"{eldest}: decline", f"{dealer}: decline")
    assert d.game.over and d.game.counters == [6, 0] and d.game.out == [False, True]
    assert d.game.match_losers == [1] and d.totals == [1.0, -1.0]
