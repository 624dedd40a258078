"""Pool commerce (docs/rules.md R9): scenarios from fixed packs through the AEC env.

Each deal here ends with every player passing (R8.3), so the dealt hands decide.
"""

import pytest
from helpers import Driver, deal_order, make_deck

BEST, MIDDLE, WORST = "AC AD AH", "5C 5D 9H", "2C 7D 9S"
TABLE = "3S 4S 6S"


def passes(d):
    """Every player in the deal passes, eldest first (R8.2)."""
    for seat in list(d.game.order):
        d.play(f"{seat}: pass")


def test_entry_and_lives():
    # R9.2: each player pays the entry into the pool once and receives three counters; no ante.
    d = Driver("pool", 3, deck=make_deck([BEST, MIDDLE, WORST], 0, table=TABLE), dealer=0)
    assert d.game.money == [-12, -12, -12] and d.game.pool == 36 and d.game.counters == [3, 3, 3]
    assert d.legal() == ["stand", "pass"] + [f"exchange {h} {t}" for h in MIDDLE.split() for t in TABLE.split()]


def test_payout_and_worst_hand():
    # R9.3: the winner takes the payout from the pool; the worst hand gives up one counter.
    d = Driver("pool", 3, decks=[make_deck([BEST, MIDDLE, WORST], 0, table=TABLE)], dealer=0, payout=2)
    passes(d)
    assert d.game.money == [-10, -12, -12] and d.game.pool == 34
    assert d.game.counters == [3, 3, 2]
    assert d.game.dealer == 1  # R4.5: the next deal, dealt by the next player


def test_split_winners_take_the_payout_in_turn_while_the_pool_lasts():
    # R9.3: several `split` winners each take the payout in turn from the dealer's left while the
    # pool lasts. Entry 1 gives a pool of 3; payout 2: seat 0 (the eldest) takes 2, seat 1 the last 1.
    deck = make_deck(["5C 5D 9H", "5H 5S 9C", WORST], 2, table=TABLE)
    d = Driver("pool", 3, deck=deck, dealer=2, entry=1, payout=2, deals=1)
    passes(d)
    assert d.game.over
    assert d.game.money == [1, 0, -1] and d.game.pool == 0
    assert d.totals == [1.0, 0.0, -1.0]  # R9.5: net money, the entry included


@pytest.mark.parametrize(("tie_break", "loser"), [("split", 2), ("eldest", 2), ("dealer", 1)])
def test_worst_hand_ties(tie_break, loser):
    # R3.4: among equal worst hands, the last in R3.3's preference loses the counter: the dealer
    # (seat 2) with `split` or `eldest`, the seat at his right (seat 1) with `dealer`.
    deck = make_deck([BEST, "2D 7H 9C", WORST], 2, table=TABLE)
    d = Driver("pool", 3, deck=deck, dealer=2, tie_break=tie_break, deals=1)
    passes(d)
    expected = [3, 3, 3]
    expected[loser] = 2
    assert d.game.counters == expected


def test_horse_bought():
    # R9.4: the first player out is at once offered a horse, once; buying costs `horse_price`
    # (default entry // 3 = 4) into the pool for one counter. R9.5 with `deals`: the pool is
    # divided among the players who still hold counters.
    decks = [make_deck([BEST, MIDDLE, WORST], dealer, table=TABLE) for dealer in (0, 1, 2, 0)]
    d = Driver("pool", 3, decks=decks, dealer=0, deals=4)
    for _ in range(3):
        passes(d)
    assert d.game.counters == [3, 3, 0] and d.current_player == 2
    assert d.legal() == ["buy_horse", "no_horse"]
    d.play("2: buy_horse")
    assert d.game.counters == [3, 3, 1] and d.game.money[2] == -16 and d.game.pool == 33 + 4
    assert d.game.dealer == 0 and d.game.order == [1, 2, 0]  # back in the game
    passes(d)  # seat 2 is out again: no second offer; `deals` = 4 ends the match
    assert d.game.over and d.game.out == [False, False, True]
    assert d.game.money == [-12 + 4 + 18, -12 + 18, -16] and d.game.pool == 0
    assert d.totals == [10.0, 6.0, -16.0]
    assert d.history().count("2: buy_horse") == 1 and "2: no_horse" not in d.history()


def test_horse_declined_and_standing_out():
    # R9.4: a player with no counters stands out and is dealt no cards; the deal passes left to
    # players still in (R4.5). R9.5: the `deals` cap divides the pool (32 into 16 and 16).
    first = [make_deck([BEST, MIDDLE, WORST], dealer, table=TABLE) for dealer in (0, 1, 2)]
    fourth = make_deck([BEST, MIDDLE, ""], 0, table=TABLE, out=(2,))
    d = Driver("pool", 3, decks=[*first, fourth], dealer=0, deals=4)
    for _ in range(3):
        passes(d)
    d.play("2: no_horse")
    assert d.game.hands[2] == [] and d.game.order == deal_order(3, 0, out=(2,)) == [1, 0]
    passes(d)
    assert d.game.over and d.game.counters == [3, 2, 0]
    assert d.game.money == [-12 + 4 + 16, -12 + 16, -12]


def test_last_survivor_takes_the_pool():
    # R9.5: when only one player has counters he takes what is left of the pool; the horse is
    # offered first (R9.4). Outcome reward: everyone but the last holder loses (R12, `reward`).
    decks = [make_deck([BEST, WORST], dealer, table=TABLE) for dealer in (0, 1, 0)]
    for reward, expected in (("counters", [12.0, -12.0]), ("outcome", [1.0, -1.0])):
        d = Driver("pool", 2, decks=decks, dealer=0, reward=reward)
        for _ in range(3):
            passes(d)
        assert not d.game.over and d.legal() == ["buy_horse", "no_horse"]
        d.play("1: no_horse")
        assert d.game.over and d.game.money == [12, -12] and d.game.pool == 0
        assert d.game.match_losers == [1]
        assert d.totals == expected


def test_deals_cap_divides_the_pool_with_the_remainder_from_the_dealers_left():
    # R9.5 with R3.5: 35 left, three holders: 11 each, the remainder 2 to the first two from the
    # left of the last deal's dealer (seat 1): seats 2 and 0.
    d = Driver("pool", 3, deck=make_deck([BEST, MIDDLE, WORST], 1, table=TABLE), dealer=1, deals=1)
    passes(d)
    assert d.game.money == [-12 + 1 + 12, -12 + 11, -12 + 12]
    assert d.totals == [1.0, -1.0, 0.0]


def test_deals_cap_outcome_losers_have_the_least_money():
    # The `outcome` reward: when `deals` ends the match the players with the least money lose.
    d = Driver("pool", 3, deck=make_deck([BEST, MIDDLE, WORST], 1, table=TABLE), dealer=1, deals=1,
               reward="outcome")
    passes(d)
    assert d.game.match_losers == [1] and d.totals == [0.5, -1.0, 0.5]


@pytest.mark.parametrize("max_rounds", [1, 3])
def test_round_cap(max_rounds):
    # R4.4 in pool commerce (R9.1: each deal is the old game): the hands are shown after the cap.
    d = Driver("pool", 3, deck=make_deck([BEST, MIDDLE, WORST], 2, table=TABLE), dealer=2,
               max_rounds=max_rounds, deals=1)
    for _ in range(max_rounds):
        assert not d.game.over
        for seat in (0, 1, 2):
            first_exchange = d.legal()[2]  # after stand and pass: hand card 0 for table card 0
            d.play(f"{seat}: {first_exchange}")
    assert d.game.over and d.game.rounds_done == max_rounds
