"""What the web server keeps and runs for its clients, bounded so that no client can break another's.

* :class:`MatchStore`: matches by id, counted per client and per address block.  A client is the
  request's remote address: a client cannot choose it (a cookie or token it could drop to become
  a new client at will).  Addresses of one block (:func:`address_block`: all of loopback, an IPv4
  /24, an IPv6 /64) are cheap to hold many of, so a block shares one quota: a client or a block
  past its limit loses its own least recently used match, never another block's.  A match unused
  for a while is dropped; a full server drops its least recently used match once that one has
  been unused for ``full_wait`` seconds, and refuses until then, so a refusal lasts a bounded time.
  (Behind a proxy every client has the proxy's address: ``commerce serve`` is a local tool,
  served directly.)
* :class:`AgentTurns`: the agents' moves, played on a few worker threads one move at a time in
  turn, so that a request waits for them at most a bounded time and a slow agent holds up only
  its own match.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import queue
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from .session import Match

MATCHES_PER_CLIENT = 16
MATCHES_PER_BLOCK = 32
MAX_MATCHES = 1024
IDLE_SECONDS = 2 * 60 * 60
FULL_WAIT_SECONDS = 10 * 60  # the longest a full server refuses new matches while some are this stale
BLOCK_PREFIX = {4: 24, 6: 64}  # the address block a client shares its quota with
AGENT_THREADS = 4
TURN_SECONDS = 2.0
WORKER_IDLE_SECONDS = 30.0  # a worker thread with nothing to do for this long ends
log = logging.getLogger(__name__)


class ServerFullError(Exception):
    """The server holds as many matches as it may; a new one must wait ``retry_after`` seconds."""

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


def address_block(address: str) -> str:
    """The block of addresses one client can easily hold many of: all of loopback (one machine),
    else the IPv4 /24 or IPv6 /64 of ``address`` (an IPv4 address mapped into IPv6 as IPv4);
    anything that is not an IP address is a block of its own."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return "loopback"
    return str(ipaddress.ip_network(f"{ip}/{BLOCK_PREFIX[ip.version]}", strict=False))


@dataclass
class _Entry:
    owners: tuple[str, str]  # its client and the client's address block: the two quotas it counts in
    match: Match
    used: float


class MatchStore:
    """Matches by unguessable id, at most ``per_client`` per client, ``per_block`` per address
    block and ``total`` in all, each dropped after ``idle_seconds`` unused; a full server drops
    its least recently used match once it has been unused ``full_wait`` seconds (``clock``:
    seconds, monotonic)."""

    def __init__(self, per_client: int = MATCHES_PER_CLIENT, total: int = MAX_MATCHES,
                 idle_seconds: float = IDLE_SECONDS, clock: Callable[[], float] = time.monotonic,
                 per_block: int = MATCHES_PER_BLOCK, full_wait: float = FULL_WAIT_SECONDS):
        self.per_client, self.per_block, self.total = per_client, per_block, total
        self.idle_seconds, self.full_wait, self.clock = idle_seconds, min(full_wait, idle_seconds), clock
        self.entries: OrderedDict[str, _Entry] = OrderedDict()  # least recently used first
        self.owners: dict[str, OrderedDict[str, None]] = {}  # each client's and block's ids, least recently used first
        self.lock = threading.Lock()

    def add(self, client: str, match: Match) -> str:
        """Keep ``match`` for ``client``; its id.  Raises ServerFullError when the server is full."""
        key = secrets.token_urlsafe(18)
        owners = (client, "block " + address_block(client))  # a block's key apart from any client's address
        with self.lock:
            now = self.clock()
            self._drop_idle(now)
            for owner, most in zip(owners, (self.per_client, self.per_block), strict=True):
                own = self.owners.get(owner, {})
                while len(own) >= most:
                    self._drop(next(iter(own)))
            if len(self.entries) >= self.total:
                oldest = next(iter(self.entries.values()))
                if now - oldest.used < self.full_wait:
                    wait = math.ceil(self.full_wait - (now - oldest.used))
                    raise ServerFullError(f"the server holds {self.total} matches, its most; try again in "
                                          f"{wait} seconds", wait)
                self._drop(next(iter(self.entries)))
            self.entries[key] = _Entry(owners, match, now)
            for owner in owners:
                self.owners.setdefault(owner, OrderedDict())[key] = None
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
            for owner in entry.owners:
                self.owners[owner].move_to_end(key)
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
        for owner in entry.owners:
            own = self.owners[owner]
            del own[key]
            if not own:
                del self.owners[owner]
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
