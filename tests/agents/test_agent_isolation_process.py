"""The arena's isolated mode: each agent in a process of its own, handed pickled views (R11).

An agent in the arena's own process can reach the live game with
``gc.get_objects()``; in its own process it finds nothing to reach: a
hand-swapping cheater scores exactly what the same agent without the cheat
scores on the same duplicate deals.  Its answers are read back as an action
number only, and checked.
"""

from __future__ import annotations

import gc
import json
import multiprocessing
import os
import struct
import time
import warnings

import pytest

from agents.arena import run_arena
from agents.base import Agent
from agents.heuristics import GreedyAgent
from commerce_env.engine.actions import BadActionError, IllegalActionError
from commerce_env.engine.base import Game

ARENA = dict(variant="trade_barter", num_players=2, progress=False, seed=0)  # isolated, the default is secret


class HandSwapper(GreedyAgent):
    """Finds every live game in its process and takes the best hand at the table for itself."""

    name = "hand_swapper"
    cheat = True

    def act(self, view):
        if self.cheat:
            with warnings.catch_warnings():  # isinstance on every object in the process: some warn
                warnings.simplefilter("ignore")
                games = [obj for obj in gc.get_objects() if isinstance(obj, Game)]
            for game in games:
                if game.over or not game.hands[view.seat]:
                    continue
                best = max(game.order, key=game.hand_value)
                game.hands[view.seat], game.hands[best] = game.hands[best], game.hands[view.seat]
        return super().act(view)


class Honest(HandSwapper):
    cheat = False


def test_the_hand_swapper_wins_in_process():  # what isolation is for
    cheat = run_arena([HandSwapper(), "greedy"], games=40, **ARENA)
    honest = run_arena([Honest(), "greedy"], games=40, **ARENA)
    assert cheat["agents"]["hand_swapper"]["mean"] > honest["agents"]["hand_swapper"]["mean"] + 0.3


def test_isolated_the_hand_swapper_gains_nothing():
    honest = run_arena([Honest(), "greedy"], games=40, **ARENA)
    isolated = run_arena([HandSwapper(), "greedy"], games=40, isolate=True, **ARENA)
    assert isolated["agents"] == honest["agents"]  # every statistic, to the last digit
    assert isolated["isolate"] is True and honest["isolate"] is False


class Answers(Agent):
    """Returns ``value`` as its action."""

    name = "answers"

    def __init__(self, value):
        self.value = value

    def act(self, view):
        return self.value


class Exits(Agent):
    """Ends its own process at its first decision."""

    name = "exits"

    def act(self, view):
        os._exit(3)


@pytest.mark.parametrize("agent, error, named", [
    (Answers(9.0), BadActionError, "9.0"),
    (Answers(26), IllegalActionError, "26"),
    (Exits(), RuntimeError, "exit code 3"),
], ids=["float", "illegal", "exit"])
def test_an_isolated_agents_bad_answer_is_refused_and_named(agent, error, named):
    with pytest.raises(error) as raised:
        run_arena([agent, "random"], games=2, isolate=True, **ARENA)
    assert agent.name in str(raised.value) and named in str(raised.value)


@pytest.mark.parametrize("bad", [{"isolate": "yes"}, {"isolate": True, "workers": 2},
                                 {"isolate": True, "backend": "ray"}, {"isolate": True, "batched": True}])
def test_isolate_is_checked_before_playing(bad):
    with pytest.raises(ValueError, match="isolate"):
        run_arena(["greedy", "random"], games=2, **{**ARENA, **bad})


def test_commerce_arena_isolate(tmp_path, capsys):
    from training.cli import main

    code = main(["arena", "--isolate", "--agents", "greedy,random", "--players", "2", "--games", "4",
                 "--no-progress", "--out", str(tmp_path)])
    assert code == 0
    assert json.loads((tmp_path / "result.json").read_text())["isolate"] is True
    assert main(["arena", "--isolate", "--workers", "2", "--agents", "greedy", "--no-progress"]) == 2
    assert "isolate" in capsys.readouterr().err
    saved = tmp_path / "games.jsonl"
    assert main(["arena", "--isolate", "--save-games", "2", str(saved), "--agents", "greedy", "--no-progress"]) == 2
    assert "--isolate" in capsys.readouterr().err and not saved.exists()


class MisbehavesAt(GreedyAgent):
    """Plays greedy, but calls :meth:`misbehave` at its ``at``-th decision of the run (counted in
    its own process: the count is its own)."""

    at = 0
    decisions = 0

    def act(self, view):
        type(self).decisions += 1
        if type(self).decisions == self.at:
            self.misbehave()
        return super().act(view)


def _hang():
    while True:  # a loop that never ends, as a buggy search might
        time.sleep(1)


def _pipes():
    """The open pipe ends in this process: in an isolated agent's process, its pipe to the arena."""
    from multiprocessing.connection import Connection

    return [obj for obj in gc.get_objects() if isinstance(obj, Connection) and not obj.closed]


def _write_half_a_message(kind):
    """Write into each pipe to the arena the length of a 4,000-byte message, then only its first byte."""
    for pipe in _pipes():
        os.write(pipe.fileno(), struct.pack("!i", 4000) + kind)


class Crashes(MisbehavesAt):
    """Raises at its 30th decision of the run."""

    name = "crashes"
    at = 30

    def misbehave(self):
        raise ZeroDivisionError("the isolated agent's bug")


def test_an_isolated_crash_keeps_the_groups_finished_before_it():
    result = run_arena([Crashes(), "greedy"], games=100, isolate=True, **ARENA)
    crash = result["crash"]
    assert crash["agent"] == "crashes" and crash["error"] == "ZeroDivisionError"
    assert "the isolated agent's bug" in crash["message"] and 0 < result["groups"] == crash["group"]
    assert multiprocessing.active_children() == []  # the agents' processes are stopped


class _Payload:
    """Unpickling this creates the file ``path``."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return open, (self.path, "w")


class PipeWriter(GreedyAgent):
    """Writes a pickle of its own making straight into its process's pipe to the arena."""

    name = "pipe_writer"

    def __init__(self, marker):
        super().__init__()
        self.marker = marker

    def act(self, view):
        import pickle

        for pipe in _pipes():
            pipe.send_bytes(pickle.dumps(_Payload(self.marker)))
        return super().act(view)


def test_the_arena_never_unpickles_what_an_agents_process_sends(tmp_path):
    marker = tmp_path / "unpickled"
    with pytest.raises(RuntimeError, match="pipe_writer") as error:
        run_arena([PipeWriter(str(marker)), "greedy"], games=2, isolate=True, **ARENA)
    assert "BadReply" in str(error.value) and not marker.exists()


class Stalls(MisbehavesAt):
    """Never answers its 20th decision of the run."""

    name = "stalls"
    at = 20

    def misbehave(self):
        _hang()


def test_an_isolated_agent_over_its_time_limit_stops_the_run_named():
    result = run_arena([Stalls(), "greedy"], games=100, isolate=True, time_limit=0.5, **ARENA)
    crash = result["crash"]
    assert crash["agent"] == "stalls" and crash["error"] == "Timeout" and "0.5 s" in crash["message"]
    assert 0 < result["groups"] == crash["group"] and result["time_limit"] == 0.5
    assert multiprocessing.active_children() == []  # the stalled process is killed, not waited on


def test_agents_within_their_time_limit_play_the_run_as_without_one():
    limited = run_arena(["greedy", "random"], games=8, isolate=True, time_limit=60, **{**ARENA, "seed": 4})
    free = run_arena(["greedy", "random"], games=8, isolate=True, **{**ARENA, "seed": 4})
    assert limited["crash"] is None and limited["time_limit"] == 60.0 and free["time_limit"] is None
    assert limited["agents"] == free["agents"]


@pytest.mark.parametrize("bad", [{"time_limit": 1.0}, {"isolate": True, "time_limit": 0},
                                 {"isolate": True, "time_limit": -2.0}, {"isolate": True, "time_limit": "5"},
                                 {"isolate": True, "time_limit": float("nan")},
                                 {"isolate": True, "time_limit": float("inf")}, {"isolate": True, "time_limit": True}])
def test_a_time_limit_is_checked_before_playing(bad):
    with pytest.raises(ValueError, match="time_limit"):
        run_arena(["greedy", "random"], games=2, **{**ARENA, **bad})


def test_commerce_arena_time_limit_needs_isolate(capsys):
    from training.cli import main

    assert main(["arena", "--time-limit", "5", "--agents", "greedy,random", "--players", "2", "--games", "2",
                 "--no-progress"]) == 2
    assert "time_limit" in capsys.readouterr().err


class HalfAnswers(MisbehavesAt):
    """At its 5th decision writes the start of a message into its pipe to the arena, then never the rest."""

    name = "half_answers"
    at = 5

    def misbehave(self):
        _write_half_a_message(b"A")
        _hang()


def test_the_time_limit_holds_against_an_answer_left_half_written():
    # The time limit bounds the whole answer, not only its first byte.
    import threading

    done = {}
    run = threading.Thread(target=lambda: done.update(result=run_arena([HalfAnswers(), "greedy"], games=40,
                                                                       isolate=True, time_limit=0.5, **ARENA)),
                           daemon=True)
    run.start()
    run.join(60)
    assert not run.is_alive(), "the arena waited on a half-written answer"
    crash = done["result"]["crash"]
    assert crash["agent"] == "half_answers" and crash["error"] == "Timeout"


class HalfReady(GreedyAgent):
    """Unpickled in its own process, writes the start of a message into its pipe, then hangs."""

    name = "half_ready"

    def __setstate__(self, state):
        _write_half_a_message(b"R")
        _hang()


def test_the_start_limit_holds_against_a_ready_message_left_half_written(monkeypatch):
    import threading

    import agents.isolated

    monkeypatch.setattr(agents.isolated, "START_SECONDS", 8.0)
    done = {}

    def play():
        try:
            run_arena([HalfReady(), "random"], games=2, isolate=True, **ARENA)
        except Exception as error:  # noqa: BLE001 - the error is what this test looks at
            done["error"] = error

    run = threading.Thread(target=play, daemon=True)
    run.start()
    run.join(60)
    assert not run.is_alive(), "the arena waited on a half-written ready message"
    assert "half_ready" in str(done["error"]) and "Timeout" in str(done["error"])
    assert multiprocessing.active_children() == []


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] not in "ZX"
    except FileNotFoundError:
        return False


class Forks(MisbehavesAt):
    """At its 5th decision forks a child that sleeps for ever, holding the process's end of the pipe,
    and notes the child's pid in the file ``pid_file``; with ``hang`` then never answers."""

    name = "forks"
    at = 5

    def __init__(self, pid_file, hang):
        super().__init__()
        self.pid_file, self.hang = pid_file, hang

    def misbehave(self):
        self.fork()
        if self.hang:
            _hang()

    def fork(self):
        child = os.fork()
        if child == 0:
            _hang()
        with open(self.pid_file, "w") as out:
            out.write(str(child))


class ForksWhenUnpickled(Forks):
    """Forks its child as it is unpickled in its own process, before it serves the arena (and at
    no decision: the count starts at 1)."""

    at = 0

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.fork()


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
@pytest.mark.parametrize("forks, hang", [(Forks, True), (Forks, False), (ForksWhenUnpickled, False)],
                         ids=["hangs", "answers", "unpickled"])
def test_an_isolated_agents_forked_child_neither_holds_the_arena_nor_outlives_the_run(tmp_path, forks, hang):
    # A child holding the pipe's end keeps it open after the agent's process is killed: the read must not wait on it.
    import threading

    pid_file = tmp_path / "child.pid"
    done = {}
    run = threading.Thread(target=lambda: done.update(result=run_arena([forks(str(pid_file), hang), "greedy"],
                                                                       games=10, isolate=True, time_limit=2,
                                                                       **ARENA)), daemon=True)
    run.start()
    run.join(30)
    child = int(pid_file.read_text())
    try:
        assert not run.is_alive(), "the arena waited on a pipe held open by the agent's child"
        crash = done["result"]["crash"]
        assert (crash["agent"], crash["error"]) == ("forks", "Timeout") if hang else crash is None
        for _ in range(100):  # the child is killed with its parent; its reaping is not the arena's
            if not _running(child):
                break
            time.sleep(0.05)
        assert not _running(child), "the agent's child outlived the run"
    finally:
        if _running(child):
            os.kill(child, 9)
        run.join(10)
