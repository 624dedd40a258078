"""What the web server keeps and runs for its clients, bounded so that no client can break another's.

* :class:`MatchStore`: matches by id, counted per client.  A client is the request's remote
  address: a client cannot choose it (a cookie or token it could drop to become a new client
  at will), so one client's matches never push out another's.  A client past its limit loses its
  own least recently used match; a match unused for a while is dropped; a full server refuses
  new matches rather than drop anyone's.  (Behind a proxy every client has the proxy's address:
  ``commerce serve`` is a local tool, served directly.)
* :class:`AgentTurns`: the agents' moves, played on a few worker threads one move at a time in
  turn, so that a request waits for them at most a bounded time and a slow agent holds up only
  its own match.
"""

from __future__ import annotations

import logging
import queue
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from .session import Match

MATCHES_PER_CLIENT = 16
MAX_MATCHES = 1024
IDLE_SECONDS = 2 * 60 * 60
AGENT_THREADS = 4
TURN_SECONDS = 2.0
WORKER_IDLE_SECONDS = 30.0  # a worker thread with nothing to do for this long ends
log = logging.getLogger(__name__)


class ServerFullError(Exception):
    """The server holds as many matches as it may; a new one must wait for idle ones to go."""


@dataclass
class _Entry:
    client: str
    match: Match
    used: float


class MatchStore:
    """Matches by unguessable id, at most ``per_client`` per client and ``total`` in all, each
    dropped after ``idle_seconds`` unused (``clock``: seconds, monotonic)."""

    def __init__(self, per_client: int = MATCHES_PER_CLIENT, total: int = MAX_MATCHES,
                 idle_seconds: float = IDLE_SECONDS, clock: Callable[[], float] = time.monotonic):
        self.per_client, self.total, self.idle_seconds, self.clock = per_client, total, idle_seconds, clock
        self.entries: OrderedDict[str, _Entry] = OrderedDict()  # least recently used first
        self.clients: dict[str, OrderedDict[str, None]] = {}  # each client's ids, least recently used first
        self.lock = threading.Lock()

    def add(self, client: str, match: Match) -> str:
        """Keep ``match`` for ``client``; its id.  Raises ServerFullError when the server is full."""
        key = secrets.token_urlsafe(18)
        with self.lock:
            now = self.clock()
            self._drop_idle(now)
            own = self.clients.setdefault(client, OrderedDict())
            while len(own) >= self.per_client:
                self._drop(next(iter(own)))
            if len(self.entries) >= self.total:
                if not own:
                    del self.clients[client]
                raise ServerFullError(f"the server holds {self.total} matches, its most; try again later "
                                      f"(a match unused for {self.idle_seconds / 60:g} minutes is dropped)")
            self.entries[key] = _Entry(client, match, now)
            own[key] = None
        return key

    def get(self, key: str) -> Match:
        """The match of ``key`` (LookupError if there is none, or it was dropped)."""
        with self.lock:
            now = self.clock()
            self._drop_idle(now)
            entry = self.entries.get(key)
            if entry is None:
                raise LookupError(key)
            entry.used = now
            self.entries.move_to_end(key)
            self.clients[entry.client].move_to_end(key)
            return entry.match

    def __len__(self) -> int:
        return len(self.entries)

    def _drop_idle(self, now: float) -> None:
        while self.entries:
            key, entry = next(iter(self.entries.items()))
            if now - entry.used <= self.idle_seconds:
                return
            self._drop(key)

    def _drop(self, key: str) -> None:
        entry = self.entries.pop(key)
        own = self.clients[entry.client]
        del own[key]
        if not own:
            del self.clients[entry.client]
        entry.match.stop()


class AgentTurns:
    """The agents' moves of every match, on ``threads`` daemon threads: one move, then the match goes
    to the back of the line, so matches share the threads fairly; a request waits at most
    ``wait_seconds`` for its match's agents (:meth:`play`), then answers with the match thinking."""

    def __init__(self, threads: int = AGENT_THREADS, wait_seconds: float = TURN_SECONDS):
        self.threads, self.wait_seconds = threads, wait_seconds
        self.waiting: queue.SimpleQueue[Match] = queue.SimpleQueue()
        self.running = 0  # worker threads
        self.lock = threading.Lock()

    def play(self, match: Match) -> None:
        """Have ``match``'s agents move if they are to, and wait for them up to ``wait_seconds``."""
        if match.start_thinking():
            self.waiting.put(match)
            self._start_workers()
        match.idle.wait(self.wait_seconds)

    def _start_workers(self) -> None:
        with self.lock:
            while self.running < self.threads:
                threading.Thread(target=self._work, name="agent-turns", daemon=True).start()
                self.running += 1

    def _work(self) -> None:
        while True:
            try:
                match = self.waiting.get(timeout=WORKER_IDLE_SECONDS)
            except queue.Empty:
                with self.lock:  # a match put before this check is seen; one put after it starts a worker
                    if self.waiting.empty():
                        self.running -= 1
                        return
                continue
            try:
                more = match.step()
            except Exception:  # the engine or a view: end this match, keep the thread
                log.exception("a match failed")
                match.fail("the match failed on the server; start a new one")
                more = False
            if more:
                self.waiting.put(match)
