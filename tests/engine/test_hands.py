"""Three-card hands and their order (docs/rules.md R2), against an independent reference."""

from collections import Counter
from itertools import combinations, permutations

import numpy as np
import pytest
from reference import hand_value as reference

from commerce_env.cards import make_pack
from commerce_env.hands import evaluate, evaluate_batch

ALL_FIVE = ("tricon", "sequence", "flush", "pair", "point")
COMBINATION_SETS = [
    ALL_FIVE,  # R2.7 Peel; Foster with his two other combinations
    ("tricon", "sequence", "flush", "point"),  # R2.7 Peel's limited commerce
    ("tricon", "sequence", "pair", "point"),
    ("tricon", "sequence", "point"),  # R2.7 Foster
]
HANDS_52 = list(combinations(range(52), 3))


def value(text, combos=ALL_FIVE):
    return evaluate(text, combos)


@pytest.mark.parametrize("combos", COMBINATION_SETS)
def test_order_matches_the_reference_over_every_hand(combos):
    # R2.1-R2.6: the engine's order of all 22,100 hands is the reference's, ties included.
    keys = evaluate_batch(np.array(HANDS_52), combos)
    refs = [reference(h, combos) for h in HANDS_52]
    ranked = sorted(range(len(HANDS_52)), key=refs.__getitem__)
    for a, b in zip(ranked, ranked[1:], strict=False):
        assert (refs[a] < refs[b]) == (keys[a] < keys[b]), (HANDS_52[a], HANDS_52[b])
        assert (refs[a] == refs[b]) == (keys[a] == keys[b]), (HANDS_52[a], HANDS_52[b])


def test_published_frequencies():
    # R2 with all five combinations: the published three-card frequencies.
    categories = Counter(evaluate(h).category for h in HANDS_52)
    assert len(HANDS_52) == 22_100
    assert categories["tricon"] == 52
    assert categories["sequence"] == 48
    assert categories["flush"] == 1_096
    assert categories["pair"] == 3_744
    # The rest: hands of three suits (none) are C(4,3)*13**3 less the 52 tricons and the
    # 1,872 pairs of three suits; every other hand has a point.
    assert categories["none"] == 4 * 13**3 - 52 - 1_872 == 6_864
    assert categories["point"] == 22_100 - 52 - 48 - 1_096 - 3_744 - 6_864


def test_foster_frequencies():
    # R2.7 Foster: without flush and pair, flushes are three-card points; pairs are judged by point.
    categories = Counter(evaluate(h, ("tricon", "sequence", "point")).category for h in HANDS_52)
    assert categories["tricon"] == 52 and categories["sequence"] == 48
    assert categories["flush"] == categories["pair"] == 0
    assert categories["none"] == 6_864 + 1_872


@pytest.mark.parametrize("combos", COMBINATION_SETS)
def test_batch_agrees_with_one_at_a_time(combos):
    # R2: the batched numpy evaluator equals evaluate(), in any card order.
    hands = np.array(HANDS_52)
    batch = evaluate_batch(hands, combos)
    assert [evaluate(h, combos).key for h in HANDS_52[::7]] == batch[::7].tolist()
    for order in permutations(range(3)):
        assert np.array_equal(evaluate_batch(hands[:, order], combos), batch)


def test_tricon():
    # R2.1: three of a rank; the higher rank wins, three aces best; a tricon beats a sequence.
    assert value("AS AH AD") > value("KS KH KD") > value("2C 2D 2H") > value("QH KH AH")
    assert value("2C 2D 2H").category == "tricon"


def test_sequence():
    # R2.2: three consecutive ranks of one suit; ace high or low, never between; higher top wins.
    assert value("QH KH AH").category == "sequence"
    assert value("AH 2H 3H").category == "sequence"
    assert value("KH AH 2H").category == "flush"  # K A 2 is no sequence
    assert value("KH AH 2H", ("tricon", "sequence", "point")).category == "point"
    assert value("QH KH AH") > value("JS QS KS") > value("2D 3D 4D") > value("AH 2H 3H")
    assert value("4C 5C 6C") == value("4S 5S 6S")
    assert value("AH 2H 3H") > value("AS KS JS")  # lowest sequence > any flush
    assert value("9H 10H JD").category == "point"  # not one suit


def test_sequences_in_the_piquet_pack():
    # R2.2: with 32 cards the ace is high only: 6 sequences per suit (tops 9 .. A).
    piquet = [int(c) for c in make_pack(32)]
    cats = Counter(evaluate(h).category for h in combinations(piquet, 3))
    assert cats["sequence"] == 24
    assert value("QD KD AD").category == "sequence"


def test_flush():
    # R2.3: three of one suit, not a sequence; more pips wins; equal pips tie.
    assert value("KH QH 2H") == value("JS 10S 2S")
    assert value("AH KH 9H") > value("KH QH 2H") > value("2C 3C 5C")
    assert value("2C 3C 5C").category == "flush"
    assert value("2C 3C 5C") > value("AS AH KD")  # flush above pair


def test_pair():
    # R2.4: higher pair wins, then the odd card's rank.
    assert value("5C 5D KH") > value("5H 5S 10C")
    assert value("6C 6D 2H") > value("5H 5S AC")
    assert value("5C 5D KH") == value("5H 5S KC")
    assert value("2C 2D 3H") > value("AS KS QD")  # pair above any point
    # R2.5: when `pair` is off, a pair is judged by its point.
    foster = ("tricon", "sequence", "point")
    assert value("5C 5D KD", foster).category == "point"
    assert value("5C 5D KD", foster) == value("5H 4C KH", foster)  # 15 pips on two cards
    assert value("5C 5D KH", foster).category == "none"


def test_point():
    # R2.5: pips of the longest suit group of two or three cards; three cards beat two at equal
    # pips; a hand of three suits has no point, below every hand with one, all such hands equal.
    foster = ("tricon", "sequence", "point")
    assert value("AS KS 2H").category == "point"
    assert value("AS KS 2H") > value("AS 9S 2H")
    assert value("AS KS 2H") == value("AD KD 5C")  # 21 pips on two cards each
    assert value("10H 9H 2H", foster) > value("AS KS 3D", foster)  # 21 on three beats 21 on two
    assert value("AS KH QD") == value("2C 3D 4H")
    assert value("AS KH QD").category == "none"
    assert value("2C 3C 4D") > value("AS KH QD")


def test_evaluate_takes_texts_cards_or_indices():  # R1.3, R2
    from commerce_env.cards import parse_cards
    from commerce_env.hands import evaluate

    expected = evaluate(parse_cards("QS KS AS"))
    assert evaluate("qs ks as") == expected
    assert evaluate(["QS", "KS", "AS"]) == expected
    assert evaluate([int(c) for c in parse_cards("QS KS AS")]) == expected
    assert expected.category == "sequence"


@pytest.mark.parametrize("bad, named", [(["AS", "XX", "QS"], "XX"), (["AS", "KS"], "three cards"),
                                        (["AS", "AS", "QS"], "twice"), (5, "5")])
def test_evaluate_refuses_bad_hands_by_name(bad, named):  # R1.3
    from commerce_env.hands import evaluate

    with pytest.raises((ValueError, TypeError), match=named):
        evaluate(bad)


@pytest.mark.parametrize("combos", COMBINATION_SETS)
@pytest.mark.parametrize("variant", ["old_game", "my_ship_sails"])
def test_value_function_agrees_with_value_of(variant, combos):
    # R2, R7.4: the one-argument lookup the search rollouts use gives each variant's value_of,
    # for every hand in every card order (lists and tuples alike).
    from commerce_env.engine import ENGINES

    engine = ENGINES[variant]
    value = engine.value_function(frozenset(combos))
    for hand in HANDS_52[::3]:
        expected = engine.value_of(hand, frozenset(combos))
        assert all(value(order) == expected for order in permutations(hand))
        assert value(list(hand)) == expected
