"""Agents in processes of their own: the arena's isolated mode (``run_arena(..., isolate=True)``,
``commerce arena --isolate``), for agents one does not trust.

As in the ACPC's dealer, the game stays in the arena's process.  Each *seat*
plays in a process of its own (:mod:`agents.agent_process`, started with
``spawn``: a fresh interpreter that inherits no memory of the arena), so two
copies of one agent cannot read each other's views.  The processes are
started by a keeper (:mod:`agents.keeper`) that stops them, and everything
they started, when the run ends however it ends.  At each decision the arena
sends the seat view, pickled, and reads back one short message that it parses
itself, never unpickles: an action number (ASCII digits), or the name and
text of the agent's error.  The action is then checked in the arena
(:class:`agents.boundary.Seat`: an integer, legal now).

With a ``time_limit`` each decision's deadline covers sending the view, the
agent's work and reading its answer: at the deadline the seat's process and
its process group are killed and its pipe is shut (which ends a blocked send
or read even if a child holds the other end), and the run stops naming the
agent and seat (``Timeout``).  The messages that need no answer (the seat's
reset, each action told to a listening agent) are sent under the same limit.

The cost is a round trip per decision (a pickled view each way of one pipe)
and a process start per seat.  It is not a sandbox: the agent's code runs
with the user's permissions (docs/arena.md says what holds and what does not).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import re
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from commerce_env.checks import bounded_number

from .agent_process import TEXT_LIMIT
from .keeper import keep, kill_group, send_signal

__all__ = ["MAX_TIME_LIMIT", "AgentProcesses", "check_time_limit"]

REPLY_LIMIT = 8192  # bytes of one message from an agent's process; longer ends the run
START_SECONDS = 120.0  # for the processes to import the project and build their agents
MAX_TIME_LIMIT = 86_400.0  # the longest time limit per decision, in seconds (a day)
# The arena's own findings about a seat's process; an agent's exception of one of these names is marked.
VERDICTS = ("Timeout", "BadReply", "ProcessEnded", "Interrupted", "EngineChanged")
_ACTION = re.compile(r"-?[0-9]{1,19}")  # ASCII digits only: str.isdigit() also takes "²"


def check_time_limit(time_limit: object) -> float | None:
    """``time_limit`` as seconds per decision (None: no limit); a ``ValueError`` naming it if
    it is not a number above 0 and at most :data:`MAX_TIME_LIMIT`."""
    if time_limit is None:
        return None
    return bounded_number("time_limit (None, or seconds a decision)", time_limit, 0, MAX_TIME_LIMIT, above=True)


@contextlib.contextmanager
def _no_current_folder() -> Iterator[None]:
    """Processes started within put no current folder on their path (``PYTHONSAFEPATH``, Python 3.11+):
    a spawned process starts as ``python -c``, which would import from the arena's current folder (the
    untrusted agent's, say) before it takes the arena's path.  The seats add their agent's folder
    themselves (:attr:`agents.module_agents.ModuleSpec.folder`)."""
    before = os.environ.get("PYTHONSAFEPATH")
    os.environ["PYTHONSAFEPATH"] = "1"
    try:
        yield
    finally:
        if before is None:
            del os.environ["PYTHONSAFEPATH"]
        else:
            os.environ["PYTHONSAFEPATH"] = before


class AgentProcesses:
    """One process per seat of the lineup's agents, and a stand-in for each (``agents[a][copy]``).

    ``specs[a]`` is agent ``a``'s spec (a name, a mapping or an Agent object, which is pickled
    to its processes), ``copies[a]`` how many seats it holds, ``names[a]`` its name at the table.
    ``time_limit``: seconds each decision may take (None: no limit).  Close with :meth:`close`
    (the arena does, however the run ends)."""

    def __init__(self, specs: Mapping[int, Any], copies: Mapping[int, int], names: Mapping[int, str],
                 time_limit: float | None = None):
        time_limit = check_time_limit(time_limit)
        context = multiprocessing.get_context("spawn")
        self.agents: dict[int, list[RemoteAgent]] = {}
        self._keeper: Any = None
        self._control: Any = None
        self._watchdog = _Watchdog()
        self._seats: list[_SeatProcess] = []
        seats, ends = [], []
        try:
            for a, spec in specs.items():
                try:  # pickled here, unpickled in the seat's process once it leads its group
                    pickled = pickle.dumps(spec)
                except Exception as error:  # an object that does not pickle (its own __reduce__ may raise anything)
                    raise ValueError(f"isolate=True: agent {names[a]!r} cannot be sent to its own process "
                                     f"({type(error).__name__}: {error}); give it as a spec or make it "
                                     "picklable") from None
                for copy in range(copies[a]):
                    mine, theirs = context.Pipe()
                    seats.append((a, copy, mine))
                    ends.append((theirs, pickled, f"commerce-agent-{a}-{copy}"))
            self._control, keeper_end = context.Pipe()
            self._keeper = context.Process(target=keep, args=(keeper_end, ends),
                                           name="commerce-agent-keeper")
            with _no_current_folder():
                self._keeper.start()
            keeper_end.close()
            for theirs, _, _ in ends:
                theirs.close()
            started = time.monotonic()  # one start limit for all seats, not one each
            pids = self._started_pids(len(seats))
            for index, (a, _copy, conn) in enumerate(seats):
                process = _SeatProcess(pids[index], index, self)
                self._seats.append(process)
                left = max(START_SECONDS - (time.monotonic() - started), 0.001)
                flag = _ready(conn, process, names[a], self._watchdog, left)
                remote = (ListeningRemoteAgent if flag == "1" else RemoteAgent)(
                    conn, process, names[a], time_limit, self._watchdog)
                self.agents.setdefault(a, []).append(remote)
        except BaseException:
            for conn in [mine for _, _, mine in seats] + [theirs for theirs, _, _ in ends]:
                conn.close()
            self.close()
            raise

    def _started_pids(self, count: int) -> list[int]:
        """The keeper's report of the seats' process ids, within :data:`START_SECONDS`."""
        keeper = _SeatProcess(None, -1, self)
        kind, text = _receive_within(self._control, keeper, "keeper", None, START_SECONDS, self._watchdog,
                                     f"the agents' processes did not start within {START_SECONDS:.0f} s")
        pids = text.split(",")
        if kind != "P" or len(pids) != count or not all(_ACTION.fullmatch(p) for p in pids):
            raise _failure("keeper", None, "BadReply", f"the keeper sent {kind + text[:60]!r}, not the seats' ids")
        return [int(p) for p in pids]

    def exit_code(self, index: int) -> int | None:
        """Seat ``index``'s exit code, from the keeper (None if it runs on or the keeper is gone)."""
        self._wake_keeper()
        try:
            self._control.send_bytes(b"X%d" % index)
            if self._control.poll(3):
                answer = self._control.recv_bytes(64)
                if answer[:1] == b"X" and _ACTION.fullmatch(answer[1:].decode("ascii", "replace")):
                    return int(answer[1:])
        except (EOFError, OSError, ValueError):
            pass
        return None

    def keeper_alive(self) -> bool:
        return self._keeper is not None and self._keeper.is_alive()

    def _wake_keeper(self) -> None:
        """A keeper stopped by an agent (SIGSTOP) is made to go on."""
        if self._keeper is not None and self._keeper.pid is not None and self._keeper.is_alive():
            send_signal(self._keeper.pid, signal.SIGCONT)

    def close(self) -> None:
        """Stop every seat's process and what they started (the keeper does), then the keeper; if the
        keeper does not finish in time, kill the seats' processes and groups from here."""
        self._watchdog.close()
        self._wake_keeper()
        if self._control is not None:
            try:
                self._control.send_bytes(b"S")
            except (OSError, ValueError):
                pass
        if self._keeper is not None:
            self._keeper.join(timeout=10)
            if self._keeper.is_alive():
                for seat in self._seats:
                    seat.kill()
                self._keeper.kill()
                self._keeper.join()
        if self._control is not None:
            self._control.close()
        for remotes in self.agents.values():
            for remote in remotes:
                remote.close()
        self._keeper = self._control = None


class _SeatProcess:
    """The arena's handle on one seat's process, a child of the keeper: kill it, ask its exit code."""

    def __init__(self, pid: int | None, index: int, owner: AgentProcesses):
        self.pid, self.index, self._owner = pid, index, owner
        self.ended = False  # reaped by the keeper: its id may now be another process's

    def kill(self) -> None:
        if self.ended:
            return
        if self.pid is not None and self._owner.keeper_alive():  # while the keeper lives, the id is its child's
            kill_group(self.pid)
            send_signal(self.pid, signal.SIGKILL)
        elif self.pid is None and self._owner._keeper is not None:
            self._owner._keeper.kill()

    def exit_code(self) -> int | None:
        code = None if self.pid is None else self._owner.exit_code(self.index)
        self.ended = self.ended or code is not None
        return code


class _Watchdog:
    """One thread that runs an action at a deadline: the time limit of whatever is under way
    (the arena does one thing at a time).  Cheaper than a timer thread per message."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._armed: tuple[float, Callable[[], None]] | None = None
        self._fired = False
        self._closed = False
        self._thread: threading.Thread | None = None

    def arm(self, seconds: float, action: Callable[[], None]) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="commerce-isolated-deadline", daemon=True)
                self._thread.start()
            self._armed, self._fired = (time.monotonic() + seconds, action), False
            self._lock.notify()

    def disarm(self) -> bool:
        """Cancel the deadline; whether it had already fired."""
        with self._lock:
            self._armed = None
            return self._fired

    def close(self) -> None:
        with self._lock:
            self._closed, self._armed = True, None
            self._lock.notify()

    def _run(self) -> None:
        with self._lock:
            while not self._closed:
                if self._armed is None:
                    self._lock.wait()
                    continue
                deadline, action = self._armed
                left = deadline - time.monotonic()
                if left > 0:
                    self._lock.wait(left)
                    continue
                self._armed, self._fired = None, True
                action()


def _shut(conn: Any) -> None:
    """Shut the socket under ``conn``: a send or read blocked on it returns at once, even if a child
    of the agent's process holds the other end open."""
    try:
        with socket.fromfd(conn.fileno(), socket.AF_UNIX, socket.SOCK_STREAM) as end:
            end.shutdown(socket.SHUT_RDWR)
    except (OSError, ValueError, AttributeError):  # not a socket where there is none (Windows' pipes)
        pass


def _ready(conn: Any, process: _SeatProcess, name: str, watchdog: _Watchdog, seconds: float) -> str:
    """Wait up to ``seconds`` for a seat's process to say it is built; whether its agent listens
    (``"0"``/``"1"``)."""
    kind, text = _receive_within(conn, process, name, None, seconds, watchdog,
                                 f"the seats' processes did not start within {START_SECONDS:.0f} s")
    if kind != "R" or text not in ("0", "1"):
        raise _reply_error(kind, text, name, None, "a ready message")
    return text


def _receive(conn: Any, process: _SeatProcess, name: str, seat: int | None) -> tuple[str, str]:
    """One message from a seat's process, parsed here: its kind (a letter) and its text."""
    try:
        data = conn.recv_bytes(REPLY_LIMIT)
    except OSError as error:
        if str(error) == "bad message length":  # multiprocessing's word for a header above the limit
            raise _failure(name, seat, "BadReply", f"its process sent a message longer than {REPLY_LIMIT} "
                           "bytes") from None
        raise _broken(process, name, seat, f"its process sent no readable message ({error})") from None
    except EOFError as error:
        raise _broken(process, name, seat, f"its process sent no readable message ({error})") from None
    text = data[1:].decode("utf-8", errors="replace")
    return chr(data[0]) if data else "", text


def _receive_within(conn: Any, process: _SeatProcess, name: str, seat: int | None, seconds: float,
                    watchdog: _Watchdog, late: str) -> tuple[str, str]:
    """:func:`_receive` within ``seconds`` (see :func:`_within`)."""
    return _within(seconds, watchdog, conn, process, name, seat, late, lambda: _receive(conn, process, name, seat))


def _within(seconds: float | None, watchdog: _Watchdog, conn: Any, process: _SeatProcess, name: str,
            seat: int | None, late: str, work: Callable[[], Any]) -> Any:
    """``work()`` (sends and reads on ``conn``) within ``seconds``: past them the process and its
    group are killed and the pipe is shut, and a ``Timeout`` failure says ``late``."""
    from .boundary import AgentError

    if seconds is None:
        return work()

    def expire() -> None:
        process.kill()
        _shut(conn)

    watchdog.arm(seconds, expire)
    try:
        result = work()
    except (AgentError, OSError, EOFError, ValueError):
        if not watchdog.disarm():
            raise
        raise _failure(name, seat, "Timeout", late) from None
    if watchdog.disarm():
        raise _failure(name, seat, "Timeout", late)
    return result


def _failure(name: str, seat: int | None, error: str, message: str) -> Exception:
    from .boundary import AgentError

    return AgentError(name, seat, error, message)


def _broken(process: _SeatProcess, name: str, seat: int | None, why: str) -> Exception:
    """The failure of a pipe that broke: the process's end and exit code if it ended, else ``why``."""
    code = process.exit_code()
    if code is not None:
        return _failure(name, seat, "ProcessEnded", f"its process ended (exit code {code})")
    return _failure(name, seat, "BadReply", why)


def shown(text: str) -> str:
    """An agent's text as the arena may print or write it: each character that is not printable (a
    line break, a terminal's escape sequence, a direction mark) written as its escape, so that an
    agent cannot put lines into a terminal or a report that look like the arena's."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def _reply_error(kind: str, text: str, name: str, seat: int | None, expected: str) -> Exception:
    """The error a seat's process reported (``E``), or a failure for a message that is not ``expected``."""
    if kind == "E":
        error, _, message = text.partition("\n")
        error = "".join(c for c in error[:100] if c.isidentifier() or c.isdigit() or c == ".") or "Exception"
        if error in VERDICTS:  # the agent's own class of that name: not to be read as the arena's finding
            error += " (raised by the agent)"
        return _failure(name, seat, error, shown(message[:TEXT_LIMIT]))
    return _failure(name, seat, "BadReply", f"its process sent {kind + text[:60]!r}, not {expected}")


class RemoteAgent:
    """The arena's stand-in for one seat's agent playing in its own process, given ``time_limit``
    seconds per decision (None: no limit)."""

    def __init__(self, conn: Any, process: _SeatProcess, name: str, time_limit: float | None,
                 watchdog: _Watchdog):
        self._conn, self._process, self.name = conn, process, name
        self._seat: int | None = None
        self._time_limit, self._watchdog = time_limit, watchdog
        self._late = f"it did not answer within the time limit of {time_limit:g} s per decision" \
            if time_limit is not None else ""

    def reset(self, seat: int, num_players: int, rules: Any, seed: int | None = None) -> None:
        """Sent without waiting for an answer (a round trip less per game): an error here comes back
        with the next answer."""
        self._seat = seat
        self._send(("reset", seat, num_players, rules, seed))

    def act(self, view: Any) -> object:
        def decide() -> tuple[str, str]:
            self._conn.send(("act", view))
            return _receive(self._conn, self._process, self.name, self._seat)

        kind, text = self._within(decide)
        if kind == "A" and _ACTION.fullmatch(text):
            return int(text)  # checked by the arena's Seat: an action number, legal now
        if kind == "B":  # the agent returned something that is not an integer: shown as its repr
            return _NotAnAction(shown(text[:200]))
        raise _reply_error(kind, text, self.name, self._seat, "an action")

    def close(self) -> None:
        self._conn.close()

    def _within(self, work: Callable[[], Any]) -> Any:
        try:
            return _within(self._time_limit, self._watchdog, self._conn, self._process, self.name, self._seat,
                           self._late, work)
        except (OSError, ValueError, EOFError) as error:  # a send to a process that has ended: say how it ended
            raise _broken(self._process, self.name, self._seat, f"its pipe broke ({error})") from None

    def _send(self, message: tuple) -> None:
        """A message that needs no answer, under the time limit: an agent that stops reading cannot
        hold the arena."""
        self._within(lambda: self._conn.send(message))


class ListeningRemoteAgent(RemoteAgent):
    """A stand-in whose agent is told each action; errors there come back with its next answer."""

    def observe(self, seat: int, text: str) -> None:
        self._send(("observe", seat, text))


class _NotAnAction:
    """What an isolated agent returned instead of an integer, as the text of its ``repr``."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text
