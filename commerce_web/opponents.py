"""The opponents a web request may choose: an allow-list, so that no request names a file or widens trust.

* a built-in agent by name, with only its known arguments, each of a fixed type within bounds:
  ``greedy``, ``search(worlds=96, margin=2)``; ``search`` takes at most :data:`MAX_SEARCH_WORLDS`
  worlds (or :data:`MAX_SEARCH_MS` milliseconds) a decision, so that one request cannot pin a
  server thread;
* a model of the server's models folder (``commerce serve --models DIR``) by its folder's name:
  ``model:widow`` for ``DIR/widow/model.json``.  The server finds the file; a request never names one,
  and a model takes no arguments;
* an agent the server's command line added (``commerce serve --agents my_agents:MyAgent``), by
  exactly the name it was given there: :func:`command_line_agents`.  A request never names a
  module of its own: the text ``my_agents:MyAgent`` is otherwise an unknown agent, and nothing is
  imported.

Anything else is refused with a :class:`~commerce_web.session.RequestError` naming the spec; the
refusal reads no file, so it says nothing of what exists on the server.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from agents.base import Agent
from agents.specs import AGENTS, MODEL_PREFIX, parse_spec
from commerce_env.checks import is_number, is_whole

from .errors import QUOTE_LIMIT, RequestError, quote

MAX_SPEC_LENGTH = QUOTE_LIMIT  # search with all its arguments takes 99
MAX_SEARCH_WORLDS = 256
MAX_SEARCH_MS = 5000
MAX_MODEL_JSON = 1 << 20  # bytes: a model.json is a few hundred
MODEL_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")
log = logging.getLogger(__name__)


class Bound(NamedTuple):
    """An argument's type (``int``, ``number`` or ``flag``), its range, and whether it may be null."""

    kind: str
    low: float = 0.0
    high: float = 0.0
    nullable: bool = False

    def check(self, name: str, value: Any) -> None:
        """Raise ValueError naming ``name`` unless ``value`` fits."""
        if value is None and self.nullable:
            return
        if not isinstance(value, (bool, int, float, str, type(None))):  # named by its type: never a long repr
            raise ValueError(f"{name} must be {'true or false' if self.kind == 'flag' else 'a number'}, "
                             f"got a {type(value).__name__}")
        if self.kind == "flag":
            if not isinstance(value, bool):
                raise ValueError(f"{name} must be true or false, got {value!r}")
            return
        number = is_whole(value) if self.kind == "int" else is_number(value)
        if not number or not self.low <= value <= self.high:
            kind = "a whole number" if self.kind == "int" else "a number"
            raise ValueError(f"{name} must be {kind} from {self.low:g} to {self.high:g}, got {value!r}")


class BuiltIn(NamedTuple):
    """A built-in agent the web may play: its class and the arguments a request may give it."""

    factory: Callable[..., Agent]
    arguments: dict[str, Bound]


FLAG = Bound("flag")
SHARE = Bound("number", 0.0, 1.0)
BUILT_IN: dict[str, BuiltIn] = {
    "random": BuiltIn(AGENTS["random"], {}),
    "greedy": BuiltIn(AGENTS["greedy"], {"quantile": SHARE, "barter": FLAG}),
    "expected_value": BuiltIn(AGENTS["expected_value"], {
        name: SHARE for name in ("knock_threshold", "stand_threshold", "close_threshold", "decline_threshold")}),
    "search": BuiltIn(AGENTS["search"], {
        "worlds": Bound("int", 1, MAX_SEARCH_WORLDS), "ms": Bound("number", 1, MAX_SEARCH_MS),
        "rollout_quantile": SHARE._replace(nullable=True), "barter": FLAG, "prior": FLAG._replace(nullable=True),
        "margin": Bound("number", 0, 100), "candidates": Bound("int", 1, 27, nullable=True)}),
}


@dataclass(frozen=True)
class Opponent:
    """An allowed opponent: the spec as the request gave it, how to make the agent, and, for a
    model, the variant and player count it was trained for."""

    spec: str
    make: Callable[[], Agent]
    variant: str | None = None
    players: int | None = None


def find_models(root: Path) -> dict[str, dict[str, Any]]:
    """The models of ``root`` by name (``model:<folder name>``): each a folder with a ``model.json``
    naming its variant and player count.  Read as plain JSON; a folder that is not one is left out."""
    found: dict[str, dict[str, Any]] = {}
    if not root.is_dir():
        return found
    for folder in sorted(root.iterdir()):
        meta_path = folder / "model.json"
        if not MODEL_NAME.fullmatch(folder.name) or folder.is_symlink() or not folder.is_dir():
            continue
        try:
            if meta_path.is_symlink() or not meta_path.is_file() or meta_path.stat().st_size > MAX_MODEL_JSON:
                continue
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            log.warning("models folder: %s is not a readable model.json", meta_path)
            continue
        variant, players = (meta.get("variant"), meta.get("num_players")) if isinstance(meta, dict) else (None, None)
        if isinstance(variant, str) and is_whole(players):
            found[MODEL_PREFIX + folder.name] = {"path": folder, "variant": variant, "players": players}
    return found


def command_line_agents(text: str) -> dict[str, Callable[[], Agent]]:
    """The agents ``commerce serve --agents TEXT`` adds to the allow-list, by their names at the table
    (``my_agents:MyAgent``, ``search(worlds=500)``): typed by the user, so a module of theirs may be
    imported.  Each is built once now, so that a bad one stops the server before it starts."""
    from agents.module_agents import command_line_specs
    from agents.specs import is_model_spec, make_agent, spec_name

    extra: dict[str, Callable[[], Agent]] = {}
    for spec in command_line_specs(text):
        name = spec_name(spec)
        agent = spec.get("agent") if isinstance(spec, dict) else spec
        if isinstance(agent, str) and is_model_spec(agent):
            raise ValueError(f"{name}: the page offers models from a folder: commerce serve --models DIR")
        make_agent(spec)
        extra[name] = lambda spec=spec: make_agent(spec)
    return extra


def choose(spec: Any, models: dict[str, dict[str, Any]],
           extra: dict[str, Callable[[], Agent]] | None = None) -> Opponent:
    """The opponent ``spec`` names, if the allow-list has it (``models``: :func:`find_models`;
    ``extra``: :func:`command_line_agents`); anything else is a RequestError naming it."""
    if not isinstance(spec, str) or not spec.strip():
        raise RequestError(f"an opponent is a name such as 'greedy', 'search(worlds=96)' or 'model:<name>', "
                           f"got {quote(spec)}")
    if len(spec) > MAX_SPEC_LENGTH:
        raise RequestError(f"opponent {quote(spec)}: longer than {MAX_SPEC_LENGTH} characters")
    if extra and spec.strip() in extra:
        return Opponent(spec.strip(), extra[spec.strip()])
    if spec.strip().startswith(MODEL_PREFIX):
        return _model(spec, models)
    try:
        parsed = parse_spec(spec)
    except ValueError as error:
        raise RequestError(f"opponent {spec!r}: {error}") from None
    name, arguments = (parsed, {}) if isinstance(parsed, str) else (parsed.pop("agent"), parsed)
    built_in = BUILT_IN.get(name) if isinstance(name, str) else None
    if built_in is None:
        raise RequestError(f"opponent {spec!r}: unknown agent; choose from {', '.join(BUILT_IN)} "
                           "or a model of the server's list (model:<name>)")
    for key, value in arguments.items():
        bound = built_in.arguments.get(key)
        if bound is None:
            known = ", ".join(built_in.arguments) or "none"
            raise RequestError(f"opponent {spec!r}: {name} takes no argument {key!r} here (it takes: {known})")
        try:
            bound.check(key, value)
        except ValueError as error:
            raise RequestError(f"opponent {spec!r}: {error}") from None
    return Opponent(spec, lambda: built_in.factory(**arguments))


def _model(spec: str, models: dict[str, dict[str, Any]]) -> Opponent:
    found = models.get(spec.strip())
    if found is None:
        listed = ", ".join(models) or "none"
        raise RequestError(f"opponent {spec!r}: not a model of the server's list ({listed})")
    path = found["path"]

    def make() -> Agent:
        from agents import learned

        return learned.load_agent(path, variant=found["variant"], num_players=found["players"])

    return Opponent(spec.strip(), make, found["variant"], found["players"])
