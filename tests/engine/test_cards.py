"""Cards, packs, player limits and dealing (docs/rules.md R1)."""

import pytest
from helpers import Driver

import commerce_env
from commerce_env.cards import CARDS, RANKS, format_cards, make_pack, parse_card, parse_cards, parse_pack
from commerce_env.rules import make_rules

PACK_IN_ORDER = " ".join(f"{r}{s}" for s in "CDHS" for r in RANKS)


def test_parse_and_format():
    # R1.3: rank then suit; T for 10 on input; case-insensitive; canonical output `10H`.
    cards = parse_cards("AS 10H tc 3c")
    assert format_cards(cards) == "AS 10H 10C 3C"
    assert parse_cards("th") == parse_cards("10H") == parse_cards(["10h"])
    assert [c.rank for c in parse_cards("2C 10D JH QS KC AD")] == [0, 8, 9, 10, 11, 12]
    assert [c.suit for c in parse_cards("2C 2D 2H 2S")] == [0, 1, 2, 3]
    assert parse_cards("AS,KD") == parse_cards("AS KD")


def test_every_card_round_trips():
    # R1.3: all 52 cards print and parse back to themselves.
    for card in CARDS:
        assert parse_card(str(card)) == card
        assert parse_card(str(card).lower()) == card
    assert len({str(c) for c in CARDS}) == 52


@pytest.mark.parametrize("token", ["1S", "11H", "AX", "A", "10", "S", "", "AS!", "ZZ", "1OH"])
def test_bad_token_is_named(token):
    # R1.3: anything else is a clear error naming the bad token.
    with pytest.raises(ValueError, match=repr(token).replace("\\", "\\\\").replace("!", "\\!")):
        parse_card(token)


def test_bad_token_inside_a_list_is_named():
    # R1.3: the error names the offending token, not the whole text.
    with pytest.raises(ValueError, match="'XY'"):
        parse_cards("AS XY KD")
    with pytest.raises(TypeError):
        parse_cards(42)


def test_rank_order_and_pips():
    # R1.1 ranks low to high 2..A; R1.2 pips: ace 11, K Q J 10 ten each, others face value.
    assert [c.rank for c in parse_cards("2C 3C 9C 10C JC QC KC AC")] == sorted(
        c.rank for c in parse_cards("2C 3C 9C 10C JC QC KC AC"))
    assert parse_card("AS").rank > parse_card("KS").rank > parse_card("2S").rank
    pips = {str(c)[:-1]: c.pips for c in parse_cards("2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC")}
    assert pips == {"2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
                    "10": 10, "J": 10, "Q": 10, "K": 10, "A": 11}


def test_packs():
    # R1.1: 52 cards, or the 32-card piquet pack, 7 to ace.
    assert len(set(make_pack(52))) == 52
    piquet = make_pack(32)
    assert len(set(piquet)) == 32
    assert {str(c)[:-1] for c in piquet} == {"7", "8", "9", "10", "J", "Q", "K", "A"}
    assert {c.suit for c in piquet} == {0, 1, 2, 3}
    with pytest.raises(ValueError, match="40"):
        make_pack(40)


def test_parse_pack_checks_every_card():
    # R1.5: a pack given in text holds every card once.
    assert format_cards(parse_pack(PACK_IN_ORDER)) == PACK_IN_ORDER
    with pytest.raises(ValueError, match="2C appears twice"):
        parse_pack(PACK_IN_ORDER.replace("3C", "2C"))
    with pytest.raises(ValueError, match="lacks 1 card.*AS"):
        parse_pack(PACK_IN_ORDER.replace(" AS", ""))
    with pytest.raises(ValueError, match="2C is not in the 32-card pack"):
        parse_pack(PACK_IN_ORDER, deck_size=32)


@pytest.mark.parametrize(("deck_size", "limit"), [(52, 12), (32, 7)])
def test_player_limits(deck_size, limit):
    # R1.4: 2 to 12 players with 52 cards, 2 to 7 with 32; any other number names the limit.
    rules = make_rules("trade_barter", deck_size=deck_size)
    for n in (2, limit):
        rules.check_players(n)
        commerce_env.env(variant="widow", num_players=n, deck_size=deck_size).reset(seed=1)
    for n in (0, 1, limit + 1):
        with pytest.raises(ValueError, match=f"2 to {limit}"):
            commerce_env.env(variant="trade_barter", num_players=n, deck_size=deck_size)
    with pytest.raises(TypeError):
        rules.check_players(3.0)


def test_dealing_order():
    # R1.5: one card at a time from the top, eldest hand first, dealer last, three rounds;
    # then the widow (the next three cards); the rest is the stock, its top the next card.
    d = Driver("widow", 3, deck=PACK_IN_ORDER, dealer=0)
    assert [format_cards(d.game.hands[s]) for s in (1, 2, 0)] == ["2C 5C 8C", "3C 6C 9C", "4C 7C 10C"]
    assert format_cards(d.game.table) == "JC QC KC"
    d = Driver("trade_barter", 3, deck=PACK_IN_ORDER, dealer=1)
    assert [format_cards(d.game.hands[s]) for s in (2, 0, 1)] == ["2C 5C 8C", "3C 6C 9C", "4C 7C 10C"]
    d.play("2: ready_money 2C")
    assert format_cards(d.game.hands[2]) == "5C 8C JC"  # the top of the stock
    d.play("0: ready_money 3C")
    assert format_cards(d.game.hands[0]) == "6C 9C QC"


def test_piquet_pack_deal():
    # R1.1, R1.5 with 32 cards: seven players use 21 cards, a widow three more.
    piquet = " ".join(f"{r}{s}" for s in "CDHS" for r in RANKS[5:])
    d = Driver("widow", 7, deck=piquet, dealer=6, deck_size=32)
    assert format_cards(d.game.hands[0]) == "7C KD AC"  # cards 1, 8 and 15
    assert format_cards(d.game.table) == "QH KH AH"  # cards 22 to 24


def test_same_pack_same_deal_whatever_the_seed():
    # R1.5: the same pack and dealer always give the same deal.
    a = Driver("trade_barter", 5, deck=PACK_IN_ORDER, dealer=2, seed=1)
    b = Driver("trade_barter", 5, deck=PACK_IN_ORDER, dealer=2, seed=99)
    assert a.game.hands == b.game.hands and a.game.stock == b.game.stock
