"""The old game (docs/rules.md R8): scenarios from fixed packs through the AEC env.

Four players, seat 3 deals: the order of play is 0, 1, 2, 3.  Table: AS KS QS.
"""

import pytest
from helpers import Driver, make_deck

HANDS = ["2C 5D 9H", "3C 6D JS", "7C 8D KH", "4C 9D 10H"]
TABLE = "AS KS QS"


def four(hands=HANDS, table=TABLE, **options):
    return Driver("old_game", 4, deck=make_deck(hands, 3, table=table), dealer=3, **options)


def exchanges(hand, table):
    return [f"exchange {h} {t}" for h in hand.split() for t in table.split()]


def table_text(d):
    return " ".join(map(str, d.game.table))


def test_no_ante_and_first_choices():
    # R8.1: three face-up table cards, no stock trading; R8.4: no ante and no pool.
    d = four()
    assert d.game.counters == [0, 0, 0, 0] and d.game.pool == 0
    assert table_text(d) == TABLE
    assert d.legal() == ["stand", "pass", *exchanges("2C 5D 9H", TABLE)]


def test_second_stand_opens_the_last_exchanges():
    # R8.2, R8.3: when the second player stands, each player who has neither stood nor passed
    # gets one more turn from the second stander's left (exchange once or pass); then showdown.
    d = four()
    d.play("0: exchange 2C AS")
    assert d.hand(0) == "5D 9H AS" and table_text(d) == "2C KS QS"  # in the taken card's place
    d.play("1: stand", "2: pass", "3: exchange 4C KS", "0: stand")
    assert d.current_player == 3  # seats 1 (stood) and 2 (passed) get no last turn
    assert d.legal() == ["pass", *exchanges("9D 10H KS", "2C 4C QS")]
    d.play("3: exchange 9D QS")
    assert d.game.over
    assert d.history() == ["0: exchange 2C AS", "1: stand", "2: pass", "3: exchange 4C KS", "0: stand",
                           "3: exchange 9D QS"]
    # R8.4: 10H QS KS (20 in spades) wins one stake from each other player.
    assert d.game.counters == [-1, -1, -1, 3] and d.totals == [-1.0, -1.0, -1.0, 3.0]


def test_last_turns_run_from_the_second_standers_left():
    # R8.3: seat 1 stands second; seats 2, 3 and 0 (in that order) get their last turn.
    d = four()
    d.play("0: stand", "1: stand")
    assert d.current_player == 2 and "stand" not in d.legal()
    d.play("2: pass", "3: pass")
    assert d.game.over  # seat 0 has stood: no last turn for him


def test_pass_ends_a_players_turns():
    # R8.2: a player who passes may not exchange again; a player who stands or passes takes
    # no further turns.
    d = four()
    d.play("0: pass", "1: exchange 3C AS", "2: exchange 7C KS", "3: stand")
    assert d.current_player == 1
    d.play("1: exchange 6D 7C", "2: pass")
    assert d.current_player == 1  # seats 0 and 2 passed, seat 3 stood
    d.play("1: exchange JS 3C")
    assert d.current_player == 1 and not d.game.over


def test_nobody_left_to_act():
    # R8.3: when nobody is left who may act, the hands are shown.
    d = four()
    d.play("0: pass", "1: pass", "2: pass", "3: pass")
    assert d.game.over
    # 4C 9D 10H, 3C 6D JS, 7C 8D KH, 2C 5D 9H: all of three suits, a four-way tie: `split`.
    assert d.game.counters == [0, 0, 0, 0]


@pytest.mark.parametrize(("tie_break", "expected"), [
    ("split", [2, 2, -2, -2]),  # R8.4: each tied winner takes a stake from every non-winner
    ("dealer", [3, -1, -1, -1]),  # R3.3: the dealer is not tied; the nearest his left wins
    ("eldest", [3, -1, -1, -1]),
])
def test_ties(tie_break, expected):
    # R8.4 with R3.3: two equal pairs of fives with a nine.
    d = four(["5C 5D 9H", "5H 5S 9C", "2C 7D JH", "3D 8H 10C"], tie_break=tie_break)
    d.play("0: stand", "1: stand", "2: pass", "3: pass")
    assert d.game.counters == expected
    assert sum(d.game.counters) == 0  # R4.3


def test_round_cap_never_cuts_the_last_exchanges():
    # R4.4: after `max_rounds` rounds the hands are shown, but R8.3's last exchanges are never cut:
    # the dealer's stand ends round 1 and is the second stand, so seats 0 and 2 still exchange.
    d = four(max_rounds=1)
    d.play("0: exchange 2C AS", "1: stand", "2: exchange 7C KS", "3: stand")
    assert d.current_player == 0 and not d.game.over
    d.play("0: exchange 5D 7C", "2: pass")
    assert d.game.over


@pytest.mark.parametrize("max_rounds", [1, 2])
def test_round_cap(max_rounds):
    # R4.4: a round is one turn for each player still able to act, from the eldest to the dealer.
    d = four(max_rounds=max_rounds)
    d.play("0: pass", "1: exchange 3C AS", "2: exchange 7C KS", "3: exchange 4C QS")
    assert d.game.over == (max_rounds == 1)
    if max_rounds == 2:
        d.play("1: exchange 6D 3C", "2: exchange 8D 7C", "3: exchange 9D 4C")
        assert d.game.over and d.game.rounds_done == 2
