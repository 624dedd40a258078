"""The keeper of an isolated run: the one process that starts the agents' processes and, at the
end, stops every process they started.

Why a keeper: a process that an agent starts can leave the agent's process
group (``setsid``, ``start_new_session=True``) and outlive its parent, which
then hands it to the nearest *subreaper* (or to init).  On Linux the keeper
declares itself the subreaper of everything below it, so every such process
comes back to it; the keeper runs none of the agents' code and starts
nothing else, so at the end everything below it is the agents' to stop.  The
arena's own process is left as it was.

The keeper stops everything when the arena says ``S``, when its pipe to the
arena closes (the arena ended, however), or on SIGTERM, SIGHUP or SIGQUIT; it
leads a process group of its own, so a signal to the arena's group does not
reach it.  It stops them by freezing the whole tree first (SIGSTOP, scanning
until nothing new appears), then killing it: processes that watch each other
and replace one that dies get no chance to.  What it cannot stop: a process of
the same user may kill or stop the keeper itself (the arena then kills the
seats' processes and their groups, but not what left them), or leave through
other doors of the system
(``at``, a user service); only a container or another user account stops
those.  Elsewhere than Linux there is no subreaper: the agents' processes and
their process groups are stopped, not what left them.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from typing import Any

from .agent_process import linux_prctl, serve

__all__ = ["children", "descendants", "keep", "kill_group", "send_signal", "stop_everything_below"]

_PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h


def keep(control: Any, seats: list[tuple[Any, bytes, str]]) -> None:
    """Start one process per seat (its pipe to the arena, its pickled spec, a label), report their
    ids (``P`` and the ids, comma-separated), then answer the arena: ``X<i>`` asks seat ``i``'s exit
    code (``X`` and the code, or ``X?`` if it still runs); ``S``, a closed pipe, SIGTERM, SIGHUP or
    SIGQUIT end the run."""
    if hasattr(os, "setpgid"):
        os.setpgid(0, 0)  # out of the arena's group: a signal to that group (a hang-up, `timeout`) is not ours
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the arena, which stops the keeper
    for stop in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(stop, _exit)
    linux_prctl(_PR_SET_CHILD_SUBREAPER, 1)  # the parent of every orphan below this process
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
                worker.join(timeout=1)
                control.send_bytes(b"X" + (b"?" if worker.exitcode is None else str(worker.exitcode).encode()))
            else:
                break
    finally:
        stop_everything_below()
        for worker in workers:
            worker.join(timeout=1)


def _exit(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


MAX_PASSES = 1000  # scans of the process tree while freezing it; each freezes whatever appeared since


def stop_everything_below() -> int:
    """Freeze every process below this one (SIGSTOP: a stopped process can neither fork nor react),
    scanning again until no new one appears, then kill them all and reap them; how many.  Freezing
    first defeats processes that watch each other and fork a replacement when one dies."""
    frozen: set[int] = set()
    for _ in range(MAX_PASSES):
        new = descendants(os.getpid()) - frozen
        if not new:
            break
        for pid in new:
            send_signal(pid, signal.SIGSTOP)
        frozen |= new
    for pid in frozen:
        send_signal(pid, signal.SIGKILL)
    while True:  # the keeper's children now: the killed ones, and the orphans of the killed
        try:
            pid, _ = os.waitpid(-1, 0)
        except ChildProcessError:
            return len(frozen)
        frozen.discard(pid)


def send_signal(pid: int, sig: int) -> None:
    """``os.kill``, quiet when the process is gone or no longer ours to signal (its id reused)."""
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def kill_group(pid: int | None) -> None:
    """Kill the process group that process ``pid`` leads (an agent's process leads its own)."""
    if hasattr(os, "killpg") and pid is not None:
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def descendants(root: int) -> set[int]:
    """The ids of every process below ``root`` (read from ``/proc`` in one pass; none elsewhere)."""
    below: dict[int, list[int]] = {}
    for pid, parent in _parents().items():
        below.setdefault(parent, []).append(pid)
    found: set[int] = set()
    frontier = [root]
    while frontier:
        for child in below.get(frontier.pop(), []):
            if child not in found:
                found.add(child)
                frontier.append(child)
    return found


def children(parent: int) -> list[int]:
    """The ids of the processes whose parent is ``parent``."""
    return [pid for pid, up in _parents().items() if up == parent]


def _parents() -> dict[int, int]:
    """Each process's parent, from ``/proc`` (empty where there is none)."""
    if not os.path.isdir("/proc/self"):
        return {}
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rpartition(b")")[2].split()
        except OSError:
            continue
        if len(fields) > 1:
            found[int(entry)] = int(fields[1])
    return found
