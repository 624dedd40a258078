"""What the isolated arena guarantees against an agent that works against it (docs/arena.md):
a time limit that bounds sending the view too, one process per seat, no process left behind;
and what the in-process guard keeps: the engine after a run is the engine before it."""

from __future__ import annotations

import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time

import pytest
from test_agent_isolation_process import MisbehavesAt, _hang, _pipes, _running

import agents.isolated
from agents.arena import run_arena
from agents.boundary import EngineChangedError, EngineGuard
from agents.heuristics import GreedyAgent
from agents.keeper import children
from commerce_env.engine import ENGINES

ARENA = dict(variant="trade_barter", num_players=2, progress=False, seed=0)  # isolated, the default is secret
linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; a subreaper is Linux's")


def _in_thread(run, seconds=60):
    """Run ``run()`` on a thread; its result or error, or fail if it is still running after ``seconds``."""
    done = {}

    def target():
        try:
            done["result"] = run()
        except BaseException as error:  # noqa: BLE001 - the error is what the test looks at
            done["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "the arena is still waiting"
    return done


# ----------------------------------------------------------- the time limit covers the send
class _SmallSendBuffers:
    """The spawn context, with the arena's end of each pipe given a send buffer of a few KB: a seat
    view then fills it as a long deal's view (hundreds of KB) fills the default one."""

    def __init__(self, context):
        self._context = context

    def __getattr__(self, name):
        return getattr(self._context, name)

    def Pipe(self):  # noqa: N802 - multiprocessing's name
        mine, theirs = self._context.Pipe()
        with socket.fromfd(mine.fileno(), socket.AF_UNIX, socket.SOCK_STREAM) as end:
            end.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1024)
        return mine, theirs


class AnswersThenStopsReading(MisbehavesAt):
    """At its 3rd decision writes its answer into its pipe itself, then never reads again."""

    name = "stops_reading"
    at = 3

    def act(self, view):
        type(self).decisions += 1
        if type(self).decisions == self.at:
            for pipe in _pipes():
                pipe.send_bytes(b"A%d" % super().act(view))
            _hang()
        return super().act(view)


def test_the_time_limit_covers_sending_the_view_to_an_agent_that_stops_reading(monkeypatch):
    spawn = multiprocessing.get_context("spawn")
    monkeypatch.setattr(agents.isolated.multiprocessing, "get_context", lambda method: _SmallSendBuffers(spawn))
    done = _in_thread(lambda: run_arena([AnswersThenStopsReading(), "greedy"], games=40, isolate=True,
                                        time_limit=1, **ARENA))
    crash = done["result"]["crash"]
    assert (crash["agent"], crash["error"]) == ("stops_reading", "Timeout") and crash["seat"] in (0, 1)
    assert multiprocessing.active_children() == []


# ----------------------------------------------------------- no process outlives the run
_ESCAPE = textwrap.dedent("""
    import os, sys, time
    if os.fork():  # started in a session of its own (start_new_session=True)
        os._exit(0)  # the grandchild below is an orphan in a session of its own
    with open(sys.argv[1], "w") as out:
        out.write(str(os.getpid()))
    while True:
        time.sleep(0.05)
""")


class StartsASession(MisbehavesAt):
    """At its 3rd decision starts a process in a new session that leaves an orphan behind (its pid
    in ``pid_file``), as a daemon does; with ``hang`` then never answers."""

    name = "starts_a_session"
    at = 3

    def __init__(self, pid_file, hang=False):
        super().__init__()
        self.pid_file, self.hang = pid_file, hang

    def misbehave(self):
        subprocess.Popen([sys.executable, "-c", _ESCAPE, self.pid_file], start_new_session=True).wait()
        for _ in range(400):  # the orphan has started and said who it is
            if os.path.exists(self.pid_file) and open(self.pid_file).read():
                break
            time.sleep(0.05)
        if self.hang:
            _hang()


def _wait_for_file(path, seconds=30):
    for _ in range(int(seconds / 0.05)):
        if os.path.exists(path) and open(path).read():
            return int(open(path).read())
        time.sleep(0.05)
    raise AssertionError(f"{path} was never written")


@linux
@pytest.mark.parametrize("hang", [False, True], ids=["finishes", "times-out"])
def test_a_process_in_a_new_session_does_not_outlive_run_arena(tmp_path, hang):
    pid_file = tmp_path / "escaped.pid"
    result = run_arena([StartsASession(str(pid_file), hang), "greedy"], games=20, isolate=True, time_limit=2,
                       **ARENA)
    escaped = _wait_for_file(pid_file)
    try:
        assert (result["crash"] or {}).get("error") == ("Timeout" if hang else None)
        assert not _running(escaped), "a process the agent started outlived run_arena"
    finally:
        if _running(escaped):
            os.kill(escaped, signal.SIGKILL)


_ARENA_SCRIPT = textwrap.dedent("""
    import sys
    from agents.arena import run_arena
    from test_isolation_holds import StartsASession
    if __name__ == "__main__":
        run_arena([StartsASession(sys.argv[1], hang=True), "greedy"], variant="trade_barter", num_players=2,
                  games=20, isolate=True, progress=False)
""")


@linux
@pytest.mark.parametrize("how, group", [(signal.SIGINT, False), (signal.SIGKILL, False), (signal.SIGTERM, True),
                                        (signal.SIGHUP, True)], ids=["ctrl-c", "killed", "group-term", "group-hup"])
def test_no_process_outlives_an_arena_that_is_interrupted_or_killed(tmp_path, how, group):
    # group: the signal goes to the arena's whole process group, as a terminal's hang-up or `timeout` sends it
    pid_file, script = tmp_path / "escaped.pid", tmp_path / "arena_script.py"
    script.write_text(_ARENA_SCRIPT)
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    # The arena as a terminal starts it: a hang-up kills it (a test runner started under nohup ignores
    # SIGHUP, and its children would inherit that)
    arena = subprocess.Popen([sys.executable, str(script), str(pid_file)], cwd=root, stderr=subprocess.DEVNULL,
                             env={**os.environ, "PYTHONPATH": os.pathsep.join([root, here])},
                             start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL))
    escaped = None
    try:
        escaped = _wait_for_file(pid_file, 120)
        keeper_and_agents = children(arena.pid)
        if group:
            os.killpg(arena.pid, how)
        else:
            arena.send_signal(how)
        arena.wait(60)
        for _ in range(200):  # the keeper sweeps as soon as the arena is gone
            if not _running(escaped) and not any(map(_running, keeper_and_agents)):
                break
            time.sleep(0.05)
        assert not _running(escaped), "a process the agent started outlived the arena"
        assert not any(map(_running, keeper_and_agents)), "the keeper outlived the arena"
    finally:
        arena.kill()
        if escaped and _running(escaped):
            os.kill(escaped, signal.SIGKILL)


# ----------------------------------------------------------- one process per seat
_SEEN: dict[int, tuple] = {}  # a module global: shared by the copies of an agent in one process


class Colluder(GreedyAgent):
    """Notes its hand where its copies can read it; when it reads a partner's live hand it notes so
    in ``log`` and plays the first legal action instead of greedy's choice."""

    name = "colluder"

    def __init__(self, log):
        super().__init__()
        self.log = log

    def reset(self, seat, num_players, rules, seed=None):
        _SEEN.clear()  # a new game: every copy at the table is reset before it starts

    def act(self, view):
        _SEEN[view.seat] = (view.deals_dealt, view.hand)
        partners = [seat for seat, (deal, hand) in _SEEN.items()
                    if seat != view.seat and deal == view.deals_dealt and hand]
        if partners:
            with open(self.log, "a") as out:
                out.write(f"seat {view.seat} read seat {partners[0]}'s hand\n")
            return view.legal_actions[0]
        return super().act(view)


class Honest(GreedyAgent):
    name = "colluder"


def test_copies_of_an_isolated_agent_cannot_read_each_others_hands(tmp_path):
    arena = dict(variant="trade_barter", num_players=4, games=32, seed=3, progress=False)
    in_process, isolated = tmp_path / "in_process.log", tmp_path / "isolated.log"
    control = run_arena([Colluder(str(in_process)), "greedy"], **arena)  # seats 0 and 2 share one process
    _SEEN.clear()
    alone = run_arena([Colluder(str(isolated)), "greedy"], isolate=True, **arena)
    honest = run_arena([Honest(), "greedy"], **arena)
    assert in_process.exists() and control["agents"] != honest["agents"]  # the control: collusion works there
    assert not isolated.exists()
    assert alone["agents"] == honest["agents"]  # every statistic, to the last digit


# ----------------------------------------------------------- the in-process guard
class SwitchesOffTheGuard(GreedyAgent):
    """Switches the engine guard off, then makes its own hand the best at every showdown."""

    name = "switches_off_the_guard"

    def act(self, view):
        seat = view.seat
        EngineGuard.changes = lambda self: []
        view.engine.hand_value = lambda game, s: 10**9 if s == seat else 0
        return super().act(view)


def test_an_agent_that_switches_off_the_guard_is_caught_and_the_engine_restored():
    changes, hand_value = EngineGuard.changes, ENGINES["trade_barter"].hand_value
    try:
        with pytest.raises(EngineChangedError) as error:
            run_arena([SwitchesOffTheGuard(), "greedy"], games=4, **ARENA)
        assert error.value.agent == "switches_off_the_guard"
        assert "EngineGuard.changes" in error.value.message and "hand_value" in error.value.message
        assert EngineGuard.changes is changes and ENGINES["trade_barter"].hand_value is hand_value
        assert "hand_value" not in vars(ENGINES["trade_barter"])
    finally:
        EngineGuard.changes = changes
        if "hand_value" in vars(ENGINES["trade_barter"]):
            del ENGINES["trade_barter"].hand_value


# ----------------------------------------------------------- a user's module, isolated
_NOTES_IMPORTS = '''
import os
from agents.heuristics import GreedyAgent
open(os.path.join(os.path.dirname(__file__), f"imported.{os.getpid()}"), "w").close()


class Noted(GreedyAgent):
    name = "noted"
'''


def test_an_isolated_module_agent_is_imported_in_its_seats_processes_only(tmp_path, monkeypatch):
    from agents.module_agents import ModuleSpec

    (tmp_path / "noted_agents.py").write_text(_NOTES_IMPORTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    result = run_arena([ModuleSpec("noted_agents:Noted"), "greedy"], games=4, isolate=True, **ARENA)
    assert result["crash"] is None
    importers = {int(path.suffix[1:]) for path in tmp_path.glob("imported.*")}
    assert importers and os.getpid() not in importers  # its module-level code never ran in the arena's process


_PLANTED = '''
import os
open(os.path.join(os.path.dirname(os.path.abspath(__file__)), f"planted.{os.getpid()}"), "w").close()
raise ModuleNotFoundError("not here")
'''


_LAUNCHER = """import sys
from training.cli import main
if __name__ == "__main__":  # as pip's console scripts
    sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.skipif(sys.version_info < (3, 11), reason="PYTHONSAFEPATH (no current folder on the path) is 3.11's")
def test_files_in_an_isolated_agents_folder_run_in_its_seats_processes_only(tmp_path):
    # Files named as modules the standard library tries (msvcrt, _winapi: Windows', looked for and not
    # found elsewhere; org: pickle's) sit beside the untrusted agent. Started as the `commerce` script is
    # (a script's own folder first on its path), neither the arena's process nor any process it starts
    # but the seats' (the keeper, multiprocessing's resource tracker) may find them.
    agent_folder, launcher = tmp_path / "agent", tmp_path / "bin" / "commerce_launcher.py"
    agent_folder.mkdir()
    launcher.parent.mkdir()
    launcher.write_text(_LAUNCHER)
    (agent_folder / "noted_agents.py").write_text(_NOTES_IMPORTS)
    for planted in ("msvcrt.py", "_winapi.py", "org/__init__.py"):
        (agent_folder / planted).parent.mkdir(exist_ok=True)
        (agent_folder / planted).write_text(_PLANTED)
    arena = subprocess.Popen([sys.executable, str(launcher), "arena", "--isolate", "--agents",
                              "noted_agents:Noted,greedy", "--variant", "trade_barter", "--players", "2",
                              "--games", "4", "--seed", "0", "--no-progress"],
                             cwd=agent_folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = arena.communicate(timeout=300)
    assert arena.returncode == 0, err
    seats = {int(path.suffix[1:]) for path in agent_folder.glob("imported.*")}
    planted = {int(path.suffix[1:]) for path in agent_folder.rglob("planted.*")}
    assert seats and arena.pid not in seats
    assert planted <= seats  # none in the arena's process, the keeper or the resource tracker


class NotesItsSession(GreedyAgent):
    """Notes its process's id and its session's."""

    name = "notes_session"

    def __init__(self, path):
        super().__init__()
        self.path = path

    def act(self, view):
        with open(self.path, "a") as out:
            out.write(f"{os.getpid()} {os.getsid(0)}\n")
        return super().act(view)


@linux
def test_a_seat_leads_a_session_of_its_own_with_no_terminal(tmp_path):
    # so that /dev/tty, the arena's terminal, is not the seat's to write to
    notes = tmp_path / "sessions"
    result = run_arena([NotesItsSession(str(notes)), "greedy"], games=2, isolate=True, **ARENA)
    assert result["crash"] is None
    seen = {tuple(map(int, line.split())) for line in notes.read_text().splitlines()}
    assert seen and all(pid == session for pid, session in seen)
    assert os.getsid(0) not in {session for _, session in seen}


# ----------------------------------------------------------- the deals are not the agent's to know
def test_an_isolated_run_draws_its_deals_from_a_secret_seed_unless_one_is_given():
    arena = dict(variant="trade_barter", num_players=2, progress=False, games=4)
    first = run_arena(["greedy", "random"], isolate=True, **arena)
    second = run_arena(["greedy", "random"], isolate=True, **arena)
    assert first["seed"] != second["seed"]  # the packs follow from the seed by a public scheme
    given = run_arena(["greedy", "random"], isolate=True, seed=5, **arena)
    assert given["seed"] == 5 and run_arena(["greedy", "random"], **arena)["seed"] == 0


class PicklesBadly(GreedyAgent):
    name = "pickles_badly"

    def __reduce__(self):
        raise ValueError("no")


def test_an_agent_object_that_cannot_be_sent_to_its_process_is_named():
    with pytest.raises(ValueError, match="pickles_badly"):
        run_arena([PicklesBadly(), "greedy"], games=2, isolate=True, **ARENA)


# ----------------------------------------------------------- processes that replace each other
_RELAY = textwrap.dedent("""
    import os, select, sys, time
    pid_file, depth = sys.argv[1], 6
    os.setsid()
    watched, bottom = [], True  # pidfds of the links above this one, inherited through fork
    while True:
        poller = select.poll()
        for fd in watched:
            poller.register(fd, select.POLLIN)
        dead = {fd for fd, _ in poller.poll(0)}
        watched = [fd for fd in watched if fd not in dead]
        if bottom and len(watched) < depth:  # the bottom link keeps the chain deep: a link that dies is replaced
            me = os.pidfd_open(os.getpid())
            if os.fork() == 0:
                watched.append(me)
                with open(pid_file, "a") as out:
                    out.write(f"{os.getpid()}\\n")
                continue
            bottom = False
        poller.poll(50)
""")


class StartsARelay(MisbehavesAt):
    """At its 3rd decision starts a chain of processes that replace any link killed (their pids in
    ``pid_file``), then plays on."""

    name = "starts_a_relay"
    at = 3

    def __init__(self, pid_file):
        super().__init__()
        self.pid_file = pid_file

    def misbehave(self):
        subprocess.Popen([sys.executable, "-S", "-c", _RELAY, self.pid_file])
        for _ in range(400):
            if os.path.exists(self.pid_file) and len(open(self.pid_file).read().split()) >= 6:
                break
            time.sleep(0.05)


@linux
@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="the relay watches with pidfds")
def test_processes_that_replace_each_other_do_not_outlive_the_run(tmp_path):
    pid_file = tmp_path / "relay.pids"
    done = _in_thread(lambda: run_arena([StartsARelay(str(pid_file)), "greedy"], games=10, isolate=True,
                                        time_limit=5, **ARENA), seconds=60)
    assert done["result"]["crash"] is None
    time.sleep(0.5)
    pids = [int(p) for p in pid_file.read_text().split()]
    alive = [p for p in pids if _running(p)]
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    assert len(pids) >= 6 and not alive, f"{len(alive)} of the relay's processes outlived the run"
