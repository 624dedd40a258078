"""The research-size games (commerce_env.small_game): packs no rule option reaches, R2 on them,
their deals, and every decision kind of their variant."""

from __future__ import annotations

import itertools
from collections import Counter
from math import comb

import pytest

import commerce_env
from commerce_env.cards import RESEARCH_PACKS, format_cards, make_pack
from commerce_env.engine.actions import ACTION_KINDS, KNOCK
from commerce_env.engine.base import REPLY
from commerce_env.game_tree import build_tree
from commerce_env.hands import evaluate
from commerce_env.rules import make_rules
from commerce_env.small_game import SMALL_GAMES, SmallGame, small_game


@pytest.mark.parametrize("size", sorted(RESEARCH_PACKS))
def test_research_packs_are_no_rule_option(size):
    # R12: deck_size is 52 or 32; a research pack is reached from Python only (SmallGame).
    with pytest.raises(ValueError, match="deck_size"):
        make_rules("trade_barter", deck_size=size)
    with pytest.raises(ValueError, match="deck_size"):
        commerce_env.env(variant="trade_barter", num_players=2, deck_size=size)
    assert len(set(make_pack(size))) == size


def test_the_batched_engine_refuses_a_research_pack():
    pytest.importorskip("numba")
    from commerce_env.vector import BatchEngine

    rules = small_game("trade_barter").rules()
    with pytest.raises(ValueError, match="research pack"):
        BatchEngine("trade_barter", 2, 4, rules=rules)


def test_a_small_game_needs_a_research_pack():
    with pytest.raises(ValueError, match="research pack"):
        SmallGame("trade_barter", 52)
    with pytest.raises(ValueError, match="no small game"):
        small_game("pool")


def test_r2_on_the_research_packs():
    # R2 values the research packs' hands as in the full pack; the pack only limits which occur.
    # 9 cards (2-4 of three suits): R2.1 a tricon of each rank, R2.2 one sequence per suit, R2.5
    # two-card points, and hands of three suits with nothing.
    nine = Counter(evaluate(h, ["tricon", "sequence", "point"]).category
                   for h in itertools.combinations(make_pack(9), 3))
    assert nine == {"tricon": 3, "sequence": 3, "point": 84 - 3 - 3 - 24, "none": 3 * 3 * 3 - 3}
    # 10 cards (2-6 of two suits): sequences 2 3 4, 3 4 5, 4 5 6 of each suit; everything else a point.
    ten = Counter(evaluate(h, ["tricon", "sequence", "point"]).category
                  for h in itertools.combinations(make_pack(10), 3))
    assert ten == {"sequence": 6, "point": 120 - 6}


@pytest.mark.parametrize("variant", list(SMALL_GAMES))
def test_every_split_of_the_pack_is_dealt_once(variant):
    game = small_game(variant)
    deals = game.deals()
    table = game.rules().info.engine.has_table
    size = game.deck_size
    expected = comb(size, 3) * comb(size - 3, 3) * (comb(size - 6, 3) if table else 1)
    assert len(deals) == expected
    splits = set()
    for pack in deals:
        assert sorted(pack) == sorted(game.pack)
        g = game.new_game(pack)
        splits.add((tuple(g.hands[1]), tuple(g.hands[0]), tuple(sorted(g.table))))
    assert len(splits) == expected
    assert game.deals(7) == [deals[k * len(deals) // 7] for k in range(7)]
    with pytest.raises(ValueError, match="count"):
        game.deals(0)


KINDS = {"trade_barter": {"knock", "ready_money", "offer", "give"},
         "widow": {"take_widow", "keep_hand", "knock", "pass", "exchange"}}


@pytest.mark.parametrize("variant", list(SMALL_GAMES))
def test_the_small_game_has_every_decision_of_its_variant(variant):
    # R5.2-R5.5 (knock, ready money, barter and the neighbour's give or knock); R6.2-R6.3.
    tree = build_tree(small_game(variant), small_game(variant).deals(12))
    kinds = {ACTION_KINDS[a] for k in range(tree.num_infosets) for a in tree.legal(k)}
    assert kinds == KINDS[variant]
    if variant == "trade_barter":  # R5.4: the neighbour may knock instead of giving
        replies = [k for k in range(tree.num_infosets) if tree.view(k).phase == REPLY]
        assert replies and all(KNOCK in tree.legal(k) for k in replies)


def test_the_deals_are_written_top_first():
    # R1.5: one card at a time, eldest first: the first deal's pack gives the eldest (seat 1) its first card.
    game = small_game("trade_barter")
    pack = game.deals()[0]
    g = game.new_game(pack)
    assert g.hands[1][0] == pack[0] and g.hands[0][0] == pack[1]
    assert format_cards(g.stock[::-1]) == format_cards(pack[6:])


def test_the_benchmark_page_includes_the_small_games_section(tmp_path):
    # python -m benchmarks.suite rewrites docs/benchmark.md: the small games' section stays, its links fixed.
    from benchmarks.suite import markdown

    out = tmp_path / "docs" / "benchmark"
    out.mkdir(parents=True)
    (out / "small_game.md").write_text("## Exploitability: a small game solved exactly\n\n"
                                       "[curves](small_game_cfr.json)\n")
    page = markdown({}, out, tmp_path / "docs")
    assert "## Exploitability: a small game solved exactly" in page
    assert "[curves](benchmark/small_game_cfr.json)" in page


def test_the_small_games_section_says_which_best_responses_reach_the_target():
    from benchmarks.small_game import _which, markdown

    def report(agent, share, **extra):
        return {"variant": "trade_barter", "agent": agent, "exact_gain": 0.5, "exact_seats": [0.4, 0.6],
                "share": share, "seats": [0.4 * share, 0.6 * share], **extra}

    searched = {"command": "python -m training.exploit_small --method search",
                "reports": [report("greedy", 0.95, search_gain=0.475, worlds=24, ms_per_decision=3.0),
                            report("random", 0.5, search_gain=0.25, worlds=24, ms_per_decision=3.0),
                            report("cfr+ (2 iterations)", 0.9, search_gain=0.45, worlds=24, ms_per_decision=3.0,
                                   continuation="agent")]}
    page = markdown([], "python -m benchmarks.small_game", searched=searched)
    assert "### A search best response checked against the exact one" in page
    assert "| trade_barter | greedy | greedy | 0.5000 | 0.4750 | 95% |" in page  # its own later moves: greedy
    assert "| trade_barter | cfr+ (2 iterations) | agent | 0.5000 | 0.4500 | 90% |" in page
    reports = searched["reports"]
    assert _which(reports, True) == "trade_barter: greedy, cfr+ (2 iterations) (`--continuation agent`)"
    assert _which(reports, False) == "trade_barter: random"


def test_a_result_file_stopped_before_its_last_policy_says_what_it_holds(tmp_path):
    import json

    from benchmarks.small_game import _saved

    command = "python -m training.exploit_small --method search --variants widow --agents greedy,cfr:10,random"
    (tmp_path / "small_game_search_a.json").write_text(json.dumps({"command": command, "reports": [
        {"agent": "greedy"}]}))
    (tmp_path / "small_game_search_b.json").write_text(json.dumps({"command": command.replace(
        "greedy,cfr:10,random", "greedy"), "reports": [{"agent": "greedy"}]}))
    made = _saved(tmp_path, "small_game_search_*.json")["command"]
    assert f"`{command}` (stopped after 1 of 3: greedy), " in made
    assert made.endswith("--agents greedy`")  # a finished file: its command alone


def test_a_policy_measured_at_two_budgets_is_named_with_each_budget():
    from benchmarks.small_game import _which

    reports = [{"variant": "widow", "agent": "greedy", "share": 0.6, "steps": 300_000},
               {"variant": "widow", "agent": "greedy", "share": 0.85, "steps": 2_000_000},
               {"variant": "widow", "agent": "random", "share": 0.5, "steps": 300_000}]
    assert _which(reports, False) == "widow: greedy (300,000 steps), greedy (2,000,000 steps), random"
