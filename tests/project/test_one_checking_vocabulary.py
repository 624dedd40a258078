"""One checking vocabulary (commerce_env.checks): no installed module tells a whole number from a bool
by hand (``isinstance(x, int) and not isinstance(x, bool)``); it asks ``is_whole`` or ``whole_number``."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("commerce_env", "agents", "training", "commerce_web", "benchmarks")
OWNER = "commerce_env/checks.py"
INTEGER_TYPES = {"int", "Integral", "integer"}


def _isinstance_of(node: ast.AST) -> set[str]:
    """The type names an ``isinstance(x, T)`` call (or its negation) tests, else nothing."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        node = node.operand
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance"
            and len(node.args) == 2):
        return set()
    kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
    return {k.attr if isinstance(k, ast.Attribute) else getattr(k, "id", "") for k in kinds}


def whole_checks_by_hand(source: str, path: str) -> list[str]:
    """Where ``source`` tests a value for an integer and for a bool in one condition."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.BoolOp):
            tested = [_isinstance_of(value) for value in node.values]
            if any("bool" in t for t in tested) and any(t & INTEGER_TYPES for t in tested):
                found.append(f"{path}:{node.lineno}")
    return found


def test_no_installed_module_checks_a_whole_number_by_hand():
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            name = str(path.relative_to(ROOT))
            if name != OWNER:
                found += whole_checks_by_hand(path.read_text(), name)
    assert found == []


def test_the_guard_sees_each_way_of_writing_one():
    # the self-test: the forms the vocabulary replaced, and look-alikes that are no such check
    source = '''
ok = isinstance(x, int) and not isinstance(x, bool)
bad = isinstance(x, bool) or not isinstance(x, int)
seed_ok = isinstance(s, (int, np.integer)) and not isinstance(s, bool)
action_ok = isinstance(a, numbers.Integral) and not isinstance(a, bool)
text_or_flag = isinstance(v, str) or isinstance(v, bool)
number = isinstance(v, int) or isinstance(v, float)
'''
    assert whole_checks_by_hand(source, "agents/example.py") == [f"agents/example.py:{n}" for n in (2, 3, 4, 5)]
