"""The arena: duplicate rotation, statistics with known answers, reproducibility, outputs."""

import json
import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agents import stats
from agents.arena import MAX_SEATINGS, agent_names, base_table, rotation, run_arena, seatings
from agents.base import Agent
from agents.evaluate import evaluate_agent
from agents.heuristics import GreedyAgent
from agents.search import SearchAgent
from agents.specs import make_agent, parse_spec, spec_name


def _named(agent, name):
    agent.name = name
    return agent


@pytest.mark.parametrize("lineup_size,players", [(4, 4), (2, 4), (3, 4), (1, 3), (3, 5), (6, 6)])
def test_duplicate_seatings_put_every_agent_in_every_seat(lineup_size, players):
    table = base_table(list(range(lineup_size)), players)
    assert table == [k % lineup_size for k in range(players)]  # the lineup repeated
    plan = seatings(table)
    for seating in plan:
        assert sorted(seating) == sorted(table)  # each seating seats the same agents
    for agent in set(table):
        per_seat = [sum(seating[s] == agent for seating in plan) for s in range(players)]
        assert min(per_seat) >= 1 and len(set(per_seat)) == 1  # every seat, equally often
    arrangements = math.factorial(players) // math.prod(math.factorial(table.count(a)) for a in set(table))
    if arrangements <= MAX_SEATINGS and lineup_size > 1:
        assert len(plan) == arrangements
        # every agent has every other agent as its left neighbour (R5.4 barters go left)
        for agent in set(table):
            lefts = {seating[(s + 1) % players] for seating in plan for s in range(players) if seating[s] == agent}
            assert lefts >= set(table) - ({agent} if table.count(agent) == 1 else set())


def test_seatings_count():
    assert len(seatings([0, 1, 2, 3])) == 24  # all arrangements of four agents
    assert len(seatings([0, 1, 1, 1])) == 4  # a learner against three copies
    assert len(seatings([0, 1, 0, 1])) == 6
    assert seatings(list(range(6))) == [rotation(list(range(6)), r) for r in range(6)]  # 720 > 24


def test_lineup_longer_than_the_table_is_refused():
    with pytest.raises(ValueError, match="5 agents do not fit at a table of 4"):
        base_table(list(range(5)), 4)
    with pytest.raises(ValueError, match="empty"):
        run_arena([], deals=4, progress=False)


def test_bootstrap_ci_constant_and_known_normal():
    assert stats.bootstrap_ci(np.full(50, 0.7)) == pytest.approx((0.7, 0.7))
    # A mean of 400 draws from N(1, 2^2): the 95% interval has half-width 1.96 * 2 / 20 = 0.196
    # and covers the true mean in about 95% of repetitions.
    rng = np.random.default_rng(1)
    covered, widths = 0, []
    for rep in range(200):
        sample = rng.normal(1.0, 2.0, size=400)
        low, high = stats.bootstrap_ci(sample, samples=400, seed=rep)
        covered += low <= 1.0 <= high
        widths.append(high - low)
    assert 0.89 <= covered / 200 <= 0.99
    assert np.mean(widths) == pytest.approx(2 * 1.96 * 2.0 / 20.0, rel=0.08)


def test_bootstrap_ci_of_a_ratio_per_deal():
    # Groups of 2 to 6 deals, each deal worth exactly 0.5: the mean per deal is 0.5 with no spread.
    deals = np.array([2, 3, 4, 5, 6] * 10)
    assert stats.ratio_mean(deals * 0.5, deals) == pytest.approx(0.5)
    assert stats.bootstrap_ci(deals * 0.5, deals) == pytest.approx((0.5, 0.5))
    with pytest.raises(ValueError, match="at least one deal"):
        stats.bootstrap_ci(np.ones(3), np.array([1, 0, 1]))


def test_paired_test_matches_the_normal_tail():
    d = np.array([1.0, -1.0] * 50) + 0.196  # sd ~1.005, mean 0.196: z ~ 1.94
    z = d.mean() / (d.std(ddof=1) / math.sqrt(d.size))
    assert stats.paired_test(d) == pytest.approx(math.erfc(z / math.sqrt(2)))
    assert 0.04 < stats.paired_test(d) < 0.06
    assert stats.paired_test(np.zeros(10)) == 1.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(-5, 5), st.floats(-5, 5)), min_size=2, max_size=40),
       st.integers(1, 12), st.integers(1, 12))
@example([(0.0, 0.0), (0.0, 1.3282941389536352e-12)], 1, 1)  # rewards near 0: rescaled, still the same p
def test_ratio_difference_test_is_the_paired_test_when_groups_are_equal(pairs, seats_a, seats_b):
    # With the same deals in every group the per-deal figures are plain means, and the
    # linearised ratio test is the paired t-test on the per-deal differences.
    a, b = (np.array(v) for v in zip(*pairs, strict=True))
    deals_a, deals_b = np.full(a.size, float(seats_a)), np.full(b.size, float(seats_b))
    expected = stats.paired_test(a - b)
    got = stats.ratio_difference_test(a * seats_a, deals_a, b * seats_b, deals_b)
    assert 0.0 <= got <= 1.0
    if np.std(a - b) > 1e-6:
        assert got == pytest.approx(expected, abs=1e-9)
    # Swapping the players, or rescaling every reward, cannot change it.
    assert stats.ratio_difference_test(b * seats_b, deals_b, a * seats_a, deals_a) == pytest.approx(got, abs=1e-9)
    assert stats.ratio_difference_test(3 * a * seats_a, deals_a, 3 * b * seats_b, deals_b) == pytest.approx(
        got, abs=1e-9)


def test_ratio_difference_test_weighs_groups_by_their_deals():
    # Matches of unequal length: A gains 0.2 a deal in the 20-deal matches and loses 0.2 in the
    # 2-deal ones. Per deal A is ahead by (20*0.2 - 2*0.2) / 22 = 0.164, and the paired
    # bootstrap interval says so; an unweighted t-test of the per-group differences sees zero.
    rng = np.random.default_rng(5)
    deals = np.array([20.0, 2.0] * 100)
    per_deal = np.where(deals == 20, 0.2, -0.2) + rng.normal(0, 0.05, deals.size)
    a, b = per_deal * deals, np.zeros_like(deals)
    low, _ = stats.bootstrap_difference_ci(a, deals, b, deals, level=0.99)
    assert low > 0
    assert stats.paired_test(per_deal) > 0.1
    assert stats.ratio_difference_test(a, deals, b, deals) < 1e-6


def test_ratio_difference_test_agrees_with_the_bootstrap_spread():
    # The delta method's standard error is the bootstrap's, so the p-value and the intervals
    # tell one story: a difference whose 99% interval excludes zero has p below about 0.01.
    rng = np.random.default_rng(11)
    deals = rng.integers(1, 30, size=400).astype(float)
    a = rng.normal(0.05, 1.0, deals.size) * np.sqrt(deals) + 0.05 * deals
    b = rng.normal(0.0, 1.0, deals.size) * np.sqrt(deals)
    picks = rng.integers(0, deals.size, size=(4000, deals.size))
    boot = a[picks].sum(1) / deals[picks].sum(1) - b[picks].sum(1) / deals[picks].sum(1)
    difference = a.sum() / deals.sum() - b.sum() / deals.sum()
    p = stats.ratio_difference_test(a, deals, b, deals)
    z = abs(difference) / boot.std()
    assert p == pytest.approx(math.erfc(z / math.sqrt(2)), rel=0.25)


def test_summarise_p_value_tells_the_story_of_its_intervals():
    # The arena's pairwise p-value in a match variant (groups of unequal deals) must agree with
    # its deal-weighted difference and intervals, not with an unweighted mean of group figures.
    rng = np.random.default_rng(5)
    records = []
    for g in range(200):
        counted = 20 if g % 2 == 0 else 2
        edge = (0.2 if counted == 20 else -0.2) + rng.normal(0, 0.05)
        records.append([([0, 1], [edge * counted, 0.0], counted), ([1, 0], [0.0, edge * counted], counted)])
    pair = stats.summarise(records, ["a", "b"])["pairwise"][0]
    assert pair["ci99"][0] > 0 and pair["mean_difference"] > 0.1
    assert pair["p_value"] < 0.001


def test_ratio_difference_test_rejects_unpaired_groups():
    with pytest.raises(ValueError, match="same groups"):
        stats.ratio_difference_test(np.ones(3), np.ones(3), np.ones(4), np.ones(4))
    assert stats.ratio_difference_test(np.ones(5), np.ones(5), np.ones(5), np.ones(5)) == 1.0



def test_interquartile_mean_cuts_a_quarter_from_each_end():
    assert stats.interquartile_mean(np.arange(8.0)) == pytest.approx(np.mean([2, 3, 4, 5]))
    assert stats.interquartile_mean([1.0, 2.0, 3.0, 1000.0, -1000.0, 2.0, 2.0, 2.0]) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="no scores"):
        stats.interquartile_mean([])


def test_stratified_bootstrap_resamples_each_seed_within_itself():
    # Two seeds of 10 and 30 groups, each seed's scores constant: a resample that keeps every
    # seed's size always has the pooled mean 0.75, so the interval collapses there; resampling
    # the pool as one would not.
    low_seed, high_seed = np.zeros(10), np.ones(30)
    result = stats.stratified_bootstrap([low_seed, high_seed], samples=500, seed=1)
    assert result["mean"] == pytest.approx(0.75) and result["mean_ci"] == pytest.approx([0.75, 0.75])
    assert result["iqm"] == pytest.approx(np.mean(np.sort(np.r_[low_seed, high_seed])[10:30]))
    assert result["strata"] == 2 and result["scores"] == 40
    pooled = stats.bootstrap_ci(np.r_[low_seed, high_seed], samples=500, seed=1)
    assert pooled[1] - pooled[0] > 0.1


def test_stratified_bootstrap_covers_the_true_mean_about_as_often_as_it_says():
    rng = np.random.default_rng(4)
    covered = 0
    for rep in range(100):
        strata = [rng.normal(0.3, 1.0, size=60) for _ in range(3)]
        low, high = stats.stratified_bootstrap(strata, samples=300, seed=rep)["mean_ci"]
        covered += low <= 0.3 <= high
    assert 85 <= covered <= 100
    with pytest.raises(ValueError, match="at least one score"):
        stats.stratified_bootstrap([np.ones(3), np.array([])])


def test_group_means_are_each_duplicate_groups_mean_per_deal():
    result = run_arena(["greedy", "random"], variant="trade_barter", num_players=3, deals=30, seed=5,
                       progress=False)
    for agent in result["agents"].values():
        assert len(agent["group_means"]) == result["groups"]
        # one deal per game and equal seat-deals per group: the mean per deal is the groups' mean
        assert np.mean(agent["group_means"]) == pytest.approx(agent["mean"])

def test_a_deal_weighted_aggregate_of_one_seed_is_its_per_deal_margin():
    # R9.5: pool matches last different numbers of deals, so groups differ in size; weighted by
    # deals, the aggregate of one seed's group margins is the arena's per-deal difference.
    result = run_arena(["greedy", "random"], variant="pool", num_players=3, deals=12, seed=3, progress=False)
    greedy, random_ = result["agents"]["greedy"], result["agents"]["random"]
    assert len(set(greedy["group_deals"])) > 1
    margins = np.asarray(greedy["group_means"]) - np.asarray(random_["group_means"])
    pair = result["pairwise"][0]
    sign = 1 if pair["a"] == "greedy" else -1
    weighted = stats.stratified_bootstrap([margins], weights=[greedy["group_deals"]], samples=20)
    assert weighted["mean"] == pytest.approx(sign * pair["mean_difference"])
    assert stats.stratified_bootstrap([margins], samples=20)["mean"] != pytest.approx(weighted["mean"])
    with pytest.raises(ValueError, match="one value per score"):
        stats.stratified_bootstrap([margins], weights=[greedy["group_deals"][1:]])
    with pytest.raises(ValueError, match="positive"):
        stats.stratified_bootstrap([margins], weights=[np.zeros(len(margins))])


def test_duplicate_deals_cancel_card_luck_between_identical_agents():
    # Four copies of one deterministic agent under different names: on duplicate deals each
    # sits in every seat against the same cards, so their totals per group are equal.
    lineup = [_named(GreedyAgent(), f"greedy_{i}") for i in range(4)]
    result = run_arena(lineup, deals=48, seed=3, progress=False)
    means = [a["mean"] for a in result["agents"].values()]
    assert max(means) - min(means) == pytest.approx(0.0, abs=1e-12)
    assert all(p["ci95"] == pytest.approx([0.0, 0.0]) for p in result["pairwise"])
    plain = run_arena(lineup, deals=48, seed=3, progress=False, duplicate=False)
    assert max(a["mean"] for a in plain["agents"].values()) > min(a["mean"] for a in plain["agents"].values())


def test_arena_is_reproducible_from_its_seed():
    kwargs = dict(variant="widow", num_players=3, options={"deals": 2}, deals=6, progress=False)
    first = run_arena(["search", "random"], seed=11, **kwargs)
    again = run_arena(["search", "random"], seed=11, workers=2, **kwargs)
    other = run_arena(["search", "random"], seed=12, **kwargs)
    for key in ("agents", "pairwise", "deals_played"):
        assert first[key] == again[key]
    assert first["agents"] != other["agents"]


def test_result_fields_and_outputs(tmp_path):
    result = run_arena(["greedy", "random"], variant="trade_barter", num_players=3, deals=9, seed=1,
                       out_dir=tmp_path, progress=False)
    assert result["groups"] == 3 and result["games"] == 9  # 9 games: 3 packs x 3 seatings (G G R)
    greedy = result["agents"]["greedy"]
    assert greedy["deals"] == 18 and result["agents"]["random"]["deals"] == 9  # seat-deals: 2 of 3 seats
    assert greedy["ci95"][0] <= greedy["mean"] <= greedy["ci95"][1]
    assert 0.0 <= greedy["win_rate"] <= 1.0
    assert {"a", "b", "mean_difference", "ci95", "a_beats_b", "p_value"} <= set(result["pairwise"][0])
    assert "ratings" not in result  # a rating by how often an agent finishes ahead can rank against the means
    assert result["deals_per_second"] > 0
    saved = json.loads((tmp_path / "result.json").read_text())
    assert saved["agents"] == result["agents"]
    assert "| rank | agent |" in (tmp_path / "report.md").read_text()
    assert (tmp_path / "mean_reward.png").read_bytes()[:4] == b"\x89PNG"


def test_mean_reward_sums_to_zero_over_a_table():  # R4.3: nothing created or lost
    result = run_arena(["expected_value", "greedy", "random", "search"], deals=8, seed=2, progress=False)
    total = sum(a["mean"] * a["deals"] for a in result["agents"].values())
    assert total == pytest.approx(0.0, abs=1e-9)


def test_evaluate_agent_reports_the_learner_against_each_opponent():
    class Knocker(Agent):
        name = "knocker"

        def act(self, observation, game=None):
            mask = observation["action_mask"]
            return 0 if mask[0] else int(np.flatnonzero(mask)[0])

    report = evaluate_agent(Knocker(), ["greedy", "random"], variant="trade_barter", num_players=4,
                            deals=16, seed=0)
    assert report["name"] == "knocker"
    assert set(report["vs"]) == {"greedy", "random"}
    result = report["result"]
    assert result["lineup"] == ["knocker", "greedy", "random", "greedy"]
    for name, versus in report["vs"].items():
        assert versus["ci95"][0] <= versus["difference"] <= versus["ci95"][1]
        assert versus["difference"] == pytest.approx(report["mean"] - result["agents"][name]["mean"], abs=1e-9)


def test_an_agent_with_arguments_plays_at_the_table_under_its_own_name():
    # {agent: greedy, quantile: 0.9} plays as GreedyAgent(quantile=0.9), named for its setting
    kwargs = dict(variant="widow", num_players=4, options={"deals": 1}, games=48, seed=5, progress=False)
    mapped = run_arena([{"agent": "greedy", "quantile": 0.9}, "greedy"], **kwargs)
    assert list(mapped["agents"]) == ["greedy(quantile=0.9)", "greedy"]
    assert mapped["agents"]["greedy(quantile=0.9)"]["mean"] != 0.0  # not played as plain greedy
    objects = run_arena([_named(GreedyAgent(quantile=0.9), "greedy(quantile=0.9)"), "greedy"], **kwargs)
    assert mapped["agents"] == objects["agents"]
    # one setting however written is one agent; no arguments is the plain name
    assert agent_names([{"quantile": 0.9, "agent": "greedy"}, {"agent": "greedy"}]) == \
        ["greedy(quantile=0.9)", "greedy"]
    report = evaluate_agent({"agent": "search", "worlds": 2}, ["greedy"], variant="widow", num_players=4,
                            options={"deals": 1}, deals=8, seed=1)
    assert report["name"] == "search(worlds=2)" and set(report["vs"]) == {"greedy"}


def test_python_takes_the_command_lines_text_for_an_agent_with_arguments():
    # "greedy(quantile=0.9)" from Python is the mapping {agent: greedy, quantile: 0.9}, as on the command line
    kwargs = dict(variant="widow", num_players=4, options={"deals": 1}, games=48, seed=5, progress=False)
    mapped = run_arena([{"agent": "greedy", "quantile": 0.9}, "greedy"], **kwargs)
    text = run_arena(["greedy( quantile = 0.9 )", "greedy"], **kwargs)
    assert text["agents"] == mapped["agents"] and list(text["agents"]) == ["greedy(quantile=0.9)", "greedy"]
    report = evaluate_agent("search(worlds=2)", ["greedy(quantile=0.9)"], variant="widow", num_players=4,
                            options={"deals": 1}, deals=8, seed=1)
    assert report["name"] == "search(worlds=2)" and set(report["vs"]) == {"greedy(quantile=0.9)"}
    with pytest.raises(ValueError, match="wrlds"):
        evaluate_agent("search(wrlds=2)", ["greedy"], variant="widow", deals=4)
    with pytest.raises(ValueError, match="search\\(worlds\\)"):
        run_arena(["search(worlds)", "greedy"], deals=4, progress=False)


def test_make_agent_takes_the_command_lines_text_too():
    # what builds one agent reads "search(worlds=3)" as the arena does (research.decision_swap's --model)
    agent = make_agent("search(worlds=3, margin=2.0)")
    assert isinstance(agent, SearchAgent) and (agent.worlds, agent.margin) == (3, 2.0)
    model = make_agent("model:models/widow(search=false)", variant="widow", num_players=4)
    assert model.search is None
    with pytest.raises(ValueError, match="wrlds"):
        make_agent("search(wrlds=3)")


@given(st.dictionaries(st.from_regex(r"[a-z_]{1,8}", fullmatch=True).filter(lambda key: key != "agent"),
                       st.integers(-10**6, 10**6) | st.booleans() | st.none()
                       | st.floats(0.001, 1000.0) | st.from_regex(r"[a-z0-9_]{1,8}", fullmatch=True),
                       max_size=4))
@settings(max_examples=200, deadline=None)
def test_an_agent_setting_reads_back_from_its_name(arguments):
    # the arena's name of {agent: ..., **arguments} is the command line's text for the same spec
    spec = {"agent": "search", **arguments}
    assert parse_spec(spec_name(spec)) == (spec if arguments else "search")


def test_bad_agent_settings_are_refused_by_name():
    with pytest.raises(ValueError, match="needs 'agent'"):
        run_arena([{"worlds": 3}, "greedy"], deals=4, progress=False)
    with pytest.raises(ValueError, match="wrlds"):
        run_arena([{"agent": "search", "wrlds": 3}, "greedy"], deals=4, progress=False)
    for text in ("search(worlds)", "search(worlds=2", "search)", "search(agent=greedy)"):
        with pytest.raises(ValueError, match="search"):
            parse_spec(text)


def test_bad_arena_arguments_are_refused():
    with pytest.raises(ValueError, match="deals"):
        run_arena(["random"], deals=0, progress=False)
    with pytest.raises(ValueError, match="workers"):
        run_arena(["random"], deals=4, workers=0, progress=False)
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        run_arena(["nobody"], deals=4, progress=False)
    with pytest.raises(ValueError, match="unknown variant"):
        run_arena(["random"], variant="poker", deals=4, progress=False)


def test_arena_command_writes_the_report(tmp_path, capsys):
    from training.cli import main

    code = main(["arena", "--agents", "greedy,random", "--variant", "widow", "--players", "3", "--games", "6",
                 "--seed", "4", "--out", str(tmp_path / "run"), "--no-progress", "--option", "deals=2"])
    assert code == 0
    assert "| rank | agent |" in capsys.readouterr().out
    saved = json.loads((tmp_path / "run" / "result.json").read_text())
    assert saved["rules"]["deals"] == 2 and saved["variant"] == "widow"
    assert main(["arena", "--agents", "greedy,nobody", "--games", "4", "--no-progress"]) == 2
    # an agent's arguments in brackets; a bad one is the command's error
    code = main(["arena", "--agents", "greedy(quantile=0.9), search(worlds=2, margin=2.0)", "--variant", "widow",
                 "--players", "4", "--games", "8", "--seed", "4", "--out", str(tmp_path / "set"), "--no-progress",
                 "--option", "deals=1"])
    assert code == 0
    saved = json.loads((tmp_path / "set" / "result.json").read_text())
    assert set(saved["agents"]) == {"greedy(quantile=0.9)", "search(margin=2.0, worlds=2)"}
    capsys.readouterr()
    assert main(["arena", "--agents", "search(wrlds=2),greedy", "--games", "4", "--no-progress"]) == 2
    assert "wrlds" in capsys.readouterr().err


@pytest.mark.parametrize("variant", ["trade_barter", "widow", "old_game"])
def test_any_agent_sits_in_any_seat_of_the_aec_env(variant):  # R4.3: rewards sum to zero
    import commerce_env
    from agents import make_agent
    from agents.arena import play_env_episode

    env = commerce_env.env(variant=variant, num_players=4, **({"deals": 2} if variant == "widow" else {}))
    names = ["search", "expected_value", "greedy", "random"]
    agents = {f"player_{i}": make_agent(name) for i, name in enumerate(names)}
    totals = play_env_episode(env, agents, seed=5)
    assert set(totals) == set(agents)
    assert sum(totals.values()) == pytest.approx(0.0)
    assert env.unwrapped.game.over


def test_paired_difference_interval():
    rng = np.random.default_rng(2)
    luck = rng.normal(0.0, 5.0, size=300)  # shared card luck, large
    skill = rng.normal(0.2, 0.5, size=300)
    a, b = luck + skill, luck
    deals = np.ones(300)
    low, high = stats.bootstrap_difference_ci(a, deals, b, deals)
    assert low < skill.mean() < high  # the luck cancels: an interval around the skill
    assert high - low < 0.2  # about 2 x 1.96 x 0.5 / sqrt(300) = 0.11, not the luck's 1.1
    with pytest.raises(ValueError, match="same groups"):
        stats.bootstrap_difference_ci(a, deals, b[:10], deals[:10])


@pytest.mark.slow
def test_acceptance_order_in_the_widow_game():  # search > expected_value > greedy > random
    result = run_arena(["search", "expected_value", "greedy", "random"], variant="widow", deals=1200, seed=7,
                       workers=2, progress=False)
    order = ["search", "expected_value", "greedy", "random"]
    for better, worse in zip(order, order[1:], strict=False):  # non-overlapping 95% intervals
        assert result["agents"][better]["ci95"][0] > result["agents"][worse]["ci95"][1], (better, worse)


class _CallsItselfRandom(GreedyAgent):
    """An agent object that takes a built-in agent's name."""

    name = "random"


@pytest.mark.parametrize("lineup", [["random", _CallsItselfRandom()], [_CallsItselfRandom(), "random"],
                                    [GreedyAgent(), GreedyAgent()]])
def test_an_agent_object_may_not_take_another_agents_name(lineup):
    # Agents with the same name are one agent: an object named like another entry would play its seats.
    with pytest.raises(ValueError, match="'(random|greedy)'"):
        run_arena(lineup, variant="trade_barter", num_players=2, games=2, progress=False)


def test_the_same_agent_object_twice_is_one_agent():
    agent = GreedyAgent()
    result = run_arena([agent, agent, "random"], variant="trade_barter", num_players=3, games=6, progress=False)
    assert set(result["agents"]) == {"greedy", "random"}
