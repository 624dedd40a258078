"""Exact values on a small game's tree (agents.exact, agents.cfr, agents.ground_truth): the best
response against brute force and against OpenSpiel, CFR+'s NashConv falling, and the tree walk
against the engine."""

from __future__ import annotations

import functools
import itertools
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.cfr import CFRPlus
from agents.exact import best_response, expected_returns, gains, policy_table, uniform
from agents.ground_truth import TableAgent, check_best_response, exact_gain, responder_gain
from commerce_env.engine import new_game
from commerce_env.game_tree import CHANCE, TERMINAL, build_tree, info_key, view_key
from commerce_env.small_game import SMALL_GAMES, small_game
from commerce_env.view import seat_view

VARIANTS = list(SMALL_GAMES)


@functools.cache
def tiny(variant: str, count: int = 5):
    """A small game with ``count`` of its deals: the same tree, cut small."""
    return build_tree(small_game(variant), small_game(variant).deals(count))


def random_table(tree, seed: int) -> np.ndarray:
    """A policy with every legal action likely, each state differently (Dirichlet rows)."""
    rng = np.random.default_rng(seed)
    table = rng.dirichlet(np.ones(tree.max_actions), tree.num_infosets) * (tree.info_actions >= 0)
    return table / table.sum(axis=1, keepdims=True)


# ------------------------------------------------------------------ brute force
def brute_force(tree, table, seat: int) -> float:
    """The best of ``seat``'s pure strategies, each evaluated whole: an action at every information state
    it can reach (states its own earlier choices rule out are left as they are)."""
    mine = sorted(np.flatnonzero(tree.info_player == seat), key=lambda k: tree.path(int(tree.info_node[k])).__len__())
    nodes = {k: np.flatnonzero(tree.infoset == k) for k in mine}
    paths = {k: [tree.path(int(h)) for h in nodes[k]] for k in mine}
    best = -np.inf

    def reachable(k: int, choice: dict[int, int]) -> bool:
        for path in paths[k]:  # a node of k whose path agrees with the choices made so far
            node, ok = 0, True
            for _, label in path:
                if tree.player[node] == seat:
                    info = int(tree.infoset[node])
                    ok = info not in choice or tree.legal(info)[choice[info]] == label
                    if not ok:
                        break
                node = next(c for c in range(tree.first_child[node], tree.num_nodes)
                            if tree.parent[c] == node and tree.label[c] == label)
            if ok:
                return True
        return False

    def search(i: int, choice: dict[int, int]) -> None:
        nonlocal best
        if i == len(mine):
            pure = table.copy()
            for k, a in choice.items():
                pure[k] = 0.0
                pure[k, a] = 1.0
            best = max(best, float(expected_returns(tree, pure)[seat]))
            return
        k = mine[i]
        if not reachable(k, choice):
            search(i + 1, choice)
            return
        for a in range(tree.num_actions[k]):
            search(i + 1, {**choice, k: a})

    search(0, {})
    return best


@pytest.mark.parametrize("variant, deals, seat", [("trade_barter", 1, 1), ("widow", 2, 1)])
def test_exact_best_response_equals_brute_force(variant, deals, seat):
    game = small_game(variant)
    if variant == "widow":  # two deals the eldest cannot tell apart until the dealer's choice
        everything = game.deals()
        first = new_game(game.rules(), 2, decks=[everything[0]])
        same = [d for d in everything if (lambda g: (g.hands[1], g.table))(new_game(game.rules(), 2, decks=[d]))
                == (first.hands[1], first.table)]
        chosen = same[:deals]
    else:
        chosen = game.deals(deals)
    tree = build_tree(game, chosen)
    for table in (uniform(tree), random_table(tree, 3)):
        value, choice = best_response(tree, table, seat)
        assert value == pytest.approx(brute_force(tree, table, seat), abs=1e-12)
        pure = table.copy()  # the best response's own choices are worth its value
        rows = np.flatnonzero(choice >= 0)
        pure[rows] = 0.0
        pure[rows, choice[rows]] = 1.0
        assert expected_returns(tree, pure)[seat] == pytest.approx(value, abs=1e-12)


# -------------------------------------------------------------------- OpenSpiel
@pytest.mark.parametrize("variant, deals", [("trade_barter", 1), ("widow", 2)])
def test_exact_values_agree_with_openspiel(variant, deals):
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python import policy as policy_lib
    from open_spiel.python.algorithms import exploitability

    from commerce_env.openspiel.small import game_name

    game = pyspiel.load_game(game_name(variant), {"deals": deals})
    tree = build_tree(small_game(variant), game.deals)
    table = random_table(tree, 11)
    index = {str(key): k for k, key in enumerate(tree.keys)}

    class Table(policy_lib.Policy):
        def action_probabilities(self, state, player_id=None):
            k = index[state.information_state_string()]
            return dict(zip(tree.legal(k), table[k, :tree.num_actions[k]], strict=True))

    mine = gains(tree, table)
    for seat in range(2):
        theirs = exploitability.best_response(game, Table(game, [0, 1]), seat)
        assert theirs["best_response_value"] == pytest.approx(mine["seats"][seat]["best_response"], abs=1e-9)
        assert theirs["on_policy_value"] == pytest.approx(mine["seats"][seat]["policy"], abs=1e-9)


def test_cfr_plus_matches_openspiels_iteration_for_iteration():
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import cfr, exploitability

    from commerce_env.openspiel.small import game_name

    game = pyspiel.load_game(game_name("widow"), {"deals": 2})
    theirs = cfr.CFRPlusSolver(game)
    mine = CFRPlus(build_tree(small_game("widow"), game.deals))
    for _ in range(4):
        theirs.evaluate_and_update_policy()
        mine.iteration()
    average = theirs.average_policy()
    assert exploitability.exploitability(game, average) == pytest.approx(
        gains(mine.tree, mine.average())["exploitability"], abs=1e-9)
    for k, key in enumerate(mine.tree.keys):
        row = average.policy_for_key(str(key))[mine.tree.legal(k)]
        np.testing.assert_allclose(row, mine.average()[k, :mine.tree.num_actions[k]], atol=1e-9)


# -------------------------------------------------------------------------- CFR
@pytest.mark.parametrize("variant", VARIANTS)
def test_cfr_nash_conv_falls_as_iterations_grow(variant):
    tree = tiny(variant, 8)
    solver = CFRPlus(tree)
    curve = []
    for target in (1, 3, 10, 30, 100):
        solver.run(target - solver.iterations)
        curve.append(gains(tree, solver.average())["nash_conv"])
    assert all(later < earlier for earlier, later in itertools.pairwise(curve))
    assert curve[-1] < 0.01 * tree.value_range()


def test_cfr_resumes_where_it_stopped(tmp_path):
    tree = tiny("trade_barter")
    straight = CFRPlus(tree)
    straight.run(6)
    first = CFRPlus(tree)
    first.run(3)
    first.save(tmp_path / "cfr.npz")
    resumed = CFRPlus(tree)
    resumed.load(tmp_path / "cfr.npz")
    resumed.run(3)
    assert resumed.iterations == 6
    np.testing.assert_array_equal(resumed.average(), straight.average())
    with pytest.raises(ValueError, match="another tree"):
        CFRPlus(tiny("widow")).load(tmp_path / "cfr.npz")


# ------------------------------------------------------------ values and gains
@pytest.mark.parametrize("variant", VARIANTS)
def test_gains_are_zero_sum_and_never_negative(variant):
    tree = tiny(variant)
    for table in (uniform(tree), random_table(tree, 5), policy_table(tree, "greedy")):
        result = gains(tree, table)
        assert sum(s["policy"] for s in result["seats"]) == pytest.approx(0.0, abs=1e-12)  # R4.3
        assert all(s["gain"] >= -1e-12 for s in result["seats"])
        assert result["exploitability"] == pytest.approx(result["nash_conv"] / 2)


def test_a_responder_gains_at_most_the_best_response():
    tree = tiny("trade_barter")
    exact = exact_gain("random", tree=tree)
    assert responder_gain("random", "random", tree=tree)["gain"] == pytest.approx(0.0, abs=1e-12)
    assert responder_gain("random", "greedy", tree=tree)["gain"] <= exact["gain"] + 1e-12
    best = uniform(tree)  # each seat's best response, in its own rows
    for seat in range(2):
        _, choice = best_response(tree, uniform(tree), seat)
        rows = np.flatnonzero(choice >= 0)
        best[rows] = 0.0
        best[rows, choice[rows]] = 1.0
    assert responder_gain("random", best, tree=tree)["gain"] == pytest.approx(exact["gain"], abs=1e-12)
    check = check_best_response(0.95 * exact["gain"], (0.9 * exact["gain"], exact["gain"]), exact)
    assert check["reaches"] and check["reaches_at_95"]
    assert not check_best_response(0.5 * exact["gain"], (0.4, 0.6), exact)["reaches"]


@pytest.mark.slow
def test_the_best_response_gains_more_against_random_than_against_greedy():
    # The sanity ordering, from exact values on the whole small game (a minute or two to walk).
    assert exact_gain("random", "trade_barter")["gain"] > exact_gain("greedy", "trade_barter")["gain"]


def test_policies_are_checked():
    tree = tiny("trade_barter")

    class Illegal:
        def act(self, view):
            return 26

    with pytest.raises(ValueError, match="not a legal action"):
        policy_table(tree, Illegal())
    with pytest.raises(ValueError, match="sum to 1"):
        policy_table(tree, lambda view: dict.fromkeys(view.legal_actions, 1.0))
    with pytest.raises(ValueError, match="shape"):
        gains(tree, np.ones((2, 2)))


def test_a_table_plays_from_views_whoever_deals():
    # A view maps to its information state with seats counted from the dealer (R3.1).
    tree = tiny("trade_barter")
    table = random_table(tree, 7)
    agent = TableAgent(tree, table)
    pack = tree.deals[2]
    game = new_game(small_game("trade_barter").rules(), 2, decks=[pack], dealer=1)  # seat 0 is the eldest now
    view = seat_view(game, 0)
    k = tree.infoset[tree.first_child[0] + 2]  # the eldest's first decision in that deal
    assert agent.probabilities(view) == dict(zip(tree.legal(k), table[k, :tree.num_actions[k]].tolist(), strict=True))
    assert agent.act(view) in tree.legal(k)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32 - 1))
def test_views_of_any_pack_of_a_deal_find_their_state(variant, seed):
    # However the pack orders a deal's hands and stock (the widow lies in card order in the small
    # game), and whoever deals, each decision's view maps to one information state of the tree,
    # the same for both dealers: what a table agent playing in an env relies on.
    tree = tiny(variant)
    keys = tree.view_keys()
    rng = random.Random(seed)
    pack = list(tree.deals[rng.randrange(len(tree.deals))])
    for seat in range(2):  # a hand's cards in any order (R1.5: the k-th card of each hand is pack[2k + seat])
        cards = pack[seat:6:2]
        rng.shuffle(cards)
        pack[seat:6:2] = cards
    stock = pack[tree.top:]
    rng.shuffle(stock)
    pack[tree.top:] = stock
    games = [new_game(small_game(variant).rules(), 2, decks=[pack], dealer=d) for d in (0, 1)]
    while not games[0].over:
        found = [keys[view_key(seat_view(g, g.current_player))] for g in games]
        assert found[0] == found[1]
        action = rng.choice(games[0].legal_actions())
        for g in games:
            g.apply(action)


def test_the_small_games_random_deal_is_a_shuffle_with_the_widow_in_order():
    rng = random.Random(5)
    for variant in VARIANTS:
        game = small_game(variant)
        for _ in range(20):
            pack = game.random_deal(rng)
            assert sorted(pack) == sorted(game.pack)
            if variant == "widow":
                assert list(pack[6:9]) == sorted(pack[6:9])


# ------------------------------------------------- the tree walk and the engine
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_decision_has_a_child_per_legal_action(variant):
    tree = tiny(variant)
    decisions = np.flatnonzero(tree.player >= 0)
    counts = np.bincount(tree.parent[1:], minlength=tree.num_nodes)
    assert np.array_equal(counts[decisions], tree.num_actions[tree.infoset[decisions]])
    children = np.arange(1, tree.num_nodes)
    below = children[tree.player[tree.parent[children]] >= 0]
    expected = tree.info_actions[tree.infoset[tree.parent[below]], tree.slot[below]]
    assert np.array_equal(tree.label[below], expected)
    chance = np.flatnonzero(tree.player == CHANCE)
    sums = np.bincount(tree.parent[children], tree.chance[children], tree.num_nodes)
    assert np.allclose(sums[chance], 1.0)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(VARIANTS), data=st.data())
def test_the_walk_gives_each_state_the_engines_legal_actions(variant, data):
    # Down a random path: at each decision the tree's information state is the seat's (R11), its
    # actions are the engine's and the seat view's; a draw (R5.3) offers the stock cards nobody drew.
    tree = tiny(variant)
    keys = tree.view_keys()
    node = int(tree.first_child[0]) + data.draw(st.integers(0, len(tree.deals) - 1))
    while tree.player[node] != TERMINAL:
        game = tree.state(node)
        children = list(range(tree.first_child[node], tree.first_child[node] +
                              int(np.sum(tree.parent == node))))
        if tree.player[node] == CHANCE:
            dealt = [c for c in tree.deals[int(tree.path(node)[0][1])][tree.top:]]
            drawn = [label for player, label in tree.path(node) if player == CHANCE][1:]
            assert sorted(tree.label[children]) == sorted(c for c in dealt if c not in drawn)
        else:
            seat, k = int(tree.player[node]), int(tree.infoset[node])
            assert game.current_player == seat
            assert tree.legal(k) == list(game.legal_actions()) == list(seat_view(game, seat).legal_actions)
            assert tree.keys[k] == info_key(game, seat)
            assert keys[view_key(seat_view(game, seat))] == k
        node = children[data.draw(st.integers(0, len(children) - 1))]
    assert list(tree.returns[node]) == tree.state(node).returns()


def test_a_random_walk_in_the_engine_is_a_path_of_the_tree():
    tree = tiny("trade_barter")
    rng = random.Random(4)
    for _ in range(20):
        deal = rng.randrange(len(tree.deals))
        node = int(tree.first_child[0]) + deal
        game = small_game("trade_barter").new_game(tree.deals[deal])
        while not game.over:
            action = rng.choice(game.legal_actions())
            node = next(c for c in range(tree.first_child[node], tree.num_nodes) if tree.parent[c] == node
                        and tree.label[c] == action)
            if tree.player[node] == CHANCE:  # the engine drew the top card: the tree's outcome of that name
                hand = set(game.hands[game.current_player])
                game.apply(action)
                drawn = (set(game.hands[tree.player[tree.parent[node]]]) - hand).pop()
                node = next(c for c in range(tree.first_child[node], tree.num_nodes) if tree.parent[c] == node
                            and tree.label[c] == drawn)
            else:
                game.apply(action)
        assert tree.player[node] == TERMINAL and list(tree.returns[node]) == game.returns()


def test_a_grouped_best_response_is_the_best_response_when_no_group_merges_states():
    from agents.exact import grouped_best_response

    tree = tiny("widow")
    table = random_table(tree, 2)
    level = np.searchsorted(tree.levels, tree.info_node, side="right") - 1
    legal = [tuple(tree.legal(k)) for k in range(tree.num_infosets)]
    coarse = np.array([hash((int(level[k]), legal[k], int(tree.info_player[k]))) for k in range(tree.num_infosets)])
    for seat in range(2):
        best = best_response(tree, table, seat)[0]
        assert grouped_best_response(tree, table, seat, np.arange(tree.num_infosets))[0] == pytest.approx(best)
        merged, choice = grouped_best_response(tree, table, seat, coarse)  # one action per level: less
        assert merged <= best + 1e-12
        mine = np.flatnonzero(tree.info_player == seat)
        assert all(len({int(choice[k]) for k in mine if coarse[k] == g}) == 1 for g in set(coarse[mine]))
