"""Rules from options (docs/rules.md R12), validated once, against the variants the engines declare.

:class:`Rules` is a frozen record of every option of a variant.  It is built
by :func:`make_rules` from keyword options (or a YAML file, :func:`load_rules`)
and rejects unknown options, options of another variant and bad values with a
``ValueError`` naming them, before any game state exists.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import engine as _engine  # noqa: F401 - importing the engines registers the variants
from .checks import one_of
from .options import (  # noqa: F401 - the names of the rules, re-exported
    ALL_COMBINATIONS,
    DEALER_PAYS,
    DEFAULT_PLAYERS,
    DEFAULT_VARIANT,
    DISCARDS,
    FOSTER_COMBINATIONS,
    MATCH_ENDS,
    OPTION_BOUNDS,
    OPTION_RECORDS,
    OPTION_TABLE,
    PRESET_OPTIONS,
    PRESETS,
    REWARDS,
    TIE_BREAKS,
    UNTIL_OUT,
    Option,
    Rules,
    Variant,
    check_bounds,
    registered,
    variant_info,
)

# Views of the registry (commerce_env.options), for readers that want a table.
VARIANTS: tuple[str, ...] = tuple(registered())
VARIANTS_WITH_LIVES = frozenset(name for name, v in registered().items() if v.has_lives)
OPTIONS: dict[str, frozenset[str]] = {name: v.all_options for name, v in registered().items()}
PRESET_VARIANTS = frozenset(name for name, v in registered().items() if v.presets)  # R12: not My Ship Sails
ALL_OPTIONS = frozenset().union(*OPTIONS.values()) | {"preset"}
DEFAULTS: dict[str, dict[str, Any]] = {name: dict(v.defaults) for name, v in registered().items()}


def make_rules(variant: str = DEFAULT_VARIANT, **options: Any) -> Rules:
    """Validated rules of ``variant`` with ``options`` over R12's defaults."""
    info = variant_info(variant)  # a ValueError naming an unknown variant
    allowed = info.all_options
    for name in options:
        if name not in ALL_OPTIONS:
            raise ValueError(f"unknown option {name!r}; options are {', '.join(sorted(ALL_OPTIONS))}")
        if name not in allowed and not (name == "preset" and info.presets):
            raise ValueError(f"option {name!r} does not apply to variant {variant!r}")

    values: dict[str, Any] = dict(info.defaults)
    preset = options.pop("preset", None)
    if preset is not None:
        one_of("option 'preset'", preset, PRESETS)
        values.update({k: v for k, v in PRESET_OPTIONS[preset].items() if k in allowed})
    values.update(options)

    rules: dict[str, Any] = dict(variant=variant)
    for option in OPTION_TABLE:  # R12: each option the variant takes, checked as its record says
        if option.name not in allowed:
            continue
        value = values.get(option.name, option.default)
        if option.name == "deals" and value == UNTIL_OUT and not info.has_lives:
            raise ValueError(f"bad value 'until_out' for option 'deals': variant {variant!r} has no lives")
        if option.name == "horse_price" and value is None:  # R9.4: a horse costs a third of the entry
            value = rules["entry"] // 3
        rules[option.name] = option.check(value)
    return Rules(**rules)


def load_rules(path: str | Path) -> tuple[Rules, dict[str, Any]]:
    """Rules from a YAML file: ``variant``, optional ``num_players``, options.

    Returns the rules and the remaining settings (``num_players``,
    ``name``, ``description``).  Any error names the file and the bad key.
    """
    import yaml

    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"{path}: cannot read rules file ({error})") from None
    except (yaml.YAMLError, RecursionError) as error:
        raise ValueError(f"{path}: not valid YAML ({error})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a rules file must be a mapping of option names to values")
    data = dict(data)
    for key in data:
        if not isinstance(key, str):
            raise ValueError(f"{path}: option names must be text, got {key!r}")
    extra = {k: data.pop(k) for k in ("num_players", "name", "description") if k in data}
    variant = data.pop("variant", DEFAULT_VARIANT)
    try:
        rules = make_rules(variant, **data)
        if "num_players" in extra:
            rules.check_players(extra["num_players"])
    except (ValueError, TypeError) as error:
        raise ValueError(f"{path}: {error}") from None
    return rules, extra


def with_options(rules: Rules, **options: Any) -> Rules:
    """``rules`` with some options changed, validated again."""
    current = {k: v for k, v in rules.options().items() if k != "variant"}
    current.update(options)
    return make_rules(rules.variant, **current)


def resolve_rules(variant: str | None, config: Any, options: dict[str, Any]) -> tuple[Rules, dict[str, Any]]:
    """The rules an env is built with: a YAML ``config`` (if any) under explicit
    ``options``, else ``variant`` (default trade and barter) with ``options``.

    Returns the rules and the config's other settings (``num_players`` ...).
    """
    if config is None:
        return make_rules(DEFAULT_VARIANT if variant is None else variant, **options), {}
    rules, extra = load_rules(config)
    if variant is not None and variant != rules.variant:
        raise ValueError(f"variant {variant!r} contradicts the config's variant {rules.variant!r}")
    if options:
        rules = with_options(rules, **options)
    return rules, extra


__all__ = ["Option", "Rules", "Variant", "make_rules", "load_rules", "resolve_rules", "with_options", "variant_info",
           "VARIANTS"]
