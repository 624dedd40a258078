"""research.oracle: search over the true deal, a probe of the headroom above `search`."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from agents.heuristics import ExpectedValueAgent, GreedyAgent
from agents.play import play_game
from agents.search import SearchAgent
from commerce_env.cards import make_pack, parse_cards
from commerce_env.engine import new_game
from commerce_env.engine.actions import KEEP_HAND, KNOCK
from commerce_env.engine.base import ACT
from commerce_env.rules import make_rules

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # research/ runs from the checkout

from research.oracle import _TABLE, OracleSearch, main, oracle_table  # noqa: E402


def test_oracle_takes_the_pool_of_every_deal_in_which_it_held_the_best_hand():
    # R6.4: a knock ends the drawing and the best hand takes the pool.  Against greedy players
    # its rollouts foresee the rest of the deal exactly, so a seat that sees every hand and holds
    # the best one at its turn never lets the pool go (it knocks, or plays on to a sure win).
    rules = make_rules("widow")
    engine = new_game(rules, 4, rng=random.Random(0))
    best_at = []  # (game, deal) where the oracle held the best hand at its turn

    class Watched(OracleSearch):
        def act(self, view):
            game = _TABLE["game"]
            if game.phase == ACT:
                values = {s: engine.value_of(game.hands[s], rules.combinations) for s in game.order}
                if values[view.seat] > max(v for s, v in values.items() if s != view.seat):
                    best_at.append((game, game.deals_dealt))
            return super().act(view)

    with oracle_table():
        for g in range(80):
            game = new_game(rules, 4, rng=random.Random(g))
            play_game(game, [Watched(), GreedyAgent(), GreedyAgent(), GreedyAgent()], [g, 1, 2, 3])
    assert len(best_at) >= 5  # the property was exercised
    for game, deal in best_at:
        showdown = next(s for s in game.showdowns if s.deal == deal)
        assert showdown.winners == (0,), (showdown, deal)


def widow_deal(hands: dict[int, str], widow: str) -> list:
    """A pack dealing these hands (dealer 0, so seat 1 is eldest, R1.5) and this widow."""
    dealt = [hands[seat].split()[k] for k in range(3) for seat in (1, 2, 3, 0)] + widow.split()
    cards = list(parse_cards(" ".join(dealt)))
    return cards + [c for c in make_pack() if c not in set(cards)]


def test_oracle_knocks_before_the_next_player_can_make_a_tricon_from_the_widow():
    # R2.5, R6.3, R6.4: seat 1 holds a 5-point (2C 3C), the best hand now (the others have no
    # point), but the widow shows 7C 7H and seat 2 holds 7D 7S.  Only a knock now takes the pool;
    # expected_value, which cannot see seat 2's sevens, exchanges.  The oracle sees them.
    pack = widow_deal({1: "2C 3C 9H", 2: "7D 7S 2H", 3: "4D 5H 8S", 0: "2S 4H 9D"}, "7C 7H KS")
    game = new_game(make_rules("widow"), 4, decks=[pack], dealer=0, rng=random.Random(0))
    from commerce_env.view import seat_view

    game.apply(KEEP_HAND)  # R6.2: the dealer keeps his hand
    view = seat_view(game, 1)
    assert ExpectedValueAgent().act(view) != KNOCK
    oracle = OracleSearch()
    with oracle_table():
        _TABLE["game"] = game
        assert oracle.act(view) == KNOCK
    assert oracle.last_values[KNOCK] == game.pool  # the pool is his at once
    assert all(value == 0 for action, value in oracle.last_values.items() if action != KNOCK)


def test_oracle_sees_the_true_deal_and_refuses_to_play_outside_its_table():
    rules = make_rules("widow")
    game = new_game(rules, 4, rng=random.Random(3))
    from commerce_env.view import seat_view

    with pytest.raises(RuntimeError, match="oracle_table"):
        OracleSearch().act(seat_view(game, game.current_player))
    seen = []

    class Peek(OracleSearch):
        def evaluate(self, view, include=()):
            world = view.sample_world(random.Random(0))
            seen.append(([list(h) for h in world.hands], list(world.table), [list(h) for h in game.hands],
                         list(game.table)))
            return super().evaluate(view, include)

    with oracle_table():
        play_game(game, [Peek(), GreedyAgent(), GreedyAgent(), GreedyAgent()], [0, 1, 2, 3])
    assert seen
    for world_hands, world_table, true_hands, true_table in seen:  # the world it searched is the game
        assert world_hands == true_hands and world_table == true_table


def test_main_prints_the_margin_table(capsys):
    assert main(["--variant", "widow", "--games", "24", "--opponents", "greedy", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "| greedy |" in out and "not meaningful" in out  # 24 matches: too few groups, said so


def test_search_with_the_oracles_knocks_knocks_where_the_oracle_sees_the_win():
    # R6.4: the deal of the test above; search, blind to seat 2's sevens, plays on, and the swap
    # hands the knock (only) to the oracle.
    from commerce_env.view import seat_view
    from research.decision_swap import SwapAgent
    from research.oracle import swap_margins

    pack = widow_deal({1: "2C 3C 9H", 2: "7D 7S 2H", 3: "4D 5H 8S", 0: "2S 4H 9D"}, "7C 7H KS")
    game = new_game(make_rules("widow"), 4, decks=[pack], dealer=0, rng=random.Random(0))
    game.apply(KEEP_HAND)
    view = seat_view(game, 1)
    assert SearchAgent(seed=0).act(view) != KNOCK
    with oracle_table():
        _TABLE["game"] = game
        assert SwapAgent(SearchAgent(seed=0), OracleSearch(), "knock").act(view) == KNOCK
    rows = list(swap_margins("widow", ["knock", "which"], "greedy", 24, 1, 1))
    assert [row["kind"] for row in rows] == ["knock", "which"] and rows[0]["games"] >= 24


def test_main_prints_the_swap_table(capsys):
    assert main(["--variant", "widow", "--games", "24", "--opponents", "greedy", "--workers", "1",
                 "--swaps", "blind"]) == 0
    out = capsys.readouterr().out
    assert "oracle's choice in one kind of decision" in out and "| blind |" in out


def test_the_oracle_picks_an_exchange_when_shown_only_the_exchanges():
    # decision_swap's "which" shows only the exchanges (R6.3); the oracle, whose prior is
    # expected_value, answers with one of them (a bug: it rolled out its prior's stand, which
    # expected_value gave on such views until it learned to pick the best exchange there).
    from commerce_env.view import seat_view
    from research.decision_swap import only_exchanges

    found = 0
    for g in range(10):
        game = new_game(make_rules("widow"), 4, rng=random.Random(g))
        greedy = GreedyAgent()
        while not game.over and found < 6:
            view = seat_view(game, game.current_player)
            if view.phase == ACT and len(view.legal_actions) > 3:
                narrowed = only_exchanges(view)
                with oracle_table():
                    _TABLE["game"] = game
                    assert OracleSearch().act(narrowed) in narrowed.legal_actions
                found += 1
            game.apply(greedy.act(view))
    assert found >= 6
