"""OpenSpiel game parameters <-> :class:`commerce_env.rules.Rules` (docs/rules.md R12).

pyspiel types a parameter by its default and allows neither ``None`` nor a
comma inside a value, so three options take another form here: ``deals`` is
an int with 0 for ``until_out``, ``combinations`` is one string joined by
``+`` (``tricon+sequence+point``), and ``horse_price`` is -1 for "entry // 3".
``preset`` is ``"none"`` or a preset name.  pyspiel fills in defaults before
the game sees its parameters, so a preset sets every option it names that is
left at its R12 default; an option set to another value overrides it (an
option given *equal* to its R12 default cannot be told from an absent one).
Numbers are bounded as R12's options (:data:`commerce_env.rules.OPTION_BOUNDS`): a value
out of bounds is a ``ValueError`` naming it, and every bound fits pyspiel's C ints (a value
beyond a C int is refused so before pyspiel converts it: :mod:`.loading`).
"""

from __future__ import annotations

from typing import Any

from ..checks import whole_number
from ..hands import COMBINATIONS
from ..options import DEFAULT_PLAYERS
from ..rules import OPTION_RECORDS, OPTIONS, PRESET_VARIANTS, UNTIL_OUT, VARIANTS, Rules, make_rules

UNTIL_OUT_DEALS = 0  # `deals` parameter meaning until_out (R4.5)
HORSE_PRICE_DEFAULT = -1  # `horse_price` parameter meaning entry // 3 (R9.4)
NO_PRESET = "none"
MAX_PLAYERS = 12  # R1.4


def _to_parameter(name: str, value: Any) -> Any:
    """An option's value as a parameter: by its kind (R12's table, :data:`commerce_env.rules.OPTION_TABLE`)."""
    kind = OPTION_RECORDS[name].kind
    if kind == "combinations":
        return "+".join(c for c in COMBINATIONS if c in value)
    if kind == "deals" and value == UNTIL_OUT:
        return UNTIL_OUT_DEALS
    return value


def parameter_specification(variant: str) -> dict[str, Any]:
    """Every parameter of ``python_commerce_<variant>`` with its default (R12)."""
    defaults = make_rules(variant).options()
    spec: dict[str, Any] = {"players": DEFAULT_PLAYERS, "dealer": 0}
    for name in sorted(OPTIONS[variant]):
        spec[name] = _to_parameter(name, defaults[name])
    if "horse_price" in spec:
        spec["horse_price"] = HORSE_PRICE_DEFAULT
    if variant in PRESET_VARIANTS:  # R12: no preset for My Ship Sails
        spec["preset"] = NO_PRESET
    return spec


def rules_from_parameters(variant: str, params: dict[str, Any]) -> tuple[Rules, int, int]:
    """The rules, the number of players and the first dealer of a parameter dict.

    A bad value raises ``ValueError`` naming it (R12, R1.4).
    """
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; choose from {', '.join(VARIANTS)}")
    spec = parameter_specification(variant)
    unknown = sorted(set(params) - set(spec))
    if unknown:
        raise ValueError(f"unknown parameter(s) {', '.join(unknown)} for python_commerce_{variant}; "
                         f"parameters are {', '.join(sorted(spec))}")
    values = {**spec, **params}
    options: dict[str, Any] = {}
    for name in OPTIONS[variant]:
        value = values[name]
        if value == spec[name] and type(value) is type(spec[name]):
            continue  # at its R12 default: a preset may set it
        kind = OPTION_RECORDS[name].kind
        if kind == "combinations":
            if not isinstance(value, str):
                raise ValueError(f"bad value {value!r} for parameter 'combinations'; give names joined by '+', "
                                 "e.g. tricon+sequence+point")
            value = [part for part in value.split("+") if part]
        elif kind == "deals" and value == UNTIL_OUT_DEALS:
            value = UNTIL_OUT
        elif name == "horse_price" and value == HORSE_PRICE_DEFAULT:
            value = None
        options[name] = value
    preset = values.get("preset", NO_PRESET)
    if preset != NO_PRESET:
        options["preset"] = preset
    rules = make_rules(variant, **options)
    players, dealer = values["players"], values["dealer"]
    rules.check_players(players)
    whole_number("parameter 'dealer'", dealer, 0, players - 1)
    return rules, players, dealer


def parameters_from_rules(rules: Rules, num_players: int, dealer: int = 0) -> dict[str, Any]:
    """The parameter dict that loads ``rules`` (the inverse of :func:`rules_from_parameters`)."""
    params: dict[str, Any] = {"players": num_players, "dealer": dealer}
    for name, value in rules.options().items():
        if name != "variant":
            params[name] = _to_parameter(name, value)
    return params
