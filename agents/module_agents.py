"""A user's own agent named ``module:attribute`` (as Gymnasium's entry points): a class, an
instance or a factory in an importable module, ``my_agents:MyAgent``.

Naming a module imports it, which runs its code: only what the user typed may do that.  A
command-line flag is typed (``commerce arena --agents my_agents:MyAgent``); text read from a
config, a rules file, a model file or a web request is not.  So the permission travels with the
spec itself: :class:`ModuleSpec` is a string that only code makes (YAML and JSON give plain
strings), it survives pickling into another process (the isolated arena's, a worker's), and
:func:`agents.specs.make_agent` imports a module only for a ``ModuleSpec``.  The same text as a
plain string is refused, naming the flag that allows it (:func:`allow_modules`).

The names ``model:<path>`` and ``openspiel:<bot>`` keep their meaning: a module named ``model``
or ``openspiel`` cannot be named this way.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Collection, Mapping
from typing import Any

from .base import Agent
from .spec_text import parse_spec, read_spec

RESERVED = ("model", "openspiel")  # prefixes of other spec forms (agents.specs)
ALLOW_FLAG = "--allow-module"
_yaml_ready = False


def is_module_text(text: Any) -> bool:
    """Whether ``text`` has the form ``module:attribute`` (dotted names on both sides), and is no
    other spec form (``model:<path>``, ``openspiel:<bot>``)."""
    if not isinstance(text, str) or text.count(":") != 1:
        return False
    module, _, attribute = text.partition(":")
    return (module not in RESERVED
            and all(part.isidentifier() for part in (*module.split("."), *attribute.split("."))))


class ModuleSpec(str):
    """``module:attribute`` that code (the command line, a Python caller) allows to be imported.

    It is a string (its name at the table is its text), so configs and reports treat it as one;
    only its type carries the permission.  ``ModuleSpec("my_agents:MyAgent")`` in Python code is
    how a caller allows its own module explicitly.

    ``folder``: where the module is imported from, added to the path of the process that builds
    the agent only, just before the import (the command line gives the current folder).  The
    arena's own process never puts it on its path: with ``--isolate``, nothing in that folder
    (the module, or a file named as one the standard library looks for) runs outside the seats'
    processes."""

    folder: str | None

    def __new__(cls, text: str, folder: str | None = None) -> ModuleSpec:
        text = str(text).strip()
        if not is_module_text(text):
            raise ValueError(f"{text!r} is not module:attribute (e.g. my_agents:MyAgent; a module named "
                             f"{' or '.join(RESERVED)} cannot be named this way)")
        _yaml_as_text()
        made = super().__new__(cls, text)
        made.folder = None if folder is None else os.fspath(folder)
        return made

    def __reduce__(self) -> tuple:
        return ModuleSpec, (str(self), self.folder)

    @property
    def module(self) -> str:
        return self.partition(":")[0]


def _yaml_as_text() -> None:
    """A run folder's ``config.yaml`` (``yaml.safe_dump``) writes a ModuleSpec as its text."""
    global _yaml_ready
    if not _yaml_ready:
        import yaml

        yaml.SafeDumper.add_representer(ModuleSpec, yaml.SafeDumper.represent_str)
        _yaml_ready = True


def refusal(text: str) -> ValueError:
    """The error for ``module:attribute`` read from text that may not import it."""
    module = text.partition(":")[0]
    return ValueError(f"agent {text!r} names code in the Python module {module!r}; text read from a config, a "
                      f"rules file, a model file or a web request never imports a module. Name it on the command "
                      f"line (commerce arena --agents {text}), or allow its module for a config with "
                      f"{ALLOW_FLAG} {module}")


def allowed(module: str, modules: Collection[str] | None) -> bool:
    """Whether ``module`` is one of ``modules`` or inside one of them (``None``: every module)."""
    return modules is None or any(module == name or module.startswith(name + ".") for name in modules)


def allow_modules(spec: Any, modules: Collection[str] | None, folder: str | None = None) -> Any:
    """``spec`` with a ``module:attribute`` name made a :class:`ModuleSpec` (imported from ``folder``)
    when ``modules`` allows its module (``None``: every module, for a spec the user typed on the
    command line); a module not allowed is a ``ValueError`` naming ``--allow-module``.  Text with
    arguments (``my_agents:MyAgent(depth=3)``) becomes ``{"agent": ModuleSpec(...), "depth": 3}``; any
    other spec is returned as it is."""
    if isinstance(spec, ModuleSpec):
        return spec
    if isinstance(spec, str):
        parsed = read_spec(spec)
        if isinstance(parsed, Mapping):
            return allow_modules(parsed, modules, folder) if is_module_text(parsed["agent"]) else spec
        if not is_module_text(parsed):
            return spec
        if not allowed(parsed.partition(":")[0], modules):
            raise refusal(parsed)
        return ModuleSpec(parsed, folder)
    if isinstance(spec, Mapping) and isinstance(spec.get("agent"), str) and is_module_text(spec["agent"]):
        return {**spec, "agent": allow_modules(spec["agent"], modules, folder)}
    return spec


def command_line_specs(text: str) -> list[Any]:
    """The specs of a command-line flag the user typed (``--agents``, ``--opponents``), comma separated,
    arguments in brackets: ``search(worlds=96),my_agents:MyAgent``; see :func:`command_line_spec`."""
    from .spec_text import split_top_level

    specs = [command_line_spec(parse_spec(piece)) for piece in split_top_level(text)]
    if not specs:
        raise ValueError(f"no agents in {text!r}: give names separated by commas")
    return specs


def command_line_spec(spec: Any) -> Any:
    """A spec the user typed: ``module:attribute`` allowed, imported from the current folder as
    ``python -m`` would (``commerce`` is a console script, whose path starts at its own folder), by
    the process that builds the agent only (:attr:`ModuleSpec.folder`)."""
    return allow_modules(spec, None, os.getcwd())


def build(spec: ModuleSpec, **kwargs: Any) -> Agent:
    """The agent ``spec`` names: its class or factory called with ``kwargs``, or its instance (which
    takes no arguments; every seat then shares it).  Importing the module runs its code."""
    module_name, _, attribute = spec.partition(":")
    folder = getattr(spec, "folder", None)
    if folder is not None and folder not in sys.path:
        sys.path.append(folder)  # after the installed packages, so that none of them is shadowed
    try:
        target: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name is None or not module_name.startswith(error.name):
            raise  # the module itself is there; something it imports is not
        raise ValueError(f"agent {str(spec)!r}: no module {module_name!r} to import; run from the folder "
                         f"that holds {module_name.split('.')[0]}.py, or add that folder to PYTHONPATH") from None
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise ValueError(f"agent {str(spec)!r}: {getattr(target, '__name__', module_name)!r} has no "
                             f"attribute {part!r}")
        target = getattr(target, part)
    if isinstance(target, Agent):
        if kwargs:
            raise ValueError(f"agent {str(spec)!r} is an agent object; it takes no arguments, got {kwargs!r}")
        return target
    if not callable(target):
        raise ValueError(f"agent {str(spec)!r} is a {type(target).__name__}: give an agents.Agent subclass, "
                         "an instance of one, or a function that returns one")
    try:
        agent = target(**kwargs)
    except TypeError as error:  # an argument it does not take: named, as for a built-in
        raise ValueError(f"bad arguments {kwargs!r} for agent {str(spec)!r}: {error}") from None
    if not isinstance(agent, Agent):
        raise ValueError(f"agent {str(spec)!r} made a {type(agent).__name__}, not an agents.Agent: subclass "
                         "agents.Agent (act(view) -> int)")
    return agent


def holds_module_agent(spec: Any) -> bool:
    """Whether ``spec`` builds a user's module agent (code from outside the project)."""
    name = spec.get("agent") if isinstance(spec, Mapping) else spec
    return isinstance(name, ModuleSpec)
