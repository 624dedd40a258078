"""The arena's batched path gives exactly the local path's result where it applies."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

import agents.arena_batched as arena_batched  # noqa: E402
from agents.arena import run_arena  # noqa: E402
from agents.heuristics import GreedyAgent  # noqa: E402
from agents.learned import load_agent  # noqa: E402
from commerce_env import observation as obs  # noqa: E402
from commerce_env.rules import make_rules  # noqa: E402

TIMINGS = ("seconds", "deals_per_second", "games_per_second")


def _result(**kwargs) -> dict:
    result = run_arena(progress=False, **kwargs)
    return {k: v for k, v in result.items() if k not in TIMINGS}


def _cautious() -> GreedyAgent:
    agent = GreedyAgent(quantile=0.8)
    agent.name = "greedy_0.8"
    return agent


def _model(tiny_model, variant: str, num_players: int, layout_version: int | None = None, **options) -> str:
    """The spec of a small untrained model (tests/conftest.py) for this table."""
    return f"model:{tiny_model(variant, num_players, seed=num_players, layout_version=layout_version, **options)}"


# Every variant at R12 defaults (matches until out: widow, my_ship_sails, pool; single deals:
# trade_barter, old_game), and option sets with several deals, another match end, re-deals.
CASES = [
    ("trade_barter", 4, {}),
    ("widow", 4, {}),
    ("my_ship_sails", 4, {}),
    ("old_game", 4, {}),
    ("pool", 4, {}),
    ("trade_barter", 3, {"deals": 3, "dealer_pays": "peel_each", "stand_after_trade": True}),
    ("widow", 6, {"match_end": "freeze_out", "deals": 4, "allow_pass": False, "reward": "outcome"}),
    ("my_ship_sails", 3, {"deals": 1}),  # R7.3: a dealt flush deals again, from the engine's shuffle
    ("my_ship_sails", 6, {"match_end": "whiskey", "deals": 5, "tie_break": "dealer"}),
    ("old_game", 3, {"deals": 4, "deck_size": 32}),
    ("pool", 6, {"deals": 6, "entry": 6, "horse_price": 2, "payout": 2}),
]


@pytest.mark.parametrize("variant, num_players, options", CASES)
@pytest.mark.parametrize("duplicate", [True, False])
@pytest.mark.parametrize("layout_version", obs.LAYOUT_VERSIONS)  # a model of each layout sees its own input
def test_batched_arena_equals_the_local_arena(tiny_model, variant, num_players, options, duplicate, layout_version):
    # R4.5, R7.3, R12: same packs (given and shuffled), seatings, decisions and rewards: the same JSON.
    lineup = [_model(tiny_model, variant, num_players, layout_version, **options), "greedy",
              _cautious()][:num_players]
    kwargs = dict(lineup=lineup, variant=variant, num_players=num_players, options=options, games=24, seed=7,
                  duplicate=duplicate)
    batched = _result(batched=True, **kwargs)
    assert batched == _result(batched=False, **kwargs)
    if variant in ("widow", "my_ship_sails", "pool") and not options:  # R4.5: matches until out
        assert batched["deals_played"] > batched["games"]


def test_greedy_lineups_agree_over_many_batches(monkeypatch):
    # More games than the batched engine plays at once, matches of several deals (R4.5).
    monkeypatch.setattr(arena_batched, "GAMES_PER_BATCH", 5)
    kwargs = dict(lineup=["greedy", _cautious()], variant="pool", num_players=4, games=6 * 8, seed=3)
    assert _result(batched=True, **kwargs) == _result(batched=False, **kwargs)


def test_a_learned_agent_object_is_batched(tiny_model):
    spec = _model(tiny_model, "trade_barter", 4)
    agent = load_agent(spec[len("model:"):])
    assert arena_batched.applies([agent, "greedy"], make_rules("trade_barter"))
    kwargs = dict(variant="trade_barter", num_players=4, games=12, seed=2)
    assert _result(lineup=[agent, "greedy"], batched=True, **kwargs) == \
        _result(lineup=[agent, "greedy"], batched=False, **kwargs)
    sampling = load_agent(spec[len("model:"):], deterministic=False)
    assert not arena_batched.applies([sampling, "greedy"], make_rules("trade_barter"))


@pytest.mark.parametrize("lineup, named", [
    (["greedy", "random"], "'random'"),  # random draws its own numbers
    (["greedy", "expected_value"], "'expected_value'"),  # no batched form
    ([{"agent": "search", "ms": 5}, "greedy"], r"'search\(ms=5\)'"),  # a time budget: the clock decides
])
@pytest.mark.parametrize("variant", ["trade_barter", "widow"])
def test_the_batched_path_is_refused_where_it_would_change_the_result(lineup, named, variant):
    rules = make_rules(variant)
    assert not arena_batched.applies(lineup, rules)
    with pytest.raises(ValueError, match=f"batched=True: {named} has no deterministic batched form"):
        run_arena(lineup, variant=variant, num_players=4, games=24, progress=False, batched=True)


def test_an_agent_given_with_arguments_is_batched_with_them():
    lineup = [{"agent": "greedy", "quantile": 0.9}, "greedy"]  # BatchedGreedy(quantile=0.9)
    assert arena_batched.applies(lineup, make_rules("widow"))
    kwargs = dict(lineup=lineup, variant="widow", num_players=4, games=24, seed=3)
    batched = _result(batched=True, **kwargs)
    assert batched == _result(batched=False, **kwargs)
    assert batched["agents"]["greedy(quantile=0.9)"]["mean"] != 0.0


def test_the_batched_path_is_refused_on_ray():
    with pytest.raises(ValueError, match="batched=True: backend 'ray' is not local"):
        run_arena(["greedy"], num_players=4, games=24, progress=False, batched=True, backend="ray")


def test_the_arena_takes_the_batched_path_by_itself_where_it_applies(monkeypatch):
    calls = []
    real = arena_batched.play_groups

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(arena_batched, "play_groups", counting)
    run_arena(["greedy", _cautious()], variant="old_game", num_players=4, games=24, progress=False)
    assert calls == [1]
    run_arena(["greedy", _cautious()], variant="widow", num_players=4, games=24, progress=False)
    assert calls == [1, 1]  # matches too (R4.5)
    run_arena(["greedy", "random"], variant="old_game", num_players=4, games=24, progress=False)
    assert calls == [1, 1]  # random: the local path


def test_training_evaluation_takes_the_batched_path_where_it_applies(tiny_model, monkeypatch):
    from training.evaluation import evaluate

    calls = []
    real = arena_batched.play_groups

    def counting(agents, *args, **kwargs):
        calls.append(sorted(getattr(a, "name", a) for a in agents.values()))
        return real(agents, *args, **kwargs)

    monkeypatch.setattr(arena_batched, "play_groups", counting)
    agent = load_agent(tiny_model("widow", 3))  # as training's policy_agent gives it
    report = evaluate(agent, ["greedy", "random"], variant="widow", num_players=3, deals=6)
    assert calls == [["greedy", "learned"]]  # the table of greedy only: random is not batchable
    assert set(report["opponents"]) == {"greedy", "random"}


def test_commerce_arena_chooses_the_engine(capsys):
    from training.cli import main

    args = ["arena", "--agents", "greedy,random", "--players", "3", "--games", "6", "--no-progress"]
    assert main([*args, "--engine", "batched"]) == 2
    assert "batched=True: 'random' has no deterministic batched form" in capsys.readouterr().err
    assert main([*args, "--engine", "local"]) == 0
    local = capsys.readouterr().out
    greedy = ["arena", "--agents", "greedy", "--variant", "widow", "--players", "3", "--games", "6",
              "--no-progress", "--seed", "4"]
    assert main([*greedy, "--engine", "batched"]) == 0
    batched = capsys.readouterr().out
    assert main([*greedy, "--engine", "local"]) == 0
    assert "| rank | agent |" in local and _without_timings(batched) == _without_timings(capsys.readouterr().out)


def _without_timings(report: str) -> list[str]:
    return [line for line in report.splitlines() if "/s" not in line and "second" not in line]


def _failing_search(monkeypatch, error: Exception, after: int) -> None:
    """Make every search fail with ``error`` at the decision after ``after`` of the run."""
    from agents.search import SearchAgent

    calls, choose = [0], SearchAgent.choose

    def failing(self, results, default):
        calls[0] += 1
        if calls[0] > after:
            raise error
        return choose(self, results, default)
    monkeypatch.setattr(SearchAgent, "choose", failing)


def test_a_failure_on_the_batched_path_keeps_the_groups_finished_before_it(monkeypatch):
    # As on the local path: the run stops, its finished groups are summarised with a crash entry.
    _failing_search(monkeypatch, ZeroDivisionError("a bug in a decision"), after=150)
    result = run_arena(["search(worlds=2)", "greedy"], variant="trade_barter", num_players=2, games=200,
                       batched=True, progress=False)
    crash = result["crash"]
    assert crash["error"] == "ZeroDivisionError" and "a bug in a decision" in crash["message"]
    assert crash["agent"] == "search(worlds=2)" and crash["seat"] in (0, 1)  # named as on the local path
    assert 0 < result["groups"] < 100
    assert any("the run stopped" in warning for warning in result["warnings"])


def test_commerce_arena_tells_a_failed_run_from_a_bad_argument(monkeypatch, capsys):
    # A ValueError raised while playing is a failure of the run (exit 1, with its traceback), not a
    # bad argument (exit 2).
    from training.cli import main

    _failing_search(monkeypatch, ValueError("an internal check"), after=0)
    assert main(["arena", "--agents", "search(worlds=2),greedy", "--players", "2", "--games", "4",
                 "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and "ValueError: an internal check" in err and "no group was finished" in err
    assert main(["arena", "--agents", "search(wrlds=2),greedy", "--games", "4", "--no-progress"]) == 2


@pytest.mark.parametrize("lineup", [["search(worlds=2)", "greedy"], ["greedy", "greedy(quantile=0.8)"]])
def test_a_match_over_before_its_first_decision_is_counted_as_on_the_local_path(monkeypatch, lineup):
    # R7.3, R4.5: dealt flushes settle deals as they are dealt; with arena seed 3, group 332 of
    # My Ship Sails deals three in a row and the match is over before anyone decides.
    from agents import arena
    from agents.seating import group_deal

    def stacked(rules, num_players, seed, group, games=1):
        return group_deal(rules, num_players, 3, 332 if group == 0 else group, games)
    monkeypatch.setattr(arena, "group_deal", stacked)
    monkeypatch.setattr(arena_batched, "group_deal", stacked)
    kwargs = dict(variant="my_ship_sails", num_players=4, games=8, seed=0)
    batched, local = _result(lineup=lineup, batched=True, **kwargs), _result(lineup=lineup, batched=False, **kwargs)
    assert batched["crash"] is None and batched == local


def test_a_failure_on_the_batched_path_names_the_group_whose_game_failed(monkeypatch):
    # Many groups play at once: the crash names the failing game's group, not the first unfinished one.
    readable_games = arena_batched._readable_games

    def games(*args):
        for group, index, game, seeds in readable_games(*args):
            if group == 12:
                def broken(action):
                    raise RuntimeError("the game of group 12 failed")
                game.apply = broken
            yield group, index, game, seeds
    monkeypatch.setattr(arena_batched, "_readable_games", games)
    result = run_arena(["search(worlds=2)", "greedy"], variant="trade_barter", num_players=2, games=40,
                       batched=True, progress=False)
    assert result["crash"]["group"] == 12 and result["crash"]["agent"] is None
    assert "group 12" in result["crash"]["message"] and 0 < result["groups"] < 12
