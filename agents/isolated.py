"""Agents in processes of their own: the arena's isolated mode (``run_arena(..., isolate=True)``,
``commerce arena --isolate``), for agents one does not trust.

As in the ACPC's dealer, the game stays in the arena's process; each agent
of the lineup runs in a process of its own (started with ``spawn``: a fresh
interpreter that inherits no memory of the arena), with all its seats'
copies.  At each decision the arena sends the seat view, pickled, and reads
back one short message that it parses itself, never unpickles: an action
number, or the name and text of the agent's error.  Nothing in the agent's
process is the game: ``gc.get_objects()``, frames and module globals there
hold views and the agent's own sampled worlds only.  The action is then
checked in the arena (:class:`agents.boundary.Seat`: an integer, legal now).

With a ``time_limit`` an agent that does not answer a decision within that
many seconds (a loop, a deadlock, a search with no end) stops the run, named,
and its process is killed: the arena never waits on it for ever.

The cost is a round trip per decision (a pickled view each way of one pipe)
and a process start per agent.  It is not a sandbox: the agent's code runs
with the user's permissions.
"""

from __future__ import annotations

import multiprocessing
import numbers
import os
import pickle
import signal
import socket
import threading
from collections.abc import Mapping
from typing import Any

__all__ = ["MAX_TIME_LIMIT", "AgentProcesses", "check_time_limit", "serve"]

REPLY_LIMIT = 8192  # bytes of one message from an agent's process; longer ends the run
TEXT_LIMIT = 2000  # characters of an error's text kept
START_SECONDS = 120.0  # for a process to import the project and build its agent
MAX_TIME_LIMIT = 86_400.0  # the longest time limit per decision, in seconds (a day)


def check_time_limit(time_limit: object) -> float | None:
    """``time_limit`` as seconds per decision (None: no limit); a ``ValueError`` naming it if
    it is not a number above 0 and at most :data:`MAX_TIME_LIMIT`."""
    if time_limit is None:
        return None
    if (isinstance(time_limit, bool) or not isinstance(time_limit, numbers.Real)
            or not 0 < time_limit <= MAX_TIME_LIMIT):
        raise ValueError(f"time_limit must be None or seconds per decision above 0 and at most "
                         f"{MAX_TIME_LIMIT:.0f}, got {time_limit!r}")
    return float(time_limit)


class AgentProcesses:
    """One process per agent of the lineup, and a stand-in for each of its copies (``agents[a]``).

    ``specs[a]`` is agent ``a``'s spec (a name, a mapping or an Agent object, which is pickled
    to its process), ``copies[a]`` how many seats it holds, ``names[a]`` its name at the table.
    ``time_limit``: seconds each decision may take (None: no limit).
    Close with :meth:`close` (the arena does, however the run ends)."""

    def __init__(self, specs: Mapping[int, Any], copies: Mapping[int, int], names: Mapping[int, str],
                 time_limit: float | None = None):
        time_limit = check_time_limit(time_limit)
        context = multiprocessing.get_context("spawn")
        self._started: list[tuple[Any, Any]] = []
        self.agents: dict[int, list[RemoteAgent]] = {}
        try:
            pending = []
            for a, spec in specs.items():
                mine, theirs = context.Pipe()
                try:
                    # pickled here, unpickled in serve: the agent's code runs only once its process leads its group
                    process = context.Process(target=serve, args=(theirs, pickle.dumps(spec), copies[a]),
                                              daemon=True, name=f"commerce-agent-{a}")
                    process.start()
                except (pickle.PicklingError, TypeError, AttributeError) as error:  # an object that does not pickle
                    raise ValueError(f"isolate=True: agent {names[a]!r} cannot be sent to its own process "
                                     f"({type(error).__name__}: {error}); give it as a spec or make it picklable") \
                        from None
                finally:
                    theirs.close()
                self._started.append((process, mine))
                pending.append((a, process, mine))
            for a, process, conn in pending:
                flags = _ready(conn, process, names[a])
                self.agents[a] = [(ListeningRemoteAgent if flag else RemoteAgent)(conn, process, copy, names[a],
                                                                                  time_limit)
                                  for copy, flag in enumerate(flags)]
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Stop every agent's process (killed if it does not stop within a few seconds)."""
        for _, conn in self._started:
            try:
                conn.send(("stop",))
            except (OSError, ValueError):
                pass
        for process, conn in self._started:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join()
            _kill_group(process)
            conn.close()
        self._started = []


def _kill_group(process: Any) -> None:
    """Kill what is left of the process group an agent's process leads (:func:`serve`): the
    processes it started.  (One that leaves the group with ``setsid`` is beyond reach.)"""
    if hasattr(os, "killpg") and process.pid is not None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _ready(conn: Any, process: Any, name: str) -> str:
    """Wait for an agent's process to say it is built; its copies' listening flags (``"0"``/``"1"``)."""
    kind, text = _receive_within(conn, process, name, None, START_SECONDS,
                                 f"its process did not start within {START_SECONDS:.0f} s")
    if kind != "R" or not text or set(text) - {"0", "1"}:
        raise _reply_error(kind, text, name, None, "a ready message")
    return text


def _receive(conn: Any, process: Any, name: str, seat: int | None) -> tuple[str, str]:
    """One message from an agent's process, parsed here: its kind (a letter) and its text."""
    try:
        data = conn.recv_bytes(REPLY_LIMIT)
    except (EOFError, OSError) as error:
        process.join(timeout=5)
        if process.exitcode is not None:
            raise _failure(name, seat, "ProcessEnded", f"its process ended (exit code {process.exitcode})") from None
        raise _failure(name, seat, "BadReply", f"its process sent no readable message ({error})") from None
    text = data[1:].decode("utf-8", errors="replace")
    return chr(data[0]) if data else "", text


def _receive_within(conn: Any, process: Any, name: str, seat: int | None, seconds: float,
                    late: str) -> tuple[str, str]:
    """:func:`_receive` within ``seconds``: past them the process is killed (it may never answer,
    or have written only part of a message), the pipe is shut (which ends the read, even if a child
    of the process holds its end open) and a ``Timeout`` failure says ``late``."""
    from .boundary import AgentError

    expired = threading.Event()

    def stop() -> None:
        expired.set()
        process.kill()
        _kill_group(process)
        try:  # a child of the process may hold its end of the pipe open: the read must end anyway
            with socket.fromfd(conn.fileno(), socket.AF_UNIX, socket.SOCK_STREAM) as end:
                end.shutdown(socket.SHUT_RDWR)
        except (OSError, ValueError, AttributeError):  # not a socket where there is none (Windows' pipes)
            pass

    timer = threading.Timer(seconds, stop)
    timer.start()
    try:
        answer = _receive(conn, process, name, seat)
    except AgentError:
        if not expired.is_set():
            raise
    finally:
        timer.cancel()
    if expired.is_set():
        raise _failure(name, seat, "Timeout", late)
    return answer


def _failure(name: str, seat: int | None, error: str, message: str) -> Exception:
    from .boundary import AgentError

    return AgentError(name, seat, error, message)


def _reply_error(kind: str, text: str, name: str, seat: int | None, expected: str) -> Exception:
    """The error an agent's process reported (``E``), or a failure for a message that is not ``expected``."""
    if kind == "E":
        error, _, message = text.partition("\n")
        return _failure(name, seat, error[:100] or "Exception", message[:TEXT_LIMIT])
    return _failure(name, seat, "BadReply", f"its process sent {kind + text[:60]!r}, not {expected}")


class RemoteAgent:
    """The arena's stand-in for one copy of an agent that plays in its own process, given
    ``time_limit`` seconds per decision (None: no limit)."""

    def __init__(self, conn: Any, process: Any, copy: int, name: str, time_limit: float | None = None):
        self._conn, self._process, self._copy, self.name = conn, process, copy, name
        self._seat: int | None = None
        self._time_limit = time_limit

    def reset(self, seat: int, num_players: int, rules: Any, seed: int | None = None) -> None:
        """Sent without waiting (a round trip less per game): an error here comes back with the next answer."""
        self._seat = seat
        self._send(("reset", self._copy, seat, num_players, rules, seed))

    def act(self, view: Any) -> object:
        self._send(("act", self._copy, view))
        kind, text = self._answer()
        if kind == "A" and 0 < len(text) <= 20 and text.lstrip("-").isdigit():
            return int(text)  # checked by the arena's Seat: an action number, legal now
        if kind == "B":  # the agent returned something that is not an integer: shown as its repr
            return _NotAnAction(text[:200])
        raise _reply_error(kind, text, self.name, self._seat, "an action")

    def _answer(self) -> tuple[str, str]:
        """The agent's next message, within the time limit (if any)."""
        if self._time_limit is None:
            return _receive(self._conn, self._process, self.name, self._seat)
        return _receive_within(self._conn, self._process, self.name, self._seat, self._time_limit,
                               f"it did not answer within the time limit of {self._time_limit:g} s per decision")

    def _send(self, message: tuple) -> None:
        try:
            self._conn.send(message)
        except (OSError, ValueError):
            pass  # a process that has ended: the next _receive says so


class ListeningRemoteAgent(RemoteAgent):
    """A stand-in whose agent is told each action; errors there come back with its next answer."""

    def observe(self, seat: int, text: str) -> None:
        self._send(("observe", self._copy, seat, text))


class _NotAnAction:
    """What an isolated agent returned instead of an integer, as the text of its ``repr``."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


# ------------------------------------------------------------- the agent's side
def serve(conn: Any, pickled_spec: bytes, copies: int) -> None:
    """The agent's process: build ``copies`` of the agent from its pickled spec, then answer the
    arena until it stops.  It leads a process group of its own, so that the processes the agent
    starts are stopped with it."""
    if hasattr(os, "setpgid"):
        os.setpgid(0, 0)
    try:
        from .base import Agent
        from .boundary import hears
        from .specs import make_agent

        spec = pickle.loads(pickled_spec)  # the agent's own code, in its own process
        agents = [spec if isinstance(spec, Agent) else make_agent(spec) for _ in range(copies)]  # as the arena
    except Exception as error:
        _send_error(conn, error)
        return
    conn.send_bytes(b"R" + "".join("1" if hears(agent) else "0" for agent in agents).encode())
    failed: Exception | None = None  # an error in reset or observe, reported with the next answer
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        kind = message[0]
        if kind == "stop":
            return
        agent = agents[message[1]]
        if kind != "act":  # reset, observe: no answer; an error is reported with the next one
            if failed is None and hasattr(agent, kind):
                try:
                    getattr(agent, kind)(*message[2:])
                except Exception as error:
                    failed = error
            continue
        try:
            if failed is not None:
                raise failed
            reply = _action_reply(agent.act(message[2]))
        except Exception as error:
            failed = None
            _send_error(conn, error)
            continue
        conn.send_bytes(reply)


def _action_reply(action: object) -> bytes:
    if isinstance(action, numbers.Integral) and not isinstance(action, bool):
        return b"A" + str(int(action)).encode()
    return b"B" + repr(action)[:200].encode("utf-8", errors="replace")


def _send_error(conn: Any, error: BaseException) -> None:
    text = f"{type(error).__name__}\n{error}"[:TEXT_LIMIT]
    conn.send_bytes(b"E" + text.encode("utf-8", errors="replace"))
