"""Agent spec text, read without building anything: ``search(worlds=96, margin=2.0)`` is
``{"agent": "search", "worlds": 96, "margin": 2.0}``.  Its own module, below everything that
builds agents, so that every resolver (:mod:`agents.specs`, :mod:`agents.batched`) reads specs
and refuses trust arguments the same way."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Arguments that widen what a loader trusts.  A spec is data (spec text, a config, a rules file, a web
# request) and data cannot vouch for a file: these are Python keyword arguments of load_agent /
# make_agent only, never read from a spec.
TRUST_ARGUMENTS = frozenset({"trust_sb3_zip", "allow_modules"})


def refuse_trust_arguments(arguments: Mapping[str, Any], spec: Any) -> None:
    """Raise ``ValueError`` naming ``spec`` if its arguments try to widen trust (``trust_sb3_zip``, or
    any argument named ``trust...``): only code can trust a file, by calling
    ``load_agent(path, trust_sb3_zip=True)`` itself."""
    for key in arguments:
        if key == "allow_modules":
            raise ValueError(f"agent spec {spec!r}: the argument 'allow_modules' cannot be given in a spec (spec "
                             "text, a config, a rules file or a web request cannot make the project import a "
                             "module); allow a module on the command line with --allow-module")
        if isinstance(key, str) and (key in TRUST_ARGUMENTS or key.lower().startswith("trust")):
            raise ValueError(f"agent spec {spec!r}: the argument {key!r} cannot be given in a spec (spec text, "
                             "a config, a rules file or a web request cannot make the project unpickle); export "
                             "a run with `commerce export --run <folder>`, or, for a file you made yourself, call "
                             "agents.learned.load_agent(path, trust_sb3_zip=True, variant=...) in Python")


def parse_spec(text: str) -> str | dict[str, Any]:
    """A spec from its text, as a command line gives it: ``greedy`` or ``model:<path>`` as they
    are, ``search(worlds=96, margin=2.0)`` as ``{"agent": "search", "worlds": 96, "margin": 2.0}``
    (each value read as YAML: ``search=false``, ``quantile=0.7``)."""
    import yaml

    text = text.strip()
    if not text.endswith(")") or "(" not in text:
        if "(" in text or ")" in text:
            raise ValueError(f"bad agent spec {text!r}: arguments go in one pair of brackets, "
                             "e.g. search(worlds=96)")
        return text
    name, _, inside = text[:-1].partition("(")
    spec: dict[str, Any] = {"agent": name.strip()}
    for pair in split_top_level(inside):
        key, sep, value = pair.partition("=")
        if not sep or not key.strip() or key.strip() == "agent":
            raise ValueError(f"bad argument {pair!r} in agent spec {text!r}: expected name=value, "
                             "e.g. search(worlds=96)")
        refuse_trust_arguments({key.strip(): None}, text)
        try:
            spec[key.strip()] = yaml.safe_load(value)
        except yaml.YAMLError:
            raise ValueError(f"bad value {value.strip()!r} for {key.strip()!r} in agent spec {text!r}") from None
    return spec


def read_spec(spec: Any) -> Any:
    """A spec as Python code gives it, with the command line's text form too: a string ending in
    ``)`` is read by :func:`parse_spec` (``"search(worlds=96)"`` is ``{"agent": "search", "worlds":
    96}``, one agent at the table with that mapping); any other spec is returned as it is."""
    return parse_spec(spec) if isinstance(spec, str) and spec.strip().endswith(")") else spec


def split_top_level(text: str) -> list[str]:
    """``text`` split at the commas outside brackets (round, square or curly):
    ``"search(worlds=96, margin=2),greedy"`` is ``["search(worlds=96, margin=2)", "greedy"]``;
    empty pieces are dropped."""
    pieces, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth < 0:
                raise ValueError(f"unbalanced brackets in {text!r}")
        elif char == "," and depth == 0:
            pieces.append(text[start:index])
            start = index + 1
    if depth != 0:
        raise ValueError(f"unbalanced brackets in {text!r}")
    pieces.append(text[start:])
    return [piece.strip() for piece in pieces if piece.strip()]
