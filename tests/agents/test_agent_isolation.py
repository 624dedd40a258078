"""Agents in the arena's own process reach nothing but their view (docs/rules.md R11).

Cheaters try what an agent can reach by attribute access alone: the caches
behind ``view.sample_world`` (a live game, its unmasked record), ``view.rules``
(the live game's rules) and ``view.engine`` (the engine class every game
plays with).  None of them gains anything.  And an agent that breaks the
rules or raises is named, with the results of the duplicate groups finished
before it kept.  The isolated mode (agents in processes of their own) is
tested in tests/agents/test_agent_isolation_process.py.
"""

from __future__ import annotations

import json
import random
import sys
import types
import weakref

import numpy as np
import pytest

from agents.arena import play_game, run_arena
from agents.heuristics import GreedyAgent
from commerce_env.engine import ENGINES, new_game
from commerce_env.engine.actions import IllegalActionError
from commerce_env.engine.base import Game
from commerce_env.rules import VARIANTS, make_rules
from commerce_env.view import seat_view

PROJECT = ("commerce_env", "agents")


def _ours(name: str | None) -> bool:
    return bool(name) and name.split(".")[0] in PROJECT


def _reachable(root):
    """Every object reachable from ``root`` by attribute access: containers, instance and class
    attributes, and each function's globals, closure and defaults, through the project's modules."""
    seen, stack, found = set(), [root], []
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (int, float, str, bytes, bool, type(None), np.ndarray)):
            continue
        seen.add(id(obj))
        found.append(obj)
        if isinstance(obj, types.ModuleType):
            if _ours(obj.__name__):
                stack += list(vars(obj).values())
        elif isinstance(obj, type):
            if _ours(obj.__module__):
                stack += list(vars(obj).values()) + list(obj.__mro__)
        elif isinstance(obj, types.FunctionType):
            if _ours(obj.__module__):
                stack += [sys.modules.get(obj.__module__), *(obj.__defaults__ or ()),
                          *(obj.__kwdefaults__ or {}).values(),
                          *(cell.cell_contents for cell in obj.__closure__ or () if _filled(cell))]
        elif isinstance(obj, (staticmethod, classmethod)):
            stack.append(obj.__func__)
        elif isinstance(obj, property):
            stack += [obj.fget, obj.fset]
        elif isinstance(obj, weakref.ref):
            stack.append(obj())
        elif isinstance(obj, dict):
            stack += list(obj.keys()) + list(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack += list(obj)
        else:
            if hasattr(obj, "__dict__"):
                stack += list(vars(obj).values())
            for slot in getattr(type(obj), "__slots__", ()):
                stack.append(getattr(obj, slot, None))
            stack.append(type(obj))
    return found


def _filled(cell) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


def _live_objects(game):
    """The game's objects that hold hidden cards or the future (R11): by identity."""
    hidden = [game, game.record, game.hands, game.stock, game.rng, game.decks, *game.record, *game.hands]
    return {id(obj): obj for obj in hidden}


@pytest.mark.parametrize("variant", VARIANTS)
def test_no_live_game_or_unmasked_record_is_reachable_from_a_view(variant):  # R11
    # The caches behind seat views once kept the last game's record (every hand, the stock order)
    # and live games in module globals that view.sample_world's globals lead to.
    game = new_game(make_rules(variant), 4, rng=random.Random(3))
    rng = random.Random(3)
    for _ in range(6):
        if game.over:
            break
        seat_view(game, game.current_player)
        game.apply(rng.choice(game.legal_actions()))
    view = seat_view(game, game.current_player)
    live = _live_objects(game)
    found = _reachable(view)
    assert [type(obj).__name__ for obj in found if id(obj) in live] == []
    assert [obj for obj in found if isinstance(obj, Game)] == []


def test_the_walk_would_find_a_game_kept_in_a_module():
    game = new_game(make_rules("trade_barter"), 4, seed=1)
    view = seat_view(game, game.current_player)
    module = sys.modules["commerce_env.view"]
    module._planted = [game]  # as a cache in a module's globals would
    try:
        assert any(obj is game for obj in _reachable(view))
    finally:
        del module._planted


# ------------------------------------------------------------------- rules
class RulesBender(GreedyAgent):
    """Writes to the rules it is handed, to end deals at once and to count fewer combinations."""

    name = "rules_bender"

    def reset(self, seat, num_players, rules, seed=None):
        self._bend(rules)

    def act(self, view):
        for rules in (view.rules, *(value for name, value in view._state if name == "rules")):
            self._bend(rules)
        return super().act(view)

    @staticmethod
    def _bend(rules):
        object.__setattr__(rules, "max_rounds", 1)
        object.__setattr__(rules, "combinations", frozenset({"point"}))


def test_a_views_rules_are_its_own():  # R11
    game = new_game(make_rules("trade_barter"), 4, seed=1)
    view = seat_view(game, game.current_player)
    assert view.rules == game.rules and view.rules is not game.rules
    object.__setattr__(view.rules, "max_rounds", 1)
    assert game.rules.max_rounds == 10 and seat_view(game, game.current_player).rules.max_rounds == 10


@pytest.mark.parametrize("variant", ["trade_barter", "widow"])
def test_writing_to_the_rules_changes_no_outcome(variant):  # R4.4, R2.7
    for seed in range(3):
        rules = make_rules(variant)
        honest = play_game(new_game(rules, 4, seed=seed), [GreedyAgent() for _ in range(4)], seeds=[0, 1, 2, 3])
        rules = make_rules(variant)
        game = new_game(rules, 4, seed=seed)
        bent = play_game(game, [RulesBender(), GreedyAgent(), RulesBender(), GreedyAgent()], seeds=[0, 1, 2, 3])
        assert bent == honest
        assert rules == make_rules(variant) and game.rules.max_rounds == 10


# ------------------------------------------------------------------ engine
class EnginePatcher(GreedyAgent):
    """Patches the engine class its view names, so that its own hand is always the best."""

    name = "engine_patcher"

    def act(self, view):
        me, original = view.seat, view.engine.hand_value
        view.engine.hand_value = lambda game, seat: 10**6 if seat == me else original(game, seat)
        return super().act(view)


def test_patching_the_engine_class_changes_no_outcome_and_is_undone():
    engine = ENGINES["trade_barter"]
    before = dict(vars(engine))
    try:
        with pytest.raises(RuntimeError, match="engine_patcher") as error:
            run_arena([EnginePatcher(), "greedy"], variant="trade_barter", num_players=2, games=8, progress=False)
        assert "hand_value" in str(error.value)  # what it changed
        assert dict(vars(engine)) == before  # undone: later games in this process play the real rules
    finally:
        if "hand_value" in vars(engine) and "hand_value" not in before:
            delattr(engine, "hand_value")


class LatePatcher(EnginePatcher):
    """Plays fair for a while, then patches the engine."""

    name = "late_patcher"
    decisions = 0

    def act(self, view):
        type(self).decisions += 1
        if type(self).decisions > 40:
            return super().act(view)
        return GreedyAgent.act(self, view)


def test_a_patch_found_mid_run_keeps_the_fair_groups_and_names_the_agent():
    engine = ENGINES["trade_barter"]
    before = dict(vars(engine))
    LatePatcher.decisions = 0
    try:
        result = run_arena([LatePatcher(), "greedy"], variant="trade_barter", num_players=2, games=40,
                           progress=False)
        crash = result["crash"]
        assert crash["agent"] == "late_patcher" and "hand_value" in crash["message"]
        assert 0 < result["groups"] == crash["group"]
        assert dict(vars(engine)) == before
    finally:
        if "hand_value" in vars(engine) and "hand_value" not in before:
            delattr(engine, "hand_value")


# ------------------------------------------------------------ bad agents
class RuleBreaker(GreedyAgent):
    """Answers with an action that is not legal now."""

    name = "rule_breaker"
    returned = None

    def act(self, view):
        type(self).returned = next(a for a in range(27) if a not in view.legal_actions)
        return self.returned


def test_an_illegal_action_names_the_agent_its_seat_and_the_action():
    with pytest.raises(IllegalActionError) as error:
        run_arena([RuleBreaker(), "random"], variant="trade_barter", num_players=2, games=2, progress=False)
    text = str(error.value)
    assert "rule_breaker" in text and ("seat 0" in text or "seat 1" in text)
    assert f"action {RuleBreaker.returned}" in text


class Crasher(GreedyAgent):
    """Raises at its 60th decision of the run."""

    name = "crasher"
    decisions = 0

    def act(self, view):
        type(self).decisions += 1
        if type(self).decisions == 60:
            raise ZeroDivisionError("the crasher's bug")
        return super().act(view)


def test_a_crash_keeps_the_groups_finished_before_it(tmp_path):
    Crasher.decisions = 0
    result = run_arena([Crasher(), "greedy"], variant="trade_barter", num_players=2, games=200, progress=False,
                       out_dir=tmp_path)
    crash = result["crash"]
    assert crash["agent"] == "crasher" and crash["seat"] in (0, 1)
    assert crash["error"] == "ZeroDivisionError" and "the crasher's bug" in crash["message"]
    assert 0 < result["groups"] == crash["group"] < 100  # the groups before the crash, and no more
    assert result["games"] == 2 * result["groups"] and result["agents"]["crasher"]["games"] == result["groups"] * 2
    assert any("crasher" in warning for warning in result["warnings"])
    saved = json.loads((tmp_path / "result.json").read_text())
    assert saved["crash"] == crash and saved["groups"] == result["groups"]


@pytest.mark.parametrize("route", ["class", "base class", "module global", "table of engines", "rules class"])
def test_the_engine_guard_undoes_a_change_by_any_route(route):
    import copy

    from agents.boundary import EngineGuard
    from commerce_env.rules import Rules

    engine = ENGINES["widow"]
    view = seat_view(new_game(make_rules("widow"), 3, seed=1), 0)
    guard = EngineGuard("widow")
    copy.copy(view.rules)  # Python's own notes on a class (copy's __slotnames__) are no change
    assert guard.changes() == []
    globals_ = view.engine.value_of.__globals__  # commerce_env.engine.base's, reached from the view
    originals = (globals_["hand_key"], ENGINES["widow"], Rules.has_lives)
    if route == "class":
        view.engine.value_of = staticmethod(lambda cards, combinations: 0)
    elif route == "base class":
        engine.__mro__[1].value_of = staticmethod(lambda cards, combinations: 0)
    elif route == "module global":
        globals_["hand_key"] = lambda cards, combinations: 0
    elif route == "table of engines":
        ENGINES["widow"] = type("Widow", (engine,), {})
    else:
        Rules.has_lives = property(lambda rules: False)
    assert len(guard.changes()) == 1
    assert (globals_["hand_key"], ENGINES["widow"], Rules.has_lives) == originals
    assert "value_of" not in vars(engine) and guard.changes() == []
