"""Typed config sections, read from YAML with an error that names the key and the bad value.

A section is a dataclass (CleanRL's ``Args``: one field, one default, one docstring); each
field may carry a check of its own value (:func:`option`).  :func:`parse` turns a YAML
mapping into a section: unknown keys are refused by name, nested sections are parsed in
turn, then every field's check runs.  Checks that relate fields (a seat against the player
count, agents built for the variant) are the config's own (:mod:`training.config`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping
from dataclasses import Field, asdict, field, fields
from typing import TYPE_CHECKING, Any, TypeVar

from commerce_env.checks import is_number, is_whole

if TYPE_CHECKING:
    from commerce_env.rules import Rules

Check = Callable[[Any], "str | None"]  # None when the value is fine, else what was expected

S = TypeVar("S", bound="Section")


class Section(Mapping):
    """A dataclass that also reads as a mapping (``config["env"]["variant"]``), as the YAML does:
    scripts and tests written against the YAML's shape keep reading it; code uses attributes.
    Sections are declared ``@dataclass(eq=False)``: one equals any mapping of the same items."""

    def __getitem__(self, key: str) -> Any:
        if key not in self._names():
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

    def _names(self) -> list[str]:
        return [f.name for f in fields(self)]

    def to_dict(self) -> dict[str, Any]:
        """Plain data, as YAML writes it (a run folder's ``config.yaml``)."""
        return asdict(self)


def option(default: Any, check: Check | None = None) -> Any:
    """A field with its default (a list or mapping is copied for each config) and its value's check."""
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda: copy.deepcopy(default), metadata={"check": check})
    return field(default=default, metadata={"check": check})


def section(cls: type[Section]) -> Any:
    """A field holding a nested section, parsed from its own mapping."""
    return field(default_factory=cls, metadata={"section": cls})


# ---------------------------------------------------------------- checks of one value
# Each returns None when the value is fine, else what was expected (the error names the file and
# key: :func:`fail`); the yes-or-no tests beneath are commerce_env.checks', the whole project's.
def model_folder_or_null(value: Any) -> str | None:
    """Null, or the folder of a safe model (its own checks come when the config's relations are checked)."""
    return None if value is None or (isinstance(value, str) and value.strip()) else \
        "null or the folder of a safe model (model.json and its weights)"


def whole(low: int, high: int) -> Check:
    """A whole number from ``low`` to ``high``."""
    return lambda v: None if is_whole(v) and low <= v <= high else f"a whole number from {low} to {high:,}"


def number(low: float, high: float, low_open: bool = False, optional: bool = False) -> Check:
    """A finite number in the range (``low_open``: above ``low``); ``optional``: or null."""
    bound = f"> {low:g}" if low_open else f">= {low:g}"
    expected = ("null or " if optional else "") + f"a number {bound} and <= {high:g}"

    def check(v: Any) -> str | None:
        if optional and v is None:
            return None
        ok = is_number(v) and (v > low if low_open else v >= low) and v <= high
        return None if ok else expected
    return check


def flag(value: Any) -> str | None:
    """True or false."""
    return None if isinstance(value, bool) else "true or false"


def one_of(*choices: Any) -> Check:
    """One of ``choices`` (None among them reads as null)."""
    names = ["null" if c is None else str(c) for c in choices]
    expected = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
    return lambda v: None if any(type(v) is type(c) and v == c for c in choices) else expected


def text(expected: str) -> Check:
    """A non-empty string."""
    return lambda v: None if isinstance(v, str) and v.strip() != "" else expected


def kind(types: type | tuple[type, ...], expected: str) -> Check:
    """A value of ``types``."""
    return lambda v: None if isinstance(v, types) else expected


def integer(expected: str) -> Check:
    """A whole number (a bool is none)."""
    return lambda v: None if is_whole(v) else expected


# ---------------------------------------------------------------- errors and parsing
def fail(source: str, key: str, value: Any, expected: str) -> None:
    """The one error of a bad value: the file, the key and the value, and what was expected."""
    hint = ""
    if isinstance(value, str) and _looks_numeric(value):
        hint = " (YAML reads a number like 1e-3 as text: write 1.0e-3)"
    raise ValueError(f"{source}: bad value {value!r} for {key!r}; expected {expected}{hint}")


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def parse(cls: type[S], data: Any, source: str, key: str = "") -> S:
    """``data`` (a mapping; null: the defaults) as the section ``cls``, every value checked.

    ``key`` is where the section sits (``ppo``), for the errors; an unknown key is refused by name.
    """
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        if key:
            raise ValueError(f"{source}: section {key!r} must be a mapping, got {data!r}")
        raise ValueError(f"{source}: a training config must be a mapping of sections, got {type(data).__name__}")
    known: dict[str, Field] = {f.name: f for f in fields(cls)}
    values: dict[str, Any] = {}
    for name, value in data.items():
        where = f"{key}.{name}" if key else str(name)
        if name not in known:
            raise ValueError(f"{source}: unknown key {where!r}; allowed: {', '.join(known)}")
        nested = known[name].metadata.get("section")
        values[name] = parse(nested, value, source, where) if nested is not None else value
    parsed = cls(**values)
    for f in fields(cls):
        check = f.metadata.get("check")
        value = getattr(parsed, f.name)
        problem = check(value) if check is not None else None
        if problem:
            fail(source, f"{key}.{f.name}" if key else f.name, value, problem)
    return parsed


def check_agent_names(names: list, key: str, source: str) -> None:
    """Every entry an agent spec (:func:`agents.specs.check_spec`: names, models, mappings)."""
    from agents.specs import check_spec  # the one parser of agent specs

    for entry in names:
        try:
            check_spec(entry)
        except ValueError as error:
            raise ValueError(f"{source}: {key}: {error}") from None


def check_agents(entries: list, key: str, rules: Rules, num_players: int, source: str) -> None:
    """Each entry builds the agent it names, as the env will build it: names, arguments and model files."""
    from agents.specs import check_spec, make_agent  # the one parser of agent specs

    for i, entry in enumerate(entries):
        where = f"{key}[{i}]"
        name = entry.get("agent") if isinstance(entry, dict) else entry
        try:
            check_spec(entry)
        except ValueError as error:
            raise ValueError(f"{source}: {where}: {error}") from None
        try:
            make_agent(entry, variant=rules.variant, num_players=num_players)
        except Exception as error:  # an agent's own check of its arguments, whatever its type
            raise ValueError(f"{source}: {where} ({name}): {error}") from None
