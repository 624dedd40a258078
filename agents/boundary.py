"""The arena's side of the agent boundary: every seat's agent behind a :class:`Seat` that names it.

Agents get seat views only (:mod:`commerce_env.view`).  The arena seats each
agent behind a :class:`Seat`, which

* checks each action (an integer, legal now) and refuses a bad one naming the
  agent (its spec name), its seat and the action;
* names the agent and its seat on an exception raised by the agent's code
  (attributes ``agent`` and ``seat``, and a note), so that the arena can
  report which agent failed, where, and keep what was played before;
* watches agents given as objects (code from outside the project) with an
  :class:`EngineGuard`: a change to the engine is undone at once and
  reported as :class:`EngineChangedError`.

Why a check, and not a private engine: a view names its engine class
(``view.engine``, ``type(view.sample_world(rng))``) because agents need its
hand values and flags, and a Python class cannot be made read-only
(``type.__setattr__`` passes any metaclass).  The engine looks up every
method on its class at every call, so playing with a copy of one function
(say the hand values) would protect that one function only, and a private
copy of the classes would still share their modules.  Instead the guard
notes, before the run, every name in the namespaces a game plays with (the
variant's engine classes, the :class:`~commerce_env.rules.Rules` class, the
engine's modules, the hand values' module and the table of engines) and
compares them after each call of a watched agent, before the game goes on:
whatever route the agent took to them, a change cannot reach a running
game's outcome, and does not outlive the call.  Built-in agents (project
code) are not watched, so the usual arena pays nothing.  The guard
also watches itself: its own module and classes, the loop that hands out
views (:mod:`agents.play`) and the arena's module, and it checks with the
functions it noted when it was made, so switching it off
(``EngineGuard.changes = lambda self: []``) is itself a change, undone and
named.  At the end of a run the arena puts back everything noted
(:meth:`EngineGuard.restore`).

This is a check against mistakes, not a wall: an agent given as a Python
object runs in the arena's process and is trusted code (it can rewrite any
function the check runs, tamper with the guard's notes, change the engine
before they are taken, or write into the engine's data: the shared lists of
hand values, a game found with ``gc``).  Agents one does not trust play
isolated (:mod:`agents.isolated`), where they cannot reach the game at all.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from commerce_env.engine import ENGINES
from commerce_env.engine.actions import BadActionError, IllegalActionError, check_action, describe_action
from commerce_env.policies import listens
from commerce_env.rules import Rules

from .base import Agent

__all__ = ["AgentError", "EngineChangedError", "EngineGuard", "Seat", "hears", "seat_agent"]

# The modules whose globals the engine's methods read: the engine package and what it imports.
ENGINE_MODULES = (
    "commerce_env.engine", "commerce_env.hands", "commerce_env.cards", "commerce_env.rules", "commerce_env.options")
# The modules of the guard itself and of the loops that call it: a change there could switch it off.
GUARD_MODULES = ("agents.boundary", "agents.play", "agents.arena")


class AgentError(RuntimeError):
    """An agent failed with ``error`` (a type name) and ``message``: isolated, its process reported an
    error or ended; or it changed the engine (:class:`EngineChangedError`)."""

    def __init__(self, agent: str, seat: int | None, error: str, message: str):
        super().__init__(agent, seat, error, message)
        self.agent, self.seat, self.error, self.message = agent, seat, error, message

    def __str__(self) -> str:
        return f"{self.who} raised {self.error}: {self.message}"

    @property
    def who(self) -> str:
        return f"agent {self.agent!r}" + ("" if self.seat is None else f" in seat {self.seat}")


class EngineChangedError(AgentError):
    """A watched agent changed the engine the games play with; the change was undone."""

    def __str__(self) -> str:
        return f"{self.who} changed the engine ({self.message}); undone"


class EngineGuard:
    """The names in every namespace a game of ``variant`` plays with, noted now; :meth:`check`
    compares, undoes any change and names it."""

    def __init__(self, variant: str):
        classes = [c for c in (*ENGINES[variant].__mro__, *Rules.__mro__) if c is not object]
        classes += [EngineGuard, Seat, ListeningSeat]
        modules = [m for name, m in sorted(sys.modules.items())
                   if name.startswith(ENGINE_MODULES) or name in GUARD_MODULES]
        spaces: list[tuple[str, Any, Any]] = [(c.__qualname__, c, vars(c)) for c in classes]
        spaces += [(m.__name__, m, vars(m)) for m in modules]
        spaces.append(("ENGINES", None, ENGINES))
        self._noted = [(label, owner, space, dict(space), tuple(space.values())) for label, owner, space in spaces]
        self._changes = EngineGuard.changes.__get__(self)  # the functions as noted now: a patch cannot
        self._check = EngineGuard.check.__get__(self)  # switch off the guard that sees it

    def restore(self) -> list[str]:
        """Put back everything changed since the guard was made; what was changed (the arena calls
        this at the end of a run)."""
        return self._changes()

    def changes(self) -> list[str]:
        """What changed since the guard was made (``Class.name``), undone; empty if nothing did."""
        found: list[str] = []
        for index, (label, owner, space, names, values) in enumerate(self._noted):
            if tuple(space.values()) == values:  # the usual case: one pass, identity compares
                continue
            for name in space.keys() - names.keys():
                if _bookkeeping(label, name, space[name]):
                    names[name] = space[name]
                else:
                    found.append(f"{label}.{name}")
                    _put_back(owner, space, name, names)
            for name in [n for n, v in names.items() if n not in space or space[n] is not v]:
                found.append(f"{label}.{name}")
                _put_back(owner, space, name, names)
            self._noted[index] = (label, owner, space, names, tuple(space.values()))
        return sorted(found)

    def check(self, agent: str, seat: int | None) -> None:
        """Raise :class:`EngineChangedError` naming ``agent`` if anything changed (it is undone)."""
        changed = self._changes()
        if changed:
            raise EngineChangedError(agent, seat, "EngineChanged", ", ".join(changed))


def _bookkeeping(label: str, name: str, value: Any) -> bool:
    """Whether a new name is Python's bookkeeping, not a change to the engine: a submodule
    imported, a warning noted, the slots that ``copy`` and ``pickle`` note on a class."""
    return name in ("__warningregistry__", "__slotnames__") or (isinstance(value, types.ModuleType)
                                                                 and value is sys.modules.get(f"{label}.{name}"))


def _put_back(owner: Any, space: Any, name: str, noted: dict[str, Any]) -> None:
    """Restore ``name`` in a class (through ``type``'s own setattr: no metaclass in between) or a dict."""
    if isinstance(owner, type):
        if name in noted:
            type.__setattr__(owner, name, noted[name])
        else:
            type.__delattr__(owner, name)
    elif name in noted:
        space[name] = noted[name]
    else:
        del space[name]


class Seat:
    """One agent in one seat of the arena, named: see the module docstring."""

    def __init__(self, agent: Any, name: str, guard: EngineGuard | None = None):
        self.agent, self.name, self.guard = agent, name, guard
        self._check = None if guard is None else guard._check  # as noted: see EngineGuard
        self.seat: int | None = None

    def reset(self, seat: int, num_players: int, rules: Rules, seed: int | None = None) -> None:
        self.seat = seat
        if hasattr(self.agent, "reset"):
            self._call(self.agent.reset, seat, num_players, rules, seed)

    def act(self, view: Any) -> int:
        legal = view.legal_actions  # before the agent runs: its writes to the view change nothing here
        action = self._call(self.agent.act, view)
        try:
            value = check_action(action)
        except BadActionError as error:
            raise self._named(BadActionError(f"agent {self.name!r} in seat {self.seat} returned {action!r}: "
                                             f"{error}")) from None
        if value not in legal:
            raise self._named(IllegalActionError(
                f"agent {self.name!r} in seat {self.seat} chose action {value} ({describe_action(value)}), which is "
                f"not legal now; legal: {', '.join(map(str, legal))}"))
        return value

    def _call(self, method: Any, *args: Any) -> Any:
        try:
            return method(*args)
        except AgentError:
            raise
        except Exception as error:  # raised as it is (callers may catch its type), named
            try:
                self._named(error)
            except AttributeError:  # an exception that takes no attributes
                raise AgentError(self.name, self.seat, type(error).__name__, str(error)) from error
            if hasattr(error, "add_note"):  # Python 3.11: the traceback names the agent too
                error.add_note(f"(raised by agent {self.name!r} in seat {self.seat})")
            raise
        finally:
            if self._check is not None:
                self._check(self.name, self.seat)

    def _named(self, error: Exception) -> Exception:
        """``error`` with the agent's name and seat as attributes, for the arena's report of a crash."""
        error.agent, error.seat = self.name, self.seat
        return error


class ListeningSeat(Seat):
    """A :class:`Seat` whose agent is told each action (``observe``)."""

    def observe(self, seat: int, text: str) -> None:
        self._call(self.agent.observe, seat, text)


def hears(agent: Any) -> bool:
    """Whether ``agent`` has an ``observe`` of its own (:class:`agents.base.Agent`'s does nothing)."""
    return listens(agent) and getattr(type(agent), "observe", None) is not Agent.observe


def seat_agent(agent: Any, name: str, guard: EngineGuard | None = None) -> Seat:
    """``agent`` behind a :class:`Seat` (one that is told each action when the agent :func:`hears`)."""
    return (ListeningSeat if hears(agent) else Seat)(agent, name, guard)
