"""The agent's side of the isolated arena (:mod:`agents.isolated`): one seat's agent in a process of its own.

The process is started by the keeper (:mod:`agents.keeper`).  Before any of
the agent's code runs (its spec is unpickled here) it leads a process group of
its own, so that what it starts can be stopped with it, and asks to be killed
if the keeper dies.  It then answers the arena until told to stop: each
answer is one short message the arena parses itself (``A`` and an action
number, ``B`` and the repr of something that is not an integer, ``E`` and an
error's type and text, ``R`` and ``0``/``1`` once built: whether the agent
listens to each action).
"""

from __future__ import annotations

import ctypes
import os
import pickle
import signal
import sys
from typing import Any

__all__ = ["TEXT_LIMIT", "die_with_parent", "linux_prctl", "serve"]

TEXT_LIMIT = 2000  # characters of an error's text sent back
_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def linux_prctl(option: int, value: int) -> None:
    """Linux's ``prctl(option, value)``, for what only the kernel can promise a process tree (no effect
    elsewhere, or where the C library has no prctl)."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)
        except (OSError, AttributeError):
            pass


def die_with_parent() -> None:
    """Ask Linux to kill this process when its parent ends (no effect elsewhere)."""
    linux_prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def serve(conn: Any, pickled_spec: bytes) -> None:
    """Build the agent from its pickled spec, then answer the arena until it stops.  (A user's
    ``module:attribute`` keeps its permission through pickling: :class:`agents.module_agents.ModuleSpec`.)"""
    if hasattr(os, "setsid"):
        os.setsid()  # a group of its own, and no controlling terminal: /dev/tty is not the seat's to write
    die_with_parent()
    _quiet()
    parent = os.getppid()
    try:
        from .base import Agent
        from .boundary import hears
        from .specs import make_agent

        if os.getppid() != parent:  # the keeper ended before the death signal was asked for
            return
        spec = pickle.loads(pickled_spec)  # the agent's own code, in its own process
        agent = spec if isinstance(spec, Agent) else make_agent(spec)
    except Exception as error:
        _send_error(conn, error)
        return
    conn.send_bytes(b"R" + (b"1" if hears(agent) else b"0"))
    failed: Exception | None = None  # an error in reset or observe, reported with the next answer
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        kind = message[0]
        if kind == "stop":
            return
        if kind != "act":  # reset, observe: no answer; an error is reported with the next one
            if failed is None and hasattr(agent, kind):
                try:
                    getattr(agent, kind)(*message[1:])
                except Exception as error:
                    failed = error
            continue
        try:
            if failed is not None:
                raise failed
            reply = _action_reply(agent.act(message[1]))
        except Exception as error:
            failed = None
            _send_error(conn, error)
            continue
        conn.send_bytes(reply)


def _quiet() -> None:
    """The agent's prints go nowhere: it shares no terminal or log with the arena, so it cannot
    write lines that look like the arena's results (its errors come back as messages)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for fd in (1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)


def _action_reply(action: object) -> bytes:
    from commerce_env.checks import is_whole  # not at the top: the process asks for its death signal first

    if is_whole(action):
        return b"A" + str(int(action)).encode()
    return b"B" + repr(action)[:200].encode("utf-8", errors="replace")


def _send_error(conn: Any, error: BaseException) -> None:
    text = f"{type(error).__name__}\n{error}"[:TEXT_LIMIT]
    conn.send_bytes(b"E" + text.encode("utf-8", errors="replace"))
