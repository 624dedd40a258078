"""The keeper of an isolated run: the one process that starts the agents' processes and, at the
end, stops every process they started.

Why a keeper: a process that an agent starts can leave the agent's process
group (``setsid``, ``start_new_session=True``) and outlive its parent, which
then hands it to the nearest *subreaper* (or to init).  On Linux the keeper
declares itself the subreaper of everything below it, so every such process
comes back to it as a child; the keeper runs none of the agents' code and
starts nothing else, so at the end it can kill each child it has, wait for
it (its children become the keeper's in turn) and repeat until it has none
left.  The arena's own process is left as it was.

The keeper stops everything when the arena says ``S`` or when its pipe to the
arena closes (the arena ended, however).  What it cannot stop: a process of
the same user may kill the keeper itself (the agents' processes then die with
it, but not what they started), or leave through other doors of the system
(``at``, a user service); only a container or another user account stops
those.  Elsewhere than Linux there is no subreaper: the agents' processes and
their process groups are stopped, not what left them.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
from typing import Any

from .agent_process import serve

__all__ = ["children", "keep"]

_PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h


def keep(control: Any, seats: list[tuple[Any, bytes, str]]) -> None:
    """Start one process per seat (its pipe to the arena, its pickled spec, a label), report their
    ids (``P`` and the ids, comma-separated), then answer the arena: ``X<i>`` asks seat ``i``'s exit
    code (``X`` and the code, or ``X?`` if it still runs); ``S`` or a closed pipe ends the run."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the arena, which stops the keeper
    _become_subreaper()
    context = multiprocessing.get_context("spawn")
    workers = []
    try:
        for conn, pickled_spec, label in seats:
            worker = context.Process(target=serve, args=(conn, pickled_spec), daemon=True, name=label)
            worker.start()
            conn.close()
            workers.append(worker)
        control.send_bytes(b"P" + ",".join(str(w.pid) for w in workers).encode())
        while True:
            try:
                message = control.recv_bytes(64)
            except (EOFError, OSError):
                break
            if message[:1] == b"X" and message[1:].isdigit() and int(message[1:]) < len(workers):
                worker = workers[int(message[1:])]
                worker.join(timeout=5)
                control.send_bytes(b"X" + (b"?" if worker.exitcode is None else str(worker.exitcode).encode()))
            else:
                break
    finally:
        _stop(workers)


def _become_subreaper() -> None:
    """On Linux, become the parent of every orphan below this process (no effect elsewhere)."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        except (OSError, AttributeError):
            pass


def _stop(workers: list[Any]) -> None:
    """Kill the agents' processes and their groups, then every process left below the keeper."""
    for worker in workers:
        kill_group(worker.pid)
        worker.kill()
    for worker in workers:
        worker.join()
    while True:  # the orphans of what was just killed are the keeper's children now
        found = children(os.getpid())
        if not found:
            return
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in found:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def kill_group(pid: int | None) -> None:
    """Kill the process group that process ``pid`` leads (an agent's process leads its own)."""
    if hasattr(os, "killpg") and pid is not None:
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def children(parent: int) -> list[int]:
    """The ids of the processes whose parent is ``parent`` (read from ``/proc``; none elsewhere)."""
    if not os.path.isdir("/proc/self"):
        return []
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rpartition(b")")[2].split()
        except OSError:
            continue
        if len(fields) > 1 and int(fields[1]) == parent:
            found.append(int(entry))
    return found
