"""A variant is one declared record (commerce_env.options.Variant, in its engine module), and
everything else iterates the registry: no file lists the variants by name."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from commerce_env import guide
from commerce_env.engine import ENGINES
from commerce_env.options import Variant, register, registered, variant_info
from commerce_env.rules import DEFAULTS, OPTIONS, PRESET_VARIANTS, VARIANTS, VARIANTS_WITH_LIVES, make_rules

ROOT = Path(__file__).resolve().parents[2]
NAMES = set(VARIANTS)
# Where naming variants one by one is the point: each engine module declares its own (and nothing
# else); the independent reference and the rule scenarios test them.
ALLOWED = {
    *(f"commerce_env/engine/{name}.py" for name in VARIANTS),
    "tests/reference.py",
    *(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "engine").glob("test_rules_*.py")),
    "tests/engine/test_variant_registry.py",
}


LIBRARY = ("commerce_env", "agents", "training", "commerce_web")


def variant_lists(path: Path, every: bool = False) -> list[tuple[int, list[str]]]:
    """(line, names) of every literal list, tuple, set or dict naming two or more variants (with
    ``every``: naming all of them, a copy of the registry; dict keys then do not count)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Dict) and not every:
            items = node.keys
        elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items = node.elts
        else:
            continue
        names = [item.value for item in items if isinstance(item, ast.Constant) and item.value in NAMES]
        if (set(names) == NAMES) if every else len(set(names)) >= 2:
            found.append((node.lineno, names))
    return found


def python_files(folders: tuple[str, ...]) -> list[Path]:
    return [p for folder in folders for p in sorted((ROOT / folder).rglob("*.py"))
            if str(p.relative_to(ROOT)) not in ALLOWED]


def test_the_library_names_no_two_variants_together():
    # A table or a switch over variants belongs in the variants' own declarations (their flags).
    offenders = {str(p.relative_to(ROOT)): found for p in python_files(LIBRARY) if (found := variant_lists(p))}
    assert offenders == {}


def test_no_test_or_benchmark_copies_the_list_of_variants():
    # A scenario may pick some variants; the list of all of them is commerce_env.rules.VARIANTS.
    offenders = {str(p.relative_to(ROOT)): found for p in python_files(("tests", "benchmarks", "research"))
                 if (found := variant_lists(p, every=True))}
    assert offenders == {}


def test_a_new_list_of_variants_would_be_found(tmp_path):
    path = tmp_path / "new.py"
    path.write_text('VARIANTS = ("trade_barter", "widow")\nTITLES = {"pool": "Pool", "old_game": "Old"}\n'
                    f"EVERY = {list(VARIANTS)!r}\n")
    assert [line for line, _ in variant_lists(path)] == [1, 2, 3]
    assert [line for line, _ in variant_lists(path, every=True)] == [3]


def test_every_table_is_read_from_the_declarations():
    assert VARIANTS == tuple(registered()) and list(ENGINES) == list(VARIANTS)
    for name, info in registered().items():
        assert ENGINES[name] is info.engine and info.engine.variant == name
        assert OPTIONS[name] == info.all_options and DEFAULTS[name] == dict(info.defaults)
        assert (name in VARIANTS_WITH_LIVES) == info.has_lives == make_rules(name).has_lives
        assert (name in PRESET_VARIANTS) == info.presets
        assert guide.variant_help(name).startswith(re.sub(r"\s*\(R[\d.]+\)", "", info.guide))  # no rule numbers


def test_kernel_codes_are_the_declared_ones():
    pytest.importorskip("numba")
    from commerce_env.vector import BatchEngine

    for name, info in registered().items():
        from commerce_env.vector import row

        assert BatchEngine(name, 3, 1).params[row.P_VARIANT] == info.kernel


def test_unknown_variants_and_bad_declarations_are_named():
    with pytest.raises(ValueError, match="'cribbage'"):
        variant_info("cribbage")
    with pytest.raises(ValueError, match="'cribbage'"):
        make_rules("cribbage")
    widow = variant_info("widow")
    with pytest.raises(ValueError, match="registered twice"):
        register(Variant(name="widow", title="x", guide="x", options=widow.options, defaults=widow.defaults,
                         engine=widow.engine, kernel=widow.kernel, has_lives=False))
    with pytest.raises(ValueError, match="kernel code"):
        register(Variant(name="toy", title="x", guide="x", options=frozenset(), defaults=dict(
            tie_break="dealer", deals=1, max_rounds=1), engine=type("Toy", (), {"variant": "toy"}), kernel=0))
    with pytest.raises(ValueError, match="max_rounds"):
        Variant(name="toy", title="x", guide="x", options=frozenset(), defaults=dict(tie_break="dealer", deals=1),
                engine=type("Toy", (), {"variant": "toy"}), kernel=9)
