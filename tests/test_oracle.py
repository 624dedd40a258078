"""benchmarks.oracle: search over the true deal, a probe of the headroom above `search`."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from agents.heuristics import GreedyAgent
from agents.play import play_game
from commerce_env.engine import new_game
from commerce_env.engine.actions import KNOCK
from commerce_env.engine.base import ACT
from commerce_env.rules import make_rules

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/ runs from the checkout

from benchmarks.oracle import OracleSearch, main, oracle_table  # noqa: E402


class Watched(OracleSearch):
    """The oracle, remembering each decision with the hands as they truly were."""

    def __init__(self):
        super().__init__()
        self.decisions = []

    def act(self, view):
        from benchmarks.oracle import _TABLE

        game = _TABLE["game"]
        action = super().act(view)
        self.decisions.append((game.phase, [list(h) for h in game.hands], list(game.order), view.seat, action,
                               game.pool))
        return action


def test_oracle_knocks_whenever_it_holds_the_best_hand():
    # R6.4: a knock ends the drawing and the best hand takes the pool, so with every hand in
    # view a seat holding the best hand knocks (no other action can win more than the pool).
    rules = make_rules("widow")
    engine = new_game(rules, 4, rng=random.Random(0))
    oracle = Watched()
    with oracle_table():
        for g in range(80):
            game = new_game(rules, 4, rng=random.Random(g))
            play_game(game, [oracle, GreedyAgent(), GreedyAgent(), GreedyAgent()], [g, 1, 2, 3])
    best_seen = 0
    for phase, hands, order, seat, action, _ in oracle.decisions:
        if phase != ACT:
            continue
        values = {s: engine.value_of(hands[s], rules.combinations) for s in order}
        if values[seat] > max(v for s, v in values.items() if s != seat):
            best_seen += 1
            assert action == KNOCK, (hands, seat, action)
    assert best_seen >= 5  # the property was exercised


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
