"""Bounds of the numeric options (R12): one declaration, refused alike everywhere.

Every numeric option has a lowest and a highest value.  Within them a whole
match cannot overflow the batched engine's int64 kernels (rewards kept in
1/27720ths) nor lose exactness as a float, and every value fits OpenSpiel's int
parameters; outside them the AEC env, the batched engine, the vector env, the
rules file, OpenSpiel's ``load_game`` and :class:`Rules` itself raise a
``ValueError`` naming the option and the bound.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

import commerce_env
from commerce_env.rules import OPTION_BOUNDS, OPTIONS, VARIANTS, Rules, load_rules, make_rules

ROOT = Path(__file__).resolve().parents[2]
NUMERIC = sorted(OPTION_BOUNDS)
REWARD_UNIT = 27720  # the kernels' reward unit (commerce_env.vector.kernels.REWARD_UNIT)


def _variant_of(name: str) -> str:
    return next(v for v in VARIANTS if name in OPTIONS[v])


def _out_of_range(name: str) -> list[int]:
    low, high = OPTION_BOUNDS[name]
    return [high + 1, 10**100, low - 1]


def _named(error: pytest.ExceptionInfo, name: str, value: int) -> None:
    low, high = OPTION_BOUNDS[name]
    text = str(error.value)
    assert name in text and repr(value) in text
    assert (str(high) in text) if value > high else (str(low) in text)


def test_every_numeric_option_is_bounded():
    # R12: deals, max_rounds and pool commerce's money options all have an upper bound.
    numeric = {name for variant in VARIANTS for name, value in make_rules(variant).options().items()
               if type(value) is int} - {"deck_size"}  # deck_size: a choice of 52 or 32 (R1.1)
    assert numeric <= set(OPTION_BOUNDS)
    assert {"deals", "max_rounds", "entry", "payout", "horse_price"} <= set(OPTION_BOUNDS)
    for low, high in OPTION_BOUNDS.values():
        assert 0 <= low < high < 2**31 - 1  # OpenSpiel's int parameters are C ints


@pytest.mark.parametrize("name", NUMERIC)
def test_the_bounds_themselves_are_accepted(name):
    # R12
    variant = _variant_of(name)
    for value in OPTION_BOUNDS[name]:
        assert getattr(make_rules(variant, **{name: value}), name) == value


@pytest.mark.parametrize("name", NUMERIC)
def test_make_rules_refuses_values_out_of_bounds(name):
    # R12
    variant = _variant_of(name)
    for value in _out_of_range(name):
        with pytest.raises(ValueError) as error:
            make_rules(variant, **{name: value})
        _named(error, name, value)


@pytest.mark.parametrize("name", NUMERIC)
def test_rules_built_directly_refuse_values_out_of_bounds(name):
    # R12: Rules(...) and dataclasses.replace are checked as make_rules is.
    value = OPTION_BOUNDS[name][1] + 1
    with pytest.raises(ValueError) as error:
        Rules(variant=_variant_of(name), **{name: value})
    _named(error, name, value)
    with pytest.raises(ValueError):
        dataclasses.replace(make_rules(_variant_of(name)), **{name: value})


@pytest.mark.parametrize("name", NUMERIC)
def test_the_aec_env_refuses_values_out_of_bounds(name):
    # R12: max_rounds=10**100 used to be accepted by the AEC env.
    value = 10**100
    with pytest.raises(ValueError) as error:
        commerce_env.env(variant=_variant_of(name), num_players=3, **{name: value})
    _named(error, name, value)


def test_a_rules_file_with_a_value_out_of_bounds_is_refused(tmp_path):
    # R12
    high = OPTION_BOUNDS["entry"][1]
    path = tmp_path / "rules.yaml"
    path.write_text(f"variant: pool\nentry: {high + 1}\n")
    with pytest.raises(ValueError, match="entry") as error:
        load_rules(path)
    assert str(high) in str(error.value)


@pytest.mark.parametrize("name", NUMERIC)
def test_the_batched_engine_and_vec_env_refuse_values_out_of_bounds(name):
    # R12: entry=2**61 used to overflow the int64 kernels; max_rounds=10**100 raised OverflowError.
    pytest.importorskip("numba")
    from commerce_env.vector import BatchEngine
    from training.vec_env import make_vec_env

    variant = _variant_of(name)
    for value in (OPTION_BOUNDS[name][1] + 1, 2**61, 10**100):
        with pytest.raises(ValueError) as error:
            BatchEngine(variant, 3, 2, **{name: value})
        _named(error, name, value)
    with pytest.raises(ValueError) as error:
        make_vec_env(variant, 3, 1, opponents=("random",), **{name: 10**100})
    _named(error, name, 10**100)


@pytest.mark.parametrize("name", NUMERIC)
def test_openspiel_refuses_values_out_of_bounds_and_loads_the_bounds(name):
    # R12: max_rounds=100000 used to end in a TypeError from pyspiel.GameInfo.
    pyspiel = pytest.importorskip("pyspiel")
    import commerce_env.openspiel as cos

    variant = _variant_of(name)
    low, high = OPTION_BOUNDS[name]
    value = high + 1
    with pytest.raises(ValueError) as error:
        pyspiel.load_game(cos.game_name(variant), {"players": 12, name: value})
    _named(error, name, value)
    game = pyspiel.load_game(cos.game_name(variant), {"players": 12, name: high})
    assert getattr(game.rules, name) == high
    assert 0 < game.max_game_length() < 2**31


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_whole_match_at_the_bounds_fits_the_kernels_and_pyspiel(variant):
    # R4.3, R9.2, R12: OpenSpiel's bound on a player's return over a match, at the highest options and
    # 12 players, in the kernels' reward units stays exact in a float64 (and so in an int64);
    # the bound on a match's length fits OpenSpiel's int.
    pytest.importorskip("pyspiel")
    from commerce_env.openspiel import game as osg

    highest = {name: OPTION_BOUNDS[name][1] for name in OPTIONS[variant] if name in OPTION_BOUNDS}
    rules = make_rules(variant, **highest)
    low, high = osg.utility_bounds(12, rules)
    assert max(-low, high) * 12 * REWARD_UNIT < 2**53
    assert osg.DECLARED_MAX_DEALS <= OPTION_BOUNDS["deals"][1]
    assert OPTION_BOUNDS["deals"][1] * osg.deal_steps(12, rules) < 2**31


def test_the_options_table_states_every_bound():
    # R12: docs/rules.md's options table gives each numeric option's bounds.
    text = (ROOT / "docs" / "rules.md").read_text()
    rows = {cells[0].strip(): cells for line in text.splitlines()
            if line.startswith("| ") and len(cells := line.strip("|").split("|")) > 2}
    for name, (low, high) in OPTION_BOUNDS.items():
        assert name in rows, name
        stated = re.sub(r"[ ,_]", "", rows[name][1])
        assert f"{low}to{high}" in stated, (name, rows[name][1])

