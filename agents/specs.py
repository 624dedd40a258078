"""Agent specs: the one place that turns ``"greedy"``, ``"model:<path>"`` or
``{"agent": "greedy", "quantile": 0.7}`` into an agent, for the arena, the
single-agent env's opponents and the training config alike."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Collection, Mapping
from typing import Any

from .base import Agent, RandomAgent
from .heuristics import ExpectedValueAgent, GreedyAgent
from .module_agents import ModuleSpec, build, is_module_text, refusal
from .module_agents import allow_modules as allow
from .search import SearchAgent
from .spec_text import (  # noqa: F401 - the text forms are part of this module's API
    TRUST_ARGUMENTS,
    parse_spec,
    read_spec,
    refuse_trust_arguments,
    split_top_level,
)

AGENTS: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "expected_value": ExpectedValueAgent,
    "search": SearchAgent,
}
MODEL_PREFIX = "model:"
OPENSPIEL_PREFIX = "openspiel:"  # an OpenSpiel bot (extra openspiel), see agents/openspiel.py
SPEC_FORMS = ("a built-in name, model:<path>, <path>.json, openspiel:<bot>, {agent: name, ...arguments}, "
              "an Agent, or module:attribute from the command line")
def short_label(spec: Any) -> str:
    """A short name for an agent spec: ``model:runs/foster/model`` is ``model model``, ``x/widow.json``
    ``model widow``; a built-in name is itself."""
    if isinstance(spec, Agent):
        return getattr(spec, "name", type(spec).__name__)
    if isinstance(spec, Mapping):
        spec = spec.get("agent", "agent")
    if isinstance(spec, str) and is_model_spec(spec):
        from pathlib import PurePath

        path = PurePath(spec[len(MODEL_PREFIX):] if spec.startswith(MODEL_PREFIX) else spec)
        return f"model {(path.stem if path.suffix == '.json' else path.name) or path.parent.name}"
    return str(spec)


def spec_name(spec: Any) -> str:
    """The arena's name for a spec: a string is itself, an agent object its ``name``, and a
    mapping its agent with the arguments in key order, ``{"agent": "search", "worlds": 96}`` as
    ``search(worlds=96)`` (what :func:`parse_spec` reads back), so that two settings of one agent
    are two agents at the table, and the same setting, however written, one."""
    if isinstance(spec, Agent):
        return getattr(spec, "name", type(spec).__name__)
    if isinstance(spec, Mapping):
        arguments = dict(spec)
        name = arguments.pop("agent", None)
        if not isinstance(name, str):
            raise ValueError(f"an agent mapping needs 'agent': <name>, got {dict(spec)!r}")
        if not arguments:
            return name
        text = ", ".join(f"{key}={json.dumps(arguments[key], default=str, sort_keys=True)}"
                         for key in sorted(arguments))
        return f"{name}({text})"
    if isinstance(spec, str):
        return spec
    raise ValueError(f"bad agent spec {spec!r}: give {SPEC_FORMS}")


def is_model_spec(spec: str) -> bool:
    """A learned model: ``model:<path>`` or a path ending in ``.json``."""
    return spec.startswith(MODEL_PREFIX) or spec.endswith(".json")


def check_spec(spec: Any) -> None:
    """Raise ``ValueError`` naming ``spec`` unless it has one of the spec forms (nothing is loaded)."""
    if isinstance(spec, Agent):
        return
    spec = read_spec(spec)
    if isinstance(spec, Mapping):
        refuse_trust_arguments(spec, spec)
    name = read_spec(spec.get("agent")) if isinstance(spec, Mapping) else spec
    if isinstance(name, Mapping):  # {agent: "search(worlds=9)"}
        name = name.get("agent")
    if not isinstance(name, str):
        raise ValueError(f"bad agent spec {spec!r}: give {SPEC_FORMS}")
    if isinstance(name, ModuleSpec) or is_model_spec(name) or name.startswith(OPENSPIEL_PREFIX):
        return
    if is_module_text(name):  # text: it may not import a module (agents.module_agents)
        raise refusal(name)
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; choose from {', '.join(sorted(AGENTS))}, "
                         "a model as model:<path> or <path>.json, or openspiel:<bot>")


def make_agent(spec: Any, *, variant: str | None = None, num_players: int | None = None,
               allow_modules: Collection[str] = (), **kwargs: Any) -> Agent:
    """An agent from a spec: a built-in name (``random``, ``greedy``, ``expected_value``,
    ``search``), a learned model (``model:<path>`` or ``<path>.json``, checked against
    ``variant`` and ``num_players`` when given), a mapping ``{"agent": spec, **arguments}``
    or its command-line text (``"search(worlds=96)"``, :func:`read_spec`), an
    :class:`Agent`, returned as it is, or a user's ``module:attribute`` as a
    :class:`~agents.module_agents.ModuleSpec` (a plain string of that form is refused: text
    never imports a module, unless the caller's ``allow_modules`` names its module)."""
    if allow_modules:  # a keyword of the calling code, never read from a spec (spec_text.TRUST_ARGUMENTS)
        spec = allow(spec, allow_modules)
    spec = read_spec(spec)
    if isinstance(spec, Agent):
        if kwargs:
            raise ValueError(f"arguments {sorted(kwargs)} given for the agent object {spec!r}")
        return spec
    if isinstance(spec, Mapping):
        arguments = dict(spec)
        refuse_trust_arguments(arguments, spec)  # a mapping is data; trust comes only as a keyword below
        name = arguments.pop("agent", None)
        if not isinstance(name, str):
            raise ValueError(f"an agent mapping needs 'agent': <name>, got {dict(spec)!r}")
        return make_agent(name, variant=variant, num_players=num_players, **arguments, **kwargs)
    if not isinstance(spec, str):
        raise TypeError(f"an agent spec is {SPEC_FORMS}; got {spec!r}")
    if isinstance(spec, ModuleSpec):  # the user's own code, allowed by the command line
        return build(spec, **kwargs)
    if spec.startswith(OPENSPIEL_PREFIX):
        from .openspiel import make_openspiel_agent

        return make_openspiel_agent(spec[len(OPENSPIEL_PREFIX):], **kwargs)
    if is_model_spec(spec):
        path = spec[len(MODEL_PREFIX):] if spec.startswith(MODEL_PREFIX) else spec
        try:
            from .learned import load_agent  # numpy only; torch is imported only for a .pt weights file
        except ImportError as error:
            raise ValueError(f"cannot load learned model {path!r}: agents.learned is not available "
                             f"({error})") from None
        try:  # an argument a model does not take is the spec's fault: name it, as for a built-in agent
            inspect.signature(load_agent).bind(path, variant=variant, num_players=num_players, **kwargs)
        except TypeError as error:
            raise ValueError(f"bad arguments {kwargs!r} for the model {path!r}: {error}") from None
        return load_agent(path, variant=variant, num_players=num_players, **kwargs)
    if is_module_text(spec):  # text: it may not import a module
        raise refusal(spec)
    try:
        factory = AGENTS[spec]
    except KeyError:
        raise ValueError(f"unknown agent {spec!r}; choose from {', '.join(sorted(AGENTS))}, "
                         "a model as model:<path> or <path>.json, or openspiel:<bot>") from None
    try:
        return factory(**kwargs)
    except TypeError as error:  # an argument the agent does not take: name it, as for a bad value
        raise ValueError(f"bad arguments {kwargs!r} for agent {spec!r}: {error}") from None
